/* The fork/exec half of ax_rt_start (runtime_spawn.c). */
#ifndef ALLOX_RUNTIME_SPAWN_H
#define ALLOX_RUNTIME_SPAWN_H

#include "engine/runtime/netns.h"
#include "engine/runtime/runtime_internal.h"

/* Setup steps other than the mount plan's (which are reported by index). */
enum {
	AX_STEP_FORK = -1,
	AX_STEP_SETSID = -2,
	AX_STEP_CGROUP = -3,
	AX_STEP_UNSHARE = -4,
	AX_STEP_PRIVATE = -5,
	AX_STEP_STDIO = -6,
	AX_STEP_KEEPFD = -7,
	AX_STEP_EXEC = -8,
	AX_STEP_ROOT = -9,
	AX_STEP_IDENTITY = -10,
	AX_STEP_NET_STACK = -11,
	AX_STEP_NETNS = -12,
};

/* What the setup process needs, all prepared by the parent. Every fd here is
 * CLOEXEC and >= 3; info_w and keep_fds are the ones bwrap inherits. */
typedef struct ax_spawn {
	const ax_plan *mounts;
	const char *root;           /* the planned root (ax_rootfs.merged) */
	char *const *argv;          /* bwrap's command line */
	int cg_fds[AX_CG_N];        /* v1 tasks / v2 cgroup.procs files to join, -1 when unused */
	int null_fd, log_fd;        /* stdin; stdout and stderr (unless kept) */
	int status_w, info_w;
	const int *keep_fds;
	const int *idmap_fds;       /* user namespaces of ax_rootfs.idmap_from, for AX_OP_IDMAP */
	int userns_fd;              /* the sandbox's own, for bwrap --userns */
	int seccomp_fd;             /* for bwrap --seccomp, -1 when none */
	unsigned uid_base;          /* the host identity bwrap runs as */
	const ax_net *net;          /* the sandbox's network; NULL: the host's */
	struct rlimit nofile;       /* RLIMIT_NOFILE for bwrap and the sandbox; rlim_max 0 = ours */
	char *stack_b;              /* set by ax_spawn_fork */
	char *scratch;              /* set by ax_spawn_fork: AX_SPAWN_SCRATCH bytes for setup */
} ax_spawn;

#define AX_SPAWN_SCRATCH (64 * 1024)

/* Start the intermediate child; returns after it has exited (reap it: the
 * pid is returned) or -1 with errno. */
pid_t ax_spawn_fork(ax_spawn *sp);

/* Read the status pipe to EOF: 0 once bwrap has been exec'd, with the setup
 * (= bwrap monitor) pid and start time in SETUP_PID and START and the
 * network stack's pid in NET_PID (0: none); -1 with ERR describing the
 * failed step (SETUP_PID and NET_PID are still set when known). */
int ax_spawn_status(int fd, const ax_plan *mounts, pid_t *setup_pid, unsigned long long *start, pid_t *net_pid,
		    ax_error *err);

#endif
