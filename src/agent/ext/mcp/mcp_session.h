/* Sessions of the /mcp Streamable HTTP endpoint: a 128-bit random id
 * (Mcp-Session-Id) given at initialize, with the negotiated protocol
 * version. Idle sessions expire; the oldest goes when the table is full. */
#ifndef ALLOX_AGENT_MCP_SESSION_H
#define ALLOX_AGENT_MCP_SESSION_H

#include <stddef.h>

#define MCP_SESSION_ID_LEN 32   /* hex digits */
#define MCP_VERSION_LEN 16

struct mcp_sessions;

struct mcp_sessions *mcp_sessions_new(void);
void mcp_sessions_free(struct mcp_sessions *s);

/* A new session speaking VERSION; its id in ID. -1 when the system has no randomness. */
int mcp_session_create(struct mcp_sessions *s, const char *version, char id[MCP_SESSION_ID_LEN + 1]);
/* Is ID live? Then refresh it and copy its version. 0 or -1. */
int mcp_session_touch(struct mcp_sessions *s, const char *id, char version[MCP_VERSION_LEN]);
/* End ID. 0, or -1 if unknown. */
int mcp_session_delete(struct mcp_sessions *s, const char *id);

#endif
