#include "api/aio_browser.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/aio_call.h"
#include "lib/imgsize.h"

int ax_aio_browser_info(ax_http *aio, json_t **data, ax_error *err)
{
	return ax_aio_call(aio, "/v1/browser/info", NULL, "Browser info returned no data", data, err);
}

/* The AIO failure envelope's message (or FastAPI's detail), else the body. */
static int http_failure(const ax_http_response *r, ax_error *err)
{
	json_t *doc = json_loadb(r->body, r->len, 0, NULL);
	const char *msg = json_string_value(json_object_get(doc, "message"));

	if (msg)
		ax_fail(err, AX_CODE_AIO, "AIO API error (%ld): %s", r->status, msg);
	else
		ax_fail(err, AX_CODE_AIO, "AIO API error (%ld): %.300s", r->status, r->body);
	json_decref(doc);
	return -1;
}

int ax_aio_screenshot(ax_http *aio, const char *format, int quality, struct ax_screenshot *shot, ax_error *err)
{
	const char *want = strcmp(format, "png") == 0 ? "png" : "jpeg";
	ax_http_response r;
	char path[128];
	int rc = -1;

	memset(shot, 0, sizeof *shot);
	if (quality >= 0)
		snprintf(path, sizeof path, "/v1/browser/screenshot?format=%s&quality=%d", format, quality);
	else
		snprintf(path, sizeof path, "/v1/browser/screenshot?format=%s", format);
	if (ax_http_request(aio, "GET", path, NULL, &r, err) < 0)
		return -1;
	if (r.status < 200 || r.status > 299) {
		http_failure(&r, err);
		goto out;
	}
	if (ax_image_size((const unsigned char *)r.body, r.len, &shot->format, &shot->width, &shot->height) < 0 ||
	    strcmp(shot->format, want) != 0) {
		ax_fail(err, AX_CODE_AIO, "the screenshot is not a %s image (%zu bytes, Content-Type %s)",
			strcmp(want, "png") == 0 ? "PNG" : "JPEG", r.len,
			ax_http_last_header(aio, "Content-Type") ?: "none");
		goto out;
	}
	/* The response buffer becomes the image. */
	shot->bytes = (unsigned char *)r.body;
	shot->len = r.len;
	r.body = NULL;
	rc = 0;
out:
	ax_http_response_free(&r);
	return rc;
}

void ax_screenshot_free(struct ax_screenshot *shot)
{
	free(shot->bytes);
	memset(shot, 0, sizeof *shot);
}
