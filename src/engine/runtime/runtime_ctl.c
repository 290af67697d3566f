/* Checking, freezing, thawing and killing a running sandbox from its handle.
 * With a freezer cgroup the kernel does the work; without one, the sandbox's
 * processes are found by their pid namespace (the one PID 1 lives in). */
#include "engine/runtime/runtime_internal.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/timeutil.h"

typedef struct pidns {
	dev_t dev;
	ino_t ino;
} pidns;

int ax_rt_alive(const ax_rt_handle *h)
{
	return h && ax_rt_proc_same(h->init_pid, h->init_start) ? 1 : 0;
}

static int ns_of(const ax_rt_handle *h, pidns *ns)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof path, "/proc/%d/ns/pid", (int)h->init_pid);
	if (!ax_rt_alive(h) || stat(path, &st) < 0 || !ax_rt_alive(h))
		return -1;
	ns->dev = st.st_dev;
	ns->ino = st.st_ino;
	return 0;
}

/* Send SIG (0 = none) to every live process of NS; returns how many there
 * are, and in NOT_STOPPED how many were not in a stopped state. */
static int ns_signal(const pidns *ns, int sig, int *not_stopped)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int count = 0;

	if (not_stopped)
		*not_stopped = 0;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[64], state;
		struct stat st;
		char *end;
		long pid = strtol(e->d_name, &end, 10);

		if (pid <= 0 || *end)
			continue;
		snprintf(path, sizeof path, "/proc/%ld/ns/pid", pid);
		if (stat(path, &st) < 0 || st.st_dev != ns->dev || st.st_ino != ns->ino)
			continue;
		if (ax_rt_proc_stat((pid_t)pid, &state, NULL) < 0 || state == 'Z' || state == 'X')
			continue;
		count++;
		if (sig)
			kill((pid_t)pid, sig);
		if (not_stopped && state != 'T' && state != 't')
			(*not_stopped)++;
	}
	closedir(d);
	return count;
}

static int not_running(const char *id, ax_error *err)
{
	return ax_fail(err, AX_CODE_NOT_RUNNING, "sandbox %s is not running", id);
}

static int locate_freezer(const char *id, ax_cgroup *cg, ax_error *err)
{
	ax_cg_locate(id, cg);
	if (!ax_cg_can_freeze(cg))
		return ax_fail(err, AX_CODE_RUNTIME, "the freezer cgroup of sandbox %s is missing", id);
	return 0;
}

int ax_rt_freeze(const ax_rt_handle *h, const char *id, ax_error *err)
{
	long long deadline = ax_mono_ms() + AX_RT_WAIT_MS;
	ax_cgroup cg;
	pidns ns;

	if (!ax_rt_alive(h))
		return not_running(id, err);
	if (h->cgroup)
		return locate_freezer(id, &cg, err) < 0 ? -1 : ax_cg_freeze(&cg, true, err);
	if (ns_of(h, &ns) < 0)
		return not_running(id, err);
	/* Repeat: a process may fork while we walk /proc. */
	for (;;) {
		int running;

		if (ns_signal(&ns, SIGSTOP, &running) == 0)
			return not_running(id, err);
		if (running == 0)
			return 0;
		if (ax_mono_ms() > deadline)
			break;
		ax_rt_sleep_us(1000);
	}
	ns_signal(&ns, SIGCONT, NULL);
	return ax_fail(err, AX_CODE_RUNTIME, "sandbox %s did not stop within %d s", id,
		       AX_RT_WAIT_MS / 1000);
}

int ax_rt_thaw(const ax_rt_handle *h, const char *id, ax_error *err)
{
	ax_cgroup cg;
	pidns ns;

	if (!ax_rt_alive(h))
		return not_running(id, err);
	if (h->cgroup)
		return locate_freezer(id, &cg, err) < 0 ? -1 : ax_cg_freeze(&cg, false, err);
	if (ns_of(h, &ns) < 0)
		return not_running(id, err);
	ns_signal(&ns, SIGCONT, NULL);
	return 0;
}

int ax_rt_kill(const ax_rt_handle *h, const char *id, ax_error *err)
{
	long long deadline = ax_mono_ms() + AX_RT_WAIT_MS;
	ax_cgroup cg;
	pidns ns;
	bool have_ns = ns_of(h, &ns) == 0;
	int e;

	ax_cg_locate(id, &cg);
	/* PID 1's death takes its whole pid namespace; SIGKILL stays pending on
	 * frozen tasks, so thaw only after every kill is queued. */
	if (ax_rt_proc_same(h->init_pid, h->init_start))
		kill(h->init_pid, SIGKILL);
	if (ax_rt_proc_same(h->pid, h->start))
		kill(h->pid, SIGKILL);
	/* It dies with bwrap's monitor anyway (netns.c); without cgroups this
	 * is what ends it when the monitor is already gone. */
	if (h->net_pid > 0 && ax_rt_proc_same(h->net_pid, h->net_start))
		kill(h->net_pid, SIGKILL);
	ax_cg_kill_all(&cg);
	ax_cg_thaw_nowait(&cg);
	for (;;) {
		int left = ax_cg_kill_all(&cg);

		left += ax_rt_proc_same(h->init_pid, h->init_start) + ax_rt_proc_same(h->pid, h->start);
		left += h->net_pid > 0 && ax_rt_proc_same(h->net_pid, h->net_start);
		if (have_ns)
			left += ns_signal(&ns, SIGKILL, NULL);
		if (!left)
			break;
		if (ax_mono_ms() > deadline)
			return ax_fail(err, AX_CODE_RUNTIME, "%d process(es) of sandbox %s survived SIGKILL for %d s",
				       left, id, AX_RT_WAIT_MS / 1000);
		ax_rt_sleep_us(1000);
	}
	/* A just-emptied cgroup can be briefly busy. */
	while ((e = ax_cg_remove(&cg)) != 0) {
		if (ax_mono_ms() > deadline)
			return ax_fail(err, AX_CODE_RUNTIME, "cannot remove the cgroups of sandbox %s: %s", id,
				       strerror(e));
		ax_rt_sleep_us(2000);
	}
	return 0;
}
