#include "agent/execd/execd_proc.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Without a pidfd (kernel < 5.3, or seccomp), look for the exit this often. */
#define EXIT_POLL_MS 50
/* The main loop reaps on SIGCHLD; it should never take anywhere near this. */
#define REAP_WAIT_MS 10000

void ag_watch_init(struct ag_watch *w, const struct ag_ctx *ctx, struct ag_proc *proc)
{
	w->ctx = ctx;
	w->proc = proc;
	w->exited = false;
	w->status = -1;
	w->hup_fd = -1;
	w->hung_up = false;
#ifdef SYS_pidfd_open
	w->pidfd = (int)syscall(SYS_pidfd_open, proc->pid, 0);
#else
	w->pidfd = -1;
#endif
}

void ag_watch_close(struct ag_watch *w)
{
	if (w->pidfd >= 0)
		close(w->pidfd);
	w->pidfd = -1;
}

static void reap(struct ag_watch *w, int timeout_ms)
{
	int status;

	if (ag_proc_wait(w->ctx, w->proc, timeout_ms, &status) == 1) {
		w->exited = true;
		w->status = status;
	}
}

int ag_watch_poll(struct ag_watch *w, int timeout_ms, bool ready[2])
{
	struct pollfd fds[4];
	int slot[2] = { -1, -1 }, n = 0, pid_slot = -1, hup_slot = -1, i, rc;
	const int pipes[2] = { w->proc->out_fd, w->proc->err_fd };

	ready[0] = ready[1] = false;
	for (i = 0; i < 2; i++) {
		if (pipes[i] < 0)
			continue;
		slot[i] = n;
		fds[n++] = (struct pollfd){ .fd = pipes[i], .events = POLLIN };
	}
	if (!w->exited && w->pidfd >= 0) {
		pid_slot = n;
		fds[n++] = (struct pollfd){ .fd = w->pidfd, .events = POLLIN };
	} else if (!w->exited && (timeout_ms < 0 || timeout_ms > EXIT_POLL_MS)) {
		timeout_ms = EXIT_POLL_MS;
	}
	if (w->hup_fd >= 0) {
		/* Only hang-ups: a pipelined next request must not wake us. */
		hup_slot = n;
		fds[n++] = (struct pollfd){ .fd = w->hup_fd, .events = POLLRDHUP };
	}
	rc = poll(fds, (nfds_t)n, timeout_ms);
	if (rc < 0)
		return errno == EINTR ? 0 : -1;
	for (i = 0; i < 2; i++)
		if (slot[i] >= 0 && fds[slot[i]].revents)
			ready[i] = true;
	if (hup_slot >= 0 && fds[hup_slot].revents)
		w->hung_up = true;
	if (w->exited)
		return 0;
	if (pid_slot >= 0) {
		if (fds[pid_slot].revents)
			reap(w, REAP_WAIT_MS);
	} else {
		reap(w, 0);
	}
	return 0;
}

void ag_watch_reap(struct ag_watch *w, int timeout_ms)
{
	if (!w->exited)
		reap(w, timeout_ms);
}

int ag_exit_code(int status)
{
	if (status != -1 && WIFEXITED(status))
		return WEXITSTATUS(status);
	return -1;
}

void ag_exit_text(int status, char *buf, size_t size)
{
	const char *name;

	if (status == -1) {
		snprintf(buf, size, "exit status unknown");
	} else if (WIFEXITED(status)) {
		snprintf(buf, size, "exit status %d", WEXITSTATUS(status));
	} else if (WIFSIGNALED(status)) {
		/* Go spells signals like strsignal, in lower case: "signal: killed". */
		name = sigdescr_np(WTERMSIG(status));
		snprintf(buf, size, "signal: %s", name ? name : "unknown");
		if (size > 8)
			buf[8] = (char)tolower((unsigned char)buf[8]);
	} else {
		snprintf(buf, size, "exit status unknown");
	}
}
