/* file upload: one file, or a directory tree (one make-directories call, then
 * every file streamed on its own). LOCAL is checked before the sandbox is
 * connected, and a tree is walked (every entry checked) before anything is
 * sent, so a bad tree costs nothing remote. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/file_common.h"
#include "cmd/hook.h"
#include "cmd/target.h"
#include "cmd/verbs.h"

static int by_bytes(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The tree to send: directories (parents first) and files, relative to the root. */
typedef struct plan {
	ax_file_list dirs, files;
	unsigned long long bytes;
	bool follow;
} plan;

/* Directories on the way down, so --follow-symlinks cannot loop forever. */
typedef struct ancestor {
	dev_t dev;
	ino_t ino;
	const struct ancestor *up;
} ancestor;

static int oom(ax_error *err)
{
	return ax_fail(err, AX_CODE_NOMEM, "out of memory");
}

static int list_dir(const char *path, ax_file_list *names, ax_error *err)
{
	DIR *d = opendir(path);
	struct dirent *e;

	if (!d)
		return ax_fail(err, AX_CODE_IO, "Cannot read local directory %s: %s", path, strerror(errno));
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (ax_file_list_add(names, strdup(e->d_name)) < 0) {
			closedir(d);
			return oom(err);
		}
	}
	closedir(d);
	/* Byte order, like the reference's sorted(): stable across locales. */
	if (names->n)
		qsort(names->v, names->n, sizeof *names->v, by_bytes);
	return 0;
}

static int walk(plan *p, const char *path, const char *rel, const ancestor *up, ax_error *err);

static int walk_entry(plan *p, const char *child, const char *crel, const ancestor *up, ax_error *err)
{
	struct stat st;
	const ancestor *a;

	if (p->follow ? stat(child, &st) < 0 : lstat(child, &st) < 0)
		return ax_fail(err, AX_CODE_NOT_FOUND, "Local file not found: %s", child);
	if (S_ISLNK(st.st_mode))
		return ax_fail(err, AX_CODE_SYMLINK, "Symbolic links are not supported: %s", child);
	if (S_ISREG(st.st_mode)) {
		p->bytes += (unsigned long long)st.st_size;
		return ax_file_list_add(&p->files, strdup(crel)) < 0 ? oom(err) : 0;
	}
	if (!S_ISDIR(st.st_mode))
		return ax_fail(err, AX_CODE_UNSUPPORTED, "Unsupported local entry type: %s", child);
	for (a = up; a; a = a->up)
		if (a->dev == st.st_dev && a->ino == st.st_ino)
			return ax_fail(err, AX_CODE_SYMLINK, "Symbolic link loop: %s", child);
	if (ax_file_list_add(&p->dirs, strdup(crel)) < 0)
		return oom(err);
	{
		ancestor here = { st.st_dev, st.st_ino, up };

		return walk(p, child, crel, &here, err);
	}
}

static int walk(plan *p, const char *path, const char *rel, const ancestor *up, ax_error *err)
{
	ax_file_list names = { 0 };
	size_t i;
	int rc = 0;

	if (list_dir(path, &names, err) < 0) {
		ax_file_list_free(&names);
		return -1;
	}
	for (i = 0; i < names.n && rc == 0; i++) {
		char *child = ax_path_join_rel(path, names.v[i]);
		char *crel = *rel ? ax_path_join_rel(rel, names.v[i]) : strdup(names.v[i]);

		rc = child && crel ? walk_entry(p, child, crel, up, err) : oom(err);
		free(child);
		free(crel);
	}
	ax_file_list_free(&names);
	return rc;
}

/* Spec §7.5's checks, in its order and words. */
static int check_local(const char *local, bool recursive, bool follow, ax_error *err)
{
	struct stat st, lst;

	if (stat(local, &st) < 0) {
		if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP)
			return ax_fail(err, AX_CODE_NOT_FOUND, "Local file not found: %s", local);
		return ax_fail(err, AX_CODE_IO, "Cannot access %s: %s", local, strerror(errno));
	}
	if (!follow && lstat(local, &lst) == 0 && S_ISLNK(lst.st_mode))
		return ax_fail(err, AX_CODE_SYMLINK, "Symbolic links are not supported: %s", local);
	if (S_ISDIR(st.st_mode) && !recursive)
		return ax_fail(err, AX_CODE_IS_DIRECTORY,
			       "Local path is a directory: %s. Use --recursive to upload it.", local);
	if (recursive && !S_ISDIR(st.st_mode))
		return ax_fail(err, AX_CODE_NOT_DIRECTORY, "Recursive upload requires a directory: %s", local);
	if (!recursive && !S_ISREG(st.st_mode))
		return ax_fail(err, AX_CODE_NOT_REGULAR, "Local path is not a regular file: %s", local);
	return 0;
}

/* Send one local file; *SENT gets its size as read at open time. */
static int send_file(ax_file_conn *c, ax_file_xfer *t, const char *local, const char *remote, int mode, bool follow,
		     unsigned long long *sent, ax_error *err)
{
	int fd = open(local, O_RDONLY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
	ax_execd_source src = { .fd = fd };
	struct stat st;
	int rc;

	if (fd < 0) {
		if (errno == ELOOP)
			return ax_fail(err, AX_CODE_SYMLINK, "Symbolic links are not supported: %s", local);
		return ax_fail(err, AX_CODE_IO, "Cannot open %s: %s", local, strerror(errno));
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return ax_fail(err, AX_CODE_NOT_REGULAR, "Local path is not a regular file: %s", local);
	}
	src.size = (unsigned long long)st.st_size;
	rc = ax_execd_upload(c->execd, remote, mode, &src, &t->x, err);
	close(fd);
	if (rc == 0) {
		*sent = src.size;
		ax_file_xfer_advance(t, src.size);
	}
	return rc;
}

static int send_tree(ax_file_conn *c, ax_file_xfer *t, const plan *p, const char *local, const char *root, int mode,
		     int dmode, unsigned long long *sent, ax_error *err)
{
	json_t *dirs = json_object();
	size_t i;
	int rc = -1;

	json_object_set_new(dirs, root, json_pack("{s:i}", "mode", dmode));
	for (i = 0; i < p->dirs.n; i++) {
		char *r = ax_path_join_rel(root, p->dirs.v[i]);

		if (!r)
			goto oom;
		json_object_set_new(dirs, r, json_pack("{s:i}", "mode", dmode));
		free(r);
	}
	if (ax_execd_mkdirs(c->execd, dirs, err) < 0)
		goto out;
	*sent = 0;
	for (i = 0; i < p->files.n; i++) {
		char *l = ax_path_join_rel(local, p->files.v[i]), *r = ax_path_join_rel(root, p->files.v[i]);
		unsigned long long n = 0;
		int frc;

		if (ax_file_interrupted(c)) {
			free(l);
			free(r);
			ax_file_interrupt_fail(c, err);
			goto out;
		}
		frc = l && r ? send_file(c, t, l, r, mode, p->follow, &n, err) : oom(err);
		free(l);
		free(r);
		if (frc < 0)
			goto out;
		*sent += n;
	}
	rc = 0;
	goto out;
oom:
	oom(err);
out:
	json_decref(dirs);
	return rc;
}

/* LOCAL without trailing slashes, as paths under it are shown; malloc'd. */
static char *trim_slashes(const char *s)
{
	size_t n = strlen(s);

	while (n > 1 && s[n - 1] == '/')
		n--;
	return strndup(s, n);
}

static int check_file_upload(const ax_ctx *ctx, const ax_args *args, ax_error *err)
{
	char *local = trim_slashes(ax_arg_string(args, "LOCAL"));
	int rc;

	if (!local)
		return oom(err);
	rc = check_local(local, ax_arg_flag(args, "recursive"), ax_arg_flag(args, "follow-symlinks"), err);
	free(local);
	return rc;
}

static int cmd_file_upload(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	const char *remote = ax_arg_string(args, "REMOTE"), *id = ctx->target->sandbox_id;
	bool recursive = ax_arg_flag(args, "recursive");
	plan p = { .follow = ax_arg_flag(args, "follow-symlinks") };
	ax_file_conn c;
	ax_file_xfer t;
	char *local = NULL, *root = NULL, resolved[PATH_MAX];
	unsigned long long sent = 0;
	int mode = ax_file_mode_option(args, "mode"), dmode = ax_file_mode_option(args, "directory-mode"), rc = -1;

	ax_file_conn_init(&c, ctx);
	local = trim_slashes(ax_arg_string(args, "LOCAL"));
	if (!local)
		return oom(err);
	if (recursive && walk(&p, local, "", NULL, err) < 0)
		goto out;
	if (!realpath(local, resolved)) {
		ax_fail(err, AX_CODE_IO, "Cannot resolve %s: %s", local, strerror(errno));
		goto out;
	}
	root = ax_path_norm(remote);
	if (!root) {
		oom(err);
		goto out;
	}
	ctx->catch_interrupts();
	ax_file_xfer_start(&t, &c, "upload", recursive ? (long long)p.bytes : -1, 0);
	if (recursive)
		rc = send_tree(&c, &t, &p, local, root, mode, dmode, &sent, err);
	else
		rc = send_file(&c, &t, local, remote, mode, p.follow, &sent, err);
	ax_file_xfer_end(&t);
	if (rc < 0)
		goto out;
	res->kind = AX_RESULT_DATA;
	res->data = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I}", "sandbox_id", id, "local_path", resolved, "remote_path",
			      remote, "bytes", (json_int_t)sent, "files", (json_int_t)(recursive ? p.files.n : 1),
			      "directories", (json_int_t)(recursive ? p.dirs.n + 1 : 0));
	res->view.title = "File Uploaded";
	rc = ax_after_success(ctx, "file.upload", id, err);
out:
	ax_file_list_free(&p.dirs);
	ax_file_list_free(&p.files);
	free(root);
	free(local);
	return rc;
}

/* The table entries of the verbs above (cmd/command.h). */

static const ax_positional_spec upload_positionals[] = {
	{ .name = "SANDBOX_ID", .arity = AX_POS_OPTIONAL, .kind = AX_VAL_SANDBOX_ID,
	  .help = "the sandbox; default: the current session" },
	{ .name = "LOCAL", .arity = AX_POS_REQUIRED, .kind = AX_VAL_LOCAL_PATH, .help = "local file or directory" },
	{ .name = "REMOTE", .arity = AX_POS_REQUIRED, .kind = AX_VAL_REMOTE_PATH,
	  .help = "target path inside the sandbox" },
	AX_POSITIONALS_END,
};

static const ax_option_spec upload_options[] = {
	{ .name = "recursive", .short_name = 'r', .kind = AX_VAL_NONE, .help = "upload a directory tree" },
	{ .name = "mode", .kind = AX_VAL_MODE, .metavar = "MODE", .defval = "644",
	  .help = "octal mode of uploaded files" },
	{ .name = "directory-mode", .kind = AX_VAL_MODE, .metavar = "MODE", .defval = "755",
	  .help = "octal mode of created directories" },
	{ .name = "follow-symlinks", .kind = AX_VAL_NONE, .help = "upload what local symlinks point to" },
	AX_OPTIONS_END,
};

const ax_command_spec ax_file_upload_verb = {
	.group = "file", .name = "upload", .summary = "Upload a file or directory tree into a sandbox",
	.description = "Streams in constant memory. Local symlinks are refused unless --follow-symlinks. Remote "
	"files are replaced.",
	.positionals = upload_positionals, .options = upload_options,
	.formats = AX_OBJECT_FORMATS, .default_format = AX_FMT_TABLE, .target = AX_TARGET_EXECD,
	.check = check_file_upload, .handler = cmd_file_upload,
};
