/* Spawning the sandbox. The engine starts a child that starts a new session,
 * starts the setup process and exits as soon as setup has exec'd bwrap: the
 * sandbox is then nobody's child in the engine, survives the engine's death
 * and needs no wait().
 * The setup process joins the cgroups, enters a private mount namespace,
 * performs the mount plan and execs bwrap; the mounts live only in that
 * namespace and vanish with the sandbox's last process.
 * Everything the children need is computed by the parent (the engine may be
 * threaded, and the children share its memory): they only make system calls,
 * and report through a CLOEXEC pipe first the setup pid, then either nothing
 * (exec succeeded) or the failed step. */
#include "engine/runtime/runtime_spawn.h"

#include "engine/runtime/disk.h"
#include "lib/timeutil.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

enum { ST_PID = 1, ST_FAIL = 2, ST_NET = 3 };

typedef struct status_rec {
	int kind, step, err, arg;
	unsigned long long start;
} status_rec;

static void send_rec(int fd, int kind, int step, int e, int arg, unsigned long long start)
{
	status_rec r = { kind, step, e, arg, start };
	ssize_t n;

	do
		n = write(fd, &r, sizeof r);
	while (n < 0 && errno == EINTR);
}

static __attribute__((noreturn)) void child_fail(const ax_spawn *sp, int step, int arg)
{
	send_rec(sp->status_w, ST_FAIL, step, errno, arg, 0);
	_exit(127);
}

/* open_tree + mount_setattr(MOUNT_ATTR_IDMAP) + move_mount: a detached
 * copy of SRC (not its submounts, as AX_OP_BIND_RO) whose owners show
 * through USERNS's map, attached at DST. */
static int idmap_bind(const char *src, const char *dst, int userns)
{
	struct mount_attr attr;
	int tree, rc, e;

	tree = (int)syscall(SYS_open_tree, AT_FDCWD, src, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (tree < 0)
		return -1;
	memset(&attr, 0, sizeof attr);
	attr.attr_set = MOUNT_ATTR_IDMAP | MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
	attr.userns_fd = (unsigned)userns;
	rc = (int)syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH, &attr, sizeof attr);
	if (rc == 0)
		rc = (int)syscall(SYS_move_mount, tree, "", AT_FDCWD, dst, MOVE_MOUNT_F_EMPTY_PATH);
	e = errno;
	close(tree);
	errno = e;
	return rc;
}

/* The directory DST below the root (made when missing, owned by the
 * sandbox's root then) as an O_PATH fd, or -1: no component may be a
 * symlink, whatever a layer below holds there. */
static int mount_point(const ax_spawn *sp, const char *dst)
{
	struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
				.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	int at = open(sp->root, O_PATH | O_DIRECTORY | O_CLOEXEC), next, e;
	char comp[256];

	while (at >= 0 && *dst) {
		size_t n = strcspn(dst, "/");
		bool made;

		if (n == 0 || n >= sizeof comp) {
			close(at);
			errno = EINVAL;
			return -1;
		}
		memcpy(comp, dst, n);
		comp[n] = '\0';
		made = mkdirat(at, comp, 0755) == 0;
		next = (int)syscall(SYS_openat2, at, comp, &how, sizeof how);
		e = errno;
		close(at);
		if (next >= 0 && made && fchownat(next, "", sp->uid_base, sp->uid_base, AT_EMPTY_PATH) < 0) {
			e = errno;
			close(next);
			next = -1;
		}
		errno = e;
		at = next;
		dst += n + (dst[n] == '/');
	}
	return at;
}

/* AX_OP_VOLUME, first half, in the engine's mount namespace where the
 * directory's fd was opened (a mount of another namespace cannot be
 * cloned): a detached, idmapped copy of it; the fd of that tree or -1. */
static int volume_tree(const ax_spawn *sp, const ax_op *op)
{
	struct mount_attr attr;
	int tree, e;

	tree = (int)syscall(SYS_open_tree, atoi(op->src), "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
	if (tree < 0)
		return -1;
	memset(&attr, 0, sizeof attr);
	attr.attr_set = MOUNT_ATTR_IDMAP | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
			(op->data[1] == 'w' ? 0 : MOUNT_ATTR_RDONLY);
	attr.userns_fd = (unsigned)sp->idmap_fds[op->data[0] - '0'];
	if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH, &attr, sizeof attr) < 0) {
		e = errno;
		close(tree);
		errno = e;
		return -1;
	}
	return tree;
}

/* AX_OP_VOLUME, second half: attach TREE on a mount point made safely. */
static int volume_attach(const ax_spawn *sp, const ax_op *op, int tree)
{
	int at = mount_point(sp, op->dst), rc = -1, e;

	if (at >= 0)
		rc = (int)syscall(SYS_move_mount, tree, "", at, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
	e = errno;
	if (at >= 0)
		close(at);
	close(tree);
	errno = e;
	return rc;
}

static int do_op(const ax_spawn *sp, const ax_op *op)
{
	int fd;

	switch (op->kind) {
	/* nodev on every mount but the device binds: bwrap binds the root with
	 * --dev-bind, which keeps each mount's own flags (rootfs_dev.c). */
	case AX_OP_OVERLAY:
		return mount("overlay", op->dst, "overlay", MS_NOSUID | MS_NODEV, op->data);
	case AX_OP_BIND_RO:
		/* Not recursive: a host mount below SRC would come along writable
		 * and device-capable (a remount applies to the top mount only), and
		 * the overlays show no host submounts either. */
		if (mount(op->src, op->dst, NULL, MS_BIND, NULL) < 0)
			return -1;
		return mount(NULL, op->dst, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL);
	case AX_OP_BIND_DEV:
		if (mount(op->src, op->dst, NULL, MS_BIND, NULL) < 0)
			return -1;
		return mount(NULL, op->dst, NULL, MS_REMOUNT | MS_BIND | MS_NOSUID, NULL);
	case AX_OP_SYMLINK:
		return symlink(op->src, op->dst);
	case AX_OP_DEVPTS:
		return mount("devpts", op->dst, "devpts", MS_NOSUID | MS_NOEXEC, op->data);
	case AX_OP_TMPFS:
		return mount("tmpfs", op->dst, "tmpfs", MS_NOSUID | MS_NODEV, op->data);
	case AX_OP_IDMAP:
		return idmap_bind(op->src, op->dst, sp->idmap_fds[op->data[0] - '0']);
	case AX_OP_VOLUME:
		break;  /* volume_attach */
	case AX_OP_MKDIR:
		return mkdir(op->dst, 0755) < 0 && errno != EEXIST ? -1 : 0;
	case AX_OP_MKFILE:
		fd = open(op->dst, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
		return fd < 0 ? -1 : close(fd);
	case AX_OP_REMOUNT_RO:
		return mount(NULL, op->dst, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL);
	}
	errno = EINVAL;
	return -1;
}

static bool kept(const ax_spawn *sp, int fd)
{
	for (const int *k = sp->keep_fds; k && *k >= 0; k++)
		if (*k == fd)
			return true;
	return false;
}

static int fmt_uint(char *buf, unsigned v)
{
	char tmp[16];
	int n = 0, i = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10) && n < (int)sizeof tmp);
	while (n)
		buf[i++] = tmp[--n];
	return i;
}

/* Everything up to exec: system calls and lock-free string functions only. */
static __attribute__((noreturn)) void setup(const ax_spawn *sp)
{
	static char *const no_env[] = { NULL };
	struct sigaction sa;
	sigset_t none;
	char pid[16];
	int pidlen = fmt_uint(pid, (unsigned)getpid()), trees[AX_VOLUMES_MAX];
	unsigned long long start = 0;

	/* Read our start time ourselves: bwrap (this process after exec) may be
	 * gone before the parent gets to it. */
	ax_rt_proc_stat(getpid(), NULL, &start);
	send_rec(sp->status_w, ST_PID, 0, 0, (int)getpid(), start);
	/* Ignored signals and the mask survive exec: give the sandbox defaults. */
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	for (int sig = 1; sig < NSIG; sig++)
		sigaction(sig, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	umask(022);
	/* Moving a process through cgroup.procs write-locks a global rwsem and
	 * waits for an RCU grace period: 5-20 ms per sandbox here. Writing "0"
	 * to a v1 "tasks" file moves only the calling thread and skips that lock;
	 * we are single-threaded (no CLONE_THREAD), so that moves all of us. */
	for (int k = 0; k < AX_CG_N; k++) {
		const char *who = k == AX_CG_V2 ? pid : "0";
		size_t len = k == AX_CG_V2 ? (size_t)pidlen : 1;

		if (sp->cg_fds[k] >= 0 && write(sp->cg_fds[k], who, len) != (ssize_t)len)
			child_fail(sp, AX_STEP_CGROUP, k);
	}
	/* The stack starts now, in the cgroups (its memory is the sandbox's,
	 * and a kill of the sandbox ends it) but in the host's mount and
	 * network namespaces, and runs while bwrap starts. */
	if (sp->net && sp->net->argv) {
		pid_t stack = ax_net_launch(sp->net);

		if (stack < 0)
			child_fail(sp, AX_STEP_NET_STACK, 0);
		send_rec(sp->status_w, ST_NET, 0, 0, (int)stack, 0);
	}
	for (size_t i = 0, v = 0; i < sp->mounts->n; i++) {
		if (sp->mounts->ops[i].kind != AX_OP_VOLUME)
			continue;
		if (v == AX_VOLUMES_MAX)
			child_fail(sp, (int)i, 0);
		trees[v] = volume_tree(sp, &sp->mounts->ops[i]);
		if (trees[v++] < 0)
			child_fail(sp, (int)i, 0);
	}
	if (unshare(CLONE_NEWNS) < 0)
		child_fail(sp, AX_STEP_UNSHARE, 0);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		child_fail(sp, AX_STEP_PRIVATE, 0);
	for (size_t i = 0, v = 0; i < sp->mounts->n; i++) {
		const ax_op *op = &sp->mounts->ops[i];

		if ((op->kind == AX_OP_VOLUME ? volume_attach(sp, op, trees[v++]) : do_op(sp, op)) < 0)
			child_fail(sp, (int)i, 0);
	}
	/* bwrap runs as the sandbox's host uid, which cannot walk the engine's
	 * private state directories to the root: /tmp (world-searchable, and
	 * the one path bwrap keeps reachable as /oldroot/tmp under its own
	 * tmpfs) is where it finds it, in this mount namespace only. */
	/* Before /tmp is covered: the disks' paths may lead through it. */
	ax_disk_detach_others(sp->scratch, AX_SPAWN_SCRATCH);
	if (mount(sp->root, "/tmp", NULL, MS_BIND | MS_REC, NULL) < 0)
		child_fail(sp, AX_STEP_ROOT, 0);
	if ((!kept(sp, 0) && dup2(sp->null_fd, 0) < 0) || (!kept(sp, 1) && dup2(sp->log_fd, 1) < 0) ||
	    (!kept(sp, 2) && dup2(sp->log_fd, 2) < 0))
		child_fail(sp, AX_STEP_STDIO, 0);
	/* bwrap closes no fds itself: only the kept ones may reach the sandbox. */
	if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) < 0) {
		struct rlimit rl;
		int max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 65536 ? (int)rl.rlim_cur : 65536;

		for (int fd = 3; fd < max; fd++)
			fcntl(fd, F_SETFD, FD_CLOEXEC);
	}
	for (const int *k = sp->keep_fds; k && *k >= 0; k++)
		if (fcntl(*k, F_SETFD, 0) < 0)
			child_fail(sp, AX_STEP_KEEPFD, *k);
	if (fcntl(sp->info_w, F_SETFD, 0) < 0)
		child_fail(sp, AX_STEP_KEEPFD, sp->info_w);
	if (fcntl(sp->userns_fd, F_SETFD, 0) < 0)
		child_fail(sp, AX_STEP_KEEPFD, sp->userns_fd);
	if (sp->seccomp_fd >= 0 && fcntl(sp->seccomp_fd, F_SETFD, 0) < 0)
		child_fail(sp, AX_STEP_KEEPFD, sp->seccomp_fd);
	if (chdir("/") < 0)
		child_fail(sp, AX_STEP_EXEC, 0);
	/* The engine raised its own descriptor limit for its clients; the
	 * sandbox starts with the one the engine was given, like any other
	 * program the operator starts. A lower limit is always allowed. */
	if (sp->nofile.rlim_max && setrlimit(RLIMIT_NOFILE, &sp->nofile) < 0)
		child_fail(sp, AX_STEP_EXEC, 0);
	/* bwrap (no --unshare-net) and the sandbox then live in it. */
	if (sp->net && ax_net_enter(sp->net) < 0)
		child_fail(sp, AX_STEP_NETNS, 0);
	/* Become the sandbox's unprivileged host uid: bwrap then has
	 * capabilities only in the sandbox's user namespace, which that uid
	 * owns (userns.c), and none on the host. Raw calls: glibc's would
	 * signal the engine's threads, whose memory we share. */
	if (syscall(SYS_setgroups, 0, NULL) < 0 || syscall(SYS_setresgid, sp->uid_base, sp->uid_base, sp->uid_base) < 0 ||
	    syscall(SYS_setresuid, sp->uid_base, sp->uid_base, sp->uid_base) < 0)
		child_fail(sp, AX_STEP_IDENTITY, 0);
	execve(sp->argv[0], sp->argv, no_env);
	child_fail(sp, AX_STEP_EXEC, 0);
}

static int setup_main(void *arg)
{
	setup(arg);
}

/* The intermediate child: a new session, the setup process, then exit. */
static int intermediate(void *arg)
{
	const ax_spawn *sp = arg;

	if (setsid() < 0)
		child_fail(sp, AX_STEP_SETSID, 0);
	/* CLONE_VFORK: we continue (and exit) only once setup has exec'd or died. */
	if (clone(setup_main, sp->stack_b, CLONE_VM | CLONE_VFORK | SIGCHLD, arg) < 0)
		child_fail(sp, AX_STEP_FORK, 0);
	_exit(0);
}

pid_t ax_spawn_fork(ax_spawn *sp)
{
	enum { STACK = 256 * 1024 };
	char *stacks = malloc(2 * STACK + AX_SPAWN_SCRATCH);
	sigset_t all, old;
	pid_t pid;
	int e;

	if (!stacks)
		return -1;
	/* Stacks grow down on every Linux architecture we build for. */
	sp->stack_b = stacks + STACK;
	sp->scratch = stacks + 2 * STACK;
	/* posix_spawn-style: both children share our memory (no copy of the
	 * engine's page tables, however big it is) and this thread is suspended
	 * until the intermediate child exits, i.e. until setup has exec'd bwrap or
	 * failed. Setup only does file-system calls of the kind ax_rootfs_prepare
	 * already made on the same trees, so this adds no new way to hang; the
	 * waits on bwrap and the sandbox stay bounded. No engine signal handler may
	 * run on the shared memory meanwhile. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid = clone(intermediate, stacks + 2 * STACK, CLONE_VM | CLONE_VFORK | SIGCHLD, sp);
	e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	free(stacks);
	errno = e;
	return pid;
}

static void describe(const ax_plan *mounts, int step, int arg, int e, ax_error *err)
{
	const char *m = strerror(e);

	if (step >= 0 && (size_t)step < mounts->n) {
		const ax_op *op = &mounts->ops[step];

		switch (op->kind) {
		case AX_OP_OVERLAY:
			ax_fail(err, AX_CODE_RUNTIME, "cannot mount overlay on %s: %s", op->dst, m);
			ax_error_hint(err, "overlay options: %s", op->data);
			return;
		case AX_OP_BIND_RO:
		case AX_OP_BIND_DEV:
			ax_fail(err, AX_CODE_RUNTIME, "cannot bind %s on %s: %s", op->src, op->dst, m);
			return;
		case AX_OP_IDMAP:
			ax_fail(err, AX_CODE_RUNTIME, "cannot make an idmapped mount of %s on %s: %s", op->src,
				op->dst, m);
			return;
		case AX_OP_VOLUME:
			ax_fail(err, AX_CODE_RUNTIME, "cannot mount a volume on /%s: %s%s", op->dst, m,
				e == ELOOP ? " (a symlink is in the way)" : "");
			return;
		case AX_OP_DEVPTS:
			ax_fail(err, AX_CODE_RUNTIME, "cannot mount devpts on %s: %s", op->dst, m);
			return;
		case AX_OP_TMPFS:
			ax_fail(err, AX_CODE_RUNTIME, "cannot mount tmpfs on %s: %s", op->dst, m);
			return;
		case AX_OP_REMOUNT_RO:
			ax_fail(err, AX_CODE_RUNTIME, "cannot make %s read-only: %s", op->dst, m);
			return;
		case AX_OP_MKDIR:
		case AX_OP_MKFILE:
		case AX_OP_SYMLINK:
			break;
		}
		ax_fail(err, AX_CODE_RUNTIME, "cannot create %s: %s", op->dst, m);
		return;
	}
	switch (step) {
	case AX_STEP_FORK:
		ax_fail(err, AX_CODE_RUNTIME, "cannot fork the sandbox: %s", m);
		break;
	case AX_STEP_SETSID:
		ax_fail(err, AX_CODE_RUNTIME, "cannot start a session for the sandbox: %s", m);
		break;
	case AX_STEP_CGROUP:
		ax_fail(err, AX_CODE_RUNTIME, "cannot join the sandbox's cgroup (%s): %s",
			arg == AX_CG_V2 ? "cgroup2" : arg == AX_CG_MEMORY ? "memory" : arg == AX_CG_PIDS ? "pids"
			: arg == AX_CG_CPU ? "cpu" : "freezer", m);
		break;
	case AX_STEP_UNSHARE:
	case AX_STEP_PRIVATE:
		ax_fail(err, AX_CODE_RUNTIME, "cannot create a private mount namespace: %s", m);
		break;
	case AX_STEP_STDIO:
		ax_fail(err, AX_CODE_RUNTIME, "cannot set up the sandbox's stdio: %s", m);
		break;
	case AX_STEP_KEEPFD:
		ax_fail(err, AX_CODE_RUNTIME, "cannot pass fd %d to the sandbox: %s", arg, m);
		break;
	case AX_STEP_ROOT:
		ax_fail(err, AX_CODE_RUNTIME, "cannot bind the sandbox's root on /tmp: %s", m);
		break;
	case AX_STEP_IDENTITY:
		ax_fail(err, AX_CODE_RUNTIME, "cannot take the sandbox's host uid: %s", m);
		break;
	case AX_STEP_NET_STACK:
		ax_fail(err, AX_CODE_RUNTIME, "cannot start the sandbox's network stack: %s", m);
		break;
	case AX_STEP_NETNS:
		ax_fail(err, AX_CODE_RUNTIME, "cannot set up the sandbox's network namespace: %s", m);
		break;
	default:
		ax_fail(err, AX_CODE_RUNTIME, "cannot run %s: %s", AX_RT_BWRAP, m);
		break;
	}
}

int ax_spawn_status(int fd, const ax_plan *mounts, pid_t *setup_pid, unsigned long long *start, pid_t *net_pid,
		    ax_error *err)
{
	long long deadline = ax_mono_ms() + AX_RT_START_MS;
	status_rec r;
	size_t got = 0;

	*setup_pid = 0;
	*net_pid = 0;
	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		long long left = deadline - ax_mono_ms();
		ssize_t n;

		if (left <= 0)
			return ax_fail(err, AX_CODE_RUNTIME, "sandbox setup did not finish within %d s",
				       AX_RT_START_MS / 1000);
		if (poll(&p, 1, (int)left) < 0) {
			if (errno == EINTR)
				continue;
			return ax_fail(err, AX_CODE_RUNTIME, "poll: %s", strerror(errno));
		}
		n = read(fd, (char *)&r + got, sizeof r - got);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return ax_fail(err, AX_CODE_RUNTIME, "reading sandbox status: %s", strerror(errno));
		if (n == 0)
			break;
		got += (size_t)n;
		if (got < sizeof r)
			continue;
		got = 0;
		if (r.kind == ST_PID) {
			*setup_pid = r.arg;
			*start = r.start;
		} else if (r.kind == ST_NET) {
			*net_pid = r.arg;
		} else {
			describe(mounts, r.step, r.arg, r.err, err);
			return -1;
		}
	}
	if (!*setup_pid)
		return ax_fail(err, AX_CODE_RUNTIME, "the sandbox's setup process died before starting");
	return 0;
}
