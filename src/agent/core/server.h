/* The HTTP server: libmicrohttpd behind a gate (listen_gate.h) on an
 * inherited listening socket, the access-token check and dispatch through
 * the route table (route.h). */
#ifndef ALLOX_AGENT_SERVER_H
#define ALLOX_AGENT_SERVER_H

#include "lib/ax_error.h"
#include "agent/core/route.h"

/* Must stay at one address while running: connection threads point at it. */
struct ag_server {
	struct MHD_Daemon *daemon;
	struct ax_gate *gate;
	int listen_fd;
	const struct ag_ctx *ctx;
	const struct ag_route *routes;
};

/* Serve ROUTES on LISTEN_FD (bound and listening) until ag_server_stop. */
int ag_server_start(struct ag_server *srv, int listen_fd, const struct ag_ctx *ctx,
		    const struct ag_route *routes, ax_error *err);

/* Stop accepting connections and close the listening socket; requests in
 * flight carry on until ag_server_stop. */
void ag_server_quiesce(struct ag_server *srv);

/* Close every connection and wait for their threads. */
void ag_server_stop(struct ag_server *srv);

#endif
