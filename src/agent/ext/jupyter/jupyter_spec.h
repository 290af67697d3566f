/* Kernelspecs: the kernels installed in the sandbox, found the way
 * jupyter_client finds them, as kernels/<name>/kernel.json under, in
 * priority order: each $JUPYTER_PATH entry, the user data directory
 * ($JUPYTER_DATA_DIR, else $XDG_DATA_HOME/jupyter, else
 * ~/.local/share/jupyter), /usr/local/share/jupyter, /usr/share/jupyter,
 * and the legacy ~/.ipython/kernels. Names are [A-Za-z0-9._-]+ and match
 * case-insensitively; the first directory that has a name wins. */
#ifndef ALLOX_AGENT_JUPYTER_SPEC_H
#define ALLOX_AGENT_JUPYTER_SPEC_H

#include <jansson.h>
#include <stdbool.h>

#include "agent/ext/jupyter/jupyter.h"

#define JK_NAME_MAX 64
#define JK_LANG_MAX 32

struct jk_spec {
	char name[JK_NAME_MAX + 1];  /* as its directory is spelled */
	char language[JK_LANG_MAX + 1]; /* its "language", lowercase ("" if none) */
	char *dir;                   /* the resource directory */
	char **argv;                 /* NULL-terminated, placeholders not yet filled */
	char **env;                  /* "K=V", ${VAR} already substituted; NULL-terminated */
	bool interrupt_message;      /* interrupt_mode "message": never signal it */
};

/* Is NAME a possible kernel name? */
bool jk_spec_name_ok(const char *name);

/* Load the spec called NAME. 0, or -1 with ERR (404 when no such kernel, 500
 * when its kernel.json is unusable). */
int jk_spec_find(const char *name, struct jk_spec *spec, struct ag_error *err);
void jk_spec_free(struct jk_spec *spec);

/* Load the spec of the kernel for LANGUAGE (python, bash, java...): the
 * kernel whose spec's "language" it is, case-insensitively; the kernel
 * named python3 first for python, else the first by name. 0, or -1 with
 * ERR (404 when no installed kernel speaks it, 400 for a malformed name). */
int jk_spec_for_language(const char *language, struct jk_spec *spec, struct ag_error *err);

/* The names of every installed kernel, sorted (a JSON array of strings). */
json_t *jk_spec_names(void);

/* The spec's argv with {connection_file} and {resource_dir} filled in
 * (other placeholders are left as they are, as jupyter_client does);
 * malloc'd, free with jk_strv_free. NULL on ENOMEM. */
char **jk_spec_argv(const struct jk_spec *spec, const char *connection_file);
void jk_strv_free(char **v);

#endif
