/* file cat | write: small text files through execd. upload and download are
 * in file_upload.c and file_download.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/file_common.h"
#include "cmd/hook.h"
#include "cmd/target.h"
#include "cmd/groups.h"
#include "cmd/verbs.h"
#include "cmd/common.h"

#define WRITE_MODE 644
#define SPOOL_BUFFER (256 * 1024)

/* An ax_execd_sink: the file's bytes to the stream, shown as they come
 * whatever their size, or kept for a document. */
static int to_stream(void *ud, const char *data, size_t len, ax_error *err)
{
	if (ax_stream_write(ud, AX_STREAM_OUT, data, len) == 0)
		return 0;
	if (errno == ENOMEM)
		return ax_fail(err, AX_CODE_NOMEM, "out of memory: the file is too large for -o json");
	return ax_fail(err, AX_CODE_IO, "Cannot write output: %s", strerror(errno));
}

static int cmd_file_cat(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	const char *path = ax_arg_string(args, "PATH"), *id = ctx->target->sandbox_id;
	ax_execd_xfer x = { 0 };
	ax_file_conn c;
	json_t *content;
	int rc = -1;

	ax_file_conn_init(&c, ctx);
	x.stall_timeout_s = c.timeout_s;
	if (ax_execd_download(c.execd, path, to_stream, ctx->stream, &x, NULL, err) < 0)
		goto out;
	content = ax_stream_kept(ctx->stream, AX_STREAM_OUT);
	if (!content) {
		ax_fail(err, AX_CODE_ENCODING, "%s is not valid utf-8 text; use -o raw for binary files", path);
		goto out;
	}
	res->kind = AX_RESULT_STREAM;
	res->data = json_pack("{s:s, s:s, s:o}", "sandbox_id", id, "path", path, "content", content);
	res->view.title = "File";
	rc = 0;
out:
	return rc;
}

static int copy_fd(int from, int to, ax_error *err)
{
	char *buf = malloc(SPOOL_BUFFER);
	int rc = -1;

	if (!buf)
		return ax_fail(err, AX_CODE_NOMEM, "out of memory");
	for (;;) {
		ssize_t n = read(from, buf, SPOOL_BUFFER), off = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ax_fail(err, AX_CODE_IO, "cannot read standard input: %s", strerror(errno));
			break;
		}
		if (n == 0) {
			rc = 0;
			break;
		}
		while (off < n) {
			ssize_t w = write(to, buf + off, (size_t)(n - off));

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				ax_fail(err, AX_CODE_IO, "cannot buffer standard input: %s", strerror(errno));
				goto out;
			}
			off += w;
		}
	}
out:
	free(buf);
	return rc;
}

/* A temporary file that vanishes with its descriptor. */
static int anonymous_file(const char *dir)
{
	char *path;
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	/* File systems without O_TMPFILE: create, then unlink at once. */
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd;
	if (asprintf(&path, "%s/allox-stdin.XXXXXX", dir) < 0)
		return -1;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	free(path);
	return fd;
}

/*
 * Standard input as an upload source. A regular file is sent from where it
 * stands; a pipe is first spooled to an anonymous temporary file, so the
 * upload has a length (no chunked request) and memory stays constant.
 */
static int stdin_source(ax_execd_source *src, int *spool, ax_error *err)
{
	struct stat st;
	off_t pos;
	const char *tmp = getenv("TMPDIR");
	int fd;

	*spool = -1;
	if (fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode) && (pos = lseek(STDIN_FILENO, 0, SEEK_CUR)) >= 0) {
		src->fd = STDIN_FILENO;
		src->offset = (unsigned long long)pos;
		src->size = st.st_size > pos ? (unsigned long long)(st.st_size - pos) : 0;
		return 0;
	}
	if (!tmp || !*tmp)
		tmp = "/tmp";
	fd = anonymous_file(tmp);
	if (fd < 0)
		return ax_fail(err, AX_CODE_IO, "cannot create a temporary file in %s: %s", tmp,
			       strerror(errno));
	if (copy_fd(STDIN_FILENO, fd, err) < 0 || fstat(fd, &st) < 0) {
		close(fd);
		return err->message[0] ? -1 : ax_fail(err, AX_CODE_IO, "cannot stat the spool file");
	}
	*spool = fd;
	src->fd = fd;
	src->offset = 0;
	src->size = (unsigned long long)st.st_size;
	return 0;
}

static int check_file_write(const ax_ctx *ctx, const ax_args *args, ax_error *err)
{
	if (!ax_arg_given(args, "content") && isatty(STDIN_FILENO))
		return ax_fail(err, AX_CODE_USAGE, "Provide --content or pipe content via stdin.");
	return 0;
}

static int cmd_file_write(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	const char *path = ax_arg_string(args, "PATH"), *id = ctx->target->sandbox_id;
	const char *content = ax_arg_string(args, "content");
	ax_execd_source src = { .fd = -1 };
	ax_execd_xfer x = { 0 };
	ax_file_conn c;
	int spool = -1, rc = -1;

	ax_file_conn_init(&c, ctx);
	if (content) {
		src.data = content;
		src.size = strlen(content);
	} else if (stdin_source(&src, &spool, err) < 0) {
		goto out;
	}
	x.stall_timeout_s = c.timeout_s;
	if (ax_execd_upload(c.execd, path, WRITE_MODE, &src, &x, err) < 0)
		goto out;
	res->kind = AX_RESULT_DATA;
	res->data = json_pack("{s:s, s:s, s:I}", "sandbox_id", id, "path", path, "bytes", (json_int_t)src.size);
	res->view.title = "File Written";
	rc = ax_after_success(ctx, "file.write", id, err);
out:
	if (spool >= 0)
		close(spool);
	return rc;
}

/* The table entries of the verbs above (cmd/command.h). */

static const ax_option_spec file_cat_options[] = {
	{ .name = "encoding", .kind = AX_VAL_ENCODING, .metavar = "ENCODING", .defval = "utf-8",
	  .help = "text encoding of the file" },
	AX_OPTIONS_END,
};

static const ax_option_spec file_write_options[] = {
	{ .name = "content", .short_name = 'c', .kind = AX_VAL_TEXT, .metavar = "TEXT",
	  .help = "the content (default: standard input)" },
	{ .name = "encoding", .kind = AX_VAL_ENCODING, .metavar = "ENCODING", .defval = "utf-8",
	  .help = "text encoding of the file" },
	AX_OPTIONS_END,
};

static const ax_command_spec file_cat_verb = {
	.group = "file", .name = "cat", .summary = "Print a file from a sandbox",
	.positionals = ax_path_positionals, .options = file_cat_options,
	.formats = AX_FMT_RAW | AX_FMT_JSON, .default_format = AX_FMT_RAW, .target = AX_TARGET_EXECD,
	.handler = cmd_file_cat,
};

static const ax_command_spec file_write_verb = {
	.group = "file", .name = "write", .summary = "Write a file in a sandbox from --content or standard input",
	.positionals = ax_path_positionals, .options = file_write_options,
	.formats = AX_OBJECT_FORMATS, .default_format = AX_FMT_TABLE, .target = AX_TARGET_EXECD,
	.check = check_file_write, .handler = cmd_file_write,
};

static const ax_command_spec *const file_verbs[] = {
	&file_cat_verb,
	&file_write_verb,
	&ax_file_upload_verb,
	&ax_file_download_verb,
	&ax_file_ls_verb,
	NULL,
};

const ax_group_spec ax_group_file = {
	.name = "file",
	.summary = "Read, write, upload and download files",
	.verbs = file_verbs,
};
