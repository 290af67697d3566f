/* MCP server names, as the profile's [mcp.servers.<name>] tables give them:
 * checked by the CLI before they travel and by the agent that starts them. */
#ifndef ALLOX_MCP_NAME_H
#define ALLOX_MCP_NAME_H

#include <stdbool.h>

/* 1 to 64 of A-Z a-z 0-9 _ . - (they name log files and prefix tool names). */
bool ax_mcp_name_ok(const char *name);

#endif
