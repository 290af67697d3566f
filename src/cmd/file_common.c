#include "cmd/file_common.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "cmd/target.h"

void ax_file_conn_init(ax_file_conn *c, ax_ctx *ctx)
{
	c->execd = &ctx->target->runtime;
	c->timeout_s = ctx->target->runtime.timeout_s;
	c->interrupted = ctx->interrupted;
	c->stream = ctx->stream;
}

void ax_file_error_rename(ax_error *err, const char *from, const char *to)
{
	char *at = err && from && *from && to ? strstr(err->message, from) : NULL;
	char tail[sizeof err->message];

	if (!at)
		return;
	snprintf(tail, sizeof tail, "%s", at + strlen(from));
	snprintf(at, sizeof err->message - (size_t)(at - err->message), "%s%s", to, tail);
}

int ax_mode_parse(const char *text, int *mode)
{
	char buf[32];
	const char *s;
	size_t i, n;

	/* Lower-case, drop "0o" and leading zeros, then at most 4 octal digits. */
	while (isspace((unsigned char)*text))
		text++;
	n = strlen(text);
	while (n && isspace((unsigned char)text[n - 1]))
		n--;
	if (n >= sizeof buf)
		return -1;
	for (i = 0; i < n; i++)
		buf[i] = (char)tolower((unsigned char)text[i]);
	buf[n] = '\0';
	s = buf;
	if (s[0] == '0' && s[1] == 'o')
		s += 2;
	while (*s == '0')
		s++;
	if (!*s)
		s = "0";
	if (strlen(s) > 4)
		return -1;
	for (i = 0; s[i]; i++)
		if (s[i] < '0' || s[i] > '7')
			return -1;
	*mode = atoi(s);
	return 0;
}

int ax_file_mode_option(const ax_args *args, const char *name)
{
	int mode = 0;

	ax_mode_parse(ax_arg_string(args, name), &mode);
	return mode;
}

int ax_file_interrupted(const ax_file_conn *c)
{
	return c->interrupted ? (int)*c->interrupted : 0;
}

int ax_file_interrupt_fail(const ax_file_conn *c, ax_error *err)
{
	int sig = ax_file_interrupted(c) ? ax_file_interrupted(c) : SIGINT;

	return ax_fail_signal(err, sig, "%s", sig == SIGINT ? "Interrupted" : "Terminated");
}

static int xfer_tick(void *ud, unsigned long long done, long long total, ax_error *err)
{
	ax_file_xfer *t = ud;

	if (ax_file_interrupted(t->conn))
		return ax_file_interrupt_fail(t->conn, err);
	if (!t->own_total && total >= 0)
		ax_progress_set_total(&t->bar, total);
	ax_progress_update(&t->bar, t->base + done);
	return 0;
}

void ax_file_xfer_start(ax_file_xfer *t, const ax_file_conn *c, const char *label, long long total,
			size_t buffer_size)
{
	memset(t, 0, sizeof *t);
	t->conn = c;
	ax_progress_start(&t->bar, c->stream, label, total);
	t->own_total = total >= 0;
	t->x.tick = xfer_tick;
	t->x.tick_ud = t;
	t->x.buffer_size = buffer_size;
	t->x.stall_timeout_s = c->timeout_s;
}

void ax_file_xfer_advance(ax_file_xfer *t, unsigned long long bytes)
{
	t->base += bytes;
	ax_progress_update(&t->bar, t->base);
}

void ax_file_xfer_end(ax_file_xfer *t)
{
	ax_progress_end(&t->bar);
}

char *ax_file_part_name(const char *dir, const char *base)
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789_";
	unsigned char rnd[8];
	char suffix[sizeof rnd + 1], *out;
	size_t i;

	if (getrandom(rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t)sizeof rnd) {
		/* No entropy yet (early boot): still unique enough, and O_EXCL catches the rest. */
		unsigned long long x = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 20) ^
				       (unsigned long long)clock();

		for (i = 0; i < sizeof rnd; i++, x = x * 6364136223846793005ULL + 1442695040888963407ULL)
			rnd[i] = (unsigned char)(x >> 56);
	}
	for (i = 0; i < sizeof rnd; i++)
		suffix[i] = alphabet[rnd[i] % (sizeof alphabet - 1)];
	suffix[sizeof rnd] = '\0';
	if (asprintf(&out, "%s/.%s.%s.part", dir, base, suffix) < 0)
		return NULL;
	return out;
}

static int write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t n = write(fd, data, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

int ax_file_writer_open(ax_file_writer *w, int fd, size_t cap, const char *name, ax_error *err)
{
	memset(w, 0, sizeof *w);
	w->fd = fd;
	w->name = name;
	w->cap = cap ? cap : AX_FILE_WRITE_BUFFER;
	w->buf = malloc(w->cap);
	if (!w->buf)
		return ax_fail(err, AX_CODE_NOMEM, "out of memory");
	return 0;
}

int ax_file_writer_flush(ax_file_writer *w, ax_error *err)
{
	if (w->len && write_all(w->fd, w->buf, w->len) < 0)
		return ax_fail(err, AX_CODE_IO, "Cannot write %s: %s", w->name, strerror(errno));
	w->len = 0;
	return 0;
}

int ax_file_writer_sink(void *ud, const char *data, size_t len, ax_error *err)
{
	ax_file_writer *w = ud;

	if (len > w->cap - w->len && ax_file_writer_flush(w, err) < 0)
		return -1;
	if (len >= w->cap) {
		if (write_all(w->fd, data, len) < 0)
			return ax_fail(err, AX_CODE_IO, "Cannot write %s: %s", w->name, strerror(errno));
		return 0;
	}
	memcpy(w->buf + w->len, data, len);
	w->len += len;
	return 0;
}

void ax_file_writer_close(ax_file_writer *w)
{
	free(w->buf);
	w->buf = NULL;
	w->len = w->cap = 0;
}

static int writer_flush(void *ud, ax_error *err)
{
	return ax_file_writer_flush(ud, err);
}

/* Stream REMOTE into a new file PATH; on failure PATH is removed. */
int ax_file_fetch(ax_file_conn *c, ax_file_xfer *t, const char *remote, const char *path,
		  unsigned long long *bytes, ax_error *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	ax_file_writer w;
	int rc;

	*bytes = 0;
	if (fd < 0)
		return ax_fail(err, AX_CODE_IO, "Cannot create %s: %s", path, strerror(errno));
	rc = ax_file_writer_open(&w, fd, t->x.buffer_size, path, err);
	if (rc == 0) {
		/* PATH is a regular file of ours: the body may be spliced into it. */
		ax_execd_file_sink direct = { fd, path, writer_flush, &w };
		ax_execd_xfer x = t->x;

		x.file_sink = &direct;
		rc = ax_execd_download(c->execd, remote, ax_file_writer_sink, &w, &x, bytes, err);
		if (rc == 0)
			rc = ax_file_writer_flush(&w, err);
		ax_file_writer_close(&w);
	}
	if (close(fd) < 0 && rc == 0)
		rc = ax_fail(err, AX_CODE_IO, "Cannot write %s: %s", path, strerror(errno));
	if (rc == 0 && ax_file_interrupted(c))
		rc = ax_file_interrupt_fail(c, err);
	if (rc < 0)
		unlink(path);
	else
		ax_file_xfer_advance(t, *bytes);
	return rc;
}


int ax_file_list_add(ax_file_list *l, char *owned)
{
	if (!owned)
		return -1;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		char **grown = realloc(l->v, cap * sizeof *grown);

		if (!grown) {
			free(owned);
			return -1;
		}
		l->v = grown;
		l->cap = cap;
	}
	l->v[l->n++] = owned;
	return 0;
}

void ax_file_list_free(ax_file_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof *l);
}
