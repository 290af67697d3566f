#include "agent/execd/execd_http.h"

#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum MHD_Result ag_execd_fs_error(struct ag_req *req, const char *what, const char *path, int errnum)
{
	if (errnum == ENOENT || errnum == ENOTDIR)
		return ag_execd_error(req, MHD_HTTP_NOT_FOUND, AG_E_NOT_FOUND, "file not found. %s %s: %s",
				      what, path, strerror(errnum));
	return ag_execd_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME, "error accessing file: %s %s: %s",
			      what, path, strerror(errnum));
}

struct query_one {
	const char *name;
	const char *value;
	int bad;
};

static enum MHD_Result find_first(void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size,
				  const char *value, size_t value_size)
{
	struct query_one *q = cls;

	if (strcmp(key, q->name) != 0)
		return MHD_YES;
	q->value = value ? value : "";
	/* MHD decodes %00 into a NUL it then counts; C strings would cut there. */
	q->bad = value && strlen(value) != value_size;
	return MHD_NO;
}

const char *ag_query(const struct ag_req *req, const char *name, int *bad)
{
	struct query_one q = { name, NULL, 0 };

	MHD_get_connection_values_n(req->conn, MHD_GET_ARGUMENT_KIND, find_first, &q);
	if (bad)
		*bad = q.bad;
	return q.value;
}

struct query_all {
	const char *name;
	const char **values;
	size_t n, cap;
	int bad, nomem;
};

static enum MHD_Result collect(void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size,
			       const char *value, size_t value_size)
{
	struct query_all *q = cls;

	if (strcmp(key, q->name) != 0)
		return MHD_YES;
	if (value && strlen(value) != value_size)
		q->bad = 1;
	if (q->n + 1 >= q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 8;
		const char **grown = realloc(q->values, cap * sizeof *grown);

		if (!grown) {
			q->nomem = 1;
			return MHD_NO;
		}
		q->values = grown;
		q->cap = cap;
	}
	q->values[q->n++] = value ? value : "";
	q->values[q->n] = NULL;
	return MHD_YES;
}

const char **ag_query_all(const struct ag_req *req, const char *name, size_t *count, int *bad)
{
	struct query_all q = { name, NULL, 0, 0, 0, 0 };

	MHD_get_connection_values_n(req->conn, MHD_GET_ARGUMENT_KIND, collect, &q);
	if (q.nomem) {
		free(q.values);
		return NULL;
	}
	if (!q.values)
		q.values = calloc(1, sizeof *q.values);
	*count = q.n;
	*bad = q.bad;
	return q.values;
}

/* Append the component P[0..LEN) to the normalised absolute path OUT. */
static void push_component(char *out, size_t *used, const char *p, size_t len)
{
	if (len == 0 || (len == 1 && p[0] == '.'))
		return;
	if (len == 2 && p[0] == '.' && p[1] == '.') {
		while (*used > 1 && out[*used - 1] != '/')
			(*used)--;
		if (*used > 1)
			(*used)--;	/* the slash before the dropped component */
		out[*used] = '\0';
		return;
	}
	if (*used > 1)
		out[(*used)++] = '/';
	memcpy(out + *used, p, len);
	*used += len;
	out[*used] = '\0';
}

static void push_path(char *out, size_t *used, const char *path)
{
	while (*path) {
		const char *slash = strchr(path, '/');
		size_t len = slash ? (size_t)(slash - path) : strlen(path);

		push_component(out, used, path, len);
		path += len;
		if (*path == '/')
			path++;
	}
}

char *ag_abs_path(const char *path)
{
	const char *home = getenv("HOME"), *rest = path;
	size_t used = 1;
	char *out;

	if (!path || !*path)
		return NULL;
	if (!home || !*home)
		home = "/";
	if (path[0] == '~' && (path[1] == '\0' || path[1] == '/'))
		rest = path + 1;
	else if (path[0] == '/')
		home = "";
	/* Normalising only ever shortens: the joined length bounds the result. */
	out = malloc(strlen(home) + strlen(rest) + 3);
	if (!out)
		return NULL;
	strcpy(out, "/");
	push_path(out, &used, home);
	push_path(out, &used, rest);
	return out;
}

int64_t ag_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int ag_msg_fail(char *msg, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, size, fmt, ap);
	va_end(ap);
	return -1;
}
