/* The agent's extension module: Jupyter (libzmq, OpenSSL
 * HMAC), the browser (libwebsockets, OpenSSL) and the MCP hub live in
 * allox-agent-ext.so, which the agent dlopen()s on the first request that
 * needs them (ext_loader.c). Every sandbox's init then maps only libc,
 * jansson and libmicrohttpd; a sandbox that never uses these features never
 * pays for them.
 *
 * This header is the whole interface: the module exports one object,
 * AG_EXT_SYMBOL, of type struct ag_ext_api. The module is built from the same
 * tree as the agent and installed beside it, so both share struct ag_ctx and
 * struct ag_req (route.h); the loader still refuses a module whose ABI number
 * or struct sizes differ, since a mismatch would corrupt memory, not fail. */
#ifndef ALLOX_AGENT_EXT_H
#define ALLOX_AGENT_EXT_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/core/route.h"

/* Bump when struct ag_ext_api, struct ag_ext_config, struct ag_ctx or
 * struct ag_req change meaning. */
#define AG_EXT_ABI 5u
#define AG_EXT_SYMBOL "ag_ext_api_v1"
/* The module's file name; it sits in the agent's directory. */
#define AG_EXT_FILE "allox-agent-ext.so"

/* The libmicrohttpd functions the module calls, as the agent links them.
 * The agent may carry a static copy (configure's --enable-static-microhttpd);
 * a second, shared copy in the module would serve the agent's connections
 * with its own globals. So the module links no libmicrohttpd and forwards
 * its calls here (ext_mhd.c). */
struct ag_ext_mhd {
	struct MHD_Response *(*create_response_from_buffer)(size_t size, void *buffer,
							     enum MHD_ResponseMemoryMode mode);
	enum MHD_Result (*add_response_header)(struct MHD_Response *response, const char *header,
					       const char *content);
	enum MHD_Result (*queue_response)(struct MHD_Connection *connection, unsigned int status_code,
					  struct MHD_Response *response);
	struct MHD_Response *(*create_response_from_callback)(uint64_t size, size_t block_size,
							       MHD_ContentReaderCallback crc, void *crc_cls,
							       MHD_ContentReaderFreeCallback crfc);
	void (*destroy_response)(struct MHD_Response *response);
	const char *(*lookup_connection_value)(struct MHD_Connection *connection, enum MHD_ValueKind kind,
					       const char *key);
	const union MHD_ConnectionInfo *(*get_connection_info)(struct MHD_Connection *connection,
								enum MHD_ConnectionInfoType info_type, ...);
};

/* What the module needs from the agent's start-up, read once in main.c. */
struct ag_ext_config {
	const struct ag_ext_mhd *mhd;  /* set by the loader */
	const char *mcp_servers;      /* ALLOX_AGENT_MCP_SERVERS (may be NULL) */
	bool mcp_bridge;              /* false: ALLOX_AGENT_MCP_NO_BRIDGE=1 (test hook) */
	const char *mcp_test_caps;    /* ALLOX_AGENT_MCP_TEST_CLIENT_CAPABILITIES (may be NULL) */
	int cdp_listen_fd;            /* --cdp-listen-fd: the DevTools relay's socket (cdp_relay.h), -1: none */
};

struct ag_ext_api {
	unsigned abi;                 /* AG_EXT_ABI */
	size_t ctx_size;              /* sizeof(struct ag_ctx) */
	size_t req_size;              /* sizeof(struct ag_req) */
	/* Fill CTX's jupyter, browser and mcp (its other fields are set).
	 * 0, or -1 with a reason in MSG. */
	int (*start)(struct ag_ctx *ctx, const struct ag_ext_config *conf, char *msg, size_t msg_size);
	/* Stop what start made (kernels, Chromium, MCP servers); CTX as filled by start. */
	void (*stop)(struct ag_ctx *ctx);
	/* GET /code/contexts's list of the module's contexts (all, or those of
	 * LANGUAGE) as JSON text, to go with the agent's own bash contexts;
	 * malloc'd, NULL on ENOMEM. */
	char *(*code_contexts)(struct ag_ctx *ctx, const char *language);
	/* The module's routes, terminated by a row with a NULL method. The
	 * agent's table has the same rows with ag_ext_route as the handler. */
	const struct ag_route *routes;
};

#endif
