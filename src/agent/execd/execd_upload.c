#include "agent/execd/execd_upload.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/execd/execd_http.h"
#include "agent/execd/execd_perm.h"
#include "lib/fs.h"
#include "agent/upload/upload_sink.h"

/* What MHD's multipart parser buffers at most (a part header must fit). */
#define PP_BUFFER (64 * 1024)
/* A metadata part is a small JSON object. */
#define META_MAX (64 * 1024)

enum part { PART_NONE, PART_META, PART_FILE };

struct upload {
	struct upload_sink sink;    /* first: the form parser's closure; .path is the temporary file */
	enum part part;             /* the part being read */
	uint64_t part_bytes;
	size_t metas, files;
	/* the last metadata part, until its file part comes */
	char *meta;
	size_t meta_len;
	bool meta_pending;
	/* the file part being written (to sink) */
	char *target;
	struct ag_perm perm;
	/* the first failure, answered once the body has been read */
	bool failed;
	unsigned status;
	const char *code;
	char message[1024];
};

static void fail(struct upload *u, unsigned status, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void fail(struct upload *u, unsigned status, const char *code, const char *fmt, ...)
{
	va_list ap;

	if (u->failed)
		return;
	u->failed = true;
	u->status = status;
	u->code = code;
	va_start(ap, fmt);
	vsnprintf(u->message, sizeof u->message, fmt, ap);
	va_end(ap);
}

static void drop_file(struct upload *u)
{
	upload_sink_discard(&u->sink);
	free(u->target);
	u->target = NULL;
}

static void upload_free(void *state)
{
	struct upload *u = state;

	upload_sink_release(&u->sink);
	free(u->target);
	free(u->meta);
	free(u);
}

/* ".NAME.XXXXXXXX.upload" beside TARGET, created with the mode a new file
 * gets (0777 less the umask, as with the official execd). */
static int open_tmp(struct upload *u)
{
	const char *slash = strrchr(u->target, '/');
	size_t dir_len = (size_t)(slash - u->target);
	unsigned char rnd[4] = { 0 };
	int tries;

	for (tries = 0; tries < 16; tries++) {
		if (getrandom(rnd, sizeof rnd, 0) < 0)
			rnd[0] ^= (unsigned char)tries;
		free(u->sink.path);
		if (asprintf(&u->sink.path, "%.*s/.%s.%02x%02x%02x%02x.upload", (int)dir_len, u->target, slash + 1,
			     rnd[0], rnd[1], rnd[2], rnd[3]) < 0) {
			u->sink.path = NULL;
			errno = ENOMEM;
			return -1;
		}
		u->sink.fd = open(u->sink.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0777);
		if (u->sink.fd >= 0 || errno != EEXIST)
			break;
	}
	if (u->sink.fd < 0) {
		free(u->sink.path);
		u->sink.path = NULL;
		return -1;
	}
	return 0;
}

/* The pending metadata part, parsed: target path and permission. */
static int take_metadata(struct upload *u)
{
	json_error_t jerr;
	json_t *o = json_loadb(u->meta ? u->meta : "", u->meta_len, 0, &jerr);
	const char *path = json_string_value(json_object_get(o, "path"));
	char msg[512];
	int rc = -1;

	u->meta_pending = false;
	if (!o || !json_is_object(o))
		fail(u, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_METADATA, "invalid metadata format. %s",
		     o ? "not an object" : jerr.text);
	else if (!path || !*path || strlen(path) != json_string_length(json_object_get(o, "path")))
		fail(u, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_METADATA, "metadata path is empty or invalid");
	else if (ag_perm_parse(o, &u->perm, msg, sizeof msg) < 0)
		fail(u, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_METADATA, "invalid metadata: %s", msg);
	else if (!(u->target = ag_abs_path(path)))
		fail(u, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME, "out of memory");
	else
		rc = 0;
	json_decref(o);
	return rc;
}

static int begin_file(struct upload *u)
{
	ax_error err;

	if (!u->meta_pending) {
		fail(u, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_FILE,
		     "metadata and file count mismatch: a file part must follow each metadata part");
		return -1;
	}
	if (take_metadata(u) < 0)
		return -1;
	if (ax_mkdir_parent(u->target, 0777, &err) < 0) {
		fail(u, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME, "error creating target directory. %s",
		     err.message);
		return -1;
	}
	if (open_tmp(u) < 0) {
		fail(u, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME, "error opening destination file %s. %s",
		     u->target, strerror(errno));
		return -1;
	}
	return 0;
}

/* Without a mode of its own, a replaced file keeps its mode and owner. */
static void keep_old_perm(const struct upload *u, int fd)
{
	struct stat st;

	if (u->perm.mode >= 0 || stat(u->target, &st) < 0 || !S_ISREG(st.st_mode))
		return;
	fchmod(fd, st.st_mode & 07777);
	if (u->perm.uid == (uid_t)-1 && u->perm.gid == (gid_t)-1 && fchown(fd, st.st_uid, st.st_gid) < 0) {
		/* Not ours to give away (we are not root): the new file stays ours. */
	}
}

/* The file part has ended: give it its permission and put it in place
 * (or, after a failure, throw it away). */
static void end_file(struct upload *u)
{
	int fd = u->sink.fd;

	if (fd >= 0 && !u->failed && upload_sink_flush(&u->sink) < 0)
		fail(u, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME, "error copying file %s. %s", u->target,
		     strerror(errno));
	if (fd < 0 || u->failed) {
		drop_file(u);
		return;
	}
	u->sink.fd = -1;
	keep_old_perm(u, fd);
	if (ag_perm_apply(u->sink.path, fd, &u->perm) < 0)
		fail(u, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME, "error chmoding file %s. %s", u->target,
		     strerror(errno));
	if (close(fd) < 0)
		fail(u, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME, "error writing file %s. %s", u->target,
		     strerror(errno));
	if (!u->failed && rename(u->sink.path, u->target) < 0)
		fail(u, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME, "error writing file %s. %s", u->target,
		     strerror(errno));
	if (!u->failed)
		upload_sink_placed(&u->sink);	/* in place: nothing left to remove */
	drop_file(u);
}

static void add_meta(struct upload *u, const char *data, size_t size)
{
	char *grown;

	if (size > META_MAX - u->meta_len) {
		fail(u, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_METADATA, "metadata part too large");
		return;
	}
	grown = realloc(u->meta, u->meta_len + size + 1);
	if (!grown) {
		fail(u, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME, "out of memory");
		return;
	}
	memcpy(grown + u->meta_len, data, size);
	u->meta = grown;
	u->meta_len += size;
}

/* A part starts: close the previous one. */
static void begin_part(struct upload *u, enum part part)
{
	if (u->part == PART_FILE)
		end_file(u);
	u->part = part;
	u->part_bytes = 0;
	if (part == PART_META) {
		if (u->meta_pending)
			fail(u, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_FILE,
			     "metadata and file count mismatch: metadata part without a file part");
		u->metas++;
		u->meta_len = 0;
		u->meta_pending = true;
	} else if (part == PART_FILE) {
		u->files++;
		begin_file(u);
	}
}

static enum MHD_Result on_part(void *cls, enum MHD_ValueKind kind, const char *key, const char *filename,
			       const char *content_type, const char *transfer_encoding, const char *data,
			       uint64_t off, size_t size)
{
	struct upload *u = cls;
	/* MHD hands over a part without a Content-Disposition name with KEY NULL. */
	enum part part = !key ? PART_NONE : strcmp(key, "metadata") == 0 ? PART_META
					  : strcmp(key, "file") == 0   ? PART_FILE
								       : PART_NONE;

	/* MHD numbers each part's bytes from 0: a new part, or a new key. */
	if (part != u->part || (off == 0 && u->part_bytes > 0))
		begin_part(u, part);
	u->part_bytes += size;
	if (u->failed || !size)
		return MHD_YES;
	if (part == PART_META)
		add_meta(u, data, size);
	else if (part == PART_FILE && upload_sink_write(&u->sink, data, size) < 0)
		fail(u, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME, "error copying file %s. %s", u->target,
		     strerror(errno));
	return MHD_YES;
}

int ag_execd_upload_body(struct ag_req *req, const char *data, size_t len)
{
	struct upload *u = upload_sink_state(req, sizeof *u, upload_free, on_part, PP_BUFFER);

	if (!u)
		return -1;
	/* No parser: not multipart. Only ever so from the first chunk on, and
	 * only the first failure counts. */
	if (!u->sink.pp)
		fail(u, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_FILE,
		     "multipart form is empty: expected Content-Type multipart/form-data");
	/* After a failure the rest of the body is only drained. */
	if (!u->failed && upload_sink_feed(&u->sink, data, len) < 0)
		fail(u, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_FILE, "malformed multipart body");
	return 0;
}

enum MHD_Result ag_execd_upload(struct ag_req *req)
{
	struct upload *u = req->state;

	if (!u)
		return ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_FILE, "multipart form is empty");
	/* Flushes the last part to on_part; fails on a truncated body. */
	if (upload_sink_end_form(&u->sink) < 0)
		fail(u, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_FILE, "malformed or truncated multipart body");
	if (!u->failed && u->part == PART_FILE)
		end_file(u);
	u->part = PART_NONE;
	if (!u->failed && u->metas == 0)
		fail(u, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_METADATA, "metadata file is missing");
	if (!u->failed && u->files == 0)
		fail(u, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_CONTENT, "file is missing");
	if (!u->failed && (u->metas != u->files || u->meta_pending))
		fail(u, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_FILE, "metadata and file count mismatch: %zu vs %zu",
		     u->metas, u->files);
	if (u->failed)
		return ag_execd_error(req, u->status, u->code, "%s", u->message);
	return ag_reply_empty(req, MHD_HTTP_OK);
}
