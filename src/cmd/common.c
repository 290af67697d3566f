#include "cmd/common.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "lib/session.h"

char *ax_resolve_sandbox(ax_ctx *ctx, const char *given, ax_error *err)
{
	ax_session s;
	bool found;
	char *id;

	if (given)
		return strdup(given);
	if (ax_session_get(ctx->home, &s, &found, err) < 0)
		return NULL;
	if (!found) {
		ax_fail(err, AX_CODE_NO_SESSION,
			"No sandbox_id and no current session. Run: allox-cli sandbox create  OR  allox-cli session use <id>");
		return NULL;
	}
	id = strdup(s.sandbox_id);
	ax_session_free(&s);
	return id;
}

int ax_open_lifecycle(ax_ctx *ctx, ax_lifecycle *lc, ax_error *err)
{
	return ax_lc_open(lc, ctx->config, ctx->home, ctx->verbose, err);
}

char *ax_aio_url_or_null(ax_lifecycle *lc, const ax_config *cfg, const char *id)
{
	ax_error err;
	char *url = NULL;

	if (ax_lc_endpoint(lc, id, (int)ax_config_int(cfg, "aio_port"), &url, NULL, &err) < 0)
		return NULL;
	return url;
}

bool ax_looks_like_uuid(const char *s)
{
	static const int groups[] = { 8, 4, 4, 4, 12 };
	size_t g, i;

	for (g = 0; g < 5; g++) {
		for (i = 0; i < (size_t)groups[g]; i++, s++)
			if (!isxdigit((unsigned char)*s))
				return false;
		if (g < 4 && *s++ != '-')
			return false;
	}
	return *s == '\0';
}

int ax_split_target(const ax_args *args, const char **id, const char ***words, size_t *n, ax_error *err)
{
	const json_t *cmd = ax_arg_json(args, "COMMAND");
	size_t total = json_array_size(cmd), first = 0, i;

	*id = NULL;
	*words = NULL;
	*n = 0;
	if (total && ax_looks_like_uuid(json_string_value(json_array_get(cmd, 0)))) {
		*id = json_string_value(json_array_get(cmd, 0));
		first = 1;
		/* `run ID -- cmd` reads naturally; the "--" is not part of the command. */
		if (total > 1 && strcmp(json_string_value(json_array_get(cmd, 1)), "--") == 0)
			first = 2;
	}
	if (total == first)
		return ax_fail(err, AX_CODE_USAGE, "missing command after the sandbox id");
	*words = calloc(total - first + 1, sizeof **words);
	if (!*words)
		return ax_fail(err, AX_CODE_NOMEM, "out of memory");
	for (i = first; i < total; i++)
		(*words)[i - first] = json_string_value(json_array_get(cmd, i));
	*n = total - first;
	return 0;
}
