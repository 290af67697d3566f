/* The browser module (browser.h): one Chromium per sandbox, started on first
 * use and restarted when it has died, driven over one browser-level CDP
 * WebSocket with a flat session attached to its page. Every public call
 * holds the lock for its whole length, so calls are serialised and the CDP
 * connection is only ever serviced by one thread. */
#include "agent/ext/browser/browser.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base64.h"
#include "agent/ext/browser/browser_launch.h"
#include "agent/ext/browser/cdp.h"
#include "agent/ext/browser/cdp_msg.h"
#include "lib/imgsize.h"
#include "agent/core/log.h"

#define VIEWPORT_ENV "ALLOX_AGENT_BROWSER_VIEWPORT"
/* The AIO image's default display size. */
#define DEFAULT_WIDTH 1280
#define DEFAULT_HEIGHT 1024
/* A loaded machine can take several seconds to start Chromium. */
#define START_MS 60000
#define CONNECT_MS 10000
#define CALL_MS 30000
#define STOP_MS 5000
/* CDP's "Session with given id not found." */
#define CDP_NO_SESSION -32001

struct ag_browser {
	pthread_mutex_t lock;
	struct ag_reaper *reaper;
	struct bl_proc proc;
	struct cdp *cdp;            /* browser-level socket */
	char session[128];          /* flat session attached to the page */
	char target[128];           /* the page's target id */
	bool crashed;               /* its renderer crashed: replace the page */
	char *user_agent;
	int width, height;
	const char *cdp_base;       /* the relay's ws:// prefix for cdp_url, NULL: none */
};

static int cdp_fail(struct ag_error *err, const struct cdp_error *ce)
{
	unsigned status = ce->status == CDP_TIMEOUT ? 504 : ce->status == CDP_FAILED ? 503 : 500;

	return ag_fail(err, status, "browser: %s", ce->message);
}

static void read_viewport(struct ag_browser *b)
{
	const char *v = getenv(VIEWPORT_ENV);
	int w, h;
	char extra;

	b->width = DEFAULT_WIDTH;
	b->height = DEFAULT_HEIGHT;
	if (v && sscanf(v, "%dx%d%c", &w, &h, &extra) == 2 && w >= 16 && h >= 16 && w <= 7680 && h <= 4320) {
		b->width = w;
		b->height = h;
	} else if (v && *v) {
		ag_log("browser: ignoring %s=%s (want WIDTHxHEIGHT, 16x16 to 7680x4320)", VIEWPORT_ENV, v);
	}
}

struct ag_browser *ag_browser_new(struct ag_reaper *reaper)
{
	struct ag_browser *b = calloc(1, sizeof *b);

	if (!b)
		return NULL;
	if (pthread_mutex_init(&b->lock, NULL) != 0) {
		free(b);
		return NULL;
	}
	b->reaper = reaper;
	b->proc.pidfd = -1;
	read_viewport(b);
	return b;
}

static void teardown(struct ag_browser *b, int grace_ms)
{
	cdp_close(b->cdp);
	b->cdp = NULL;
	b->session[0] = '\0';
	free(b->user_agent);
	b->user_agent = NULL;
	if (b->reaper)
		bl_stop(b->reaper, &b->proc, grace_ms);
}

void ag_browser_free(struct ag_browser *b)
{
	if (!b)
		return;
	teardown(b, 2000);
	pthread_mutex_destroy(&b->lock);
	free(b);
}

/* A CDP call in the page's session (SESSION true) or to the browser. */
static int call(struct ag_browser *b, bool session, const char *method, json_t *params, int timeout_ms,
		json_t **result, struct cdp_error *ce)
{
	int rc = cdp_call(b->cdp, session ? b->session : NULL, method, params, timeout_ms, result, ce);

	json_decref(params);
	return rc;
}

/* Attach a flat session to the first page (creating one if none is left:
 * a CDP client may have closed it) and set the page up. */
static int attach_page(struct ag_browser *b, struct ag_error *err)
{
	json_t *r = NULL, *infos, *info;
	const char *target = NULL, *sid;
	struct cdp_error ce;
	char target_id[128] = "";
	size_t i;

	b->session[0] = '\0';
	if (call(b, false, "Target.getTargets", NULL, CALL_MS, &r, &ce) != CDP_OK)
		return cdp_fail(err, &ce);
	infos = json_object_get(r, "targetInfos");
	json_array_foreach(infos, i, info) {
		if (json_is_string(json_object_get(info, "type")) &&
		    strcmp(json_string_value(json_object_get(info, "type")), "page") == 0) {
			target = json_string_value(json_object_get(info, "targetId"));
			break;
		}
	}
	if (target)
		snprintf(target_id, sizeof target_id, "%s", target);
	json_decref(r);
	r = NULL;
	if (!target_id[0]) {
		if (call(b, false, "Target.createTarget", json_pack("{s:s}", "url", "about:blank"), CALL_MS, &r, &ce) !=
		    CDP_OK)
			return cdp_fail(err, &ce);
		snprintf(target_id, sizeof target_id, "%s", json_string_value(json_object_get(r, "targetId")) ?: "");
		json_decref(r);
		r = NULL;
	}
	if (call(b, false, "Target.attachToTarget", json_pack("{s:s, s:b}", "targetId", target_id, "flatten", 1),
		 CALL_MS, &r, &ce) != CDP_OK)
		return cdp_fail(err, &ce);
	sid = json_string_value(json_object_get(r, "sessionId"));
	if (!sid || strlen(sid) >= sizeof b->session) {
		json_decref(r);
		return ag_fail(err, 500, "browser: Target.attachToTarget gave no session");
	}
	snprintf(b->session, sizeof b->session, "%s", sid);
	snprintf(b->target, sizeof b->target, "%s", target_id);
	b->crashed = false;
	json_decref(r);
	/* Inspector: for Inspector.targetCrashed (see page_event). */
	if (call(b, true, "Inspector.enable", NULL, CALL_MS, NULL, &ce) != CDP_OK ||
	    call(b, true, "Page.enable", NULL, CALL_MS, NULL, &ce) != CDP_OK ||
	    call(b, true, "Page.setLifecycleEventsEnabled", json_pack("{s:b}", "enabled", 1), CALL_MS, NULL, &ce) !=
		    CDP_OK ||
	    call(b, true, "Emulation.setDeviceMetricsOverride",
		 json_pack("{s:i, s:i, s:i, s:b}", "width", b->width, "height", b->height, "deviceScaleFactor", 1,
			   "mobile", 0),
		 CALL_MS, NULL, &ce) != CDP_OK) {
		b->session[0] = '\0';
		return cdp_fail(err, &ce);
	}
	return 0;
}

/* A crashed renderer never answers its page's commands: end the wait at
 * once, and have the next call open a new page. */
static bool page_event(const char *method, const char *session, const json_t *params, void *arg,
		       const char **reason)
{
	struct ag_browser *b = arg;

	if (strcmp(method, "Inspector.targetCrashed") != 0 || !session || strcmp(session, b->session) != 0)
		return false;
	b->crashed = true;
	*reason = "the page crashed (its renderer ended); the next call opens a new page";
	return true;
}

/* Replace a crashed page by a new one. */
static int replace_page(struct ag_browser *b, struct ag_error *err)
{
	struct cdp_error ce;

	ag_log("browser: the page crashed: opening a new one");
	if (call(b, false, "Target.closeTarget", json_pack("{s:s}", "targetId", b->target), CALL_MS, NULL, &ce) !=
	    CDP_OK)
		ag_log("browser: Target.closeTarget of the crashed page: %s", ce.message);
	return attach_page(b, err);
}

/* Start Chromium, connect and attach. */
static int start(struct ag_browser *b, struct ag_error *err)
{
	struct cdp_error ce;
	json_t *r = NULL;

	if (bl_start(b->reaper, b->width, b->height, START_MS, &b->proc, err) < 0)
		return -1;
	b->cdp = cdp_open("127.0.0.1", b->proc.port, b->proc.ws_path, CONNECT_MS, &ce);
	if (!b->cdp)
		return cdp_fail(err, &ce);
	cdp_on_event(b->cdp, page_event, b);
	if (call(b, false, "Browser.getVersion", NULL, CALL_MS, &r, &ce) != CDP_OK)
		return cdp_fail(err, &ce);
	b->user_agent = strdup(json_string_value(json_object_get(r, "userAgent")) ?: "");
	json_decref(r);
	if (!b->user_agent)
		return ag_fail(err, 500, "out of memory");
	if (attach_page(b, err) < 0)
		return -1;
	ag_log("browser: Chromium pid %d, DevTools ws://127.0.0.1:%d%s", (int)b->proc.pid, b->proc.port,
	       b->proc.ws_path);
	return 0;
}

/* Chromium running, connected and attached: start or restart it if not. */
static int ensure(struct ag_browser *b, struct ag_error *err)
{
	if (!b->reaper)
		return ag_fail(err, 503, "browser: the agent cannot watch child processes");
	if (b->proc.pid && bl_running(&b->proc) && cdp_alive(b->cdp) && b->session[0])
		return b->crashed ? replace_page(b, err) : 0;
	if (b->proc.pid)
		ag_log("browser: Chromium (pid %d) %s: restarting it", (int)b->proc.pid,
		       bl_running(&b->proc) ? "lost its DevTools connection" : "has ended");
	teardown(b, 2000);
	if (start(b, err) < 0) {
		teardown(b, 0);
		return -1;
	}
	return 0;
}

/* A call in the page's session, tried once more when the page is gone
 * (closed by another CDP client: attach to another one) or Chromium is
 * (its DevTools connection closed: start it again). A Chromium that was
 * just killed can still look alive to ensure(): its main thread is gone,
 * the others not yet, so its pidfd is not readable. */
static int page_call(struct ag_browser *b, const char *method, json_t *params, int timeout_ms, json_t **result,
		     struct cdp_error *ce, struct ag_error *err)
{
	int rc = cdp_call(b->cdp, b->session, method, params, timeout_ms, result, ce);

	if (rc == CDP_REMOTE && ce->code == CDP_NO_SESSION && attach_page(b, err) == 0) {
		rc = cdp_call(b->cdp, b->session, method, params, timeout_ms, result, ce);
	} else if (rc == CDP_FAILED && !cdp_alive(b->cdp)) {
		bool recording = cdp_recording(b->cdp);

		if (ensure(b, err) < 0) {
			snprintf(ce->message, sizeof ce->message, "%.390s", err->message);
		} else {
			if (recording)
				cdp_record(b->cdp, true);
			rc = cdp_call(b->cdp, b->session, method, params, timeout_ms, result, ce);
		}
	}
	json_decref(params);
	return rc;
}

int ag_browser_port(struct ag_browser *b, int *port, struct ag_error *err)
{
	int rc;

	pthread_mutex_lock(&b->lock);
	rc = ensure(b, err);
	*port = b->proc.port;
	pthread_mutex_unlock(&b->lock);
	return rc;
}

void ag_browser_set_cdp_base(struct ag_browser *b, const char *base)
{
	pthread_mutex_lock(&b->lock);
	b->cdp_base = base;
	pthread_mutex_unlock(&b->lock);
}

int ag_browser_info(struct ag_browser *b, json_t **data, struct ag_error *err)
{
	json_t *r = NULL, *value, *page = NULL;
	struct cdp_error ce;
	char url[400];
	int rc = -1;

	*data = NULL;
	pthread_mutex_lock(&b->lock);
	if (ensure(b, err) < 0)
		goto out;
	/* The page's own idea of its size, as the AIO server reports it. */
	if (page_call(b, "Runtime.evaluate",
		      json_pack("{s:s, s:b}", "expression", "[window.innerWidth, window.innerHeight]", "returnByValue", 1),
		      CALL_MS, &r, &ce, err) != CDP_OK) {
		cdp_fail(err, &ce);
		goto out;
	}
	value = json_object_get(json_object_get(r, "result"), "value");
	if (json_is_integer(json_array_get(value, 0)) && json_is_integer(json_array_get(value, 1)))
		page = json_pack("{s:O, s:O}", "width", json_array_get(value, 0), "height", json_array_get(value, 1));
	if (b->cdp_base)
		snprintf(url, sizeof url, "%s%s", b->cdp_base, b->proc.ws_path);
	else
		snprintf(url, sizeof url, "ws://127.0.0.1:%d%s", b->proc.port, b->proc.ws_path);
	*data = json_pack("{s:s, s:s, s:n, s:{s:i, s:i}, s:o*}", "user_agent", b->user_agent, "cdp_url", url,
			  "vnc_url", "viewport", "width", b->width, "height", b->height, "page_viewport", page);
	if (!*data) {
		ag_fail(err, 500, "out of memory");
		goto out;
	}
	rc = 0;
out:
	json_decref(r);
	pthread_mutex_unlock(&b->lock);
	return rc;
}

int ag_browser_screenshot(struct ag_browser *b, const char *format, int quality, unsigned char **image, size_t *len,
			  int *width, int *height, struct ag_error *err)
{
	json_t *params, *r = NULL;
	const char *data, *got;
	struct cdp_error ce;
	bool jpeg;
	int rc = -1;

	*image = NULL;
	*len = 0;
	if (!format || !*format)
		format = "png";
	jpeg = strcmp(format, "jpeg") == 0 || strcmp(format, "jpg") == 0;
	if (!jpeg && strcmp(format, "png") != 0)
		return ag_fail(err, 400, "unsupported screenshot format '%.40s': use png or jpeg", format);
	if (quality > 100)
		return ag_fail(err, 400, "quality must be from 0 to 100, not %d", quality);
	params = json_pack("{s:s, s:b}", "format", jpeg ? "jpeg" : "png", "fromSurface", 1);
	if (jpeg && quality >= 0)
		json_object_set_new(params, "quality", json_integer(quality));
	pthread_mutex_lock(&b->lock);
	if (ensure(b, err) < 0) {
		json_decref(params);
		goto out;
	}
	if (page_call(b, "Page.captureScreenshot", params, CALL_MS, &r, &ce, err) != CDP_OK) {
		cdp_fail(err, &ce);
		goto out;
	}
	data = json_string_value(json_object_get(r, "data"));
	if (!data || ax_base64_decode(data, json_string_length(json_object_get(r, "data")), image, len) < 0) {
		ag_fail(err, 500, "browser: Page.captureScreenshot gave no image");
		goto out;
	}
	if (ax_image_size(*image, *len, &got, width, height) < 0 || strcmp(got, jpeg ? "jpeg" : "png") != 0) {
		free(*image);
		*image = NULL;
		*len = 0;
		ag_fail(err, 500, "browser: Page.captureScreenshot gave no %s image", jpeg ? "JPEG" : "PNG");
		goto out;
	}
	rc = 0;
out:
	json_decref(r);
	pthread_mutex_unlock(&b->lock);
	return rc;
}

struct load_wait {
	const char *session;
	const char *loader;
};

/* The load lifecycle event of the navigation's own document: events of the
 * previous document may still arrive after Page.navigate answers. */
static bool is_load(const char *method, const char *session, const json_t *params, void *arg)
{
	const struct load_wait *w = arg;
	const char *name = json_string_value(json_object_get(params, "name"));
	const char *loader = json_string_value(json_object_get(params, "loaderId"));

	return strcmp(method, "Page.lifecycleEvent") == 0 && session && strcmp(session, w->session) == 0 && name &&
	       strcmp(name, "load") == 0 && loader && strcmp(loader, w->loader) == 0;
}

/* A string value of EXPRESSION in the page, malloc'd. */
static int eval_string(struct ag_browser *b, const char *expression, char **out, struct ag_error *err)
{
	struct cdp_error ce;
	json_t *r = NULL;
	const char *s;

	*out = NULL;
	if (page_call(b, "Runtime.evaluate", json_pack("{s:s, s:b}", "expression", expression, "returnByValue", 1),
		      CALL_MS, &r, &ce, err) != CDP_OK)
		return cdp_fail(err, &ce);
	s = json_string_value(json_object_get(json_object_get(r, "result"), "value"));
	*out = strdup(s ? s : "");
	json_decref(r);
	return *out ? 0 : ag_fail(err, 500, "out of memory");
}

/* After a navigation timed out: a page still waiting for its server holds
 * back the session's later commands, so stop it. */
static void stop_loading(struct ag_browser *b)
{
	struct cdp_error ce;

	if (cdp_call(b->cdp, b->session, "Page.stopLoading", NULL, STOP_MS, NULL, &ce) != CDP_OK)
		ag_log("browser: Page.stopLoading after a navigation timeout: %s", ce.message);
}

int ag_browser_navigate(struct ag_browser *b, const char *url, double timeout_s, char **title,
			struct ag_error *err)
{
	int timeout_ms = timeout_s > 0 ? (int)(timeout_s * 1000) : 30000;
	json_t *r = NULL, *ev = NULL;
	struct cdp_error ce;
	const char *failure, *loader;
	int rc = -1;

	if (title)
		*title = NULL;
	if (!url || !*url)
		return ag_fail(err, 400, "navigate: the URL is empty");
	pthread_mutex_lock(&b->lock);
	if (ensure(b, err) < 0)
		goto out;
	cdp_record(b->cdp, true);
	if (page_call(b, "Page.navigate", json_pack("{s:s}", "url", url), timeout_ms, &r, &ce, err) != CDP_OK) {
		if (ce.status == CDP_TIMEOUT) {
			stop_loading(b);
			ag_fail(err, 504, "%.300s did not answer within %g s", url, timeout_ms / 1000.0);
		} else if (ce.status == CDP_REMOTE) {
			ag_fail(err, 400, "cannot navigate to %.300s: %s", url, ce.message);
		} else {
			cdp_fail(err, &ce);
		}
		goto out;
	}
	failure = json_string_value(json_object_get(r, "errorText"));
	if (failure) {
		ag_fail(err, 400, "cannot load %.300s: %s", url, failure);
		goto out;
	}
	/* No loaderId: a same-document navigation (#fragment), already done. */
	loader = json_string_value(json_object_get(r, "loaderId"));
	if (loader) {
		struct load_wait w = { b->session, loader };

		if (cdp_wait_event(b->cdp, is_load, &w, timeout_ms, &ev, &ce) != CDP_OK) {
			if (ce.status == CDP_TIMEOUT) {
				stop_loading(b);
				ag_fail(err, 504, "%.300s did not finish loading within %g s", url, timeout_ms / 1000.0);
			}
			else
				cdp_fail(err, &ce);
			goto out;
		}
	}
	if (title && eval_string(b, "document.title", title, err) < 0)
		goto out;
	rc = 0;
out:
	if (b->cdp)
		cdp_record(b->cdp, false);
	json_decref(ev);
	json_decref(r);
	pthread_mutex_unlock(&b->lock);
	return rc;
}

int ag_browser_evaluate(struct ag_browser *b, const char *expression, json_t **value, struct ag_error *err)
{
	json_t *r = NULL, *result, *exc;
	struct cdp_error ce;
	int rc = -1;

	*value = NULL;
	if (!expression)
		return ag_fail(err, 400, "evaluate: no expression");
	pthread_mutex_lock(&b->lock);
	if (ensure(b, err) < 0)
		goto out;
	if (page_call(b, "Runtime.evaluate",
		      json_pack("{s:s, s:b, s:b}", "expression", expression, "returnByValue", 1, "awaitPromise", 1),
		      CALL_MS, &r, &ce, err) != CDP_OK) {
		if (ce.status == CDP_REMOTE)
			ag_fail(err, 400, "evaluate: %s", ce.message);
		else
			cdp_fail(err, &ce);
		goto out;
	}
	exc = json_object_get(r, "exceptionDetails");
	if (exc) {
		const char *d = json_string_value(json_object_get(json_object_get(exc, "exception"), "description"));
		const char *t = json_string_value(json_object_get(exc, "text"));

		ag_fail(err, 400, "%s", d ? d : t ? t : "the expression threw an exception");
		goto out;
	}
	result = json_object_get(r, "result");
	/* undefined (and functions, symbols) have no JSON value. */
	*value = json_object_get(result, "value") ? json_incref(json_object_get(result, "value")) : json_null();
	rc = 0;
out:
	json_decref(r);
	pthread_mutex_unlock(&b->lock);
	return rc;
}

int ag_browser_text(struct ag_browser *b, char **text, struct ag_error *err)
{
	int rc;

	*text = NULL;
	pthread_mutex_lock(&b->lock);
	rc = ensure(b, err);
	if (rc == 0)
		rc = eval_string(b, "document.body ? document.body.innerText : ''", text, err);
	pthread_mutex_unlock(&b->lock);
	return rc;
}
