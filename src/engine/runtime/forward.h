/* Endpoints of a sandbox's ports, reachable only from the host's loopback
 * (forward.c): a listener on 127.0.0.1:<ephemeral> whose connections are
 * spliced to the sandbox's port, connected from inside its network
 * namespace. */
#ifndef ALLOX_FORWARD_H
#define ALLOX_FORWARD_H

#include <stdbool.h>
#include <sys/types.h>

#include "lib/ax_error.h"

typedef struct ax_fwds ax_fwds;

ax_fwds *ax_fwds_new(void);
/* Stop every forwarder (connections in flight end with their sandbox). */
void ax_fwds_free(ax_fwds *set);

/* Whether something listens on TCP PORT in the network namespace of NETNS_FD
 * (an fd of /proc/<pid>/ns/net). 1 yes, 0 no, -1 with ERR. */
int ax_fwd_listening(int netns_fd, int port, ax_error *err);

/* The host port forwarding to PORT of sandbox ID, whose namespace is
 * NETNS_FD (borrowed): the existing forwarder, or a new one. -1 with ERR. */
int ax_fwd_get(ax_fwds *set, const char *id, int netns_fd, int port, int *host_port, ax_error *err);

/* Stop the forwarders of sandbox ID (its deletion). */
void ax_fwd_drop(ax_fwds *set, const char *id);

#endif
