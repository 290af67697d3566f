/*
 * argv -> ax_globals and ax_args, driven by a verb's table entry, and the
 * value kinds the table gives its options and positionals.
 */
#ifndef ALLOX_CLI_PARSE_H
#define ALLOX_CLI_PARSE_H

#include "cmd/command.h"

/* Parse ARGV (after the global options) for CMD. Returns 0 or -1 with a
 * usage error naming the problem (and a suggestion for near misses). */
int ax_args_parse(const ax_command_spec *cmd, int argc, char **argv, ax_args *out, ax_error *err);
void ax_args_free(ax_args *a);

/* Global options (before the group), for help, completion and man checks. */
const ax_option_spec *ax_global_options(void);

/* Parse global options; *CONSUMED is how many argv entries were used. */
int ax_globals_parse(int argc, char **argv, ax_globals *g, int *consumed, ax_error *err);

/* VALUE checked and typed by option O's kind and bounds: a new reference, or
 * NULL with a usage error naming the option. */
json_t *ax_value_parse(const ax_option_spec *o, const char *value, ax_error *err);
/* The kind's name in `__commands` ("sandbox-id", "local-path", ...). */
const char *ax_value_kind_name(ax_value_kind kind);
/* How a value of KIND is stored and shown as an argument: "flag", "string",
 * "int", "duration", "choice" or "kv". */
const char *ax_value_kind_type(ax_value_kind kind);

#endif
