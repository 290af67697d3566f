#include "lib/session.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "lib/fs.h"
#include "lib/timeutil.h"

void ax_session_free(ax_session *s)
{
	if (!s)
		return;
	free(s->sandbox_id);
	free(s->aio_url);
	free(s->created_at);
	memset(s, 0, sizeof *s);
}

/* A damaged or foreign file reads as "no session": the original tool did the same,
 * and a later write repairs it. */
static json_t *load_root(const char *path)
{
	json_t *root = json_load_file(path, 0, NULL);

	if (root && !json_is_object(root)) {
		json_decref(root);
		root = NULL;
	}
	return root ? root : json_object();
}

static char *value_string(json_t *v)
{
	if (json_is_string(v))
		return strdup(json_string_value(v));
	if (json_is_integer(v) || json_is_real(v) || json_is_boolean(v)) {
		char *s = json_dumps(v, JSON_ENCODE_ANY);
		return s;
	}
	return NULL;
}

static bool session_from_json(json_t *cur, ax_session *s)
{
	ax_session tmp = { 0 };

	if (!json_is_object(cur))
		return false;
	tmp.sandbox_id = value_string(json_object_get(cur, "sandbox_id"));
	tmp.aio_url = value_string(json_object_get(cur, "aio_url"));
	tmp.created_at = value_string(json_object_get(cur, "created_at"));
	if (!tmp.sandbox_id || !tmp.aio_url || !tmp.created_at || !tmp.sandbox_id[0]) {
		ax_session_free(&tmp);
		return false;
	}
	*s = tmp;
	return true;
}

int ax_session_get(const char *home, ax_session *s, bool *found, ax_error *err)
{
	char *path = ax_path_join(home, "sessions.json");
	json_t *root;

	memset(s, 0, sizeof *s);
	if (!path)
		return ax_fail(err, AX_CODE_IO, "out of memory");
	root = load_root(path);
	*found = session_from_json(json_object_get(root, "current"), s);
	json_decref(root);
	free(path);
	return 0;
}

static int lock_home(const char *home, ax_error *err)
{
	char *path;
	int fd;

	if (ax_mkdir_p(home, 0700, err) < 0)
		return -1;
	path = ax_path_join(home, "sessions.json.lock");
	if (!path)
		return ax_fail(err, AX_CODE_IO, "out of memory");
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		ax_fail(err, AX_CODE_IO, "cannot open %s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			ax_fail(err, AX_CODE_IO, "cannot lock %s: %s", path, strerror(errno));
			close(fd);
			free(path);
			return -1;
		}
	}
	free(path);
	return fd;
}

static int save_root(const char *path, json_t *root, ax_error *err)
{
	char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER), *grown;
	size_t len;
	int rc;

	if (!text)
		return ax_fail(err, AX_CODE_IO, "out of memory");
	len = strlen(text);
	grown = realloc(text, len + 2);
	if (!grown) {
		free(text);
		return ax_fail(err, AX_CODE_IO, "out of memory");
	}
	text = grown;
	text[len++] = '\n';
	text[len] = '\0';
	/* Atomic (rename) but not flushed: after a power cut every sandbox is
	 * gone anyway, so a durable "current session" buys nothing, and the two
	 * fsyncs cost ~3 ms of every `sandbox create`. */
	rc = ax_write_file_replace(path, text, len, 0600, err);
	free(text);
	return rc;
}

json_t *ax_session_to_json(const ax_session *s)
{
	return json_pack("{s:s, s:s, s:s}", "sandbox_id", s->sandbox_id, "aio_url", s->aio_url,
			 "created_at", s->created_at);
}

int ax_session_set(const char *home, const char *sandbox_id, const char *aio_url,
		   ax_session *out, ax_error *err)
{
	char *path = ax_path_join(home, "sessions.json");
	char now[32];
	ax_session s = { 0 };
	json_t *root, *cur;
	int lock, rc;

	if (!path)
		return ax_fail(err, AX_CODE_IO, "out of memory");
	lock = lock_home(home, err);
	if (lock < 0) {
		free(path);
		return -1;
	}
	ax_time_iso_offset(time(NULL), now);
	s.sandbox_id = strdup(sandbox_id);
	s.aio_url = strdup(aio_url ? aio_url : "");
	s.created_at = strdup(now);
	root = load_root(path);
	cur = ax_session_to_json(&s);
	if (!s.sandbox_id || !s.aio_url || !s.created_at || !cur) {
		rc = ax_fail(err, AX_CODE_IO, "out of memory");
	} else {
		json_object_set_new(root, "current", cur);
		cur = NULL;
		rc = save_root(path, root, err);
	}
	json_decref(cur);
	json_decref(root);
	close(lock);
	free(path);
	if (rc == 0 && out)
		*out = s;
	else
		ax_session_free(&s);
	return rc;
}

int ax_session_clear(const char *home, const char *only_id, bool *cleared, ax_error *err)
{
	char *path = ax_path_join(home, "sessions.json");
	ax_session s;
	json_t *root;
	int lock, rc = 0;

	*cleared = false;
	if (!path)
		return ax_fail(err, AX_CODE_IO, "out of memory");
	lock = lock_home(home, err);
	if (lock < 0) {
		free(path);
		return -1;
	}
	root = load_root(path);
	if (json_object_get(root, "current")) {
		bool have = session_from_json(json_object_get(root, "current"), &s);
		bool match = !only_id || (have && strcmp(s.sandbox_id, only_id) == 0);

		if (have)
			ax_session_free(&s);
		if (match) {
			json_object_del(root, "current");
			if (json_object_size(root) == 0) {
				if (unlink(path) < 0 && errno != ENOENT)
					rc = ax_fail(err, AX_CODE_IO, "cannot remove %s: %s", path,
						     strerror(errno));
			} else {
				rc = save_root(path, root, err);
			}
			*cleared = rc == 0 && have;
		}
	}
	json_decref(root);
	close(lock);
	free(path);
	return rc;
}
