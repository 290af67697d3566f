/* Moving a connection's bytes to another socket without copying them
 * through user space (the engine's endpoint forwarders, the agent's
 * DevTools relay). */
#ifndef ALLOX_SPLICE_COPY_H
#define ALLOX_SPLICE_COPY_H

/* Move bytes from IN to OUT until IN ends or either fails, through a pipe
 * of up to 1 MiB, then shut down OUT's writing side: the other end sees
 * the end while its reply may still come back. */
void ax_splice_copy(int in, int out);

/* Relay A and B both ways (one way on a thread of its own) until both
 * directions end; the caller closes them. */
void ax_splice_relay(int a, int b);

#endif
