/* The command table: every verb allox-cli knows, as data. */
#include "cmd/command.h"

#include <string.h>

#define END_OPTIONS { .name = NULL }
#define END_POSITIONALS { .name = NULL }
#define OBJECT_FORMATS (AX_FMT_TABLE | AX_FMT_JSON | AX_FMT_YAML)

static const ax_group_spec groups[] = {
	{ "sandbox", "Create, inspect and end sandboxes" },
	{ "session", "Show, choose or clear the current sandbox" },
	{ "aio", "Shell, files, Jupyter, browser and MCP through the AIO runtime" },
	{ "run", "Run a command in a sandbox through execd" },
	{ "file", "Read, write, upload and download files" },
	{ "checkpoint", "Save and restore sandbox checkpoints" },
	{ "volume", "List and remove the local engine's named volumes" },
	{ "config", "Create, show and change the configuration" },
	{ "shell", "The interactive allox> shell (panes, --plain, or a script on stdin)" },
	{ NULL, NULL },
};

static const char *const config_show_examples[] = {
	"allox-cli config show",
	"allox-cli --profile dev config show -o json",
	NULL,
};

static const char *const config_set_examples[] = {
	"allox-cli config set connection.domain localhost:8080",
	"allox-cli config set checkpoint.enabled true",
	"allox-cli config set checkpoint.operations run,aio.exec",
	"allox-cli config set defaults.entrypoint '[\"/bin/sh\", \"-c\", \"sleep infinity\"]'",
	NULL,
};

static const ax_option_spec config_init_options[] = {
	{ .name = "force", .short_name = 'f', .kind = AX_VAL_NONE, .help = "overwrite an existing file" },
	END_OPTIONS,
};

static const ax_positional_spec config_set_positionals[] = {
	{ .name = "KEY", .arity = AX_POS_REQUIRED, .kind = AX_VAL_CONFIG_KEY,
	  .help = "section.name, e.g. connection.domain" },
	{ .name = "VALUE", .arity = AX_POS_REQUIRED, .kind = AX_VAL_TEXT, .help = "checked against the key's type" },
	END_POSITIONALS,
};

static const ax_positional_spec session_use_positionals[] = {
	{ .name = "SANDBOX_ID", .arity = AX_POS_REQUIRED, .kind = AX_VAL_SANDBOX_ID,
	  .help = "the sandbox later commands use by default" },
	END_POSITIONALS,
};

static const ax_positional_spec sandbox_id_positionals[] = {
	{ .name = "SANDBOX_ID", .arity = AX_POS_OPTIONAL, .kind = AX_VAL_SANDBOX_ID,
	  .help = "the sandbox; default: the current session" },
	END_POSITIONALS,
};

static const char *const network_modes[] = { "isolated", "none", "host", NULL };

static const ax_option_spec sandbox_create_options[] = {
	{ .name = "image", .short_name = 'i', .kind = AX_VAL_TEXT, .metavar = "IMAGE",
	  .help = "image: host or rootfs:/path locally, a container image on a server (default: defaults.image)" },
	{ .name = "timeout", .short_name = 't', .kind = AX_VAL_LIFETIME, .metavar = "DURATION",
	  .help = "lifetime such as 30m or 2h, or none for no expiry (default: defaults.timeout)" },
	{ .name = "env", .short_name = 'e', .kind = AX_VAL_KV, .metavar = "KEY=VALUE", .repeatable = true,
	  .help = "environment variable for the sandbox" },
	{ .name = "metadata", .short_name = 'm', .kind = AX_VAL_KV, .metavar = "KEY=VALUE", .repeatable = true,
	  .help = "metadata label" },
	{ .name = "entrypoint", .kind = AX_VAL_TEXT, .metavar = "ARG", .repeatable = true,
	  .help = "one argv element of the entrypoint; replaces defaults.entrypoint" },
	{ .name = "ready-timeout", .kind = AX_VAL_DURATION, .metavar = "DURATION",
	  .help = "how long to wait for the runtime (default: defaults.ready_timeout)" },
	{ .name = "skip-health-check", .kind = AX_VAL_NONE, .help = "do not wait for the runtime to answer" },
	{ .name = "cpu", .kind = AX_VAL_CPU, .metavar = "CPUS",
	  .help = "CPU time, such as 2, 0.5 or 500m (default: defaults.cpu)" },
	{ .name = "memory", .kind = AX_VAL_MEMORY, .metavar = "SIZE",
	  .help = "memory limit, such as 512Mi or 2Gi (default: defaults.memory)" },
	{ .name = "pids", .kind = AX_VAL_PIDS, .metavar = "N",
	  .help = "most processes and threads at once (default: defaults.pids, else the server's)" },
	{ .name = "disk", .kind = AX_VAL_DISK, .metavar = "SIZE",
	  .help = "size of the writable layer, such as 1Gi (default: defaults.disk)" },
	{ .name = "network", .kind = AX_VAL_CHOICE, .metavar = "MODE", .choices = network_modes,
	  .help = "isolated (own namespace, outbound only), none (loopback only) or host (unsafe: the host's network); "
	  "default: the server's (isolated locally)" },
	{ .name = "allow-domain", .kind = AX_VAL_TEXT, .metavar = "DOMAIN", .repeatable = true,
	  .help = "let the sandbox resolve and reach DOMAIN (*.DOMAIN: its subdomains); with any, all else is denied" },
	{ .name = "deny-domain", .kind = AX_VAL_TEXT, .metavar = "DOMAIN", .repeatable = true,
	  .help = "never let the sandbox resolve DOMAIN (*.DOMAIN: its subdomains); wins over --allow-domain" },
	{ .name = "volume", .short_name = 'v', .kind = AX_VAL_TEXT, .metavar = "SRC:PATH[:ro]", .repeatable = true,
	  .help = "mount SRC at PATH in the sandbox, read-only with :ro: a host directory (SRC starts with / or .; "
	  "only below the prefixes the local engine allows) or a named volume (SRC a name, made if "
	  "missing)" },
	END_OPTIONS,
};

static const ax_option_spec sandbox_endpoint_options[] = {
	{ .name = "port", .short_name = 'p', .kind = AX_VAL_INT, .metavar = "N", .min = "1", .max = "65535",
	  .help = "a port a server in the sandbox listens on: print its URL (default: the AIO runtime's)" },
	END_OPTIONS,
};

static const char *const sandbox_endpoint_examples[] = {
	"allox-cli sandbox endpoint",
	"allox-cli sandbox endpoint --port 8000 -o raw",
	"curl \"$(allox-cli sandbox endpoint --port 8000 -o json | jq -r .url)/\"",
	NULL,
};

static const ax_option_spec sandbox_renew_options[] = {
	{ .name = "timeout", .short_name = 't', .kind = AX_VAL_DURATION, .metavar = "DURATION", .required = true,
	  .help = "new lifetime from now (required)" },
	END_OPTIONS,
};

static const char *const sandbox_create_examples[] = {
	"allox-cli sandbox create",
	"allox-cli sandbox create --timeout 2h -e DEBUG=1 -m project=demo -o json",
	"allox-cli sandbox create --image rootfs:/srv/images/alpine --timeout none",
	"allox-cli sandbox create --cpu 0.5 --memory 512Mi --pids 256 --disk 1Gi",
	"allox-cli sandbox create --network none",
	"allox-cli sandbox create --allow-domain pypi.org --allow-domain '*.pythonhosted.org'",
	"allox-cli sandbox create -v /srv/data:/data:ro -v cache:/home/gem/.cache",
	NULL,
};

static const ax_positional_spec volume_rm_positionals[] = {
	{ .name = "NAME", .arity = AX_POS_REQUIRED, .kind = AX_VAL_TEXT, .help = "the named volume to remove" },
	END_POSITIONALS,
};

static const ax_positional_spec run_positionals[] = {
	{ .name = "COMMAND", .arity = AX_POS_VARIADIC, .kind = AX_VAL_COMMAND,
	  .help = "the command; a leading sandbox UUID selects the sandbox" },
	END_POSITIONALS,
};

static const ax_option_spec run_options[] = {
	{ .name = "workdir", .short_name = 'w', .kind = AX_VAL_REMOTE_PATH, .metavar = "DIR",
	  .help = "working directory (default /home/gem)" },
	{ .name = "timeout", .short_name = 't', .kind = AX_VAL_DURATION, .metavar = "DURATION",
	  .help = "end the command after this long (exit 124)" },
	END_OPTIONS,
};

static const ax_option_spec aio_exec_options[] = {
	{ .name = "workdir", .short_name = 'w', .kind = AX_VAL_REMOTE_PATH, .metavar = "DIR",
	  .help = "working directory (default /home/gem)" },
	{ .name = "timeout", .short_name = 't', .kind = AX_VAL_DURATION, .metavar = "DURATION", .defval = "60",
	  .min = "1s", .help = "end the command after this long (exit 124)" },
	END_OPTIONS,
};

static const ax_option_spec aio_jupyter_run_options[] = {
	{ .name = "code", .short_name = 'c', .kind = AX_VAL_TEXT, .metavar = "CODE", .help = "the code to run" },
	{ .name = "file", .short_name = 'f', .kind = AX_VAL_LOCAL_PATH, .metavar = "FILE",
	  .help = "run the code in FILE; - reads standard input" },
	{ .name = "session", .kind = AX_VAL_TEXT, .metavar = "ID",
	  .help = "the session to run in, one kernel each (default: the sandbox's shared session)" },
	{ .name = "kernel", .kind = AX_VAL_TEXT, .metavar = "NAME", .defval = "python3",
	  .help = "kernelspec of a new session (GET /v1/jupyter/info lists them)" },
	{ .name = "timeout", .kind = AX_VAL_DURATION, .metavar = "DURATION", .defval = "30", .min = "1s", .max = "300s",
	  .help = "interrupt the code after this long, 1s to 300s (status timeout)" },
	{ .name = "save-images", .kind = AX_VAL_LOCAL_DIR, .metavar = "DIR",
	  .help = "write image/png outputs to DIR/output_<count>_<index>.png" },
	END_OPTIONS,
};

static const char *const aio_jupyter_run_examples[] = {
	"allox-cli aio jupyter run -c \"print(2 + 2)\" -o json",
	"allox-cli aio jupyter run -c \"x = 41\" && allox-cli aio jupyter run -c \"x + 1\"",
	"allox-cli aio jupyter run -f analysis.py --timeout 5m --save-images plots",
	"echo 'import sys; sys.version' | allox-cli aio jupyter run -f - --session s1",
	NULL,
};

static const char *const screenshot_formats[] = { "png", "jpeg", NULL };

static const ax_option_spec aio_screenshot_options[] = {
	{ .name = "file", .short_name = 'f', .kind = AX_VAL_LOCAL_PATH, .metavar = "FILE", .required = true,
	  .help = "where to save the image (required); replaced atomically, untouched on failure" },
	{ .name = "format", .kind = AX_VAL_CHOICE, .metavar = "FORMAT", .choices = screenshot_formats, .defval = "png",
	  .help = "image format: png or jpeg" },
	{ .name = "quality", .kind = AX_VAL_INT, .metavar = "N", .min = "0", .max = "100",
	  .help = "JPEG quality, 0 to 100 (default: Chromium's)" },
	END_OPTIONS,
};

static const char *const aio_browser_info_examples[] = {
	"allox-cli aio browser info",
	"allox-cli aio browser info -o json | jq -r .cdp_url",
	NULL,
};

static const char *const aio_screenshot_examples[] = {
	"allox-cli aio screenshot -f page.png",
	"allox-cli aio screenshot -f page.jpg --format jpeg --quality 70 -o json",
	NULL,
};

static const ax_positional_spec mcp_tools_positionals[] = {
	{ .name = "SANDBOX_ID", .arity = AX_POS_OPTIONAL, .kind = AX_VAL_SANDBOX_ID,
	  .help = "the sandbox; default: the current session" },
	{ .name = "SERVER", .arity = AX_POS_REQUIRED, .kind = AX_VAL_TEXT,
	  .help = "an MCP server (aio mcp servers lists them)" },
	END_POSITIONALS,
};

static const ax_positional_spec mcp_call_positionals[] = {
	{ .name = "SANDBOX_ID", .arity = AX_POS_OPTIONAL, .kind = AX_VAL_SANDBOX_ID,
	  .help = "the sandbox; default: the current session" },
	{ .name = "SERVER", .arity = AX_POS_REQUIRED, .kind = AX_VAL_TEXT,
	  .help = "an MCP server (aio mcp servers lists them)" },
	{ .name = "TOOL", .arity = AX_POS_REQUIRED, .kind = AX_VAL_TEXT,
	  .help = "one of its tools (aio mcp tools SERVER lists them)" },
	END_POSITIONALS,
};

static const ax_option_spec aio_mcp_call_options[] = {
	{ .name = "args", .kind = AX_VAL_JSON_OBJECT, .metavar = "JSON",
	  .help = "the tool's arguments as a JSON object" },
	{ .name = "arg", .kind = AX_VAL_KV, .metavar = "KEY=VALUE", .repeatable = true,
	  .help = "one argument; VALUE is JSON when it parses as JSON, else a string (overrides --args)" },
	{ .name = "save-images", .kind = AX_VAL_LOCAL_DIR, .metavar = "DIR",
	  .help = "write image and audio content to DIR/<tool>_<n>.<ext>" },
	{ .name = "timeout", .short_name = 't', .kind = AX_VAL_DURATION, .metavar = "DURATION", .defval = "300",
	  .min = "1s", .help = "how long the call may take" },
	END_OPTIONS,
};

static const char *const aio_mcp_servers_examples[] = {
	"allox-cli aio mcp servers -o json",
	NULL,
};

static const char *const aio_mcp_tools_examples[] = {
	"allox-cli aio mcp tools browser -o json",
	"allox-cli aio mcp tools sandbox",
	NULL,
};

static const char *const aio_mcp_call_examples[] = {
	"allox-cli aio mcp call browser browser_navigate --args '{\"url\":\"https://example.com\"}'",
	"allox-cli aio mcp call sandbox sandbox_execute_bash --arg cmd='uname -a'",
	"allox-cli aio mcp call browser browser_screenshot --save-images shots",
	NULL,
};

static const ax_positional_spec path_positionals[] = {
	{ .name = "SANDBOX_ID", .arity = AX_POS_OPTIONAL, .kind = AX_VAL_SANDBOX_ID,
	  .help = "the sandbox; default: the current session" },
	{ .name = "PATH", .arity = AX_POS_REQUIRED, .kind = AX_VAL_REMOTE_PATH,
	  .help = "absolute path inside the sandbox" },
	END_POSITIONALS,
};

static const ax_option_spec file_cat_options[] = {
	{ .name = "encoding", .kind = AX_VAL_ENCODING, .metavar = "ENCODING", .defval = "utf-8",
	  .help = "text encoding of the file" },
	END_OPTIONS,
};

static const ax_option_spec file_write_options[] = {
	{ .name = "content", .short_name = 'c', .kind = AX_VAL_TEXT, .metavar = "TEXT",
	  .help = "the content (default: standard input)" },
	{ .name = "encoding", .kind = AX_VAL_ENCODING, .metavar = "ENCODING", .defval = "utf-8",
	  .help = "text encoding of the file" },
	END_OPTIONS,
};

static const ax_positional_spec upload_positionals[] = {
	{ .name = "SANDBOX_ID", .arity = AX_POS_OPTIONAL, .kind = AX_VAL_SANDBOX_ID,
	  .help = "the sandbox; default: the current session" },
	{ .name = "LOCAL", .arity = AX_POS_REQUIRED, .kind = AX_VAL_LOCAL_PATH, .help = "local file or directory" },
	{ .name = "REMOTE", .arity = AX_POS_REQUIRED, .kind = AX_VAL_REMOTE_PATH,
	  .help = "target path inside the sandbox" },
	END_POSITIONALS,
};

static const ax_positional_spec download_positionals[] = {
	{ .name = "SANDBOX_ID", .arity = AX_POS_OPTIONAL, .kind = AX_VAL_SANDBOX_ID,
	  .help = "the sandbox; default: the current session" },
	{ .name = "REMOTE", .arity = AX_POS_REQUIRED, .kind = AX_VAL_REMOTE_PATH,
	  .help = "file or directory inside the sandbox" },
	{ .name = "LOCAL", .arity = AX_POS_REQUIRED, .kind = AX_VAL_LOCAL_PATH, .help = "local target path" },
	END_POSITIONALS,
};

static const ax_option_spec upload_options[] = {
	{ .name = "recursive", .short_name = 'r', .kind = AX_VAL_NONE, .help = "upload a directory tree" },
	{ .name = "mode", .kind = AX_VAL_MODE, .metavar = "MODE", .defval = "644",
	  .help = "octal mode of uploaded files" },
	{ .name = "directory-mode", .kind = AX_VAL_MODE, .metavar = "MODE", .defval = "755",
	  .help = "octal mode of created directories" },
	{ .name = "follow-symlinks", .kind = AX_VAL_NONE, .help = "upload what local symlinks point to" },
	END_OPTIONS,
};

static const ax_option_spec download_options[] = {
	{ .name = "recursive", .short_name = 'r', .kind = AX_VAL_NONE, .help = "download a directory tree" },
	{ .name = "force", .short_name = 'f', .kind = AX_VAL_NONE, .help = "replace an existing local target" },
	/* The spec's default is 65536; a bigger read is cheaper per byte. */
	{ .name = "chunk-size", .kind = AX_VAL_INT, .metavar = "BYTES", .defval = "1048576", .min = "1024",
	  .max = "16777216", .help = "read size, 1024 to 16777216" },
	END_OPTIONS,
};

static const ax_option_spec checkpoint_create_options[] = {
	{ .name = "name", .short_name = 'n', .kind = AX_VAL_TEXT, .metavar = "NAME",
	  .help = "a name for the checkpoint" },
	END_OPTIONS,
};

static const ax_option_spec checkpoint_list_options[] = {
	{ .name = "all", .short_name = 'a', .kind = AX_VAL_NONE, .help = "every sandbox's checkpoints" },
	END_OPTIONS,
};

static const ax_positional_spec checkpoint_restore_positionals[] = {
	{ .name = "CHECKPOINT", .arity = AX_POS_OPTIONAL, .kind = AX_VAL_CHECKPOINT,
	  .help = "a checkpoint id, or latest (default)" },
	END_POSITIONALS,
};

static const ax_option_spec checkpoint_restore_options[] = {
	{ .name = "source-sandbox", .short_name = 's', .kind = AX_VAL_SANDBOX_ID, .metavar = "SANDBOX_ID",
	  .help = "whose latest checkpoint (default: the current session)" },
	{ .name = "timeout", .short_name = 't', .kind = AX_VAL_DURATION, .metavar = "DURATION",
	  .help = "lifetime of the new sandbox (default: defaults.timeout)" },
	END_OPTIONS,
};

static const ax_positional_spec checkpoint_delete_positionals[] = {
	{ .name = "CHECKPOINT_ID", .arity = AX_POS_REQUIRED, .kind = AX_VAL_CHECKPOINT_ID,
	  .help = "the checkpoint to delete" },
	END_POSITIONALS,
};

static const ax_option_spec checkpoint_watch_options[] = {
	{ .name = "interval", .short_name = 'i', .kind = AX_VAL_DURATION, .metavar = "DURATION",
	  .help = "time between checkpoints (default: checkpoint.interval)" },
	{ .name = "count", .short_name = 'c', .kind = AX_VAL_INT, .metavar = "N", .min = "1",
	  .help = "stop after N checkpoints (default: until Ctrl-C)" },
	{ .name = "name-prefix", .kind = AX_VAL_TEXT, .metavar = "PREFIX", .defval = "scheduled",
	  .help = "checkpoints are named PREFIX-1, PREFIX-2, ..." },
	END_OPTIONS,
};

static const char *const checkpoint_create_examples[] = {
	"allox-cli checkpoint create --name v1",
	"CHECKPOINT_ID=$(allox-cli checkpoint create --name v1 -o json | jq -r .id)",
	NULL,
};

static const char *const checkpoint_restore_examples[] = {
	"allox-cli checkpoint restore \"$CHECKPOINT_ID\" --timeout 30m -o json",
	"allox-cli checkpoint restore latest --source-sandbox \"$SOURCE_ID\"",
	NULL,
};

static const char *const checkpoint_watch_examples[] = {
	"allox-cli checkpoint watch --interval 5m",
	"allox-cli checkpoint watch --interval 30s --count 3 --name-prefix nightly",
	NULL,
};

static const char *const run_examples[] = {
	"allox-cli run -- python3 -c 'print(1)'",
	"allox-cli run -o json -- sh -c 'exit 7'",
	"allox-cli run --timeout 10s -w /tmp -- make test",
	NULL,
};

static const char *const aio_exec_examples[] = {
	"allox-cli aio exec -- sh -c \"echo v1 > /home/gem/version.txt\"",
	"allox-cli aio exec -o json ls -la",
	NULL,
};

static const ax_option_spec shell_options[] = {
	{ .name = "plain", .kind = AX_VAL_NONE, .help = "the prompt without panes (also when TERM=dumb)" },
	END_OPTIONS,
};

static const char *const shell_examples[] = {
	"allox-cli shell",
	"allox-cli shell --plain",
	"printf 'sandbox create\\naio exec -- uname -a\\n' | allox-cli shell",
	NULL,
};

static const ax_command_spec commands[] = {
	{ .group = "run", .name = "", .summary = "Run a command in a sandbox through execd",
	  .description = "Streams the command's stdout and stderr to yours as they arrive and exits with its exit "
	  "status (124 when --timeout ends it, 130 on Ctrl-C). Options come before the command; a leading sandbox "
	  "UUID selects the sandbox, otherwise the current session is used. -o json prints {exit_code, stdout, "
	  "stderr, duration_ms} alone on stdout.",
	  .positionals = run_positionals, .options = run_options,
	  .formats = AX_FMT_RAW | AX_FMT_JSON, .default_format = AX_FMT_RAW, .flags = AX_CMD_OPTIONS_FIRST,
	  .target = AX_TARGET_EXECD, .handler = ax_cmd_run, .examples = run_examples },
	{ .group = "aio", .name = "exec", .summary = "Run a shell command through the AIO runtime",
	  .description = "The arguments are shell-quoted and joined, so what you type is what runs. Exits with the "
	  "command's exit status, 124 on timeout. Options come before the command.",
	  .positionals = run_positionals, .options = aio_exec_options,
	  .formats = AX_FMT_RAW | AX_FMT_JSON, .default_format = AX_FMT_RAW, .flags = AX_CMD_OPTIONS_FIRST,
	  .target = AX_TARGET_AIO, .handler = ax_cmd_aio_exec, .examples = aio_exec_examples },
	{ .group = "aio", .name = "read", .summary = "Print a file through the AIO runtime",
	  .positionals = path_positionals, .formats = AX_FMT_RAW | AX_FMT_JSON, .default_format = AX_FMT_RAW,
	  .target = AX_TARGET_AIO, .handler = ax_cmd_aio_read },
	{ .group = "aio", .name = "jupyter run", .summary = "Run code in the sandbox's Jupyter kernel",
	  .description = "Each session is one kernel that keeps its variables; without --session, calls share the "
	  "sandbox's default session, so consecutive calls see each other's state. The kernel starts on first use. "
	  "Raw output is what a notebook shows: streams on stdout and stderr, text/plain results, errors with "
	  "their traceback on stderr (coloured only on a terminal). A timeout interrupts the code; the kernel "
	  "keeps its state. Exits 1 when the status is not ok (error or timeout); -o json prints the result object "
	  "{kernel_name, session_id, status, execution_count, outputs, code, msg_id}.",
	  .positionals = sandbox_id_positionals, .options = aio_jupyter_run_options,
	  .formats = AX_FMT_RAW | AX_FMT_JSON, .default_format = AX_FMT_RAW, .target = AX_TARGET_AIO,
	  .check = ax_check_aio_jupyter_run, .handler = ax_cmd_aio_jupyter_run,
	  .examples = aio_jupyter_run_examples },
	{ .group = "aio", .name = "browser info", .summary = "Show the sandbox's browser: user agent, CDP URL, "
	  "viewport",
	  .description = "Starts the sandbox's headless Chromium on first use. cdp_url is a browser-level DevTools "
	  "WebSocket on 127.0.0.1 that CDP clients (Puppeteer, Playwright, chrome-remote-interface) can connect to "
	  "from the host. Local sandboxes have no VNC: vnc_url is null.",
	  .positionals = sandbox_id_positionals, .formats = OBJECT_FORMATS, .default_format = AX_FMT_TABLE,
	  .target = AX_TARGET_AIO, .handler = ax_cmd_aio_browser_info, .examples = aio_browser_info_examples },
	{ .group = "aio", .name = "screenshot", .summary = "Save a screenshot of the sandbox's browser page",
	  .description = "Captures the current page of the sandbox's Chromium (started on first use) at its "
	  "viewport size and writes it to FILE through a temporary file beside it, so FILE is the whole image or "
	  "untouched. Prints {path, format, width, height, bytes}.",
	  .positionals = sandbox_id_positionals, .options = aio_screenshot_options,
	  .formats = OBJECT_FORMATS, .default_format = AX_FMT_TABLE, .target = AX_TARGET_AIO,
	  .check = ax_check_aio_screenshot, .handler = ax_cmd_aio_screenshot,
	  .examples = aio_screenshot_examples },
	{ .group = "aio", .name = "mcp servers", .summary = "List the sandbox's MCP servers",
	  .description = "Through the AIO runtime's REST bridge, or its /mcp endpoint where the bridge is missing. "
	  "Local sandboxes have the built-in sandbox and browser servers plus the profile's [mcp.servers.<name>] "
	  "tables; the table shows where each configured server's stderr is logged.",
	  .positionals = sandbox_id_positionals, .formats = OBJECT_FORMATS, .default_format = AX_FMT_TABLE,
	  .target = AX_TARGET_AIO, .handler = ax_cmd_aio_mcp_servers, .examples = aio_mcp_servers_examples },
	{ .group = "aio", .name = "mcp tools", .summary = "List the tools of an MCP server",
	  .description = "An unknown server exits 1 and lists the servers. -o json prints the full tool objects "
	  "(input schemas included).",
	  .positionals = mcp_tools_positionals, .formats = OBJECT_FORMATS, .default_format = AX_FMT_TABLE,
	  .target = AX_TARGET_AIO, .handler = ax_cmd_aio_mcp_tools, .examples = aio_mcp_tools_examples },
	{ .group = "aio", .name = "mcp call", .summary = "Call a tool of an MCP server",
	  .description = "Raw output prints text content, images as [mime, N bytes] (or saved with --save-images), "
	  "other content as JSON, then structuredContent. Exits 1 when the tool reports isError or the server or "
	  "tool is unknown (the error lists what exists), 2 for malformed --args.",
	  .positionals = mcp_call_positionals, .options = aio_mcp_call_options,
	  .formats = AX_FMT_RAW | AX_FMT_JSON, .default_format = AX_FMT_RAW, .target = AX_TARGET_AIO,
	  .handler = ax_cmd_aio_mcp_call, .examples = aio_mcp_call_examples },
	{ .group = "file", .name = "cat", .summary = "Print a file from a sandbox",
	  .positionals = path_positionals, .options = file_cat_options,
	  .formats = AX_FMT_RAW | AX_FMT_JSON, .default_format = AX_FMT_RAW, .target = AX_TARGET_EXECD,
	  .handler = ax_cmd_file_cat },
	{ .group = "file", .name = "write", .summary = "Write a file in a sandbox from --content or standard input",
	  .positionals = path_positionals, .options = file_write_options,
	  .formats = OBJECT_FORMATS, .default_format = AX_FMT_TABLE, .target = AX_TARGET_EXECD,
	  .check = ax_check_file_write, .handler = ax_cmd_file_write },
	{ .group = "file", .name = "upload", .summary = "Upload a file or directory tree into a sandbox",
	  .description = "Streams in constant memory. Local symlinks are refused unless --follow-symlinks. Remote "
	  "files are replaced.",
	  .positionals = upload_positionals, .options = upload_options,
	  .formats = OBJECT_FORMATS, .default_format = AX_FMT_TABLE, .target = AX_TARGET_EXECD,
	  .check = ax_check_file_upload, .handler = ax_cmd_file_upload },
	{ .group = "file", .name = "download", .summary = "Download a file or directory tree from a sandbox",
	  .description = "Streams into a staging path beside LOCAL and renames it into place only when complete; "
	  "on any failure nothing partial remains. Remote symlinks and entries escaping REMOTE are refused.",
	  .positionals = download_positionals, .options = download_options,
	  .formats = OBJECT_FORMATS, .default_format = AX_FMT_TABLE, .target = AX_TARGET_EXECD,
	  .check = ax_check_file_download, .handler = ax_cmd_file_download },
	{ .group = "file", .name = "ls", .summary = "List a directory in a sandbox",
	  .description = "Sorted by name. Names are shown as the sandbox has them: the table shows control "
	  "characters as spaces, -o json escapes them, -o raw prints their bytes (one entry per line: a newline or "
	  "tab in a name becomes a space).",
	  .positionals = path_positionals,
	  .formats = OBJECT_FORMATS | AX_FMT_RAW, .default_format = AX_FMT_TABLE, .target = AX_TARGET_EXECD,
	  .handler = ax_cmd_file_ls },

	{ .group = "sandbox", .name = "create", .summary = "Create a sandbox and wait until its runtime answers",
	  .description = "Creates a sandbox, waits until the runtime answers its readiness path through the "
	  "sandbox's endpoint (unless --skip-health-check) and makes it the current session. A sandbox that does "
	  "not become ready is deleted. With the embedded local engine the default image is host. --cpu, --memory, "
	  "--pids and --disk are sent as resourceLimits (cpu, memory, pids, ephemeral-storage); sandbox get shows "
	  "the limits in force.",
	  .options = sandbox_create_options, .formats = OBJECT_FORMATS, .default_format = AX_FMT_TABLE,
	  .target = AX_TARGET_SERVER, .handler = ax_cmd_sandbox_create, .examples = sandbox_create_examples },
	{ .group = "sandbox", .name = "list", .summary = "List sandboxes",
	  .formats = OBJECT_FORMATS | AX_FMT_RAW, .default_format = AX_FMT_TABLE, .target = AX_TARGET_SERVER,
	  .handler = ax_cmd_sandbox_list },
	{ .group = "sandbox", .name = "get", .summary = "Show a sandbox's state, image and limits",
	  .positionals = sandbox_id_positionals, .formats = OBJECT_FORMATS, .default_format = AX_FMT_TABLE,
	  .target = AX_TARGET_SANDBOX, .handler = ax_cmd_sandbox_get },
	{ .group = "sandbox", .name = "endpoint",
	  .summary = "Show the URL of a sandbox's AIO runtime or of one of its ports",
	  .description = "Without --port, the AIO runtime's URL. With --port N, the URL where port N of the sandbox "
	  "is reached: with the local engine a host-loopback address that forwards into the sandbox (only the host "
	  "reaches it), and an error (exit status 1) when nothing listens on the port.",
	  .positionals = sandbox_id_positionals, .options = sandbox_endpoint_options,
	  .formats = OBJECT_FORMATS | AX_FMT_RAW, .default_format = AX_FMT_TABLE, .target = AX_TARGET_SANDBOX,
	  .handler = ax_cmd_sandbox_endpoint, .examples = sandbox_endpoint_examples },
	{ .group = "sandbox", .name = "renew", .summary = "Move a sandbox's expiry to now plus a duration",
	  .positionals = sandbox_id_positionals, .options = sandbox_renew_options,
	  .formats = OBJECT_FORMATS, .default_format = AX_FMT_TABLE, .target = AX_TARGET_SANDBOX,
	  .handler = ax_cmd_sandbox_renew },
	{ .group = "sandbox", .name = "pause", .summary = "Freeze every process of a sandbox",
	  .positionals = sandbox_id_positionals, .formats = OBJECT_FORMATS, .default_format = AX_FMT_TABLE,
	  .target = AX_TARGET_SANDBOX, .handler = ax_cmd_sandbox_pause },
	{ .group = "sandbox", .name = "resume", .summary = "Thaw a paused sandbox",
	  .positionals = sandbox_id_positionals, .formats = OBJECT_FORMATS, .default_format = AX_FMT_TABLE,
	  .target = AX_TARGET_SANDBOX, .handler = ax_cmd_sandbox_resume },
	{ .group = "sandbox", .name = "kill", .summary = "Delete a sandbox (and forget it if it is the current "
	  "session)",
	  .positionals = sandbox_id_positionals, .formats = OBJECT_FORMATS, .default_format = AX_FMT_TABLE,
	  .target = AX_TARGET_SANDBOX, .handler = ax_cmd_sandbox_kill },

	{ .group = "session", .name = "current", .summary = "Show the current session",
	  .formats = OBJECT_FORMATS, .default_format = AX_FMT_TABLE, .handler = ax_cmd_session_current },
	{ .group = "session", .name = "use", .summary = "Make a sandbox the current session",
	  .positionals = session_use_positionals, .formats = OBJECT_FORMATS, .default_format = AX_FMT_TABLE,
	  .handler = ax_cmd_session_use },
	{ .group = "session", .name = "clear", .summary = "Forget the current session",
	  .formats = OBJECT_FORMATS, .default_format = AX_FMT_TABLE, .handler = ax_cmd_session_clear },

	{ .group = "checkpoint", .name = "create", .summary = "Save a checkpoint of a sandbox and wait until it is "
	  "ready",
	  .description = "Captures the sandbox's whole writable file system (the sandbox is frozen for the moment "
	  "of the capture) and waits up to checkpoint.create_timeout seconds. Prints the checkpoint with its size "
	  "on disk (when the server reports it) and how long it took.",
	  .positionals = sandbox_id_positionals, .options = checkpoint_create_options,
	  .formats = OBJECT_FORMATS, .default_format = AX_FMT_TABLE, .target = AX_TARGET_SANDBOX,
	  .handler = ax_cmd_checkpoint_create, .examples = checkpoint_create_examples },
	{ .group = "checkpoint", .name = "list", .summary = "List the checkpoints of a sandbox, or of every "
	  "sandbox with --all",
	  .positionals = sandbox_id_positionals, .options = checkpoint_list_options,
	  .formats = OBJECT_FORMATS, .default_format = AX_FMT_TABLE, .target = AX_TARGET_SANDBOX,
	  .target_all = "all", .handler = ax_cmd_checkpoint_list },
	{ .group = "checkpoint", .name = "restore", .summary = "Create a new sandbox from a checkpoint and make it "
	  "current",
	  .description = "CHECKPOINT is an id or latest (the newest ready checkpoint of --source-sandbox or the "
	  "current session). The source sandbox is left running. Waits until the new sandbox's runtime answers "
	  "(defaults.ready_timeout).",
	  .positionals = checkpoint_restore_positionals, .options = checkpoint_restore_options,
	  .formats = OBJECT_FORMATS, .default_format = AX_FMT_TABLE, .target = AX_TARGET_SERVER,
	  .handler = ax_cmd_checkpoint_restore, .examples = checkpoint_restore_examples },
	{ .group = "checkpoint", .name = "delete", .summary = "Delete a checkpoint",
	  .description = "Sandboxes restored from it keep running: their layers stay until they end.",
	  .positionals = checkpoint_delete_positionals,
	  .formats = OBJECT_FORMATS, .default_format = AX_FMT_TABLE, .target = AX_TARGET_SERVER,
	  .handler = ax_cmd_checkpoint_delete },
	{ .group = "volume", .name = "list", .summary = "List the named volumes and the sandboxes that mount them",
	  .description = "Named volumes (sandbox create -v NAME:/PATH, the lifecycle API's pvc volumes) are "
	  "directories the local engine keeps in $ALLOX_HOME/volumes; they outlive their sandboxes and are not in "
	  "checkpoints. Other servers have no such list.",
	  .formats = OBJECT_FORMATS, .default_format = AX_FMT_TABLE, .target = AX_TARGET_SERVER,
	  .handler = ax_cmd_volume_list },
	{ .group = "volume", .name = "rm", .summary = "Remove a named volume and its files",
	  .description = "Refused while a sandbox mounts it.",
	  .positionals = volume_rm_positionals, .formats = OBJECT_FORMATS, .default_format = AX_FMT_TABLE,
	  .target = AX_TARGET_SERVER, .handler = ax_cmd_volume_rm },
	{ .group = "checkpoint", .name = "watch", .summary = "Save a checkpoint on an interval until Ctrl-C",
	  .description = "Runs in the foreground: sleeps the interval, saves PREFIX-N, prints it, and repeats. "
	  "Ctrl-C stops it with exit status 0; a failed checkpoint ends it with status 1.",
	  .positionals = sandbox_id_positionals, .options = checkpoint_watch_options,
	  .target = AX_TARGET_SANDBOX, .check = ax_check_checkpoint_watch, .handler = ax_cmd_checkpoint_watch,
	  .examples = checkpoint_watch_examples },

	{ .group = "config", .name = "init", .summary = "Write a commented configuration template",
	  .description = "Writes every key commented out with its default. An existing file is kept unless --force "
	  "is given.",
	  .options = config_init_options, .flags = AX_CMD_NO_CONFIG, .handler = ax_cmd_config_init },
	{ .group = "config", .name = "show", .summary = "Show resolved settings and where each came from",
	  .description = "Each value is shown with its source: flag, env:VARIABLE, file or default. The API key is "
	  "masked.",
	  .formats = AX_FMT_TABLE | AX_FMT_JSON | AX_FMT_YAML, .default_format = AX_FMT_TABLE,
	  .flags = AX_CMD_NO_CONFIG, .handler = ax_cmd_config_show, .examples = config_show_examples },
	{ .group = "config", .name = "set", .summary = "Set one key, keeping the rest of the file",
	  .description = "VALUE is checked against the key's type (boolean, integer, duration, list as a,b or a "
	  "TOML array). The file is edited in place: comments and order survive, and it is replaced atomically.",
	  .positionals = config_set_positionals, .flags = AX_CMD_NO_CONFIG, .handler = ax_cmd_config_set,
	  .examples = config_set_examples },
	{ .group = "config", .name = "path", .summary = "Print the path of the configuration file in use",
	  .flags = AX_CMD_NO_CONFIG, .handler = ax_cmd_config_path },
	{ .group = "shell", .name = "", .summary = "Open the interactive allox> shell",
	  .description = "On a terminal: panes for sessions (refreshed every few seconds), checkpoints of the "
	  "selected sandbox and the running command's output, a status line and the allox> line (readline: history "
	  "in $ALLOX_HOME/history, Ctrl-R, Tab completion of verbs, options, values, ids and paths). Each line is "
	  "split like a POSIX shell would (quotes, backslashes; no expansion) and runs exactly as `allox-cli "
	  "WORDS` would. Ctrl-C cancels the running command, never the shell; Ctrl-D, exit and quit leave. "
	  "Tab/Shift-Tab or F2-F4 move between panes, Enter on a sandbox makes it current, Enter on a checkpoint "
	  "asks to restore it, ? shows the keys. Shell words: help [GROUP [VERB]], use ID, history, clear, exit "
	  "[STATUS]. --plain (or TERM=dumb): the same prompt without panes. With standard input not a terminal "
	  "(script mode) it reads one command per line, prints only the commands' own output and exits with the "
	  "status of the last failing command (0 if none failed).",
	  .options = shell_options, .handler = ax_cmd_shell, .examples = shell_examples },
	{ .group = NULL },
};

static const char *const protocol_choices[] = { "http", "https", NULL };

static const ax_option_spec global_options[] = {
	{ .name = "profile", .kind = AX_VAL_PROFILE, .metavar = "NAME", .help = "use $ALLOX_HOME/NAME.toml" },
	{ .name = "config", .kind = AX_VAL_LOCAL_PATH, .metavar = "PATH",
	  .help = "use this configuration file (wins over --profile)" },
	{ .name = "domain", .kind = AX_VAL_TEXT, .metavar = "DOMAIN",
	  .help = "lifecycle server: local, unix:/path, host:port or URL" },
	{ .name = "api-key", .kind = AX_VAL_TEXT, .metavar = "KEY", .help = "OpenSandbox API key" },
	{ .name = "protocol", .kind = AX_VAL_CHOICE, .metavar = "PROTOCOL", .choices = protocol_choices,
	  .help = "http or https" },
	{ .name = "request-timeout", .kind = AX_VAL_INT, .metavar = "SECONDS",
	  .help = "timeout of each server request" },
	{ .name = "use-server-proxy", .kind = AX_VAL_NONE, .help = "ask the server for proxied endpoints" },
	{ .name = "no-use-server-proxy", .kind = AX_VAL_NONE, .help = "use direct endpoints" },
	{ .name = "verbose", .short_name = 'v', .kind = AX_VAL_NONE, .help = "diagnostics on stderr" },
	{ .name = "no-color", .kind = AX_VAL_NONE, .help = "no colour (also: NO_COLOR=1)" },
	{ .name = "version", .kind = AX_VAL_NONE, .help = "print the version and exit" },
	{ .name = "help", .short_name = 'h', .kind = AX_VAL_NONE, .help = "show help and exit" },
	END_OPTIONS,
};

const ax_group_spec *ax_groups(void)
{
	return groups;
}

const ax_command_spec *ax_commands(void)
{
	return commands;
}

const ax_option_spec *ax_global_options(void)
{
	return global_options;
}

bool ax_group_has_verbs(const char *group)
{
	const ax_command_spec *c;

	for (c = commands; c->name; c++)
		if (strcmp(c->group, group) == 0)
			return true;
	return false;
}

const ax_group_spec *ax_group_find(const char *name)
{
	const ax_group_spec *g;

	for (g = groups; g->name; g++)
		if (strcmp(g->name, name) == 0)
			return g;
	return NULL;
}
