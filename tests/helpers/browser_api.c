/* Test helper: the browser module's internal API (browser.h, used by the MCP
 * hub) against a real Chromium, outside any sandbox.
 *
 *   browser_api STEP...
 *
 * One browser for the whole run; each STEP prints one line:
 *   nav:URL        navigate (10 s)   -> "nav ok TITLE" | "nav STATUS MESSAGE"
 *   nav1:URL       the same with a 1 s timeout
 *   eval:EXPR      evaluate          -> "eval ok JSON" | "eval STATUS MESSAGE"
 *   text           page text         -> "text ok TEXT" (newlines as \n)
 *   shot:FORMAT    screenshot        -> "shot ok FORMAT WxH BYTES" | "shot STATUS MESSAGE"
 *   info           info              -> "info ok JSON"
 *   par            4 threads, each 5 x (evaluate 1+1, png screenshot)
 *                                    -> "par ok 40" | "par FAILED MESSAGE"
 * Chromium's profile lives under $HOME/.cache/allox-browser. Exit 0 unless
 * the helper itself fails. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/ext/browser/browser.h"
#include "agent/core/reaper.h"

static void report(const char *step, int rc, const char *ok, const struct ag_error *err)
{
	if (rc == 0)
		printf("%s ok %s\n", step, ok ? ok : "");
	else
		printf("%s %u %s\n", step, err->status, err->message);
}

struct worker {
	struct ag_browser *b;
	int done;
	struct ag_error err;
};

/* Calls from several threads at once: each must get its own right answer. */
static void *work(void *arg)
{
	struct worker *w = arg;
	int i;

	for (i = 0; i < 5; i++) {
		unsigned char *img = NULL;
		json_t *v = NULL;
		size_t len;
		int width, height;

		if (ag_browser_evaluate(w->b, "1+1", &v, &w->err) < 0)
			return NULL;
		if (json_integer_value(v) != 2) {
			snprintf(w->err.message, sizeof w->err.message, "1+1 gave something else");
			json_decref(v);
			return NULL;
		}
		json_decref(v);
		w->done++;
		if (ag_browser_screenshot(w->b, "png", -1, &img, &len, &width, &height, &w->err) < 0)
			return NULL;
		free(img);
		w->done++;
	}
	return NULL;
}

static void parallel(struct ag_browser *b)
{
	struct worker w[4];
	pthread_t t[4];
	int i, done = 0;
	const char *problem = NULL;

	for (i = 0; i < 4; i++) {
		memset(&w[i], 0, sizeof w[i]);
		w[i].b = b;
		pthread_create(&t[i], NULL, work, &w[i]);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		done += w[i].done;
		if (w[i].done != 10 && !problem)
			problem = w[i].err.message;
	}
	if (problem)
		printf("par FAILED %s\n", problem);
	else
		printf("par ok %d\n", done);
}

static void one_line(char *s)
{
	for (; *s; s++)
		if (*s == '\n')
			*s = '|';
}

int main(int argc, char **argv)
{
	struct ag_reaper reaper;
	struct ag_browser *b;
	int i;

	if (ag_reaper_init(&reaper) < 0)
		return 1;
	b = ag_browser_new(&reaper);
	if (!b)
		return 1;
	for (i = 1; i < argc; i++) {
		struct ag_error err = { 0 };
		const char *arg = strchr(argv[i], ':') ? strchr(argv[i], ':') + 1 : "";
		char *s = NULL, line[128];
		json_t *v = NULL;
		int rc;

		if (strncmp(argv[i], "nav:", 4) == 0 || strncmp(argv[i], "nav1:", 5) == 0) {
			rc = ag_browser_navigate(b, arg, argv[i][3] == '1' ? 1 : 10, &s, &err);
			report("nav", rc, s, &err);
		} else if (strncmp(argv[i], "eval:", 5) == 0) {
			rc = ag_browser_evaluate(b, arg, &v, &err);
			s = rc == 0 ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
			report("eval", rc, s, &err);
		} else if (strcmp(argv[i], "text") == 0) {
			rc = ag_browser_text(b, &s, &err);
			if (s)
				one_line(s);
			report("text", rc, s, &err);
		} else if (strncmp(argv[i], "shot:", 5) == 0) {
			unsigned char *img = NULL;
			size_t len = 0;
			int w = 0, h = 0;

			rc = ag_browser_screenshot(b, arg, -1, &img, &len, &w, &h, &err);
			snprintf(line, sizeof line, "%s %dx%d %zu", arg, w, h, len);
			report("shot", rc, line, &err);
			free(img);
		} else if (strcmp(argv[i], "info") == 0) {
			rc = ag_browser_info(b, &v, &err);
			s = rc == 0 ? json_dumps(v, JSON_COMPACT) : NULL;
			report("info", rc, s, &err);
		} else if (strcmp(argv[i], "par") == 0) {
			parallel(b);
		} else {
			fprintf(stderr, "browser_api: unknown step %s\n", argv[i]);
			return 2;
		}
		fflush(stdout);
		free(s);
		json_decref(v);
	}
	ag_browser_free(b);
	ag_reaper_destroy(&reaper);
	return 0;
}
