/* Facts about the machine for GET /v1/sandbox, gathered on each call. Only
 * files and PATH lookups: a readiness probe must not spawn processes. */
#ifndef ALLOX_AGENT_SYSINFO_H
#define ALLOX_AGENT_SYSINFO_H

#include <jansson.h>

/* $HOME when absolute, else the passwd entry, else /home/gem. Malloc'd. */
char *ag_sysinfo_home(void);

/* $WORKSPACE when absolute, else the home directory. Malloc'd. */
char *ag_sysinfo_workspace(void);

/* The AIO SandboxDetail object: {"system":{...},"runtime":{...},"utils":[...]}. */
json_t *ag_sysinfo_detail(void);

/* The human-readable summary AIO puts in "data", written from DETAIL. Malloc'd. */
char *ag_sysinfo_text(const json_t *detail, const char *version, const char *sandbox_id);

#endif
