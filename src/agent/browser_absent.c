/* Stand-in for the browser module until its branch is merged: browser.h
 * with every call failing 503. Dropped when the real module lands. */
#include "browser.h"

#include <stdio.h>
#include <stdlib.h>

struct ag_browser {
	int unused;
};

static int absent(struct ag_browser_error *err)
{
	err->status = 503;
	snprintf(err->message, sizeof err->message, "browser module not built");
	return -1;
}

struct ag_browser *ag_browser_new(struct ag_reaper *reaper)
{
	(void)reaper;
	return calloc(1, sizeof(struct ag_browser));
}

void ag_browser_free(struct ag_browser *b)
{
	free(b);
}

int ag_browser_info(struct ag_browser *b, json_t **data, struct ag_browser_error *err)
{
	(void)b;
	*data = NULL;
	return absent(err);
}

int ag_browser_screenshot(struct ag_browser *b, const char *format, int quality, unsigned char **image, size_t *len,
			  int *width, int *height, struct ag_browser_error *err)
{
	(void)b, (void)format, (void)quality, (void)width, (void)height;
	*image = NULL;
	*len = 0;
	return absent(err);
}

int ag_browser_navigate(struct ag_browser *b, const char *url, double timeout_s, char **title,
			struct ag_browser_error *err)
{
	(void)b, (void)url, (void)timeout_s;
	if (title)
		*title = NULL;
	return absent(err);
}

int ag_browser_evaluate(struct ag_browser *b, const char *expression, json_t **value, struct ag_browser_error *err)
{
	(void)b, (void)expression;
	*value = NULL;
	return absent(err);
}

int ag_browser_text(struct ag_browser *b, char **text, struct ag_browser_error *err)
{
	(void)b;
	*text = NULL;
	return absent(err);
}
