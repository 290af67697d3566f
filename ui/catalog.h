/*
 * What the shell knows about the server, from the last refresh: sandboxes
 * (`sandbox list -o json`), every checkpoint (`checkpoint list --all -o
 * json`) and the current session, for the panes.
 */
#ifndef ALLOX_TUI_CATALOG_H
#define ALLOX_TUI_CATALOG_H

#include <stdbool.h>
#include <time.h>
#include <jansson.h>

typedef struct ax_catalog {
	json_t *sandboxes;    /* array of {id, state, image, expires_at} */
	json_t *checkpoints;  /* array of {id, sandbox_id, name, state, created_at} */
	char *current;        /* current session's sandbox id, or NULL */
	char *error;          /* last refresh failure, or NULL */
	time_t refreshed_at;  /* 0: never */
} ax_catalog;

void ax_catalog_init(ax_catalog *c);
void ax_catalog_free(ax_catalog *c);

/* Take a list command's output: a JSON array replaces the list, anything else
 * (an error message) is kept in c->error. */
void ax_catalog_take(ax_catalog *c, bool sandboxes, const char *text, int status);

/* Re-read the current session from HOME. */
void ax_catalog_read_session(ax_catalog *c, const char *home);

/* The words that list the sandboxes (SANDBOXES) or the checkpoints. */
char *const *ax_catalog_list_words(bool sandboxes, int *n);

#endif
