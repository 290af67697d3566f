/* The AIO runtime's browser routes: GET /v1/browser/info and the image
 * bytes of GET /v1/browser/screenshot. */
#ifndef ALLOX_AIO_BROWSER_H
#define ALLOX_AIO_BROWSER_H

#include <jansson.h>
#include <stddef.h>

#include "lib/http.h"

/* The envelope's data {user_agent, cdp_url, vnc_url, viewport, ...}. */
int ax_aio_browser_info(ax_http *aio, json_t **data, ax_error *err);

struct ax_screenshot {
	unsigned char *bytes;   /* malloc'd image */
	size_t len;
	const char *format;     /* "png" or "jpeg", read from the bytes */
	int width, height;      /* read from the bytes */
};

/* GET /v1/browser/screenshot?format=FORMAT[&quality=QUALITY] (QUALITY < 0:
 * none). The answer must be an image of FORMAT, else an error. */
int ax_aio_screenshot(ax_http *aio, const char *format, int quality, struct ax_screenshot *shot, ax_error *err);
void ax_screenshot_free(struct ax_screenshot *shot);

#endif
