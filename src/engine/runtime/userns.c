/* User namespaces for a sandbox's identity and for idmapped layers.
 *
 * The namespace is made by a short-lived child that takes the owner's uid
 * and gid first: the owner of a user namespace holds every capability in it
 * from outside, which is what lets bubblewrap, run as that host uid, join it
 * with --userns and still set the sandbox up. The engine (host root) writes
 * the maps, which no process inside could. */
#include "engine/runtime/userns.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/runtime/runtime_internal.h"

typedef struct maker {
	unsigned owner;
	int flags;              /* CLONE_NEWUSER, plus CLONE_NEWNET for a sandbox's network */
	int ready_w, go_r, go_w;
} maker;

/* Raw system calls only: the child shares the engine's memory (CLONE_VM),
 * and glibc's setuid family would signal the engine's threads. */
static int make_ns(void *arg)
{
	const maker *m = arg;
	char c = 0;

	close(m->go_w);
	if (syscall(SYS_setgroups, 0, NULL) < 0 || syscall(SYS_setresgid, m->owner, m->owner, m->owner) < 0 ||
	    syscall(SYS_setresuid, m->owner, m->owner, m->owner) < 0 || unshare(m->flags) < 0)
		c = 1;
	if (write(m->ready_w, &c, 1) != 1 || c)
		_exit(1);
	/* Stay until the parent has written the maps and opened the namespace
	 * (its byte, or EOF if it is gone). */
	while (read(m->go_r, &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

static int write_map(pid_t pid, const char *file, const char *map)
{
	char path[64];

	snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, file);
	return ax_rt_write_file(path, map);
}

int ax_userns_open(unsigned inside, unsigned outside, unsigned count, unsigned owner, int *fd, int *netns_fd,
		   ax_error *err)
{
	enum { STACK = 64 * 1024 };
	int ready[2] = { -1, -1 }, go[2] = { -1, -1 }, rc = -1, e = 0;
	char *stack = NULL, map[96], path[64], c = 1;
	maker m;
	pid_t pid = -1;

	*fd = -1;
	if (netns_fd)
		*netns_fd = -1;
	if (pipe2(ready, O_CLOEXEC) < 0 || pipe2(go, O_CLOEXEC) < 0 || !(stack = malloc(STACK))) {
		ax_fail(err, AX_CODE_RUNTIME, "cannot create a user namespace: %s", strerror(errno));
		goto out;
	}
	m.owner = owner;
	/* One unshare: the network namespace is then owned by the new user
	 * namespace, so its owner (the sandbox's host uid, which runs the
	 * user-mode stack) may join it and nobody inside may reconfigure it
	 * without capabilities bwrap drops. */
	m.flags = CLONE_NEWUSER | (netns_fd ? CLONE_NEWNET : 0);
	m.ready_w = ready[1];
	m.go_r = go[0];
	m.go_w = go[1];
	pid = clone(make_ns, stack + STACK, CLONE_VM | SIGCHLD, &m);
	if (pid < 0) {
		ax_fail(err, AX_CODE_RUNTIME, "cannot create a user namespace: %s", strerror(errno));
		goto out;
	}
	while (read(ready[0], &c, 1) < 0 && errno == EINTR)
		;
	if (c) {
		ax_fail(err, AX_CODE_RUNTIME, "cannot create a user namespace owned by uid %u", owner);
		goto out;
	}
	snprintf(map, sizeof map, "%u %u %u\n", inside, outside, count);
	snprintf(path, sizeof path, "/proc/%d/ns/user", (int)pid);
	if ((e = write_map(pid, "uid_map", map)) != 0 || (e = write_map(pid, "gid_map", map)) != 0) {
		ax_fail(err, AX_CODE_RUNTIME, "cannot map uids %u-%u to %u-%u: %s", inside,
			inside + count - 1, outside, outside + count - 1, strerror(e));
		goto out;
	}
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		ax_fail(err, AX_CODE_RUNTIME, "cannot open %s: %s", path, strerror(errno));
		goto out;
	}
	if (netns_fd) {
		snprintf(path, sizeof path, "/proc/%d/ns/net", (int)pid);
		*netns_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (*netns_fd < 0) {
			ax_fail(err, AX_CODE_RUNTIME, "cannot open %s: %s", path, strerror(errno));
			close(*fd);
			*fd = -1;
			goto out;
		}
	}
	rc = 0;
out:
	/* Released by a byte, not by EOF: a maker another thread forks meanwhile
	 * holds a copy of our write end (it has a copy of the fd table) until it
	 * ends, and may wait on its own parent as long as we wait on ours. */
	if (go[1] >= 0) {
		while (write(go[1], "", 1) < 0 && errno == EINTR)
			;
		close(go[1]);
	}
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	if (ready[0] >= 0)
		close(ready[0]);
	if (ready[1] >= 0)
		close(ready[1]);
	if (go[0] >= 0)
		close(go[0]);
	free(stack);
	return rc;
}
