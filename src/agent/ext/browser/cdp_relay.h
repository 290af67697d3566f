/* Chromium's DevTools from the host, through the agent.
 * Chromium listens on 127.0.0.1 of the sandbox's own network, which only
 * the sandbox reaches. The engine hands the agent a second listening socket
 * on the host's loopback (--cdp-listen-fd); this relay serves it: a
 * connection that shows the sandbox's access token (the
 * X-EXECD-ACCESS-TOKEN header, or the relay's secret path prefix that
 * cdp_url carries, for CDP clients that cannot send headers) is spliced to
 * Chromium; any other is answered 401. */
#ifndef ALLOX_AGENT_CDP_RELAY_H
#define ALLOX_AGENT_CDP_RELAY_H

#include <stddef.h>

struct ag_browser;
struct ag_relay;

/* Serve LISTEN_FD (owned from now on) for browser B, letting in who shows
 * TOKEN (TOKEN_LEN bytes). NULL when out of resources (LISTEN_FD closed). */
struct ag_relay *ag_relay_start(int listen_fd, struct ag_browser *b, const char *token, size_t token_len);
/* Stop accepting and close the listener; connections in flight end with
 * Chromium. */
void ag_relay_stop(struct ag_relay *r);
/* "ws://127.0.0.1:PORT/cdp/SECRET": what cdp_url starts with. */
const char *ag_relay_base(const struct ag_relay *r);

#endif
