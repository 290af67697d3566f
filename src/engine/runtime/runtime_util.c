/* Small helpers shared by the runtime: string vectors, /proc and file I/O. */
#include "engine/runtime/runtime_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void ax_strv_add(ax_strv *sv, const char *s)
{
	char *copy;

	if (sv->oom)
		return;
	if (sv->n + 2 > sv->cap) {
		size_t cap = sv->cap ? sv->cap * 2 : 32;
		char **grown = realloc(sv->v, cap * sizeof *grown);

		if (!grown) {
			sv->oom = true;
			return;
		}
		sv->v = grown;
		sv->cap = cap;
	}
	copy = s ? strdup(s) : NULL;
	if (!copy) {
		sv->oom = true;
		return;
	}
	sv->v[sv->n++] = copy;
	sv->v[sv->n] = NULL;
}

void ax_strv_addf(ax_strv *sv, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		sv->oom = true;
		return;
	}
	ax_strv_add(sv, s);
	free(s);
}

void ax_strv_free(ax_strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	memset(sv, 0, sizeof *sv);
}

char *ax_rt_fmt(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

void ax_rt_note(char *note, size_t len, const char *fmt, ...)
{
	size_t used = strlen(note);
	va_list ap;

	if (used && used + 2 < len) {
		memcpy(note + used, "; ", 3);
		used += 2;
	}
	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(note + used, len - used, fmt, ap);
	va_end(ap);
}

/* Lexical: both paths must already be canonical. */
bool ax_rt_within(const char *dir, const char *path)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	return strncmp(dir, path, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

void ax_rt_sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int ax_rt_write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(s);
	ssize_t n;
	int e = 0;

	if (fd < 0)
		return errno;
	n = write(fd, s, len);
	if (n < 0)
		e = errno;
	else if ((size_t)n != len)
		e = EIO;
	close(fd);
	return e;
}

int ax_rt_read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t used = 0;
	int e = 0;

	if (fd < 0)
		return errno;
	while (used + 1 < len) {
		ssize_t n = read(fd, buf + used, len - 1 - used);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			break;
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	buf[used] = '\0';
	close(fd);
	return e;
}

int ax_rt_proc_stat(pid_t pid, char *state, unsigned long long *start)
{
	char path[64], buf[1024];
	const char *p;
	int field;

	if (pid <= 0)
		return -1;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if (ax_rt_read_small(path, buf, sizeof buf) != 0)
		return -1;
	/* comm may contain spaces and parentheses: fields restart after the last ')'. */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || !p[2])
		return -1;
	p += 2;
	if (state)
		*state = *p;
	for (field = 3; field < 22 && p; field++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (!p)
		return -1;
	if (start)
		*start = strtoull(p, NULL, 10);
	return 0;
}

bool ax_rt_proc_same(pid_t pid, unsigned long long start)
{
	char state;
	unsigned long long t;

	if (ax_rt_proc_stat(pid, &state, &t) < 0)
		return false;
	return t == start && state != 'Z' && state != 'X';
}

void ax_plan_add(ax_plan *p, ax_op_kind kind, const char *src, const char *dst, const char *data)
{
	ax_op *op;

	if (p->oom)
		return;
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		ax_op *grown = realloc(p->ops, cap * sizeof *grown);

		if (!grown) {
			p->oom = true;
			return;
		}
		p->ops = grown;
		p->cap = cap;
	}
	op = &p->ops[p->n];
	op->kind = kind;
	op->src = src ? strdup(src) : NULL;
	op->dst = strdup(dst);
	op->data = data ? strdup(data) : NULL;
	if ((src && !op->src) || !op->dst || (data && !op->data)) {
		free(op->src);
		free(op->dst);
		free(op->data);
		p->oom = true;
		return;
	}
	p->n++;
}

void ax_plan_free(ax_plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->ops[i].src);
		free(p->ops[i].dst);
		free(p->ops[i].data);
	}
	free(p->ops);
	memset(p, 0, sizeof *p);
}

uint64_t ax_rt_fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}
