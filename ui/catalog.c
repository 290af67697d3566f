/* The sandboxes and checkpoints the panes show. */
#include "ui/catalog.h"

#include <stdlib.h>
#include <string.h>

#include "lib/session.h"

void ax_catalog_init(ax_catalog *c)
{
	memset(c, 0, sizeof *c);
	c->sandboxes = json_array();
	c->checkpoints = json_array();
}

void ax_catalog_free(ax_catalog *c)
{
	json_decref(c->sandboxes);
	json_decref(c->checkpoints);
	free(c->current);
	free(c->error);
	memset(c, 0, sizeof *c);
}

void ax_catalog_take(ax_catalog *c, bool sandboxes, const char *text, int status)
{
	json_t *v = status == 0 ? json_loads(text, 0, NULL) : NULL;

	if (json_is_array(v)) {
		json_t **slot = sandboxes ? &c->sandboxes : &c->checkpoints;

		json_decref(*slot);
		*slot = v;
		if (sandboxes) {
			free(c->error);
			c->error = NULL;
		}
		c->refreshed_at = time(NULL);
		return;
	}
	json_decref(v);
	free(c->error);
	/* The first line of an error says what went wrong. */
	c->error = strndup(text, strcspn(text, "\n"));
}

void ax_catalog_read_session(ax_catalog *c, const char *home)
{
	ax_session s;
	ax_error err;
	bool found = false;

	memset(&s, 0, sizeof s);
	free(c->current);
	c->current = NULL;
	if (ax_session_get(home, &s, &found, &err) == 0 && found && s.sandbox_id)
		c->current = strdup(s.sandbox_id);
	ax_session_free(&s);
}

char *const *ax_catalog_list_words(bool sandboxes, int *n)
{
	static char *const sandbox_words[] = { "sandbox", "list", "-o", "json", NULL };
	static char *const checkpoint_words[] = { "checkpoint", "list", "--all", "-o", "json", NULL };

	*n = sandboxes ? 4 : 5;
	return sandboxes ? sandbox_words : checkpoint_words;
}
