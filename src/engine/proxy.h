/* The server proxy: endpoints that go through the engine itself, for a
 * client that reaches only the engine (use_server_proxy), and signed
 * endpoints that carry an expiry and an HMAC instead of a header (expires).
 *
 *   {host}/v1/sandboxes/{id}/proxy/{port}[/sig-{expiry base 36}-{hmac}]/...
 *
 * The engine forwards such a request, path after the prefix, to the
 * sandbox's port, and relays the rest of the connection both ways (so an
 * Upgrade, e.g. a WebSocket, works). A request needs, on TCP, the engine's
 * API key, the sandbox's proxy token (X-Allox-Proxy-Token, which the
 * endpoint answer carries), or an unexpired signature; neither the key nor
 * the token reaches the sandbox. */
#ifndef ALLOX_ENGINE_PROXY_H
#define ALLOX_ENGINE_PROXY_H

#include <stdbool.h>
#include <time.h>

#include "engine/engine.h"

#define AX_PROXY_TOKEN_HEADER "X-Allox-Proxy-Token"

/* The engine's proxy key: $ALLOX_HOME/engine/proxy.key, made (0600) when
 * missing; into E. */
int ax_proxy_key_load(ax_engine *e, ax_error *err);

/* Sandbox ID's proxy token (64 hex digits and a NUL). */
void ax_proxy_token(const ax_engine *e, const char *id, char out[65]);
/* The signature of ID's PORT until EXPIRES (64 hex digits and a NUL). */
void ax_proxy_sign(const ax_engine *e, const char *id, long port, unsigned long long expires, char out[65]);

/* GET /sandboxes/{id}/endpoints/{port} with use_server_proxy (EXPIRES 0)
 * or expires: the Endpoint through the engine at HOST. */
json_t *ax_proxy_endpoint(ax_engine *e, const char *id, const char *port_s, const char *host,
			  unsigned long long expires, ax_error *err);

/* Whether request path PATH (with or without /v1, no query) is the proxy's. */
bool ax_proxy_path(const char *path);

struct ax_http_server;
/* On the listener's gate thread, for a connection whose header has arrived:
 * true when it asks for the proxy, which then owns FD (and answers it on a
 * thread of its own). */
bool ax_proxy_take(const struct ax_http_server *srv, int fd);

#endif
