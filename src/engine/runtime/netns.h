/* A sandbox's own network namespace and its user-mode stack (netns.c).
 * The namespace is made with the sandbox's user namespace (userns.c). The
 * parent prepares everything here; the setup child only makes system calls
 * (ax_net_launch, ax_net_enter). */
#ifndef ALLOX_NETNS_H
#define ALLOX_NETNS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "engine/runtime/runtime_internal.h"

#define AX_RT_SLIRP "/usr/bin/slirp4netns"

/* The route message the setup child sends: one RTM_NEWROUTE. */
typedef struct ax_net_route {
	unsigned char msg[64];
	size_t len;
} ax_net_route;

/* Unreachable from inside whatever a packet says: link-local (cloud
 * metadata services live at 169.254.169.254). */
#define AX_NET_ROUTES 1

typedef struct ax_net {
	int netns_fd;                 /* the sandbox's namespace; -1: the host's (AX_NET_HOST) */
	int userns_fd;                /* the sandbox's user namespace, for the stack */
	int ready_w;                  /* the stack's --ready-fd; -1: none */
	int null_fd;                  /* the stack's stdin, stdout and stderr */
	int go_r;                     /* the stack execs once a byte (or EOF) arrives here */
	unsigned uid_base;            /* the host uid the stack runs as */
	bool own_dns;                 /* no DNS forwarder in the stack (the engine resolves) */
	char *const *argv;            /* the stack's command line; NULL: no stack (AX_NET_NONE) */
	ax_net_route routes[AX_NET_ROUTES];
} ax_net;

/* Fill N's routes and, for AX_NET_ISOLATED, the stack's argv into ARGV
 * (fds of N must be set). -1 when out of memory. */
int ax_net_prepare(ax_net_mode mode, ax_net *n, ax_strv *argv);

/* In the setup child, still host root, before its mounts: fork the stack,
 * which becomes the sandbox's host uid, dies with its parent (the setup
 * process, which becomes bwrap's monitor) and execs slirp4netns in the
 * host's network namespace. Its pid, or -1 with errno. */
pid_t ax_net_launch(const ax_net *n);

/* In the setup child, still host root: enter the sandbox's namespace, bring
 * its loopback up and add the routes. 0, or -1 with errno. */
int ax_net_enter(const ax_net *n);

#endif
