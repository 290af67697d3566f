/* User namespaces made by the engine (userns.c). */
#ifndef ALLOX_USERNS_H
#define ALLOX_USERNS_H

#include "lib/ax_error.h"

/* A user namespace owned by host uid/gid OWNER whose uids and gids
 * INSIDE..INSIDE+COUNT-1 are host OUTSIDE..; *FD is an O_RDONLY fd of it
 * (CLOEXEC), which keeps it alive. With NETNS_FD, also a new network
 * namespace owned by it (only a loopback, down), in *NETNS_FD. Host root only. */
int ax_userns_open(unsigned inside, unsigned outside, unsigned count, unsigned owner, int *fd, int *netns_fd,
		   ax_error *err);

#endif
