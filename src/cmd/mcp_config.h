/* The profile's MCP servers ([mcp.servers.<name>] tables), checked and put
 * in a sandbox create request's extensions. */
#ifndef ALLOX_CMD_MCP_CONFIG_H
#define ALLOX_CMD_MCP_CONFIG_H

#include <jansson.h>

#include "lib/conf.h"
#include "lib/ax_error.h"

/* The extensions key and its value: a JSON object as a string (extensions
 * is a string-to-string map in the lifecycle spec). */
#define AX_MCP_EXTENSION "allox.mcp.servers"

/* The [mcp.servers] tables of CFG's file as {name: {command, env?, cwd?}}
 * in *SERVERS (a new reference; NULL when there are none). -1 with ERR
 * (exit 1, naming the key) when they are malformed. */
int ax_mcp_config_servers(const ax_config *cfg, json_t **servers, ax_error *err);

/* Add extensions[AX_MCP_EXTENSION] to REQ when the profile declares servers. */
int ax_mcp_add_extension(const ax_config *cfg, json_t *req, ax_error *err);

#endif
