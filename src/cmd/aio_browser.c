/* aio browser info | aio screenshot: the sandbox's Chromium through the AIO
 * runtime (GET /v1/browser/info, GET /v1/browser/screenshot). */
#include "cmd/command.h"

#include <stdlib.h>
#include <string.h>

#include "api/aio_browser.h"
#include "lib/fs.h"
#include "cmd/target.h"
#include "cmd/verbs.h"
#include "cmd/common.h"

/* The first browser call starts Chromium, which can take a while on a
 * loaded machine; the agent gives it up to 60 s. */
#define BROWSER_REQUEST_S 120

static const char *const info_columns[] = { "user_agent", "cdp_url", "vnc_url", "viewport", "page_viewport", NULL };

static int cmd_aio_browser_info(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
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

static int check_aio_screenshot(const ax_ctx *ctx, const ax_args *args, ax_error *err)
{
	int quality;

	return quality_arg(args, ax_arg_string(args, "format"), &quality, err);
}

static int cmd_aio_screenshot(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
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

/* The table entries of the verbs above (cmd/command.h). */

static const char *const screenshot_formats[] = { "png", "jpeg", NULL };

static const ax_option_spec aio_screenshot_options[] = {
	{ .name = "file", .short_name = 'f', .kind = AX_VAL_LOCAL_PATH, .metavar = "FILE", .required = true,
	  .help = "where to save the image (required); replaced atomically, untouched on failure" },
	{ .name = "format", .kind = AX_VAL_CHOICE, .metavar = "FORMAT", .choices = screenshot_formats, .defval = "png",
	  .help = "image format: png or jpeg" },
	{ .name = "quality", .kind = AX_VAL_INT, .metavar = "N", .min = "0", .max = "100",
	  .help = "JPEG quality, 0 to 100 (default: Chromium's)" },
	AX_OPTIONS_END,
};

static const char *const aio_browser_info_examples[] = {
	"allox-cli aio browser info",
	"allox-cli aio browser info -o json | jq -r .cdp_url",
	NULL,
};

static const char *const aio_screenshot_examples[] = {
	"allox-cli aio screenshot -f page.png",
	"allox-cli aio screenshot -f page.jpg --format jpeg --quality 70 -o json",
	NULL,
};

const ax_command_spec ax_aio_browser_info_verb = {
	.group = "aio", .name = "browser info", .summary = "Show the sandbox's browser: user agent, CDP URL, "
	"viewport",
	.description = "Starts the sandbox's headless Chromium on first use. cdp_url is a browser-level DevTools "
	"WebSocket on 127.0.0.1 that CDP clients (Puppeteer, Playwright, chrome-remote-interface) can connect to "
	"from the host. Local sandboxes have no VNC: vnc_url is null.",
	.positionals = ax_sandbox_id_positionals, .formats = AX_OBJECT_FORMATS, .default_format = AX_FMT_TABLE,
	.target = AX_TARGET_AIO, .handler = cmd_aio_browser_info, .examples = aio_browser_info_examples,
};

const ax_command_spec ax_aio_screenshot_verb = {
	.group = "aio", .name = "screenshot", .summary = "Save a screenshot of the sandbox's browser page",
	.description = "Captures the current page of the sandbox's Chromium (started on first use) at its "
	"viewport size and writes it to FILE through a temporary file beside it, so FILE is the whole image or "
	"untouched. Prints {path, format, width, height, bytes}.",
	.positionals = ax_sandbox_id_positionals, .options = aio_screenshot_options,
	.formats = AX_OBJECT_FORMATS, .default_format = AX_FMT_TABLE, .target = AX_TARGET_AIO,
	.check = check_aio_screenshot, .handler = cmd_aio_screenshot,
	.examples = aio_screenshot_examples,
};
