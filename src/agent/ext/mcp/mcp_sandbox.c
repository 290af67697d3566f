/* The built-in `sandbox` MCP server: shell, files and Jupyter inside the
 * sandbox, the tools the AIO hub calls sandbox_execute_bash,
 * sandbox_file_operations, sandbox_execute_code and sandbox_get_context. */
#include "agent/ext/mcp/mcp_builtin.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent/aio/aio_common.h"
#include "lib/fs.h"
#include "agent/ext/jupyter/jupyter.h"
#include "agent/core/route.h"
#include "agent/core/proc_spawn.h"
#include "lib/timeutil.h"

#define BASH_TIMEOUT_DEFAULT 60
#define OUTPUT_MAX ((size_t)4 << 20)
#define READ_MAX ((off_t)16 << 20)
/* Entries a list returns at most. */
#define LIST_MAX 4096

static json_t *schema(const char *props_json, const char *required)
{
	json_t *props = json_loads(props_json, 0, NULL);
	json_t *s = json_pack("{s:s, s:o}", "type", "object", "properties", props ? props : json_object());

	if (required)
		json_object_set_new(s, "required", json_loads(required, 0, NULL));
	return s;
}

static json_t *sandbox_tools(void)
{
	return json_pack(
		"[o, o, o, o]",
		mcp_tool("sandbox_execute_bash", "Execute Bash",
			 "Run a shell command (/bin/sh -c) in the sandbox and return its combined stdout and stderr and "
			 "exit code.",
			 schema("{\"cmd\":{\"type\":\"string\",\"description\":\"the command line\"},"
				"\"cwd\":{\"type\":\"string\",\"description\":\"working directory (default: home)\"},"
				"\"timeout\":{\"type\":\"number\",\"description\":\"seconds before it is killed (default 60)\"}}",
				"[\"cmd\"]"),
			 false),
		mcp_tool("sandbox_file_operations", "File Operations",
			 "Read, write or list files in the sandbox: action read (path), write (path, content) or list "
			 "(path, a directory).",
			 schema("{\"action\":{\"type\":\"string\",\"enum\":[\"read\",\"write\",\"list\"]},"
				"\"path\":{\"type\":\"string\",\"description\":\"absolute path\"},"
				"\"content\":{\"type\":\"string\",\"description\":\"text to write (action write)\"}}",
				"[\"action\",\"path\"]"),
			 false),
		mcp_tool("sandbox_execute_code", "Execute Code",
			 "Run Python code in the sandbox's Jupyter kernel (state is kept between calls); returns its "
			 "output, results and images.",
			 schema("{\"code\":{\"type\":\"string\"},"
				"\"language\":{\"type\":\"string\",\"enum\":[\"python\"],\"default\":\"python\"},"
				"\"timeout\":{\"type\":\"number\",\"description\":\"seconds (default 30)\"}}",
				"[\"code\"]"),
			 false),
		mcp_tool("sandbox_get_context", "Get Context", "Describe the sandbox: id, home directory, agent version.",
			 schema("{}", NULL), true));
}

static const char *str_arg(const json_t *args, const char *key)
{
	return json_string_value(json_object_get(args, key));
}

static double num_arg(const json_t *args, const char *key, double dflt)
{
	const json_t *v = json_object_get(args, key);

	return json_is_number(v) ? json_number_value(v) : dflt;
}

/* Read P's merged output until EOF or DEADLINE; 1 when the deadline passed. */
static int collect_output(const struct ag_proc *p, long long deadline, char **out, size_t *len)
{
	size_t cap = 65536;
	char *buf = malloc(cap + 1);

	*len = 0;
	*out = buf;
	if (!buf)
		return 0;
	for (;;) {
		struct pollfd pfd = { .fd = p->out_fd, .events = POLLIN };
		long long left = deadline - ax_mono_ms();
		char chunk[16384];
		ssize_t n;

		if (left <= 0)
			return 1;
		if (poll(&pfd, 1, left > 1000 ? 1000 : (int)left) <= 0)
			continue;
		n = read(p->out_fd, chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		if (*len + (size_t)n > cap && cap < OUTPUT_MAX) {
			char *grown;

			cap = cap * 4 > OUTPUT_MAX ? OUTPUT_MAX : cap * 4;
			grown = realloc(buf, cap + 1);
			if (!grown)
				continue;
			buf = *out = grown;
		}
		/* Past the cap the rest is read and dropped, so the command never blocks. */
		if (*len + (size_t)n > cap)
			n = (ssize_t)(cap - *len);
		memcpy(buf + *len, chunk, (size_t)n);
		*len += (size_t)n;
	}
}

static json_t *execute_bash(const struct mcp_builtin_env *env, const json_t *args)
{
	const char *cmd = str_arg(args, "cmd"), *cwd = str_arg(args, "cwd");
	double timeout = num_arg(args, "timeout", BASH_TIMEOUT_DEFAULT);
	struct ag_proc p;
	char *out = NULL, tail[96] = "";
	size_t len = 0;
	int timed_out, status = 0, code = -1;
	json_t *result;
	ax_error e;

	if (!cmd)
		return mcp_error_result("cmd is required (a string)");
	if (timeout <= 0)
		timeout = BASH_TIMEOUT_DEFAULT;
	if (ag_proc_start(env->ctx, cmd, cwd, NULL, true, &p, &e) < 0)
		return mcp_error_result("%s", e.message);
	timed_out = collect_output(&p, ax_mono_ms() + (long long)(timeout * 1000), &out, &len);
	if (timed_out)
		ag_proc_kill(&p, SIGKILL);
	if (ag_proc_wait(env->ctx, &p, 5000, &status) == 1)
		code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	else
		ag_proc_kill(&p, SIGKILL);
	ag_proc_close(&p);
	if (timed_out)
		snprintf(tail, sizeof tail, "%s[timed out after %g s]\n", len && out[len - 1] != '\n' ? "\n" : "", timeout);
	else if (code != 0)
		snprintf(tail, sizeof tail, "%s[exit code %d]\n", len && out[len - 1] != '\n' ? "\n" : "", code);
	if (out && *tail) {
		char *grown = realloc(out, len + strlen(tail) + 1);

		if (grown) {
			out = grown;
			memcpy(out + len, tail, strlen(tail) + 1);
			len += strlen(tail);
		}
	}
	/* The exit code is in the text, where a model reads it. */
	result = json_pack("{s:[o], s:b}", "content", mcp_text_block(out ? out : "", out ? len : 0), "isError", 0);
	free(out);
	return result;
}

static json_t *file_read(const char *path)
{
	struct stat st;
	char *data = NULL;
	size_t len = 0;
	json_t *r;
	ax_error e;
	int rc;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return mcp_error_result("%s is a directory (use action list)", path);
	if (stat(path, &st) == 0 && st.st_size > READ_MAX)
		return mcp_error_result("%s is over %lld MiB", path, (long long)(READ_MAX >> 20));
	rc = ax_read_file(path, &data, &len, &e);
	if (rc > 0)
		return mcp_error_result("%s: No such file or directory", path);
	if (rc < 0)
		return mcp_error_result("%s", e.message);
	r = json_pack("{s:[o], s:b}", "content", mcp_text_block(data, len), "isError", 0);
	free(data);
	return r;
}

static json_t *file_write(const char *path, const char *content)
{
	ax_error e;

	if (!content)
		return mcp_error_result("content is required for action write (a string)");
	if (ax_mkdir_parent(path, 0755, &e) < 0 || ax_write_file_replace(path, content, strlen(content), 0644, &e) < 0)
		return mcp_error_result("%s", e.message);
	return json_pack("{s:[{s:s, s:s++}], s:b}", "content", "type", "text", "text", "Wrote ", path, "", "isError", 0);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(json_string_value(json_object_get(*(json_t *const *)a, "name")),
		      json_string_value(json_object_get(*(json_t *const *)b, "name")));
}

static json_t *file_list(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	json_t *entries = json_array(), *sorted[LIST_MAX], *r;
	size_t n = 0, i, tlen = 0;
	char *text = NULL;
	FILE *f;

	if (!d) {
		json_decref(entries);
		return mcp_error_result("%s: %s", path, strerror(errno));
	}
	while ((de = readdir(d)) && n < LIST_MAX) {
		char *full;
		struct stat st;
		const char *type = "other";

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		full = ax_path_join(path, de->d_name);
		if (full && lstat(full, &st) == 0)
			type = S_ISDIR(st.st_mode) ? "directory" : S_ISREG(st.st_mode) ? "file" : S_ISLNK(st.st_mode) ? "symlink" : "other";
		else
			st.st_size = 0;
		free(full);
		sorted[n++] = json_pack("{s:o, s:s, s:I}", "name", ag_json_text(de->d_name), "type", type, "size",
					(json_int_t)st.st_size);
	}
	closedir(d);
	qsort(sorted, n, sizeof(json_t *), by_name);
	f = open_memstream(&text, &tlen);
	for (i = 0; i < n; i++) {
		if (f)
			fprintf(f, "%s%s\n", json_string_value(json_object_get(sorted[i], "name")),
				strcmp(json_string_value(json_object_get(sorted[i], "type")), "directory") == 0 ? "/" : "");
		json_array_append_new(entries, sorted[i]);
	}
	if (f)
		fclose(f);
	r = json_pack("{s:[{s:s, s:s}], s:{s:s, s:o}, s:b}", "content", "type", "text", "text", text ? text : "",
		      "structuredContent", "path", path, "entries", entries, "isError", 0);
	free(text);
	return r;
}

static json_t *file_operations(const json_t *args)
{
	const char *action = str_arg(args, "action"), *path = str_arg(args, "path");

	if (!action || !path)
		return mcp_error_result("action and path are required (strings)");
	if (path[0] != '/')
		return mcp_error_result("path must be absolute: %s", path);
	if (strcmp(action, "read") == 0)
		return file_read(path);
	if (strcmp(action, "write") == 0)
		return file_write(path, str_arg(args, "content"));
	if (strcmp(action, "list") == 0)
		return file_list(path);
	return mcp_error_result("unknown action '%s': use read, write or list", action);
}

/* Jupyter outputs as MCP content: text for streams, results and errors,
 * image blocks for image/png. */
static void add_outputs(json_t *content, const json_t *outputs)
{
	const json_t *o;
	size_t i;

	json_array_foreach(outputs, i, o) {
		const char *type = json_string_value(json_object_get(o, "output_type")) ?: "";
		const json_t *data = json_object_get(o, "data");
		const char *png = json_string_value(json_object_get(data, "image/png"));
		const char *plain = json_string_value(json_object_get(data, "text/plain"));

		if (strcmp(type, "stream") == 0)
			json_array_append_new(content, json_pack("{s:s, s:O}", "type", "text", "text", json_object_get(o, "text")));
		else if (strcmp(type, "error") == 0)
			json_array_append_new(content, json_pack("{s:s, s:s++}", "type", "text", "text",
								 json_string_value(json_object_get(o, "ename")) ?: "Error", ": ",
								 json_string_value(json_object_get(o, "evalue")) ?: ""));
		else if (png)
			json_array_append_new(content, json_pack("{s:s, s:s, s:s}", "type", "image", "data", png, "mimeType",
								 "image/png"));
		else if (plain)
			json_array_append_new(content, json_pack("{s:s, s:s}", "type", "text", "text", plain));
	}
}

static json_t *execute_code(const struct mcp_builtin_env *env, const json_t *args)
{
	const char *code = str_arg(args, "code"), *language = str_arg(args, "language"), *status;
	struct ag_error e = { 0 };
	json_t *res = NULL, *content, *r;

	if (!code)
		return mcp_error_result("code is required (a string)");
	if (language && strcmp(language, "python") != 0)
		return mcp_error_result("language '%s' is not supported: use python", language);
	if (ag_jupyter_execute(env->ctx->jupyter, code, NULL, NULL, num_arg(args, "timeout", 0), &res, &e) < 0)
		return mcp_error_result("%s", e.message);
	status = json_string_value(json_object_get(res, "status")) ?: "unknown";
	content = json_array();
	add_outputs(content, json_object_get(res, "outputs"));
	if (strcmp(status, "ok") != 0)
		json_array_append_new(content, json_pack("{s:s, s:s+}", "type", "text", "text", "Execution status: ", status));
	r = json_pack("{s:o, s:b}", "content", content, "isError", strcmp(status, "ok") != 0);
	json_decref(res);
	return r;
}

static json_t *get_context(const struct mcp_builtin_env *env)
{
	const char *home = getenv("HOME");
	char text[512];

	snprintf(text, sizeof text, "allox sandbox %s\nHome directory: %s\nAgent version: %s\n", env->ctx->sandbox_id,
		 home ? home : "/", env->ctx->version);
	return json_pack("{s:[{s:s, s:s}], s:{s:s, s:s, s:s}, s:b}", "content", "type", "text", "text", text,
			 "structuredContent", "sandbox_id", env->ctx->sandbox_id, "home_dir", home ? home : "/", "version",
			 env->ctx->version, "isError", 0);
}

static int sandbox_call(const struct mcp_builtin_env *env, const char *tool, const json_t *args, json_t **result,
			struct ag_error *err)
{
	if (strcmp(tool, "sandbox_execute_bash") == 0)
		*result = execute_bash(env, args);
	else if (strcmp(tool, "sandbox_file_operations") == 0)
		*result = file_operations(args);
	else if (strcmp(tool, "sandbox_execute_code") == 0)
		*result = execute_code(env, args);
	else if (strcmp(tool, "sandbox_get_context") == 0)
		*result = get_context(env);
	else
		return mcp_unknown_tool(err, "sandbox", tool);
	if (!*result)
		return ag_fail_code(err, 500, -32603, "out of memory");
	return 0;
}

const struct mcp_builtin mcp_builtin_sandbox = { "sandbox", sandbox_tools, sandbox_call };
