/* The agent's side of ext.h: finds, loads and starts allox-agent-ext.so on
 * the first request to a route it serves, then hands such requests to it. */
#ifndef ALLOX_AGENT_EXT_LOADER_H
#define ALLOX_AGENT_EXT_LOADER_H

#include <jansson.h>
#include <stdbool.h>

#include "agent/ext/ext.h"
#include "agent/core/route.h"

struct ag_ext;

/* Cheap: loads nothing. PATH is copied; CONF's strings must outlive the
 * loader. NULL on ENOMEM. */
struct ag_ext *ag_ext_new(const char *path, const struct ag_ext_config *conf);
/* Stops the module's kernels, browser and servers if it was started. Call
 * once the server has stopped. */
void ag_ext_free(struct ag_ext *e);
/* Where the module is: beside the agent, i.e. in ARGV0's directory when
 * ARGV0 is absolute (in a sandbox /.allox/bin, even when the agent runs
 * through /.allox/ld.so), else in /proc/self/exe's. Malloc'd; NULL on ENOMEM. */
char *ag_ext_path(const char *argv0);

/* The handler of every row the module serves (routes_ext.h): loads the
 * module if needed, then calls the module's handler for the same row with
 * the module's context. 503 naming the module when it cannot be loaded. */
enum MHD_Result ag_ext_route(struct ag_req *req);

/* Is the module loaded (so it may hold Jupyter contexts)? Loads nothing. */
bool ag_ext_loaded(const struct ag_ctx *ctx);
/* The module's code contexts (all, or LANGUAGE's) as a JSON array; an
 * empty one when the module is not loaded, which then has none. NULL on
 * ENOMEM. Loads nothing. */
json_t *ag_ext_code_contexts(const struct ag_ctx *ctx, const char *language);

#endif
