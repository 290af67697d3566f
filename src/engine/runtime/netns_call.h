/* Run a function in another network namespace on a thread of its own, so
 * the caller's thread never leaves the engine's namespace (sockets made
 * there stay in that namespace whichever thread uses them later). */
#ifndef ALLOX_NETNS_CALL_H
#define ALLOX_NETNS_CALL_H

/* FN(ARG) on a new thread that has joined NETNS_FD; its result, or -1 with
 * errno when the thread or the setns failed. */
int ax_netns_call(int netns_fd, int (*fn)(void *arg), void *arg);

#endif
