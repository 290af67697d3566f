/* Test helper: a CDP client from the host, as Puppeteer would use a
 * browser-level cdp_url.
 *
 *   cdp_eval WS_URL EXPRESSION
 *   cdp_eval WS_URL --navigate URL
 *
 * Connects to WS_URL (ws://127.0.0.1:PORT/devtools/browser/ID), attaches a
 * flat session to the first page target (Target.getTargets,
 * Target.attachToTarget), runs Runtime.evaluate EXPRESSION there (awaiting
 * promises, by value) and prints the value as JSON; or sends Page.navigate
 * URL (not waiting for the load) and prints the navigation's frameId. Exit
 * 0, or 1 with the reason on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/ext/browser/cdp.h"

#define TIMEOUT_MS 20000

static int die(const char *what, const char *why)
{
	fprintf(stderr, "cdp_eval: %s: %s\n", what, why);
	return 1;
}

int main(int argc, char **argv)
{
	char host[64], path[512], session[128] = "", *out;
	const char *target = NULL;
	struct cdp_error ce;
	json_t *r = NULL, *info, *params;
	struct cdp *c;
	size_t i;
	int port, rc = 1;

	if (argc != 3 && !(argc == 4 && strcmp(argv[2], "--navigate") == 0))
		return die("usage", "cdp_eval WS_URL EXPRESSION | cdp_eval WS_URL --navigate URL");
	if (sscanf(argv[1], "ws://%63[^:/]:%d%511s", host, &port, path) != 3)
		return die(argv[1], "not a ws://HOST:PORT/PATH URL");
	c = cdp_open(host, port, path, TIMEOUT_MS, &ce);
	if (!c)
		return die("connect", ce.message);
	if (cdp_call(c, NULL, "Target.getTargets", NULL, TIMEOUT_MS, &r, &ce) != CDP_OK) {
		die("Target.getTargets", ce.message);
		goto out;
	}
	json_array_foreach(json_object_get(r, "targetInfos"), i, info) {
		if (strcmp(json_string_value(json_object_get(info, "type")) ?: "", "page") == 0) {
			target = json_string_value(json_object_get(info, "targetId"));
			break;
		}
	}
	if (!target) {
		die("Target.getTargets", "no page target");
		goto out;
	}
	params = json_pack("{s:s, s:b}", "targetId", target, "flatten", 1);
	json_decref(r);
	r = NULL;
	rc = cdp_call(c, NULL, "Target.attachToTarget", params, TIMEOUT_MS, &r, &ce);
	json_decref(params);
	if (rc != CDP_OK) {
		rc = die("Target.attachToTarget", ce.message);
		goto out;
	}
	snprintf(session, sizeof session, "%s", json_string_value(json_object_get(r, "sessionId")) ?: "");
	json_decref(r);
	r = NULL;
	if (argc == 4) {
		/* Browser-initiated: a page may not navigate itself to a data: URL. */
		params = json_pack("{s:s}", "url", argv[3]);
		rc = cdp_call(c, session, "Page.navigate", params, TIMEOUT_MS, &r, &ce);
		json_decref(params);
		if (rc != CDP_OK || json_object_get(r, "errorText")) {
			rc = die("Page.navigate", rc != CDP_OK ? ce.message : json_string_value(json_object_get(r, "errorText")));
			goto out;
		}
		printf("%s\n", json_string_value(json_object_get(r, "frameId")) ?: "");
		rc = 0;
		goto out;
	}
	params = json_pack("{s:s, s:b, s:b}", "expression", argv[2], "returnByValue", 1, "awaitPromise", 1);
	rc = cdp_call(c, session, "Runtime.evaluate", params, TIMEOUT_MS, &r, &ce);
	json_decref(params);
	if (rc != CDP_OK) {
		rc = die("Runtime.evaluate", ce.message);
		goto out;
	}
	if (json_object_get(r, "exceptionDetails")) {
		rc = die("Runtime.evaluate", "the expression threw");
		goto out;
	}
	out = json_dumps(json_object_get(json_object_get(r, "result"), "value") ?: json_null(),
			 JSON_ENCODE_ANY | JSON_COMPACT);
	printf("%s\n", out ? out : "null");
	free(out);
	rc = 0;
out:
	json_decref(r);
	cdp_close(c);
	return rc;
}
