/* aio browser info | aio screenshot: the sandbox's Chromium through the AIO
 * runtime (GET /v1/browser/info, GET /v1/browser/screenshot). */
#include "cmd/command.h"

#include <stdlib.h>
#include <string.h>

#include "api/aio_browser.h"
#include "lib/fs.h"
#include "cli/target.h"

/* The first browser call starts Chromium, which can take a while on a
 * loaded machine; the agent gives it up to 60 s. */
#define BROWSER_REQUEST_S 120

static const char *const info_columns[] = { "user_agent", "cdp_url", "vnc_url", "viewport", "page_viewport", NULL };

int ax_cmd_aio_browser_info(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	json_t *data = NULL;

	ctx->target->runtime.timeout_s = BROWSER_REQUEST_S;
	if (ax_aio_browser_info(&ctx->target->runtime, &data, err) < 0)
		return -1;
	res->kind = AX_RESULT_DATA;
	res->data = data;
	res->view.title = "Browser";
	res->view.columns = info_columns;
	return 0;
}

static int quality_arg(const ax_args *args, const char *format, int *quality, ax_error *err)
{
	const json_t *v = ax_arg_json(args, "quality");

	*quality = -1;
	if (!v)
		return 0;
	if (strcmp(format, "png") == 0)
		return ax_fail(err, AX_CODE_USAGE, "--quality applies to --format jpeg only");
	*quality = (int)json_integer_value(v);
	return 0;
}

int ax_check_aio_screenshot(const ax_ctx *ctx, const ax_args *args, ax_error *err)
{
	int quality;

	return quality_arg(args, ax_arg_string(args, "format"), &quality, err);
}

int ax_cmd_aio_screenshot(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	const char *file = ax_arg_string(args, "file"), *format = ax_arg_string(args, "format");
	struct ax_screenshot shot = { 0 };
	int quality, rc;

	if (quality_arg(args, format, &quality, err) < 0)
		return -1;
	ctx->target->runtime.timeout_s = BROWSER_REQUEST_S;
	rc = ax_aio_screenshot(&ctx->target->runtime, format, quality, &shot, err);
	/* A temporary file beside FILE, renamed over it once complete: FILE is
	 * the whole image or untouched, never a part. */
	if (rc == 0 && (rc = ax_write_file_atomic(file, shot.bytes, shot.len, 0644, err)) == 0) {
		res->kind = AX_RESULT_DATA;
		res->data = json_pack("{s:s, s:s, s:i, s:i, s:I}", "path", file, "format", shot.format, "width",
				      shot.width, "height", shot.height, "bytes", (json_int_t)shot.len);
		res->view.title = "Screenshot";
	}
	ax_screenshot_free(&shot);
	return rc;
}
