/* Positional arguments the verbs of several groups share. */
#include "cmd/common.h"

const ax_positional_spec ax_sandbox_id_positionals[] = {
	{ .name = "SANDBOX_ID", .arity = AX_POS_OPTIONAL, .kind = AX_VAL_SANDBOX_ID,
	  .help = "the sandbox; default: the current session" },
	AX_POSITIONALS_END,
};

const ax_positional_spec ax_path_positionals[] = {
	{ .name = "SANDBOX_ID", .arity = AX_POS_OPTIONAL, .kind = AX_VAL_SANDBOX_ID,
	  .help = "the sandbox; default: the current session" },
	{ .name = "PATH", .arity = AX_POS_REQUIRED, .kind = AX_VAL_REMOTE_PATH,
	  .help = "absolute path inside the sandbox" },
	AX_POSITIONALS_END,
};

const ax_positional_spec ax_command_positionals[] = {
	{ .name = "COMMAND", .arity = AX_POS_VARIADIC, .kind = AX_VAL_COMMAND,
	  .help = "the command; a leading sandbox UUID selects the sandbox" },
	AX_POSITIONALS_END,
};
