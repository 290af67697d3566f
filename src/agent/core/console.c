#include "agent/core/console.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* pipe2 with both ends above stderr: 0-2 are taken here, but be sure. */
static int make_pipe(int p[2])
{
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	for (int i = 0; i < 2; i++)
		if (p[i] <= STDERR_FILENO) {
			int fd = fcntl(p[i], F_DUPFD_CLOEXEC, STDERR_FILENO + 1);

			close(p[i]);
			p[i] = fd;
		}
	if (p[0] < 0 || p[1] < 0) {
		close_fd(&p[0]);
		close_fd(&p[1]);
		return -1;
	}
	return 0;
}

static int fail(struct ag_console *c, const char *what, ax_error *err)
{
	int e = errno;

	/* Whatever was moved, stderr is still the log: undo the rest. */
	close_fd(&c->log_fd);
	close_fd(&c->own_r);
	close_fd(&c->out_r);
	close_fd(&c->out_w);
	close_fd(&c->stop_r);
	close_fd(&c->stop_w);
	return ax_fail(err, AX_CODE_CONSOLE, "console log: %s: %s", what, strerror(e));
}

int ag_console_open(struct ag_console *c, int old_fd, long long max, ax_error *err)
{
	int own[2] = { -1, -1 }, out[2] = { -1, -1 }, stop[2] = { -1, -1 };
	struct stat st;
	int fl;

	c->log_fd = c->old_fd = c->own_r = c->out_r = c->out_w = c->stop_r = c->stop_w = -1;
	c->pumping = false;
	if (old_fd < 0)
		return 0;
	if (max < 1)
		return ax_fail(err, AX_CODE_USAGE, "--log-max must be at least 1 byte");
	/* console.log.1 is written at offsets (copy_file_range refuses an
	 * O_APPEND target); console.log is read from to be copied and always
	 * appended to, so a truncation takes its writes back to the start. */
	fl = fcntl(old_fd, F_GETFL);
	if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY || fstat(old_fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    fcntl(old_fd, F_SETFL, fl & ~O_APPEND) < 0 || fcntl(old_fd, F_SETFD, FD_CLOEXEC) < 0)
		return ax_fail(err, AX_CODE_USAGE, "--log-rotate-fd %d: not a regular file open for writing",
			       old_fd);
	fl = fcntl(STDERR_FILENO, F_GETFL);
	if (fl < 0 || (fl & O_ACCMODE) != O_RDWR || fstat(STDERR_FILENO, &st) < 0 || !S_ISREG(st.st_mode) ||
	    fcntl(STDERR_FILENO, F_SETFL, fl | O_APPEND) < 0)
		return ax_fail(err, AX_CODE_USAGE,
			       "--log-rotate-fd: stderr must be a regular file open for reading and writing");
	c->size = st.st_size;
	c->log_fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
	if (c->log_fd < 0)
		return fail(c, "stderr", err);
	if (make_pipe(own) < 0)
		return fail(c, "pipe", err);
	c->own_r = own[0];
	if (make_pipe(out) < 0) {
		close(own[1]);
		return fail(c, "pipe", err);
	}
	c->out_r = out[0];
	c->out_w = out[1];
	if (make_pipe(stop) < 0) {
		close(own[1]);
		return fail(c, "pipe", err);
	}
	c->stop_r = stop[0];
	c->stop_w = stop[1];
	if (dup2(own[1], STDOUT_FILENO) < 0 || dup2(own[1], STDERR_FILENO) < 0) {
		int e = errno;

		dup2(c->log_fd, STDOUT_FILENO);
		dup2(c->log_fd, STDERR_FILENO);
		close(own[1]);
		errno = e;
		return fail(c, "dup2", err);
	}
	close(own[1]);
	c->old_fd = old_fd;
	c->max = max;
	return 0;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Copy the first LEN bytes of IN to the start of OUT. */
static int copy_prefix(int in, int out, long long len)
{
	off_t off_in = 0, off_out = 0;
	char buf[16384];

	while (off_in < len) {
		ssize_t n = copy_file_range(in, &off_in, out, &off_out, (size_t)(len - off_in), 0);

		if (n > 0)
			continue;
		if (n == 0)
			return 0;	/* shorter than we thought */
		if (errno == EINTR)
			continue;
		if (errno != EXDEV && errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
			return -1;
		/* No in-kernel copy between these files: read and write. */
		while (off_in < len) {
			size_t want = (size_t)(len - off_in) < sizeof buf ? (size_t)(len - off_in) : sizeof buf;
			ssize_t r = pread(in, buf, want, off_in);

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				return r < 0 ? -1 : 0;
			for (ssize_t done = 0; done < r;) {
				ssize_t w = pwrite(out, buf + done, (size_t)(r - done), off_out);

				if (w < 0 && errno == EINTR)
					continue;
				if (w <= 0)
					return -1;
				done += w;
				off_out += w;
			}
			off_in += r;
		}
	}
	return 0;
}

/* console.log -> console.log.1, console.log empty. A failure to copy loses
 * the older half; a failure to empty console.log means nothing more may be
 * written to it (-1). */
static int rotate(struct ag_console *c)
{
	if (ftruncate(c->old_fd, 0) == 0)
		copy_prefix(c->log_fd, c->old_fd, c->size);
	if (ftruncate(c->log_fd, 0) < 0)
		return -1;
	c->size = 0;
	return 0;
}

/* Append N bytes of c->buf within the budget. Output that cannot be
 * written is dropped: the writers inside must never block on the host. */
static void append(struct ag_console *c, size_t n)
{
	if (c->size + (long long)n > c->max && c->size > 0 && rotate(c) < 0)
		return;
	if (c->size + (long long)n > c->max)
		return;
	if (write_all(c->log_fd, c->buf, n) == 0) {
		c->size += (long long)n;
	} else {
		struct stat st;

		/* Part of it may be there (a full disk): count what is. */
		c->size = fstat(c->log_fd, &st) == 0 ? st.st_size : c->max;
	}
}

/* Read one chunk of FD into the log: 1 if it had data, 0 at EOF or when
 * empty (non-blocking), -1 on error. No chunk is larger than the cap, so
 * one always fits in an empty file. */
static int move(struct ag_console *c, int fd)
{
	size_t want = c->max < (long long)sizeof c->buf ? (size_t)c->max : sizeof c->buf;
	ssize_t n;

	do
		n = read(fd, c->buf, want);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return n == 0 || errno == EAGAIN ? 0 : -1;
	append(c, (size_t)n);
	return 1;
}

/* What is in the pipes now, without waiting: the agent's lines all, the
 * entrypoint's up to a bound (it may still be writing). */
static void drain(struct ag_console *c)
{
	long long budget = 16LL * AG_CONSOLE_BUF;

	fcntl(c->own_r, F_SETFL, O_NONBLOCK);
	fcntl(c->out_r, F_SETFL, O_NONBLOCK);
	while (move(c, c->own_r) > 0)
		;
	while (budget > 0 && move(c, c->out_r) > 0)
		budget -= AG_CONSOLE_BUF;
	while (move(c, c->own_r) > 0)
		;
}

static void *pump(void *arg)
{
	struct ag_console *c = arg;
	struct pollfd p[3] = {
		{ .fd = c->own_r, .events = POLLIN },
		{ .fd = c->out_r, .events = POLLIN },
		{ .fd = c->stop_r, .events = POLLIN },
	};

	for (;;) {
		if (poll(p, 3, -1) < 0) {
			/* Never give up: writers inside would block on full pipes. */
			if (errno != EINTR)
				usleep(10000);
			continue;
		}
		if (p[2].revents)
			break;
		/* The agent's own lines first, so a flood in the other pipe cannot
		 * hold them back; but after what the entrypoint had written
		 * already (one read takes a whole pipe's worth), so that "the
		 * entrypoint exited" follows its last words. A pipe at EOF is not
		 * polled again. */
		if (p[1].revents && move(c, c->out_r) <= 0)
			p[1].fd = -1;
		if (p[0].revents && move(c, c->own_r) <= 0)
			p[0].fd = -1;
	}
	drain(c);
	return NULL;
}

int ag_console_start(struct ag_console *c, ax_error *err)
{
	int rc;

	if (c->log_fd < 0 || c->pumping)
		return 0;
	rc = pthread_create(&c->pump, NULL, pump, c);
	if (rc != 0)
		return ax_fail(err, AX_CODE_CONSOLE, "console log: cannot start its thread: %s",
			       strerror(rc));
	c->pumping = true;
	return 0;
}

int ag_console_out_fd(const struct ag_console *c)
{
	return c->out_w;
}

void ag_console_close(struct ag_console *c)
{
	if (c->log_fd < 0)
		return;
	if (c->pumping) {
		close_fd(&c->stop_w);	/* the pump sees POLLHUP, drains and ends */
		pthread_join(c->pump, NULL);
		c->pumping = false;
	} else {
		drain(c);
	}
	dup2(c->log_fd, STDOUT_FILENO);
	dup2(c->log_fd, STDERR_FILENO);
	close_fd(&c->log_fd);
	close_fd(&c->old_fd);
	close_fd(&c->own_r);
	close_fd(&c->out_r);
	close_fd(&c->out_w);
	close_fd(&c->stop_r);
	close_fd(&c->stop_w);
}
