/*
 * Client of the OpenSandbox lifecycle API. The connection comes from the
 * configuration: connection.domain unset or "local" is the embedded engine on
 * its unix socket (started on demand), "unix:/path" a socket, "host:port" or a
 * URL a TCP server.
 */
#ifndef ALLOX_LIFECYCLE_H
#define ALLOX_LIFECYCLE_H

#include <stdbool.h>
#include <jansson.h>

#include "lib/conf.h"
#include "lib/ax_error.h"
#include "lib/http.h"

typedef struct ax_lifecycle {
	ax_http http;
	bool local;          /* the embedded engine */
	bool use_server_proxy;
	char *display;       /* where we talk to, for messages */
} ax_lifecycle;

int ax_lc_open(ax_lifecycle *lc, const ax_config *cfg, const char *home, bool verbose, ax_error *err);
void ax_lc_close(ax_lifecycle *lc);

/* METHOD PATH (under /v1) expecting status EXPECT. The decoded JSON body goes
 * to *OUT (NULL for an empty body) when OUT is non-NULL. A non-EXPECT status
 * becomes "Sandbox error [CODE]: message" (exit 1). */
int ax_lc_call(ax_lifecycle *lc, const char *method, const char *path, const json_t *body, long expect,
	       json_t **out, ax_error *err);

/* Walk every page of GET COLLECTION ("/sandboxes", "/snapshots") with the
 * extra QUERY ("state=Running", may be NULL); a new array of the items. */
json_t *ax_lc_list_all(ax_lifecycle *lc, const char *collection, const char *query, ax_error *err);

/* GET /sandboxes/ID: *OUT becomes the Sandbox object. */
int ax_lc_get_sandbox(ax_lifecycle *lc, const char *id, json_t **out, ax_error *err);

/* GET /sandboxes/{id}/endpoints/{port}; *URL becomes "http://<endpoint>" and
 * *HEADERS (if non-NULL) the headers to send with each runtime request. */
int ax_lc_endpoint(ax_lifecycle *lc, const char *id, int port, char **url, json_t **headers, ax_error *err);

/* Start the local engine if its socket does not answer; wait until it does.
 * *CONN: the connection that answered (non-blocking, the caller's), or -1. */
int ax_local_engine_ensure(const char *home, bool verbose, int *conn, ax_error *err);

/* The engine's socket path for HOME; malloc'd. */
char *ax_local_socket_path(const char *home);

/* Does a server accept connections on the unix socket PATH? Never starts one. */
bool ax_local_socket_answers(const char *path);

#endif
