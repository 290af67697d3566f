/* Sandbox runtime of the local engine: spawns one bubblewrap sandbox on
 * overlays, and freezes, thaws, checks and kills it. The engine owns ids,
 * records and persistence; this layer needs only the spec at start and the
 * handle (plus the id) afterwards, so a restarted engine can re-adopt a
 * sandbox from its saved handle. */
#ifndef ALLOX_RUNTIME_H
#define ALLOX_RUNTIME_H

#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "lib/ax_error.h"

/* How many uids (and gids) a sandbox has: 0..65535, as in a container. */
#define AX_RT_IDS 65536u

/* A sandbox's network. */
typedef enum ax_net_mode {
	AX_NET_ISOLATED,  /* own namespace: loopback, and out through a user-mode stack (slirp4netns) */
	AX_NET_NONE,      /* own namespace: loopback only */
	AX_NET_HOST,      /* the host's namespace (unsafe: every host and sandbox socket) */
} ax_net_mode;

/* A directory mounted into the sandbox (a volume). Its files' owners show
 * through an idmap: on-disk uid (and gid) owner_from + i is the sandbox's
 * i, for i below count; other owners show as the overflow uid, and the
 * sandbox's users from count on cannot create files there. */
#define AX_VOLUMES_MAX 16

typedef struct ax_rt_volume {
	int fd;                      /* O_PATH fd of the directory, the caller's (mounted, not its path) */
	const char *path;            /* mount point inside: absolute, no ".", ".." or empty component */
	bool read_only;
	unsigned owner_from;
	unsigned count;              /* AX_RT_IDS or 1 */
} ax_rt_volume;

typedef struct ax_rt_spec {
	const char *id;              /* [A-Za-z0-9_.-]{1,64}: hostname prefix (12 chars) and cgroup name */
	const char *state_dir;       /* $ALLOX_HOME/engine/sandboxes/<id>; exists, private to the engine */
	const char *image;           /* "host" or "rootfs:/abs/path" */
	const char *const *layers;   /* read-only layers (checkpoints) above the image, topmost first,
	                              * NULL-terminated or NULL; same layout as <state_dir>/layer */
	const char *const *argv;     /* PID 1 inside; argv[0] is an absolute host path, NULL-terminated */
	const char *const *env;      /* "K=V" for the sandbox, NULL-terminated or NULL */
	const int *keep_fds;         /* fds passed through at the same numbers, -1-terminated or NULL */
	const char *hide_path;       /* $ALLOX_HOME: never visible inside; NULL = nothing extra */
	const char *image_dir;       /* shared image data; NULL = <state_dir>/../../images */
	const char *host_mask;       /* "host" image: the layer that hides what host users may not
	                              * read (ax_host_mask_get), NULL = none */
	const char *log_path;        /* the sandbox's stdout/stderr and bwrap's own errors (appended);
	                              * NULL = <state_dir>/console.log */
	unsigned uid_base;           /* host uid and gid of root inside: the sandbox's users and groups
	                              * 0..AX_RT_IDS-1 are host uid_base.., which no other running
	                              * sandbox uses; never 0 */
	const unsigned *layer_bases; /* per layer: the host uid its files' owners start at (the
	                              * uid_base of the sandbox that captured it; 0 for layers stored
	                              * unshifted); NULL = all 0 */
	bool nesting;                /* may create user namespaces (nested sandboxes) */
	ax_net_mode network;
	int net_ready_w;             /* AX_NET_ISOLATED: written to (or closed) by the stack once the
	                              * sandbox's interface is configured; 0-2 or -1 = none */
	/* Called in the caller's process (host root) once the sandbox's own
	 * network namespace exists (NETNS_FD, borrowed) and before anything runs
	 * in it or the stack starts: the egress filter and resolver go in here.
	 * -1 with ERR fails the start. NULL = none. */
	int (*net_hook)(void *arg, int netns_fd, ax_error *err);
	void *net_hook_arg;
	bool net_own_dns;            /* AX_NET_ISOLATED: the stack forwards no DNS (the hook resolves) */
	const char *resolv_conf;     /* a host file shown as /etc/resolv.conf (read-only); NULL = the image's */
	const ax_rt_volume *volumes; /* mounted last, in order; their mount points are made as needed
	                              * (no symlink followed); NULL = none */
	size_t n_volumes;
	long long memory_bytes;      /* 0 = no limit */
	long long pids_max;          /* 0 = no limit; counts bwrap's monitor process too */
	long long cpu_millis;        /* CPU time per wall time, in millicores (1000 = one CPU); 0 = no limit */
	long long disk_bytes;        /* size of the writable layer's file system (disk.h); 0 = no bound */
	rlim_t nofile_cur, nofile_max; /* RLIMIT_NOFILE of PID 1 (bwrap too); 0, 0 = the caller's */
} ax_rt_spec;

typedef struct ax_rt_handle {
	pid_t pid;                   /* the outer bwrap process (host pid), not the engine's child */
	unsigned long long start;    /* its start time (/proc/<pid>/stat field 22), against pid reuse */
	pid_t init_pid;              /* host pid of PID 1 inside */
	unsigned long long init_start;
	pid_t net_pid;               /* the user-mode stack (host pid), 0 = none */
	unsigned long long net_start;
	bool cgroup;                 /* the sandbox has its own freezer cgroup (limits: see note) */
	char note[256];              /* what is not enforced or differs, "" when nothing */
} ax_rt_handle;

/* Start the sandbox; returns once argv has been exec'd as PID 1 (or has
 * already exited). Setup failures come back as ERR, with bwrap's own message
 * when bwrap is the one that failed. */
int ax_rt_start(const ax_rt_spec *spec, ax_rt_handle *h, ax_error *err);

/* 1 if the sandbox's PID 1 is alive (pid and start time match, not a zombie). */
int ax_rt_alive(const ax_rt_handle *h);

/* Freeze/thaw every process of the sandbox; both wait (bounded) until done.
 * Without a freezer cgroup they fall back to SIGSTOP/SIGCONT of the sandbox's
 * pid namespace, which processes inside can observe. */
int ax_rt_freeze(const ax_rt_handle *h, const char *id, ax_error *err);
int ax_rt_thaw(const ax_rt_handle *h, const char *id, ax_error *err);

/* Kernels since 6.1 switch cgroup v1's freezer checks (a static key) on
 * when the first cgroup starts freezing and off when the last thaws; each
 * switch patches kernel code on every CPU, ~0.2 ms of every freeze and of
 * every thaw while nothing else is frozen. The engine keeps an empty cgroup
 * frozen while it runs (freezer/allox/.freezer-hold-<pid>), so the key stays
 * on; release removes it, hold also removes those of engines that are gone.
 * Best effort: nothing happens without a v1 freezer. */
void ax_rt_hold_freezer(void);
void ax_rt_release_freezer(void);

/* Kill every process of the sandbox (also when frozen), wait up to ~5 s
 * until all are gone, then remove its cgroups. Idempotent. */
int ax_rt_kill(const ax_rt_handle *h, const char *id, ax_error *err);

/* rm -rf STATE_DIR without following symlinks or leaving its file system.
 * Call after ax_rt_kill. A missing STATE_DIR is not an error. */
int ax_rt_remove_state(const char *state_dir, ax_error *err);

/* The same for a sandbox's state directory, whose disk (disk.h) is
 * unmounted first. */
int ax_rt_remove_sandbox(const char *state_dir, ax_error *err);

#endif
