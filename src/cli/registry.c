/* Finding groups and verbs in the registry. */
#include "cli/registry.h"

#include <stdio.h>
#include <string.h>

const ax_group_spec *ax_registry_group(const ax_registry *r, const char *name)
{
	const ax_group_spec *const *g;

	for (g = r->groups; *g; g++)
		if (strcmp((*g)->name, name) == 0)
			return *g;
	return NULL;
}

const ax_command_spec *ax_group_verb(const ax_group_spec *g, int argc, char **argv, int *words)
{
	const ax_command_spec *const *c;
	char two[256];

	*words = 0;
	if (argc >= 2) {
		snprintf(two, sizeof two, "%s %s", argv[0], argv[1]);
		for (c = g->verbs; *c; c++)
			if (strcmp((*c)->name, two) == 0) {
				*words = 2;
				return *c;
			}
	}
	for (c = g->verbs; *c; c++) {
		if (!(*c)->name[0]) {
			/* A group that is itself the verb (run). */
			return *c;
		}
		if (argc >= 1 && strcmp((*c)->name, argv[0]) == 0) {
			*words = 1;
			return *c;
		}
	}
	return NULL;
}
