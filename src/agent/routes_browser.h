/* Browser routes of the AIO runtime API (specs/aio-sandbox/openapi.json):
 * rows for routes.c; the handlers are in browser_routes.c, the browser
 * itself in browser.c. */
#ifndef ALLOX_AGENT_ROUTES_BROWSER_H
#define ALLOX_AGENT_ROUTES_BROWSER_H

#include "route.h"

enum MHD_Result ag_browser_info_route(struct ag_req *req);
enum MHD_Result ag_browser_screenshot_route(struct ag_req *req);

#define AG_BROWSER_ROUTES \
	{ "GET", "/v1/browser/info", AG_EXACT, ag_browser_info_route, AG_BODY_NONE, 0, NULL }, \
	{ "GET", "/v1/browser/screenshot", AG_EXACT, ag_browser_screenshot_route, AG_BODY_NONE, 0, NULL },

#endif
