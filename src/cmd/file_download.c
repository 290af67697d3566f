/*
 * file download: a file, or a directory tree walked breadth-first. Bytes land
 * in a staging path beside LOCAL (".<name>.<random>.part") that is renamed
 * into place only once complete; any failure or signal removes it, and the
 * parent directories this command created, so nothing partial remains.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/file_common.h"
#include "cmd/file_tree.h"
#include "cmd/target.h"
#include "cmd/verbs.h"


static int oom(ax_error *err)
{
	return ax_fail(err, AX_CODE_NOMEM, "out of memory");
}

/* Where the download goes: LOCAL as given (messages), absolute, split. */
typedef struct target {
	const char *given;
	char *abs, *dir, *base;
	bool exists;
	/* Parents this command created, outermost first, to undo on failure. */
	char **made;
	size_t nmade;
} target;

static void target_free(target *t)
{
	size_t i;

	for (i = 0; i < t->nmade; i++)
		free(t->made[i]);
	free(t->made);
	free(t->abs);
	free(t->dir);
	free(t->base);
}

/* Spec §7.5's checks, in its order and words. */
static int check_local(target *t, bool recursive, bool force, ax_error *err)
{
	struct stat st;
	const char *p = t->given;

	t->exists = lstat(p, &st) == 0;
	if (t->exists && !force)
		return ax_fail(err, AX_CODE_EXISTS, "Local path already exists: %s. Use --force to overwrite it.",
			       p);
	if (t->exists && S_ISLNK(st.st_mode))
		return ax_fail(err, AX_CODE_SYMLINK, "Symbolic links are not supported: %s", p);
	if (t->exists && !recursive && !S_ISREG(st.st_mode))
		return ax_fail(err, AX_CODE_NOT_REGULAR, "Local path is not a regular file: %s", p);
	if (t->exists && recursive && !S_ISDIR(st.st_mode))
		return ax_fail(err, AX_CODE_NOT_DIRECTORY, "Recursive download target is not a directory: %s",
			       p);
	return 0;
}

static int split_target(target *t, ax_error *err)
{
	char *slash;

	t->abs = ax_path_abs(t->given);
	if (!t->abs) {
		ax_fail(err, AX_CODE_IO, "Cannot resolve %s: %s", t->given, strerror(errno));
		return -1;
	}
	if (strcmp(t->abs, "/") == 0) {
		ax_fail(err, AX_CODE_USAGE, "Cannot download over /");
		return -1;
	}
	slash = strrchr(t->abs, '/');
	t->dir = slash == t->abs ? strdup("/") : strndup(t->abs, (size_t)(slash - t->abs));
	t->base = strdup(slash + 1);
	if (!t->dir || !t->base) {
		oom(err);
		return -1;
	}
	return 0;
}

/* mkdir -p of T's directory, remembering what it created. */
static int make_parents(target *t, ax_error *err)
{
	size_t n = strlen(t->dir), i;

	t->made = calloc(n + 1, sizeof *t->made);
	if (!t->made)
		return oom(err);
	for (i = 1; i <= n; i++) {
		char *prefix;
		struct stat st;

		if (i < n && t->dir[i] != '/')
			continue;
		prefix = strndup(t->dir, i);
		if (!prefix)
			return oom(err);
		if (mkdir(prefix, 0777) == 0) {
			t->made[t->nmade++] = prefix;
			continue;
		}
		if (errno != EEXIST || stat(prefix, &st) < 0 || !S_ISDIR(st.st_mode)) {
			int e = errno == EEXIST ? ENOTDIR : errno;

			ax_fail(err, AX_CODE_IO, "Cannot create directory %s: %s", prefix, strerror(e));
			free(prefix);
			return -1;
		}
		free(prefix);
	}
	return 0;
}

static void undo_parents(target *t)
{
	while (t->nmade) {
		t->nmade--;
		rmdir(t->made[t->nmade]);
		free(t->made[t->nmade]);
	}
}

/* execd refuses a directory in its own words; say what to do instead. */
static void suggest_recursive(ax_file_conn *c, const char *remote, ax_error *err)
{
	ax_error ignored;
	json_t *info = NULL;

	if (ax_execd_info(c->execd, remote, &info, &ignored) == 0 &&
	    strcmp(json_string_value(json_object_get(info, "type")) ?: "", "directory") == 0)
		ax_fail(err, AX_CODE_IS_DIRECTORY, "Remote path is a directory: %s. Use --recursive to download it.",
			remote);
	json_decref(info);
}

static int download_one(ax_file_conn *c, ax_file_xfer *t, const char *remote, const target *tg,
			unsigned long long *bytes, ax_error *err)
{
	char *part = ax_file_part_name(tg->dir, tg->base);
	int rc;

	if (!part)
		return oom(err);
	rc = ax_file_fetch(c, t, remote, part, bytes, err);
	if (rc < 0)
		ax_file_error_rename(err, part, tg->given);
	if (rc < 0 && err->exit_code == AX_EXIT_FAILURE && err->code != AX_CODE_CONNECTION)
		suggest_recursive(c, remote, err);
	if (rc == 0 && rename(part, tg->abs) < 0) {
		rc = ax_fail(err, AX_CODE_IO, "Cannot move the download to %s: %s", tg->given, strerror(errno));
		unlink(part);
	}
	free(part);
	return rc;
}

/* LOCAL as given, checked and split. */
static int local_target(target *tg, const ax_args *args, ax_error *err)
{
	tg->given = ax_arg_string(args, "LOCAL");
	if (check_local(tg, ax_arg_flag(args, "recursive"), ax_arg_flag(args, "force"), err) < 0)
		return -1;
	return split_target(tg, err);
}

/* A target that may not be replaced is refused before anything is connected. */
static int check_file_download(const ax_ctx *ctx, const ax_args *args, ax_error *err)
{
	target tg = { 0 };
	int rc = local_target(&tg, args, err);

	target_free(&tg);
	return rc;
}

static int cmd_file_download(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	const char *remote = ax_arg_string(args, "REMOTE"), *id = ctx->target->sandbox_id;
	bool recursive = ax_arg_flag(args, "recursive");
	target tg = { 0 };
	ax_file_tree_result got = { 0 };
	ax_file_conn c;
	ax_file_xfer t;
	char resolved[PATH_MAX];
	long long chunk = (long long)json_integer_value(ax_arg_json(args, "chunk-size"));
	int rc = -1;

	ax_file_conn_init(&c, ctx);
	if (local_target(&tg, args, err) < 0)
		goto out;
	ctx->catch_interrupts();
	ax_file_xfer_start(&t, &c, "download", -1, (size_t)chunk);
	if (make_parents(&tg, err) == 0) {
		if (recursive) {
			rc = ax_file_tree_download(&c, &t, remote, tg.abs, tg.dir, tg.base, tg.exists, &got, err);
		} else {
			got.files = 1;
			rc = download_one(&c, &t, remote, &tg, &got.bytes, err);
		}
	}
	if (rc < 0)
		undo_parents(&tg);
	ax_file_xfer_end(&t);
	if (rc < 0)
		goto out;
	if (!realpath(tg.abs, resolved))
		snprintf(resolved, sizeof resolved, "%s", tg.abs);
	res->kind = AX_RESULT_DATA;
	res->data = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I}", "sandbox_id", id, "remote_path", remote, "local_path",
			      resolved, "bytes", (json_int_t)got.bytes, "files", (json_int_t)got.files, "directories",
			      (json_int_t)(recursive ? got.directories + 1 : 0));
	res->view.title = "File Downloaded";
out:
	target_free(&tg);
	return rc;
}

/* The table entries of the verbs above (cmd/command.h). */

static const ax_positional_spec download_positionals[] = {
	{ .name = "SANDBOX_ID", .arity = AX_POS_OPTIONAL, .kind = AX_VAL_SANDBOX_ID,
	  .help = "the sandbox; default: the current session" },
	{ .name = "REMOTE", .arity = AX_POS_REQUIRED, .kind = AX_VAL_REMOTE_PATH,
	  .help = "file or directory inside the sandbox" },
	{ .name = "LOCAL", .arity = AX_POS_REQUIRED, .kind = AX_VAL_LOCAL_PATH, .help = "local target path" },
	AX_POSITIONALS_END,
};

static const ax_option_spec download_options[] = {
	{ .name = "recursive", .short_name = 'r', .kind = AX_VAL_NONE, .help = "download a directory tree" },
	{ .name = "force", .short_name = 'f', .kind = AX_VAL_NONE, .help = "replace an existing local target" },
	/* The spec's default is 65536; a bigger read is cheaper per byte. */
	{ .name = "chunk-size", .kind = AX_VAL_INT, .metavar = "BYTES", .defval = "1048576", .min = "1024",
	  .max = "16777216", .help = "read size, 1024 to 16777216" },
	AX_OPTIONS_END,
};

const ax_command_spec ax_file_download_verb = {
	.group = "file", .name = "download", .summary = "Download a file or directory tree from a sandbox",
	.description = "Streams into a staging path beside LOCAL and renames it into place only when complete; "
	"on any failure nothing partial remains. Remote symlinks and entries escaping REMOTE are refused.",
	.positionals = download_positionals, .options = download_options,
	.formats = AX_OBJECT_FORMATS, .default_format = AX_FMT_TABLE, .target = AX_TARGET_EXECD,
	.check = check_file_download, .handler = cmd_file_download,
};
