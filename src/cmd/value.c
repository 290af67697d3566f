/* Value kinds: the names `__commands` gives them and how each is stored. */
#include "command.h"

static const struct {
	const char *name, *type;
} kinds[] = {
	[AX_VAL_NONE] = { "none", "flag" },
	[AX_VAL_TEXT] = { "text", "string" },
	[AX_VAL_INT] = { "int", "int" },
	[AX_VAL_DURATION] = { "duration", "duration" },
	[AX_VAL_LIFETIME] = { "lifetime", "string" },
	[AX_VAL_CHOICE] = { "choice", "choice" },
	[AX_VAL_KV] = { "kv", "kv" },
	[AX_VAL_SANDBOX_ID] = { "sandbox-id", "string" },
	[AX_VAL_CHECKPOINT_ID] = { "checkpoint-id", "string" },
	[AX_VAL_CHECKPOINT] = { "checkpoint", "string" },
	[AX_VAL_LOCAL_PATH] = { "local-path", "string" },
	[AX_VAL_LOCAL_DIR] = { "local-dir", "string" },
	[AX_VAL_REMOTE_PATH] = { "remote-path", "string" },
	[AX_VAL_COMMAND] = { "command", "string" },
	[AX_VAL_CPU] = { "cpu", "string" },
	[AX_VAL_MEMORY] = { "memory", "string" },
	[AX_VAL_DISK] = { "disk", "string" },
	[AX_VAL_PIDS] = { "pids", "int" },
	[AX_VAL_MODE] = { "mode", "string" },
	[AX_VAL_JSON_OBJECT] = { "json-object", "string" },
	[AX_VAL_ENCODING] = { "encoding", "string" },
	[AX_VAL_PROFILE] = { "profile", "string" },
	[AX_VAL_CONFIG_KEY] = { "config-key", "string" },
};

const char *ax_value_kind_name(ax_value_kind kind)
{
	return kind < sizeof kinds / sizeof kinds[0] && kinds[kind].name ? kinds[kind].name : "text";
}

const char *ax_value_kind_type(ax_value_kind kind)
{
	return kind < sizeof kinds / sizeof kinds[0] && kinds[kind].type ? kinds[kind].type : "string";
}
