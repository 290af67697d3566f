/*
 * Hidden verbs, for tools rather than people (not in help or the man pages'
 * command lists):
 *
 *   allox-cli __commands           the command table as JSON (the docs drift check)
 *   allox-cli __complete KIND ...  dynamic values for the completion scripts
 *
 * and the hook that keeps the completion id cache (src/lib/idcache.h) in
 * step with what commands see.
 */
#ifndef ALLOX_CMD_HIDDEN_H
#define ALLOX_CMD_HIDDEN_H

#include <stdbool.h>
#include <stdio.h>

#include "cli/registry.h"

/* Whether WORD names a hidden verb. */
bool ax_hidden_verb(const char *word);

/* Run the hidden verb ARGV[0] with its arguments; an exit status. */
int ax_hidden_main(const ax_registry *r, const ax_globals *g, const char *home, int argc, char **argv, FILE *out,
		   FILE *err);

/* R's command table as one JSON object (what __commands prints). */
json_t *ax_commands_json(const ax_registry *r);

/* `__complete line -- WORDS...`: candidates for the last of WORDS (the word
 * being typed, maybe empty), then one directive line: ":files" (let the
 * shell complete local paths), ":dirs" (local directories) or ":none". */
int ax_complete_line(const ax_registry *r, const ax_globals *g, const char *home, int argc, char **argv, FILE *out);

/* `__complete sandbox-ids|checkpoint-ids [PREFIX]` and the other value lists. */
int ax_complete_ids(const ax_globals *g, const char *home, bool checkpoints, const char *prefix, FILE *out);
int ax_complete_profiles(const char *home, const char *prefix, FILE *out);
int ax_complete_config_keys(const char *prefix, FILE *out);
int ax_complete_durations(const char *prefix, bool with_none, FILE *out);

/* After a successful command: record the ids its result names (sandbox
 * create/list/get/pause/resume/kill, checkpoint create/list/restore/delete).
 * Best effort: a cache that cannot be written is not the command's failure. */
void ax_idcache_note(const ax_ctx *ctx, const ax_args *args, const ax_result *res);

#endif
