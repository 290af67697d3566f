/* What the AIO handlers share: request validation shaped like FastAPI's 422,
 * FileOperationError replies and UTF-8 handling. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "agent/aio/aio_common.h"

void aio_args_invalid(struct aio_args *a, const char *key, const char *type, const char *msg)
{
	json_t *loc = json_pack("[s]", a->where ? a->where : "body");

	if (!a->detail)
		a->detail = json_array();
	if (key)
		json_array_append_new(loc, json_string(key));
	json_array_append_new(a->detail, json_pack("{s:o,s:s,s:s}", "loc", loc, "msg", msg, "type", type));
}

void aio_args_body(struct ag_req *req, struct aio_args *a)
{
	json_error_t jerr;

	a->body = NULL;
	a->detail = NULL;
	a->where = "body";
	if (!req->body || !req->body_len) {
		aio_args_invalid(a, NULL, "missing", "Field required");
		return;
	}
	/* NUL is fine in file content; aio_arg_str refuses it everywhere else. */
	a->body = json_loadb(req->body, req->body_len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
	if (!a->body) {
		aio_args_invalid(a, NULL, "json_invalid", "JSON decode error");
		return;
	}
	if (!json_is_object(a->body))
		aio_args_invalid(a, NULL, "model_attributes_type", "Input should be a valid dictionary or object");
}

void aio_args_free(struct aio_args *a)
{
	json_decref(a->body);
	json_decref(a->detail);
	a->body = a->detail = NULL;
}

bool aio_args_ok(const struct aio_args *a)
{
	return !a->detail;
}

/* KEY's value, or NULL when absent or null (recording "missing" if REQUIRED). */
static json_t *field(struct aio_args *a, const char *key, bool required)
{
	json_t *v = json_is_object(a->body) ? json_object_get(a->body, key) : NULL;

	if (v && !json_is_null(v))
		return v;
	if (required && json_is_object(a->body))
		aio_args_invalid(a, key, "missing", "Field required");
	return NULL;
}

const char *aio_arg_str(struct aio_args *a, const char *key, bool required)
{
	json_t *v = field(a, key, required);

	if (!v)
		return NULL;
	if (json_is_string(v) && strlen(json_string_value(v)) == json_string_length(v))
		return json_string_value(v);
	if (json_is_string(v))
		aio_args_invalid(a, key, "string_nul", "Input should not contain NUL characters");
	else
		aio_args_invalid(a, key, "string_type", "Input should be a valid string");
	return NULL;
}

bool aio_arg_bool(struct aio_args *a, const char *key, bool dflt)
{
	json_t *v = field(a, key, false);

	if (!v)
		return dflt;
	if (json_is_boolean(v))
		return json_is_true(v);
	/* pydantic's lax mode takes 0 and 1 as booleans too. */
	if (json_is_integer(v) && (json_integer_value(v) == 0 || json_integer_value(v) == 1))
		return json_integer_value(v) == 1;
	aio_args_invalid(a, key, "bool_type", "Input should be a valid boolean");
	return dflt;
}

bool aio_arg_num(struct aio_args *a, const char *key, double *out)
{
	json_t *v = field(a, key, false);

	if (!v)
		return false;
	if (json_is_number(v) && isfinite(json_number_value(v))) {
		*out = json_number_value(v);
		return true;
	}
	aio_args_invalid(a, key, "float_type", "Input should be a valid number");
	return false;
}

bool aio_arg_int(struct aio_args *a, const char *key, long long *out)
{
	json_t *v = field(a, key, false);
	double d;

	if (!v)
		return false;
	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		return true;
	}
	d = json_is_real(v) ? json_real_value(v) : NAN;
	if (isfinite(d) && d == floor(d) && fabs(d) < 9e15) {
		*out = (long long)d;
		return true;
	}
	aio_args_invalid(a, key, "int_type", "Input should be a valid integer");
	return false;
}

enum MHD_Result aio_reply_invalid(struct ag_req *req, struct aio_args *a)
{
	json_t *first = json_array_get(a->detail, 0);
	json_t *loc = json_object_get(first, "loc");
	char where[256] = "";
	size_t i;
	json_t *o;

	for (i = 0; i < json_array_size(loc); i++) {
		json_t *part = json_array_get(loc, i);
		size_t used = strlen(where);

		snprintf(where + used, sizeof where - used, "%s%s", i ? "." : "",
			 json_is_string(part) ? json_string_value(part) : "?");
	}
	o = json_object();
	json_object_set_new(o, "success", json_false());
	json_object_set_new(o, "message", json_sprintf("Request validation failed: %s: %s", where,
						       json_string_value(json_object_get(first, "msg"))));
	json_object_set(o, "detail", a->detail);
	return ag_reply_json(req, MHD_HTTP_UNPROCESSABLE_CONTENT, o);
}

struct errno_kind {
	int errnum;
	const char *error_type;
	const char *exception_type;
};

/* Python's exception classes for the errnos it maps, and the error_type
 * names AIO 1.9 documents. */
static const struct errno_kind errno_kinds[] = {
	{ ENOENT, "not_found", "FileNotFoundError" },
	{ EACCES, "permission_denied", "PermissionError" },
	{ EPERM, "permission_denied", "PermissionError" },
	{ EISDIR, "invalid_target", "IsADirectoryError" },
	{ ENOTDIR, "invalid_path", "NotADirectoryError" },
	{ EEXIST, "already_exists", "FileExistsError" },
	{ EROFS, "read_only_filesystem", "OSError" },
	{ ENOSPC, "no_space_left", "OSError" },
	{ EDQUOT, "no_space_left", "OSError" },
	{ ENAMETOOLONG, "invalid_path", "OSError" },
	{ ELOOP, "invalid_path", "OSError" },
	{ EINVAL, "invalid_path", "OSError" },
};

json_t *aio_file_error(const char *path, const char *operation, const char *error_type, int errnum,
		       const char *message)
{
	const char *exception = errnum ? "OSError" : NULL;
	const char *name = errnum ? strerrorname_np(errnum) : NULL;
	bool retryable = errnum == EAGAIN || errnum == EINTR || errnum == EBUSY || errnum == ETIMEDOUT;
	json_t *o = json_object();
	size_t i;

	for (i = 0; errnum && i < sizeof errno_kinds / sizeof errno_kinds[0]; i++) {
		if (errno_kinds[i].errnum != errnum)
			continue;
		exception = errno_kinds[i].exception_type;
		if (!error_type)
			error_type = errno_kinds[i].error_type;
	}
	json_object_set_new(o, "path", ag_json_text(path));
	json_object_set_new(o, "operation", json_string(operation));
	json_object_set_new(o, "message", ag_json_text(message));
	json_object_set_new(o, "error_type", json_string(error_type ? error_type : "io_error"));
	json_object_set_new(o, "retryable", json_boolean(retryable));
	json_object_set_new(o, "errno", errnum ? json_integer(errnum) : json_null());
	json_object_set_new(o, "errno_name", name ? json_string(name) : json_null());
	json_object_set_new(o, "exception_type", exception ? json_string(exception) : json_null());
	return o;
}

enum MHD_Result aio_reply_file_error(struct ag_req *req, const char *path, const char *operation,
				     const char *error_type, int errnum, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	json_t *o;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	o = ag_envelope(NULL, aio_file_error(path, operation, error_type, errnum, msg));
	json_object_set_new(o, "success", json_false());
	json_object_set_new(o, "message", ag_json_text(msg));
	return ag_reply_json(req, MHD_HTTP_OK, o);
}

enum MHD_Result aio_reply_errno(struct ag_req *req, const char *path, const char *operation, int errnum)
{
	/* Python's own wording, which agents already know how to read. */
	return aio_reply_file_error(req, path, operation, NULL, errnum, "[Errno %d] %s: '%s'", errnum,
				    strerror(errnum), path);
}

size_t aio_utf8_seq(const unsigned char *s, size_t n)
{
	size_t len, i;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, UTF-16 surrogates and code points past U+10FFFF. */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

bool aio_utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;

	while (i < len) {
		n = aio_utf8_seq(p + i, len - i);
		if (!n)
			return false;
		i += n;
	}
	return true;
}

json_t *aio_json_bytes(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, j = 0, n;
	char *fixed;
	json_t *str;

	if (aio_utf8_valid(s, len))
		return json_stringn_nocheck(s, len);
	/* Each bad byte becomes the three bytes of U+FFFD. */
	fixed = malloc(len * 3 + 1);
	if (!fixed)
		return NULL;
	while (i < len) {
		n = aio_utf8_seq(p + i, len - i);
		if (n) {
			memcpy(fixed + j, s + i, n);
			i += n;
			j += n;
		} else {
			fixed[j++] = '\xef';
			fixed[j++] = '\xbf';
			fixed[j++] = '\xbd';
			i++;
		}
	}
	str = json_stringn_nocheck(fixed, j);
	free(fixed);
	return str;
}

int aio_mkdir_parents(const char *path)
{
	char buf[PATH_MAX], saved;
	struct stat st;
	char *p;

	if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
		errno = ENAMETOOLONG;
		return -1;
	}
	p = strrchr(buf, '/');
	if (!p || p == buf)
		return 0;
	*p = '\0';
	/* Most writes go to an existing directory: one stat, no mkdir. */
	if (stat(buf, &st) < 0) {
		for (p = buf + 1;; p++) {
			if (*p != '/' && *p != '\0')
				continue;
			saved = *p;
			*p = '\0';
			if (mkdir(buf, 0777) < 0 && errno != EEXIST)
				return -1;
			*p = saved;
			if (!saved)
				break;
		}
		if (stat(buf, &st) < 0)
			return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

bool aio_path_ok(const char *path)
{
	return path && path[0] == '/';
}
