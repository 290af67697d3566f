/*
 * Commands are data: one entry per verb describes its group, name, summary,
 * positionals, options, output formats, target and handler. argv parsing,
 * help, the interactive shell, man-page checks and completion all read it
 * (src/cli, through the registry the entry point hands them).
 *
 * Adding a verb: in src/cmd/<group>.c write a static handler and, beside
 * it, its ax_command_spec saying what it needs (its target), and list it in
 * the group's verbs; the handler gets its arguments checked and defaulted
 * and its target open. A new group is an ax_group_spec (cmd/groups.h) that
 * src/cli/main.c adds to its registry.
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

/* Ends an option or positional list. */
#define AX_OPTIONS_END { .name = NULL }
#define AX_POSITIONALS_END { .name = NULL }

/* The formats of a command whose result is data. */
#define AX_OBJECT_FORMATS (AX_FMT_TABLE | AX_FMT_JSON | AX_FMT_YAML)

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
 * the session: the handler finds it ready in ctx->target (cmd/target.h),
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

/* A command group, as its file in src/cmd (or ui/) defines it. */
typedef struct ax_group_spec {
	const char *name;
	const char *summary;
	const ax_command_spec *const *verbs; /* NULL-terminated, in the order help lists them */
} ax_group_spec;

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
	FILE *err;                 /* warnings and --verbose diagnostics */
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
	/* Every command group (src/cli/registry.h), for a command that reads
	 * the table itself: the shell completes its lines from it. */
	const struct ax_registry *registry;
} ax_ctx;

/* Option and positional access for handlers: what was given, else the
 * option's default, else NULL. */
const char *ax_arg_string(const ax_args *a, const char *name);
bool ax_arg_flag(const ax_args *a, const char *name);
const json_t *ax_arg_json(const ax_args *a, const char *name);
/* Whether NAME was on the command line (not just defaulted). */
bool ax_arg_given(const ax_args *a, const char *name);

#endif
