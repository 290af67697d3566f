/* The module's libmicrohttpd: the agent's own functions (ext.h, struct ag_ext_mhd). */
#ifndef ALLOX_AGENT_EXT_MHD_H
#define ALLOX_AGENT_EXT_MHD_H

#include "agent/ext/ext.h"

/* Called once by the module's start(), before any route runs. */
void ag_ext_mhd_use(const struct ag_ext_mhd *mhd);

#endif
