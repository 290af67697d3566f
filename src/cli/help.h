/* Help text, generated from the registry's table entries. */
#ifndef ALLOX_CLI_HELP_H
#define ALLOX_CLI_HELP_H

#include <stdio.h>

#include "cli/registry.h"

/* `allox-cli --help`: the groups of R and the global options. */
void ax_help_root(FILE *f, const char *prog, const ax_registry *r);
void ax_help_group(FILE *f, const char *prog, const ax_group_spec *g);
void ax_help_command(FILE *f, const char *prog, const ax_command_spec *c);
/* "Usage: allox-cli GROUP VERB [OPTIONS] ARGS" */
void ax_usage_line(FILE *f, const char *prog, const ax_command_spec *c);

#endif
