#ifndef ALLOX_ENGINE_HTTP_SERVER_H
#define ALLOX_ENGINE_HTTP_SERVER_H

#include "engine.h"

struct MHD_Daemon;

/* Serve the lifecycle API on the listening socket FD. REQUIRE_KEY: check
 * OPEN-SANDBOX-API-KEY (TCP); a unix socket relies on file permissions. */
struct MHD_Daemon *ax_http_serve(ax_engine *e, int fd, bool require_key, ax_error *err);

#endif
