/* The front door of a listening socket (the engine's and the agents' HTTP
 * servers): one thread accepts every connection and holds it in an epoll set
 * until it has sent a whole request header, then hands it to the server
 * (MHD_add_connection), whose threads thus only ever serve requests.
 *
 * Anyone on the host can connect to a loopback port, and all of them are
 * 127.0.0.1, so per-address limits cannot tell the owner from a flood. What
 * the gate does instead:
 *   - an idle or slow connection costs a descriptor and a few dozen bytes
 *     here, never a thread, and is closed when its header is not complete
 *     header_ms after it was accepted, however it trickles bytes;
 *   - at max_held, a new connection closes the oldest one held, so a flood
 *     delays a client only if it opens max_held connections between that
 *     client's connect and the end of its header (a millisecond);
 *   - out of descriptors, accept closes the oldest one held and retries
 *     (or pauses 100 ms when none is held), instead of spinning.
 * What it costs: a header must arrive within header_ms and header_max bytes
 * (else 431), and each connection passes one more thread hop (tens of µs). */
#ifndef ALLOX_LISTEN_GATE_H
#define ALLOX_LISTEN_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "lib/ax_error.h"

typedef struct ax_gate ax_gate;

typedef struct ax_gate_limits {
	unsigned max_held;   /* connections held at once; 0: half the RLIMIT_NOFILE soft limit,
	                      * from 16 to 16384 */
	unsigned header_ms;  /* from accept to the end of the header; 0: 10000 */
	size_t header_max;   /* header bytes before a 431; 0: 32 KiB */
} ax_gate_limits;

/* Called on the gate's thread with a connection whose header has arrived
 * (non-blocking, close-on-exec, nothing read from it yet); owns FD. */
typedef void (*ax_gate_pass)(void *cls, int fd, const struct sockaddr *addr, socklen_t addrlen);

/* Start accepting on LISTEN_FD (bound, listening; stays the caller's). LIM
 * may be NULL for the defaults. */
int ax_gate_start(ax_gate **gate, int listen_fd, const ax_gate_limits *lim, ax_gate_pass pass, void *cls,
		  ax_error *err);

/* Stop accepting, close the connections still held and free GATE; no pass
 * call runs once it returns. NULL is a no-op. */
void ax_gate_stop(ax_gate *gate);

/* Do the LEN bytes at BUF hold a whole request header (the request line,
 * header lines, an empty line)? Lines end in CRLF or a bare LF and empty
 * lines before the request line are skipped, as libmicrohttpd reads them, so
 * the server never waits for more of a header the gate passed on. */
bool ax_gate_header_complete(const char *buf, size_t len);

#endif
