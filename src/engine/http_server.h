#ifndef ALLOX_ENGINE_HTTP_SERVER_H
#define ALLOX_ENGINE_HTTP_SERVER_H

#include "engine/engine.h"

struct MHD_Daemon;
struct ax_gate;

/* One listening socket's server. Connection threads point at it, so it must
 * stay at one address (the caller's) until ax_http_stop. */
typedef struct ax_http_server {
	struct MHD_Daemon *daemon;
	struct ax_gate *gate;       /* accepts; see listen_gate.h */
	ax_engine *engine;
	bool require_key;
	bool unix_socket;           /* the listening socket is a unix one */
	/* What answers the requests: NULL = the lifecycle API (ax_engine_handle). */
	void (*handle)(ax_engine *e, const ax_req *req, ax_resp *resp);
} ax_http_server;

/* Serve the lifecycle API on the listening socket FD. REQUIRE_KEY: check
 * OPEN-SANDBOX-API-KEY (TCP); a unix socket relies on file permissions. */
int ax_http_serve(ax_http_server *srv, ax_engine *e, int fd, bool require_key, ax_error *err);

/* Close every connection and wait for their threads; no-op if not serving. */
void ax_http_stop(ax_http_server *srv);

#endif
