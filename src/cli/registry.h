/*
 * The command registry: the groups a program offers, in the order help lists
 * them. Each group is defined beside its handlers (src/cmd/<group>.c, the
 * shell in ui/); the entry point (src/cli/main.c) assembles the list and hands
 * it to the framework, so the framework names no group and src/cmd nothing
 * above it. Tests build a registry of the groups they need.
 */
#ifndef ALLOX_CLI_REGISTRY_H
#define ALLOX_CLI_REGISTRY_H

#include "cmd/command.h"

typedef struct ax_registry {
	const ax_group_spec *const *groups;   /* NULL-terminated */
} ax_registry;

/* The group named NAME, or NULL. */
const ax_group_spec *ax_registry_group(const ax_registry *r, const char *name);

/* The verb of G that ARGV[0..] names ("create", or "jupyter run": *WORDS
 * tells how many words it used), G's only verb when G is itself the verb
 * (run, shell), or NULL. */
const ax_command_spec *ax_group_verb(const ax_group_spec *g, int argc, char **argv, int *words);

#endif
