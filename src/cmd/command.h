/*
 * Commands are data: one table row per verb describes its group, name,
 * summary, positionals, options, output formats and handler. argv parsing,
 * help, the interactive shell, man-page checks and completion all read it.
 *
 * Adding a verb: write a handler in src/cmd/<group>.c, declare it below, add
 * a row to src/cmd/table.c saying what it needs (its target); the handler
 * gets its arguments checked and defaulted and its target open.
 */
#ifndef ALLOX_COMMAND_H
#define ALLOX_COMMAND_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>

#include "lib/conf.h"
#include "lib/ax_error.h"
#include "lib/output.h"

/*
 * What a value is. The kind decides how the parser checks and stores it (an
 * integer, a duration kept as typed, a KEY=VALUE pair, ...), what help and
 * the man pages call it, and what completion offers for it (sandbox ids, local
 * paths, ...); nothing guesses it from an option's name.
 */
typedef enum ax_value_kind {
	AX_VAL_NONE,          /* a flag: no value; stored as true */
	AX_VAL_TEXT,          /* any text */
	AX_VAL_INT,           /* an integer, stored as one */
	AX_VAL_DURATION,      /* 90, 90s, 10m, 1h30m (ax_duration_parse); kept as typed */
	AX_VAL_LIFETIME,      /* a duration, or none for no expiry */
	AX_VAL_CHOICE,        /* one of the option's choices */
	AX_VAL_KV,            /* KEY=VALUE or KEY VALUE; stored as [key, value] */
	AX_VAL_SANDBOX_ID,
	AX_VAL_CHECKPOINT_ID,
	AX_VAL_CHECKPOINT,    /* a checkpoint id, or latest */
	AX_VAL_LOCAL_PATH,    /* a file or directory on this machine */
	AX_VAL_LOCAL_DIR,     /* a directory on this machine */
	AX_VAL_REMOTE_PATH,   /* a path inside the sandbox */
	AX_VAL_COMMAND,       /* words run in the sandbox; a leading sandbox UUID selects the sandbox */
	AX_VAL_CPU,           /* CPUs: 2, 0.5, 500m (quantity.h) */
	AX_VAL_MEMORY,        /* a memory size: 512Mi, 2Gi (quantity.h) */
	AX_VAL_DISK,          /* a writable-layer size: 1Gi (quantity.h) */
	AX_VAL_PIDS,          /* a process count (quantity.h); an integer */
	AX_VAL_MODE,          /* an octal permission: 644, 0755, 0o600 */
	AX_VAL_JSON_OBJECT,   /* a JSON object */
	AX_VAL_ENCODING,      /* a text encoding */
	AX_VAL_PROFILE,       /* a profile: $ALLOX_HOME/NAME.toml */
	AX_VAL_CONFIG_KEY,    /* a configuration key such as connection.domain */
} ax_value_kind;

/*
 * Defaults and bounds are written as a user would type them ("60", "1s",
 * "utf-8"): help and the man pages show them so, and the parser reads them
 * with the option's kind, so a handler sees a default exactly as if it had
 * been given, and a default or bound its kind rejects fails the unit tests.
 */
typedef struct ax_option_spec {
	const char *name;             /* long name without "--" */
	char short_name;              /* 0 if none */
	ax_value_kind kind;
	const char *metavar;          /* "SECONDS", "KEY=VALUE", ... */
	const char *const *choices;   /* AX_VAL_CHOICE: NULL-terminated */
	const char *defval;           /* the value when not given; NULL: none */
	const char *min, *max;        /* AX_VAL_INT and AX_VAL_DURATION bounds; NULL: none */
	bool required;                /* must be given, and not empty */
	bool repeatable;              /* values collect into an array */
	const char *help;
} ax_option_spec;

typedef enum ax_pos_kind {
	AX_POS_REQUIRED,
	AX_POS_OPTIONAL,   /* filled only when enough arguments are given */
	AX_POS_VARIADIC,   /* one or more; always last */
} ax_pos_kind;

typedef struct ax_positional_spec {
	const char *name;   /* "SANDBOX_ID" */
	ax_pos_kind arity;
	ax_value_kind kind;
	const char *help;
} ax_positional_spec;

/* VALUE checked and typed by option O's kind and bounds: a new reference, or
 * NULL with a usage error naming the option. */
json_t *ax_value_parse(const ax_option_spec *o, const char *value, ax_error *err);
/* An octal permission as file modes are written (644, 0755, 0o600), as execd
 * wants it: the digits read as a decimal number (0o644 -> 644). 0 or -1. */
int ax_mode_parse(const char *text, int *mode);
/* The kind's name in `__commands` ("sandbox-id", "local-path", ...). */
const char *ax_value_kind_name(ax_value_kind kind);
/* How a value of KIND is stored and shown as an argument: "flag", "string",
 * "int", "duration", "choice" or "kv". */
const char *ax_value_kind_type(ax_value_kind kind);

enum {
	/* Options end at the first positional (run, aio exec): the rest is the command. */
	AX_CMD_OPTIONS_FIRST = 1 << 0,
	/* Works with a broken config file (config init/show/set/path). */
	AX_CMD_NO_CONFIG = 1 << 1,
};

/*
 * What a command acts on. The dispatcher (ax_dispatch, src/cli/target.c)
 * resolves and opens it after the arguments are checked and before the
 * handler runs, as git's RUN_SETUP finds the repository and tmux's .target
 * the session: the handler finds it ready in ctx->target (src/cli/target.h),
 * and the dispatcher closes it, and explains a runtime call that failed by
 * the sandbox's state.
 */
typedef enum ax_target_kind {
	AX_TARGET_NONE,
	AX_TARGET_SERVER,   /* the lifecycle API (the local engine is started if need be) */
	AX_TARGET_SANDBOX,  /* one sandbox on it: SANDBOX_ID, else a UUID leading COMMAND, else the session */
	AX_TARGET_EXECD,    /* ... and a connection to that sandbox's execd */
	AX_TARGET_AIO,      /* ... and a connection to its AIO runtime */
} ax_target_kind;

struct ax_ctx;
struct ax_args;
struct ax_result;
struct ax_target;

/* Returns an exit status (>= 0) or -1 with ERR filled. */
typedef int (*ax_handler)(struct ax_ctx *ctx, const struct ax_args *args,
			  struct ax_result *res, ax_error *err);

/* Checks of a command line the table cannot express (one option excludes
 * another, a local file must exist), run before the target is opened, so a
 * command that cannot run neither starts an engine nor asks a server.
 * Returns 0, or -1 with ERR filled. */
typedef int (*ax_check)(const struct ax_ctx *ctx, const struct ax_args *args, ax_error *err);

typedef struct ax_command_spec {
	const char *group;       /* "sandbox"; words of a verb after the group go in name */
	const char *name;        /* "create", or "jupyter run" */
	const char *summary;     /* one line */
	const char *description; /* longer help; may be NULL */
	const ax_positional_spec *positionals; /* terminated by name == NULL; may be NULL */
	const ax_option_spec *options;         /* terminated by name == NULL; may be NULL */
	unsigned formats;        /* ax_format mask; 0: plain text, no -o */
	ax_format default_format;
	unsigned flags;
	ax_target_kind target;
	const char *target_all;  /* a flag that makes the target every sandbox: no sandbox is resolved */
	ax_check check;          /* may be NULL */
	ax_handler handler;
	const char *const *examples; /* NULL-terminated; may be NULL */
} ax_command_spec;

typedef struct ax_group_spec {
	const char *name;
	const char *summary;
} ax_group_spec;

/* The table: NULL-terminated by name. */
const ax_group_spec *ax_groups(void);
const ax_command_spec *ax_commands(void);
const ax_group_spec *ax_group_find(const char *name);
/* Does any command row belong to GROUP? */
bool ax_group_has_verbs(const char *group);

/* Global options (before the verb), for help, completion and man checks. */
const ax_option_spec *ax_global_options(void);

typedef struct ax_globals {
	const char *profile;
	const char *config_path;
	ax_config_flags flags;
	bool verbose;
	bool help;
	bool version;
} ax_globals;

/* What a verb was given. */
typedef struct ax_args {
	const ax_command_spec *cmd;
	json_t *opts;        /* option name -> value (string, integer, true, [k, v], or array if repeatable) */
	json_t *pos;         /* positional name -> string (array of strings for variadic) */
	json_t *defaults;    /* option name -> its table default, typed, for options not given */
	ax_format format;    /* chosen with -o or the command's default */
	bool help;
} ax_args;

/* Where handlers find everything outside their arguments. */
typedef struct ax_ctx {
	const char *home;          /* $ALLOX_HOME */
	const char *argv0;         /* "allox-cli" for messages */
	const ax_globals *globals;
	ax_config *config;         /* resolved; NULL for AX_CMD_NO_CONFIG commands */
	FILE *out;                 /* results */
	FILE *err;                 /* progress, warnings, errors */
	bool verbose;
	/* Commands that must clean up on Ctrl-C or SIGTERM (stop a remote
	 * command, remove a staging file) call catch_interrupts() and then poll
	 * *interrupted, which becomes the signal's number; they exit 128+signal.
	 * Other commands are simply ended by the signal. */
	volatile sig_atomic_t *interrupted;
	void (*catch_interrupts)(void);
	struct ax_target *target;  /* the command's target, opened; NULL for AX_TARGET_NONE */
	/* Where output goes while the handler runs (output.h); the result it
	 * returns (ax_result, also there) is rendered after. */
	ax_stream *stream;
} ax_ctx;

/* Option and positional access for handlers: what was given, else the
 * option's default, else NULL. */
const char *ax_arg_string(const ax_args *a, const char *name);
bool ax_arg_flag(const ax_args *a, const char *name);
const json_t *ax_arg_json(const ax_args *a, const char *name);
/* Whether NAME was on the command line (not just defaulted). */
bool ax_arg_given(const ax_args *a, const char *name);

/* Parse ARGV (after the global options) for CMD. Returns 0 or -1 with a
 * usage error naming the problem (and a suggestion for near misses). */
int ax_args_parse(const ax_command_spec *cmd, int argc, char **argv, ax_args *out, ax_error *err);
void ax_args_free(ax_args *a);

/* Parse global options; *CONSUMED is how many argv entries were used. */
int ax_globals_parse(int argc, char **argv, ax_globals *g, int *consumed, ax_error *err);

/* Find the verb at ARGV[0..] within GROUP; *WORDS tells how many words it used. */
const ax_command_spec *ax_command_find(const char *group, int argc, char **argv, int *words);

/* The closest of CANDIDATES to WORD if it is a near miss, else NULL. */
const char *ax_suggest(const char *word, const char *const *candidates, size_t n);

/* Run ARGS->cmd as its row says: its checks, then its target opened (see
 * ax_target_kind), then its handler; the target is closed after. An exit
 * status, or -1 with ERR. */
int ax_dispatch(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err);

/* Help text. */
void ax_help_root(FILE *f, const char *prog);
void ax_help_group(FILE *f, const char *prog, const ax_group_spec *g);
void ax_help_command(FILE *f, const char *prog, const ax_command_spec *c);
/* "Usage: allox-cli GROUP VERB [OPTIONS] ARGS" */
void ax_usage_line(FILE *f, const char *prog, const ax_command_spec *c);

/* Handlers. */
int ax_cmd_sandbox_create(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_sandbox_list(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_sandbox_get(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_sandbox_endpoint(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_sandbox_renew(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_sandbox_pause(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_sandbox_resume(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_sandbox_kill(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_config_init(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_config_show(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_config_set(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_config_path(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_run(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_aio_exec(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_aio_read(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_aio_jupyter_run(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_aio_browser_info(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_aio_screenshot(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_aio_mcp_servers(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_aio_mcp_tools(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_aio_mcp_call(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_file_cat(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_file_write(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_file_upload(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_file_download(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_file_ls(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_checkpoint_create(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_checkpoint_list(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_checkpoint_restore(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_checkpoint_delete(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_volume_list(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_volume_rm(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_checkpoint_watch(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_session_current(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_session_use(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_session_clear(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);
int ax_cmd_shell(struct ax_ctx *, const struct ax_args *, struct ax_result *, ax_error *);

/* Checks before the target. */
int ax_check_aio_jupyter_run(const struct ax_ctx *, const struct ax_args *, ax_error *);
int ax_check_aio_screenshot(const struct ax_ctx *, const struct ax_args *, ax_error *);
int ax_check_file_write(const struct ax_ctx *, const struct ax_args *, ax_error *);
int ax_check_file_upload(const struct ax_ctx *, const struct ax_args *, ax_error *);
int ax_check_file_download(const struct ax_ctx *, const struct ax_args *, ax_error *);
int ax_check_checkpoint_watch(const struct ax_ctx *, const struct ax_args *, ax_error *);

#endif
