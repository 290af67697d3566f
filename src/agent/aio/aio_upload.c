/* POST /v1/file/upload, multipart/form-data with a "file" part and an
 * optional "path" part (the destination file).
 *
 * The body is parsed as it arrives and the file part goes straight to disk,
 * so an upload's size is bounded by the disk, not by memory. It lands in a
 * hidden .part file that is renamed over the destination at the end, so a
 * reader never sees half an upload and a failed one leaves nothing behind.
 * curl -F puts the parts in the order given, so "path" may come after the
 * bytes: then the bytes are spooled in the workspace and moved once the
 * destination is known. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/aio/aio_common.h"
#include "lib/fs.h"
#include "agent/core/sysinfo.h"
#include "agent/upload/upload_sink.h"

#define UPLOAD_OP "upload"
#define POST_BUFFER (64u << 10)
#define STAGING_NAME ".allox-upload-XXXXXX.part"

struct upload {
	struct upload_sink sink;    /* first: the form parser's closure; .path is the .part file */
	bool malformed;             /* not multipart, or a broken body */
	char dest[PATH_MAX];        /* the "path" part */
	size_t dest_len;
	bool dest_seen, dest_too_long;
	char name[NAME_MAX + 1];    /* the file part's filename, without directories */
	bool file_seen, more_files;
	unsigned long long part_bytes;
	char *target;               /* the destination, once known */
	int err;                    /* first failure (errno) */
	char *err_path;
	unsigned long long size;
};

static void fail(struct upload *u, int e, const char *path)
{
	if (u->err)
		return;
	u->err = e;
	u->err_path = strdup(path ? path : "");
}

static void free_upload(void *state)
{
	struct upload *u = state;

	if (!u)
		return;
	/* A .part file still there was never renamed into place. */
	upload_sink_release(&u->sink);
	free(u->target);
	free(u->err_path);
	free(u);
}

/* The process umask, without the race of setting it to read it. */
static mode_t current_umask(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[128];
	unsigned m = 022;

	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "Umask: %o", &m) == 1)
			break;
	if (f)
		fclose(f);
	return (mode_t)m;
}

/* The file to create: DEST, or the file's own name inside DEST when DEST is
 * a directory (or ends in '/'), or inside the workspace without DEST. */
static char *resolve_target(const struct upload *u, int *e)
{
	char *t = NULL, *dir = NULL;
	struct stat st;
	bool into_dir;

	if (u->dest_seen && u->dest_len) {
		into_dir = u->dest[u->dest_len - 1] == '/' || (stat(u->dest, &st) == 0 && S_ISDIR(st.st_mode));
		if (!into_dir) {
			t = strdup(u->dest);
			*e = t ? 0 : ENOMEM;
			return t;
		}
		dir = strdup(u->dest);
	} else {
		dir = ag_sysinfo_workspace();
	}
	if (!dir || !u->name[0]) {
		*e = dir ? EISDIR : ENOMEM;
		free(dir);
		return NULL;
	}
	t = ax_path_join(dir, u->name);
	free(dir);
	*e = t ? 0 : ENOMEM;
	return t;
}

/* A new .part file in the directory of DIR_OF (mode as for any new file):
 * its fd, with its path in *PATH (malloc'd); -1 with errno. */
static int staging_beside(const char *dir_of, char **path)
{
	const char *slash = strrchr(dir_of, '/');
	size_t dlen = slash ? (size_t)(slash - dir_of) : 0;
	char *tmpl = malloc(dlen + sizeof "/" STAGING_NAME);
	int fd;

	if (!tmpl)
		return -1;
	memcpy(tmpl, dir_of, dlen);
	memcpy(tmpl + dlen, "/" STAGING_NAME, sizeof "/" STAGING_NAME);
	fd = mkostemps(tmpl, 5, O_CLOEXEC);
	if (fd < 0) {
		free(tmpl);
		return -1;
	}
	/* mkstemp makes it 0600; an upload should look like any new file. */
	fchmod(fd, 0666 & ~current_umask());
	*path = tmpl;
	return fd;
}

/* Create the .part file in DIR_OF's directory. */
static int open_staging(struct upload *u, const char *dir_of)
{
	u->sink.fd = staging_beside(dir_of, &u->sink.path);
	return u->sink.fd < 0 ? -1 : 0;
}

/* First bytes of the file part: pick where they go. */
static void start_file(struct upload *u, const char *filename)
{
	const char *base = filename ? strrchr(filename, '/') : NULL;
	char *ws;
	int e = 0;

	u->file_seen = true;
	base = base ? base + 1 : filename;
	if (base && strcmp(base, ".") != 0 && strcmp(base, "..") != 0)
		snprintf(u->name, sizeof u->name, "%s", base);
	if (u->dest_seen) {
		if (u->dest_too_long || (u->dest_len && !aio_path_ok(u->dest)))
			return;	/* reported at the end */
		u->target = resolve_target(u, &e);
		if (!u->target) {
			fail(u, e, u->dest);
			return;
		}
		if (aio_mkdir_parents(u->target) < 0 || open_staging(u, u->target) < 0)
			fail(u, errno, u->target);
		return;
	}
	ws = ag_sysinfo_workspace();
	if (!ws || aio_mkdir_parents(ws) < 0 || open_staging(u, ws) < 0) {
		/* The workspace may be read-only; /tmp is the last resort. */
		if (open_staging(u, "/tmp/x") < 0)
			fail(u, errno, ws ? ws : "/tmp");
	}
	free(ws);
}

static void write_file(struct upload *u, const char *data, size_t size)
{
	u->size += size;
	if (size && !u->err && u->sink.fd >= 0 && upload_sink_write(&u->sink, data, size) < 0)
		fail(u, errno, u->target ? u->target : u->sink.path);
}

static enum MHD_Result on_part(void *cls, enum MHD_ValueKind kind, const char *key, const char *filename,
			       const char *content_type, const char *transfer_encoding, const char *data,
			       uint64_t off, size_t size)
{
	struct upload *u = cls;

	if (key && strcmp(key, "path") == 0) {
		u->dest_seen = true;
		if (off != u->dest_len || u->dest_len + size >= sizeof u->dest) {
			u->dest_too_long = true;
			return MHD_YES;
		}
		memcpy(u->dest + u->dest_len, data, size);
		u->dest_len += size;
		u->dest[u->dest_len] = '\0';
		return MHD_YES;
	}
	if (!key || strcmp(key, "file") != 0)
		return MHD_YES;
	/* Offset 0 after bytes were seen: a second file part, which AIO does not take. */
	if (u->more_files || (u->file_seen && off == 0 && u->part_bytes)) {
		u->more_files = true;
		return MHD_YES;
	}
	if (!u->file_seen)
		start_file(u, filename);
	u->part_bytes += size;
	write_file(u, data, size);
	return MHD_YES;
}

int aio_file_upload_body(struct ag_req *req, const char *data, size_t len)
{
	struct upload *u = upload_sink_state(req, sizeof *u, free_upload, on_part, POST_BUFFER);

	if (!u)
		return -1;
	/* Keep reading a body we cannot use (not a form MHD can parse, or
	 * broken), to answer it properly at the end. */
	if (!u->malformed && upload_sink_feed(&u->sink, data, len) < 0)
		u->malformed = true;
	return 0;
}

static int copy_fd(int in, int out)
{
	char buf[64 << 10];
	ssize_t n;

	for (;;) {
		n = read(in, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return (int)n;
		if (ax_write_all(out, buf, (size_t)n) < 0)
			return -1;
	}
}

/* Copy then delete, for a staging file on another filesystem. The copy is
 * staged beside TO and renamed over it, so a copy that fails (a full disk)
 * leaves neither a partial file nor a truncated old one there. */
static int move_across(const char *from, const char *to)
{
	int in = open(from, O_RDONLY | O_CLOEXEC), out, rc, e;
	char *staged = NULL;

	if (in < 0)
		return -1;
	out = staging_beside(to, &staged);
	rc = out < 0 ? -1 : copy_fd(in, out);
	e = errno;
	close(in);
	if (out >= 0 && close(out) < 0 && rc == 0) {
		rc = -1;
		e = errno;
	}
	if (rc == 0 && rename(staged, to) < 0) {
		rc = -1;
		e = errno;
	}
	if (rc < 0 && staged)
		unlink(staged);
	free(staged);
	if (rc < 0) {
		errno = e;
		return -1;
	}
	return unlink(from);
}

/* Put the finished .part file at the destination. */
static int finish(struct upload *u)
{
	int e = 0;

	if (u->sink.fd < 0) {
		fail(u, EBADF, u->dest);
		return -1;
	}
	if (upload_sink_flush(&u->sink) < 0) {
		fail(u, errno, u->target ? u->target : u->sink.path);
		return -1;
	}
	if (close(u->sink.fd) < 0) {
		u->sink.fd = -1;
		fail(u, errno, u->target ? u->target : u->sink.path);
		return -1;
	}
	u->sink.fd = -1;
	if (!u->target) {
		u->target = resolve_target(u, &e);
		if (!u->target) {
			fail(u, e, u->dest_len ? u->dest : u->name);
			return -1;
		}
		if (aio_mkdir_parents(u->target) < 0) {
			fail(u, errno, u->target);
			return -1;
		}
	}
	if (rename(u->sink.path, u->target) < 0 && (errno != EXDEV || move_across(u->sink.path, u->target) < 0)) {
		fail(u, errno, u->target);
		return -1;
	}
	upload_sink_placed(&u->sink);
	return 0;
}

enum MHD_Result aio_file_upload(struct ag_req *req)
{
	struct upload *u = req->state;
	struct aio_args a = { NULL, NULL, "body" };
	enum MHD_Result rc;

	/* Flushes the last part; fails when the body ended mid-form. */
	if (u && upload_sink_end_form(&u->sink) < 0)
		u->malformed = true;
	if (!u || u->malformed)
		aio_args_invalid(&a, NULL, "multipart", "Expected a complete multipart/form-data body");
	else if (!u->file_seen)
		aio_args_invalid(&a, "file", "missing", "Field required");
	else if (u->dest_too_long)
		aio_args_invalid(&a, "path", "string_too_long", "path is too long");
	if (!aio_args_ok(&a) || !u) {
		rc = aio_reply_invalid(req, &a);
		aio_args_free(&a);
		return rc;
	}
	if (u->dest_len && !aio_path_ok(u->dest))
		return aio_reply_file_error(req, u->dest, UPLOAD_OP, "invalid_path", 0, "Path must be absolute: %s",
					    u->dest);
	if (!u->err)
		finish(u);
	if (u->err == EISDIR && !u->name[0])
		return aio_reply_file_error(req, u->err_path, UPLOAD_OP, "invalid_path", 0,
					    "path is required when the file part has no filename");
	if (u->err)
		return aio_reply_errno(req, u->err_path, UPLOAD_OP, u->err);
	return ag_reply_json(req, MHD_HTTP_OK,
			     ag_envelope("File uploaded successfully",
					 json_pack("{s:o,s:I,s:b}", "file_path", ag_json_text(u->target), "file_size",
						   (json_int_t)u->size, "success", 1)));
}
