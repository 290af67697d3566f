/* ax_rt_start: validate the spec, plan the file system and cgroups, spawn
 * bwrap, then learn PID 1's host pid from --info-fd and wait until it has
 * exec'd argv, so setup failures are reported here and not discovered later. */
#include "engine/runtime/runtime_spawn.h"
#include "engine/runtime/netns.h"
#include "engine/runtime/seccomp_filter.h"
#include "engine/runtime/userns.h"
#include "lib/timeutil.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define SANDBOX_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* Fds the engine's closed stdio could have handed us must not be dup2 targets. */
static int high_fd(int fd)
{
	int moved;

	if (fd < 0 || fd > 2)
		return fd;
	moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return moved;
}

static int validate(const ax_rt_spec *s, ax_error *err)
{
	size_t n;

	if (!s || !s->id || !s->state_dir || !s->image || !s->argv || !s->argv[0])
		return ax_fail(err, AX_CODE_USAGE, "sandbox spec lacks id, state_dir, image or argv");
	n = strspn(s->id, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-");
	if (n == 0 || n > 64 || s->id[n] || s->id[0] == '.')
		return ax_fail(err, AX_CODE_USAGE, "invalid sandbox id \"%s\"", s->id);
	for (size_t i = 0; s->env && s->env[i]; i++) {
		const char *eq = strchr(s->env[i], '=');

		if (!eq || eq == s->env[i])
			return ax_fail(err, AX_CODE_USAGE, "environment entry is not K=V: %s", s->env[i]);
	}
	if (s->memory_bytes < 0 || s->pids_max < 0 || s->cpu_millis < 0)
		return ax_fail(err, AX_CODE_USAGE, "negative memory, pids or cpu limit");
	if (s->uid_base == 0 || s->uid_base > UINT_MAX - AX_RT_IDS)
		return ax_fail(err, AX_CODE_USAGE, "invalid uid base %u for the sandbox", s->uid_base);
	return 0;
}

/* Docker's default capability set: root inside may own files, change users
 * and signal its processes, but not mount, trace, load modules or touch
 * the clock (none of which it could do to the host anyway: its
 * capabilities hold in its own user namespace only). */
static const char *const kept_caps[] = {
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_MKNOD", "CAP_NET_RAW",
	"CAP_SETGID", "CAP_SETUID", "CAP_SETFCAP", "CAP_SETPCAP", "CAP_NET_BIND_SERVICE", "CAP_SYS_CHROOT",
	"CAP_KILL", "CAP_AUDIT_WRITE",
};

/* Docker's read-only and masked /proc paths. The read-only ones are the
 * host's /proc entries bound over the sandbox's: what they show follows
 * the reader's namespaces, not the mount's. */
static const char *const proc_ro[] = { "bus", "fs", "irq", "sys", "sysrq-trigger" };
static const char *const proc_masked[] = {
	"asound", "acpi", "kcore", "keys", "latency_stats", "timer_list", "timer_stats", "sched_debug", "scsi",
};

static void proc_argv(ax_strv *av)
{
	char path[64];
	struct stat st;

	ax_strv_add(av, "--proc");
	ax_strv_add(av, "/proc");
	for (size_t i = 0; i < sizeof proc_ro / sizeof proc_ro[0]; i++) {
		snprintf(path, sizeof path, "/proc/%s", proc_ro[i]);
		if (lstat(path, &st) < 0)
			continue;
		ax_strv_add(av, "--ro-bind");
		ax_strv_add(av, path);
		ax_strv_add(av, path);
	}
	for (size_t i = 0; i < sizeof proc_masked / sizeof proc_masked[0]; i++) {
		snprintf(path, sizeof path, "/proc/%s", proc_masked[i]);
		if (lstat(path, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			ax_strv_add(av, "--tmpfs");
			ax_strv_add(av, path);
			ax_strv_add(av, "--remount-ro");
		} else {
			/* Reads see an empty file, as in Docker. */
			ax_strv_add(av, "--dev-bind");
			ax_strv_add(av, "/dev/null");
		}
		ax_strv_add(av, path);
	}
}

static void bwrap_argv(const ax_rt_spec *s, const ax_rootfs *rf, const ax_spawn *sp, ax_strv *av)
{
	ax_strv_add(av, AX_RT_BWRAP);
	/* /dev is in the plan already (rootfs_dev.c); --dev-bind keeps its device
	 * binds usable and every other mount's own nodev. The root is on /tmp
	 * of the setup's mount namespace (runtime_spawn.c). */
	ax_strv_add(av, "--dev-bind");
	ax_strv_add(av, "/tmp");
	ax_strv_add(av, "/");
	proc_argv(av);
	/* The sandbox's user namespace (uids 0..65535 = host uid_base..), made
	 * by the engine; bwrap joins it and becomes root there. */
	ax_strv_add(av, "--userns");
	ax_strv_addf(av, "%d", sp->userns_fd);
	/* bwrap leaves that fd open into the sandbox; as --block-fd it is read
	 * (a user namespace fd has nothing to read: EINVAL at once) and closed
	 * by bwrap right before the exec. */
	ax_strv_add(av, "--block-fd");
	ax_strv_addf(av, "%d", sp->userns_fd);
	ax_strv_add(av, "--uid");
	ax_strv_add(av, "0");
	ax_strv_add(av, "--gid");
	ax_strv_add(av, "0");
	ax_strv_add(av, "--cap-drop");
	ax_strv_add(av, "ALL");
	for (size_t i = 0; i < sizeof kept_caps / sizeof kept_caps[0]; i++) {
		ax_strv_add(av, "--cap-add");
		ax_strv_add(av, kept_caps[i]);
	}
	if (sp->seccomp_fd >= 0) {
		ax_strv_add(av, "--seccomp");
		ax_strv_addf(av, "%d", sp->seccomp_fd);
	}
	ax_strv_add(av, "--unshare-pid");
	ax_strv_add(av, "--unshare-ipc");
	ax_strv_add(av, "--unshare-uts");
	ax_strv_add(av, "--unshare-cgroup-try");
	ax_strv_add(av, "--hostname");
	ax_strv_addf(av, "%.12s", s->id);
	ax_strv_add(av, "--as-pid-1");
	ax_strv_add(av, "--chdir");
	ax_strv_add(av, "/home/gem");
	ax_strv_add(av, "--clearenv");
	ax_strv_add(av, "--setenv");
	ax_strv_add(av, "HOME");
	ax_strv_add(av, "/home/gem");
	ax_strv_add(av, "--setenv");
	ax_strv_add(av, "PATH");
	ax_strv_add(av, SANDBOX_PATH);
	for (size_t i = 0; s->env && s->env[i]; i++) {
		const char *eq = strchr(s->env[i], '=');

		ax_strv_add(av, "--setenv");
		ax_strv_addf(av, "%.*s", (int)(eq - s->env[i]), s->env[i]);
		ax_strv_add(av, eq + 1);
	}
	ax_strv_add(av, "--info-fd");
	ax_strv_addf(av, "%d", sp->info_w);
	ax_strv_add(av, "--");
	for (size_t i = 0; i < rf->exec.n; i++)
		ax_strv_add(av, rf->exec.v[i]);
	for (size_t i = 1; s->argv[i]; i++)
		ax_strv_add(av, s->argv[i]);
}

/* bwrap's JSON on --info-fd: {"child-pid": N, ...}; EOF without it means bwrap failed. */
static pid_t read_child_pid(int fd)
{
	long long deadline = ax_mono_ms() + AX_RT_START_MS;
	char buf[1024];
	size_t used = 0;
	const char *p;

	while (used + 1 < sizeof buf) {
		struct pollfd pf = { fd, POLLIN, 0 };
		long long left = deadline - ax_mono_ms();
		ssize_t n;

		if (left <= 0 || (poll(&pf, 1, (int)left) < 0 && errno != EINTR))
			break;
		n = read(fd, buf + used, sizeof buf - 1 - used);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			break;
		used += (size_t)n;
	}
	buf[used] = '\0';
	p = strstr(buf, "\"child-pid\"");
	if (!p || !(p = strchr(p, ':')))
		return 0;
	return (pid_t)strtol(p + 1, NULL, 10);
}

/* bwrap reports its own failures as "bwrap: ..." on stderr, i.e. in the log. */
static void bwrap_message(int log_fd, off_t from, char *out, size_t len)
{
	char buf[4096];
	ssize_t n = pread(log_fd, buf, sizeof buf - 1, from);
	const char *line;

	out[0] = '\0';
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (line = buf; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (strncmp(line, "bwrap: ", 7) == 0) {
			snprintf(out, len, "%.*s", (int)strcspn(line, "\n"), line);
			return;
		}
	}
}

/* 1 once PID 1's executable is no longer bwrap, 0 if it died first, -1 on timeout. */
static int wait_exec(pid_t pid, unsigned long long start, const struct stat *bwrap)
{
	long long deadline = ax_mono_ms() + AX_RT_START_MS, fine_until = ax_mono_ms() + 20;
	char path[64];
	long us = 150;

	snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
	for (;;) {
		struct stat st;

		if (!ax_rt_proc_same(pid, start))
			return 0;
		if (stat(path, &st) == 0 && (st.st_dev != bwrap->st_dev || st.st_ino != bwrap->st_ino))
			return ax_rt_proc_same(pid, start) ? 1 : 0;
		if (ax_mono_ms() > deadline)
			return -1;
		/* bwrap takes a few ms to set up: look often then (the reply to
		 * create waits on this), rarely once it is slow. */
		ax_rt_sleep_us(us);
		if (ax_mono_ms() > fine_until && us < 2000)
			us *= 2;
	}
}

typedef struct launch {
	int status[2], info[2], log_fd, null_fd, cg_fds[AX_CG_N];
	int netns_fd;                              /* -1: the host's network */
	int go[2];                                 /* the stack's start signal (netns.h) */
	int userns_fd, idmap_fds[AX_IDMAPS_MAX];   /* idmap_fds[k] may be userns_fd: close once */
	int seccomp_fd;                            /* read (once) by bwrap */
	off_t log_off;
} launch;

/* The sandbox's user namespace and one per on-disk owner base of its lowers. */
static int open_userns(const ax_rt_spec *s, const ax_rootfs *rf, launch *l, ax_error *err)
{
	if (ax_userns_open(0, s->uid_base, AX_RT_IDS, s->uid_base, &l->userns_fd,
			   s->network == AX_NET_HOST ? NULL : &l->netns_fd, err) < 0)
		return -1;
	l->userns_fd = high_fd(l->userns_fd);
	if (l->netns_fd >= 0)
		l->netns_fd = high_fd(l->netns_fd);
	for (size_t k = 0; k < rf->n_idmaps; k++) {
		if (rf->idmap_from[k] == 0 && rf->idmap_count[k] == AX_RT_IDS) {
			l->idmap_fds[k] = l->userns_fd;
			continue;
		}
		if (ax_userns_open(rf->idmap_from[k], s->uid_base, rf->idmap_count[k], s->uid_base, &l->idmap_fds[k], NULL,
				   err) < 0)
			return -1;
		l->idmap_fds[k] = high_fd(l->idmap_fds[k]);
	}
	return 0;
}

static int open_fds(const ax_rt_spec *s, const ax_cgroup *cg, launch *l, ax_error *err)
{
	char *log = s->log_path ? strdup(s->log_path) : ax_rt_fmt("%s/console.log", s->state_dir);

	if (!log)
		return ax_fail(err, AX_CODE_RUNTIME, "out of memory");
	l->log_fd = high_fd(open(log, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
	if (l->log_fd < 0) {
		ax_fail(err, AX_CODE_RUNTIME, "cannot open %s: %s", log, strerror(errno));
		free(log);
		return -1;
	}
	free(log);
	l->log_off = lseek(l->log_fd, 0, SEEK_END);
	l->null_fd = high_fd(open("/dev/null", O_RDWR | O_CLOEXEC));
	if (l->null_fd < 0 || pipe2(l->status, O_CLOEXEC) < 0 || pipe2(l->info, O_CLOEXEC) < 0)
		return ax_fail(err, AX_CODE_RUNTIME, "cannot create pipes: %s", strerror(errno));
	for (int i = 0; i < 2; i++) {
		l->status[i] = high_fd(l->status[i]);
		l->info[i] = high_fd(l->info[i]);
		if (l->status[i] < 0 || l->info[i] < 0)
			return ax_fail(err, AX_CODE_RUNTIME, "cannot create pipes: %s", strerror(errno));
	}
	for (int k = 0; k < AX_CG_N; k++) {
		char path[PATH_MAX + 16];

		if (!cg->dir[k][0])
			continue;
		/* v1: the setup process moves itself through "tasks" (see setup()); v2
		 * has no such path for a domain cgroup and takes the pid in cgroup.procs. */
		snprintf(path, sizeof path, "%s/%s", cg->dir[k], k == AX_CG_V2 ? "cgroup.procs" : "tasks");
		l->cg_fds[k] = high_fd(open(path, O_WRONLY | O_CLOEXEC));
		if (l->cg_fds[k] < 0)
			return ax_fail(err, AX_CODE_RUNTIME, "cannot open %s: %s", path, strerror(errno));
	}
	return 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void close_fds(launch *l)
{
	for (int i = 0; i < 2; i++) {
		close_fd(&l->status[i]);
		close_fd(&l->info[i]);
	}
	close_fd(&l->log_fd);
	close_fd(&l->null_fd);
	for (int k = 0; k < AX_CG_N; k++)
		close_fd(&l->cg_fds[k]);
	for (int k = 0; k < AX_IDMAPS_MAX; k++)
		if (l->idmap_fds[k] != l->userns_fd)
			close_fd(&l->idmap_fds[k]);
	close_fd(&l->userns_fd);
	close_fd(&l->netns_fd);
	close_fd(&l->go[0]);
	close_fd(&l->go[1]);
	close_fd(&l->seccomp_fd);
}

static int spawn(const ax_rt_spec *s, const ax_rootfs *rf, const ax_cgroup *cg, ax_rt_handle *h, launch *l,
		 ax_error *err)
{
	ax_strv av = { 0 }, net_av = { 0 };
	ax_net net;
	ax_spawn sp;
	struct stat bwrap;
	pid_t child;
	char msg[512];
	int rc;

	if (stat(AX_RT_BWRAP, &bwrap) < 0)
		return ax_fail(err, AX_CODE_RUNTIME, "%s: %s (install bubblewrap)", AX_RT_BWRAP,
			       strerror(errno));
	if (open_fds(s, cg, l, err) < 0 || open_userns(s, rf, l, err) < 0)
		return -1;
	if (s->net_hook && l->netns_fd >= 0 && s->net_hook(s->net_hook_arg, l->netns_fd, err) < 0)
		return -1;
	l->seccomp_fd = high_fd(ax_seccomp_filter_fd(s->nesting, err));
	if (l->seccomp_fd < 0)
		return -1;
	memset(&sp, 0, sizeof sp);
	sp.mounts = &rf->mounts;
	sp.root = rf->merged;
	memcpy(sp.cg_fds, l->cg_fds, sizeof sp.cg_fds);
	sp.null_fd = l->null_fd;
	sp.log_fd = l->log_fd;
	sp.status_w = l->status[1];
	sp.info_w = l->info[1];
	sp.keep_fds = s->keep_fds;
	sp.idmap_fds = l->idmap_fds;
	sp.userns_fd = l->userns_fd;
	sp.seccomp_fd = l->seccomp_fd;
	sp.uid_base = s->uid_base;
	sp.nofile.rlim_cur = s->nofile_cur;
	sp.nofile.rlim_max = s->nofile_max;
	if (l->netns_fd >= 0) {
		memset(&net, 0, sizeof net);
		net.netns_fd = l->netns_fd;
		net.userns_fd = l->userns_fd;
		net.ready_w = s->net_ready_w;
		net.null_fd = l->null_fd;
		net.uid_base = s->uid_base;
		if (s->network == AX_NET_ISOLATED) {
			if (pipe2(l->go, O_CLOEXEC) < 0)
				return ax_fail(err, AX_CODE_RUNTIME, "cannot create a pipe: %s", strerror(errno));
			l->go[0] = high_fd(l->go[0]);
			l->go[1] = high_fd(l->go[1]);
		}
		net.go_r = l->go[0];
		net.own_dns = s->net_own_dns;
		if (ax_net_prepare(s->network, &net, &net_av) < 0)
			av.oom = true;
		sp.net = &net;
	}
	bwrap_argv(s, rf, &sp, &av);
	if (av.oom) {
		ax_strv_free(&av);
		ax_strv_free(&net_av);
		return ax_fail(err, AX_CODE_RUNTIME, "out of memory");
	}
	sp.argv = av.v;
	child = ax_spawn_fork(&sp);
	rc = errno;
	ax_strv_free(&av);
	ax_strv_free(&net_av);
	/* Our copies of the write ends must go, or the reads below never see EOF. */
	close_fd(&l->status[1]);
	close_fd(&l->info[1]);
	if (child < 0)
		return ax_fail(err, AX_CODE_RUNTIME, "cannot fork: %s", strerror(rc));
	while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
		;
	rc = ax_spawn_status(l->status[0], &rf->mounts, &h->pid, &h->start, &h->net_pid, err);
	/* Its start time, against pid reuse when it is killed later. */
	if (h->net_pid > 0 && ax_rt_proc_stat(h->net_pid, NULL, &h->net_start) < 0)
		h->net_pid = 0;
	if (rc < 0)
		return -1;
	h->init_pid = read_child_pid(l->info[0]);
	if (h->init_pid <= 0) {
		bwrap_message(l->log_fd, l->log_off, msg, sizeof msg);
		h->init_pid = 0;
		return ax_fail(err, AX_CODE_RUNTIME, "%s", msg[0] ? msg : "bwrap failed before starting the sandbox");
	}
	/* A quick PID 1 may have run, exited and been reaped already: init_start
	 * stays 0, so the handle reads as not alive. */
	rc = ax_rt_proc_stat(h->init_pid, NULL, &h->init_start) < 0 ? 0 : wait_exec(h->init_pid, h->init_start, &bwrap);
	/* The sandbox runs (or failed): the stack may start now (EOF would do). */
	if (l->go[1] >= 0 && write(l->go[1], "", 1) < 0)
		ax_rt_note(h->note, sizeof h->note, "the network stack was not told to start");
	close_fd(&l->go[1]);
	if (rc < 0)
		return ax_fail(err, AX_CODE_RUNTIME, "sandbox setup did not finish within %d s",
			       AX_RT_START_MS / 1000);
	if (rc == 0) {
		/* Gone before we saw the exec: a setup failure, or argv ran and exited already. */
		bwrap_message(l->log_fd, l->log_off, msg, sizeof msg);
		if (msg[0])
			return ax_fail(err, AX_CODE_RUNTIME, "%s", msg);
	}
	return 0;
}

int ax_rt_start(const ax_rt_spec *spec, ax_rt_handle *h, ax_error *err)
{
	ax_rootfs rf;
	ax_cgroup cg;
	launch l;
	int rc;

	memset(h, 0, sizeof *h);
	if (validate(spec, err) < 0 || ax_rootfs_prepare(spec, &rf, err) < 0)
		return -1;
	snprintf(h->note, sizeof h->note, "%s", rf.note);
	if (ax_cg_create(spec, &cg, h->note, sizeof h->note, err) < 0) {
		ax_rootfs_free(&rf);
		return -1;
	}
	h->cgroup = ax_cg_can_freeze(&cg);
	memset(&l, 0, sizeof l);
	l.status[0] = l.status[1] = l.info[0] = l.info[1] = l.log_fd = l.null_fd = l.userns_fd = l.seccomp_fd = -1;
	l.netns_fd = l.go[0] = l.go[1] = -1;
	for (int k = 0; k < AX_CG_N; k++)
		l.cg_fds[k] = -1;
	for (int k = 0; k < AX_IDMAPS_MAX; k++)
		l.idmap_fds[k] = -1;
	rc = spawn(spec, &rf, &cg, h, &l, err);
	close_fds(&l);
	ax_rootfs_free(&rf);
	if (rc < 0) {
		/* Whatever got started goes, and so do the cgroups. */
		ax_rt_kill(h, spec->id, NULL);
		memset(h, 0, sizeof *h);
	}
	return rc;
}
