/* GET /v1/browser/info and GET /v1/browser/screenshot: query checks shaped
 * like the AIO server's (FastAPI 422s), then the browser module. */
#include "agent/ext/browser/routes_browser.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/aio/aio_common.h"
#include "agent/ext/browser/browser.h"

enum MHD_Result ag_browser_info_route(struct ag_req *req)
{
	struct ag_error err = { 0 };
	json_t *data = NULL;

	if (ag_browser_info(req->ctx->browser, &data, &err) < 0)
		return ag_reply_error(req, &err);
	return ag_reply_json(req, MHD_HTTP_OK,
			     ag_envelope("Browser info retrieved (local sandboxes have no VNC: vnc_url is null)", data));
}

static const char *query(struct ag_req *req, const char *key)
{
	return MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, key);
}

/* format: png (default), jpg or jpeg; quality: absent, or an integer 0..100. */
static void screenshot_args(struct ag_req *req, struct aio_args *a, const char **format, int *quality)
{
	const char *f = query(req, "format"), *q = query(req, "quality");
	char *end;
	long v;

	*format = f && *f ? f : "png";
	*quality = -1;
	if (strcmp(*format, "png") != 0 && strcmp(*format, "jpg") != 0 && strcmp(*format, "jpeg") != 0)
		aio_args_invalid(a, "format", "literal_error", "Input should be 'png', 'jpg' or 'jpeg'");
	if (!q)
		return;
	errno = 0;
	v = strtol(q, &end, 10);
	if (!*q || *end || errno)
		aio_args_invalid(a, "quality", "int_parsing",
				 "Input should be a valid integer, unable to parse string as an integer");
	else if (v < 0)
		aio_args_invalid(a, "quality", "greater_than_equal", "Input should be greater than or equal to 0");
	else if (v > 100)
		aio_args_invalid(a, "quality", "less_than_equal", "Input should be less than or equal to 100");
	else
		*quality = (int)v;
}

enum MHD_Result ag_browser_screenshot_route(struct ag_req *req)
{
	struct aio_args a = { NULL, NULL, "query" };
	struct ag_error err = { 0 };
	struct MHD_Response *resp;
	unsigned char *image = NULL;
	int quality, width = 0, height = 0;
	const char *format;
	enum MHD_Result rc;
	char num[16];
	size_t len = 0;

	screenshot_args(req, &a, &format, &quality);
	if (!aio_args_ok(&a)) {
		rc = aio_reply_invalid(req, &a);
		aio_args_free(&a);
		return rc;
	}
	if (ag_browser_screenshot(req->ctx->browser, format, quality, &image, &len, &width, &height, &err) < 0)
		return ag_reply_error(req, &err);
	resp = MHD_create_response_from_buffer(len, image, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(image);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, strcmp(format, "png") == 0 ? "image/png" : "image/jpeg");
	snprintf(num, sizeof num, "%d", width);
	MHD_add_response_header(resp, "x-image-width", num);
	/* The whole "screen" of a headless browser is its page. */
	MHD_add_response_header(resp, "x-screen-width", num);
	snprintf(num, sizeof num, "%d", height);
	MHD_add_response_header(resp, "x-image-height", num);
	MHD_add_response_header(resp, "x-screen-height", num);
	return ag_reply_queue(req, MHD_HTTP_OK, resp);
}
