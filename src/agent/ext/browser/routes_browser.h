/* Browser routes of the AIO runtime API (specs/aio-sandbox/openapi.json):
 * rows for routes.c; the handlers are in browser_routes.c, the browser
 * itself in browser.c. */
#ifndef ALLOX_AGENT_ROUTES_BROWSER_H
#define ALLOX_AGENT_ROUTES_BROWSER_H

#include "agent/core/route.h"

enum MHD_Result ag_browser_info_route(struct ag_req *req);
enum MHD_Result ag_browser_screenshot_route(struct ag_req *req);

/* The rows, with H(handler) as each handler: the module serves them with
 * their handlers, the agent with ag_ext_route (routes_ext.h). */
#define AG_BROWSER_ROUTES_VIA(h) \
	{ "GET", "/v1/browser/info", AG_EXACT, h(ag_browser_info_route), AG_BODY_NONE, 0, NULL }, \
	{ "GET", "/v1/browser/screenshot", AG_EXACT, h(ag_browser_screenshot_route), AG_BODY_NONE, 0, NULL },

#define AG_BROWSER_ROUTES AG_BROWSER_ROUTES_VIA(AG_ROUTE_SELF)

#endif
