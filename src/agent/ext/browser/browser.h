/* src/agent/ext/browser/browser.h — the sandbox's Chromium, driven over CDP.
 * Contract between the browser module (implements it) and its users: the
 * /v1/browser routes and the MCP hub's built-in `browser` server.
 * Every call is thread-safe; calls are serialised on the one browser. */
#ifndef ALLOX_AGENT_BROWSER_H
#define ALLOX_AGENT_BROWSER_H

#include <jansson.h>
#include <stddef.h>

#include "agent/core/ag_error.h"

struct ag_browser;
struct ag_reaper;

/* Failures fill a struct ag_error with status 400 bad input, 503 no chromium
 * / cannot start, 504 timeout, or 500. */

/* Cheap: starts nothing. Chromium is started (or restarted, if it died) by
 * the first call that needs it. REAPER watches the browser process. */
struct ag_browser *ag_browser_new(struct ag_reaper *reaper);
void ag_browser_free(struct ag_browser *b);   /* kills Chromium */

/* {user_agent, cdp_url, vnc_url: null, viewport{width,height}} — the `data`
 * of GET /v1/browser/info. Starts the browser if needed. */
int ag_browser_info(struct ag_browser *b, json_t **data, struct ag_error *err);

/* FORMAT "png" or "jpeg"; QUALITY 0..100 (jpeg only; < 0: default). *IMAGE is
 * malloc'd bytes the caller frees. */
int ag_browser_screenshot(struct ag_browser *b, const char *format, int quality,
			  unsigned char **image, size_t *len, int *width, int *height,
			  struct ag_error *err);

/* Load URL in the current page and wait for its load event (TIMEOUT_S <= 0:
 * 30 s). *TITLE (may be NULL) is the page title afterwards, malloc'd. */
int ag_browser_navigate(struct ag_browser *b, const char *url, double timeout_s,
			char **title, struct ag_error *err);

/* Runtime.evaluate EXPRESSION (awaiting promises, returnByValue) in the
 * current page. *VALUE is the JSON result; a thrown exception is status 400
 * with its text in the message. */
int ag_browser_evaluate(struct ag_browser *b, const char *expression, json_t **value,
			struct ag_error *err);

/* Chromium's DevTools port inside the sandbox, starting it if needed. */
int ag_browser_port(struct ag_browser *b, int *port, struct ag_error *err);

/* cdp_url is BASE followed by the browser's WebSocket path (BASE: the
 * DevTools relay's, cdp_relay.h); NULL: Chromium's own address. BASE must
 * outlive B. */
void ag_browser_set_cdp_base(struct ag_browser *b, const char *base);

/* document.body.innerText of the current page, malloc'd. */
int ag_browser_text(struct ag_browser *b, char **text, struct ag_error *err);

#endif
