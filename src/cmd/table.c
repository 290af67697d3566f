/* The command table: every verb allox-cli knows, as data. */
#include "command.h"

#include <string.h>

#define END_OPTIONS { NULL, 0, AX_OPT_FLAG, NULL, NULL, NULL, false, NULL }
#define END_POSITIONALS { NULL, AX_POS_REQUIRED, NULL }
#define OBJECT_FORMATS (AX_FMT_TABLE | AX_FMT_JSON | AX_FMT_YAML)

static const ax_group_spec groups[] = {
	{ "sandbox", "Create, inspect and end sandboxes" },
	{ "session", "Show, choose or clear the current sandbox" },
	{ "aio", "Shell, files, Jupyter, browser and MCP through the AIO runtime" },
	{ "run", "Run a command in a sandbox through execd" },
	{ "file", "Read, write, upload and download files" },
	{ "checkpoint", "Save and restore sandbox checkpoints" },
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
	{ "force", 'f', AX_OPT_FLAG, NULL, NULL, NULL, false, "overwrite an existing file" },
	END_OPTIONS,
};

static const ax_positional_spec config_set_positionals[] = {
	{ "KEY", AX_POS_REQUIRED, "section.name, e.g. connection.domain" },
	{ "VALUE", AX_POS_REQUIRED, "checked against the key's type" },
	END_POSITIONALS,
};

static const ax_positional_spec session_use_positionals[] = {
	{ "SANDBOX_ID", AX_POS_REQUIRED, "the sandbox later commands use by default" },
	END_POSITIONALS,
};

static const ax_positional_spec sandbox_id_positionals[] = {
	{ "SANDBOX_ID", AX_POS_OPTIONAL, "the sandbox; default: the current session" },
	END_POSITIONALS,
};

static const char *const network_modes[] = { "isolated", "none", "host", NULL };

static const ax_option_spec sandbox_create_options[] = {
	{ "image", 'i', AX_OPT_STRING, "IMAGE", NULL, NULL, false,
	  "image: host or rootfs:/path locally, a container image on a server (default: defaults.image)" },
	{ "timeout", 't', AX_OPT_STRING, "DURATION", NULL, NULL, false,
	  "lifetime such as 30m or 2h, or none for no expiry (default: defaults.timeout)" },
	{ "env", 'e', AX_OPT_KV, "KEY=VALUE", NULL, NULL, true, "environment variable for the sandbox" },
	{ "metadata", 'm', AX_OPT_KV, "KEY=VALUE", NULL, NULL, true, "metadata label" },
	{ "entrypoint", 0, AX_OPT_STRING, "ARG", NULL, NULL, true,
	  "one argv element of the entrypoint; replaces defaults.entrypoint" },
	{ "ready-timeout", 0, AX_OPT_DURATION, "DURATION", NULL, NULL, false,
	  "how long to wait for the runtime (default: defaults.ready_timeout)" },
	{ "skip-health-check", 0, AX_OPT_FLAG, NULL, NULL, NULL, false, "do not wait for the runtime to answer" },
	{ "cpu", 0, AX_OPT_STRING, "CPUS", NULL, NULL, false,
	  "CPU time, such as 2, 0.5 or 500m (default: defaults.cpu)" },
	{ "memory", 0, AX_OPT_STRING, "SIZE", NULL, NULL, false,
	  "memory limit, such as 512Mi or 2Gi (default: defaults.memory)" },
	{ "pids", 0, AX_OPT_INT, "N", NULL, NULL, false,
	  "most processes and threads at once (default: defaults.pids, else the server's)" },
	{ "disk", 0, AX_OPT_STRING, "SIZE", NULL, NULL, false,
	  "size of the writable layer, such as 1Gi (default: defaults.disk)" },
	{ "network", 0, AX_OPT_CHOICE, "MODE", network_modes, NULL, false,
	  "isolated (own namespace, outbound only), none (loopback only) or host (unsafe: the host's network); "
	  "default: the server's (isolated locally)" },
	{ "allow-domain", 0, AX_OPT_STRING, "DOMAIN", NULL, NULL, true,
	  "let the sandbox resolve and reach DOMAIN (*.DOMAIN: its subdomains); with any, all else is denied" },
	{ "deny-domain", 0, AX_OPT_STRING, "DOMAIN", NULL, NULL, true,
	  "never let the sandbox resolve DOMAIN (*.DOMAIN: its subdomains); wins over --allow-domain" },
	END_OPTIONS,
};

static const ax_option_spec sandbox_endpoint_options[] = {
	{ "port", 'p', AX_OPT_INT, "N", NULL, NULL, false,
	  "a port a server in the sandbox listens on: print its URL (default: the AIO runtime's)" },
	END_OPTIONS,
};

static const char *const sandbox_endpoint_examples[] = {
	"allox-cli sandbox endpoint",
	"allox-cli sandbox endpoint --port 8000 -o raw",
	"curl \"$(allox-cli sandbox endpoint --port 8000 -o json | jq -r .url)/\"",
	NULL,
};

static const ax_option_spec sandbox_renew_options[] = {
	{ "timeout", 't', AX_OPT_DURATION, "DURATION", NULL, NULL, false, "new lifetime from now (required)" },
	END_OPTIONS,
};

static const char *const sandbox_create_examples[] = {
	"allox-cli sandbox create",
	"allox-cli sandbox create --timeout 2h -e DEBUG=1 -m project=demo -o json",
	"allox-cli sandbox create --image rootfs:/srv/images/alpine --timeout none",
	"allox-cli sandbox create --cpu 0.5 --memory 512Mi --pids 256 --disk 1Gi",
	"allox-cli sandbox create --network none",
	"allox-cli sandbox create --allow-domain pypi.org --allow-domain '*.pythonhosted.org'",
	NULL,
};

static const ax_positional_spec run_positionals[] = {
	{ "COMMAND", AX_POS_VARIADIC, "the command; a leading sandbox UUID selects the sandbox" },
	END_POSITIONALS,
};

static const ax_option_spec run_options[] = {
	{ "workdir", 'w', AX_OPT_STRING, "DIR", NULL, NULL, false, "working directory (default /home/gem)" },
	{ "timeout", 't', AX_OPT_DURATION, "DURATION", NULL, NULL, false, "end the command after this long (exit 124)" },
	END_OPTIONS,
};

static const ax_option_spec aio_exec_options[] = {
	{ "workdir", 'w', AX_OPT_STRING, "DIR", NULL, NULL, false, "working directory (default /home/gem)" },
	{ "timeout", 't', AX_OPT_DURATION, "DURATION", NULL, "60", false, "end the command after this long (exit 124)" },
	END_OPTIONS,
};

static const ax_option_spec aio_jupyter_run_options[] = {
	{ "code", 'c', AX_OPT_STRING, "CODE", NULL, NULL, false, "the code to run" },
	{ "file", 'f', AX_OPT_STRING, "FILE", NULL, NULL, false, "run the code in FILE; - reads standard input" },
	{ "session", 0, AX_OPT_STRING, "ID", NULL, NULL, false,
	  "the session to run in, one kernel each (default: the sandbox's shared session)" },
	{ "kernel", 0, AX_OPT_STRING, "NAME", NULL, "python3", false,
	  "kernelspec of a new session (GET /v1/jupyter/info lists them)" },
	{ "timeout", 0, AX_OPT_DURATION, "DURATION", NULL, "30", false,
	  "interrupt the code after this long, 1s to 300s (status timeout)" },
	{ "save-images", 0, AX_OPT_STRING, "DIR", NULL, NULL, false,
	  "write image/png outputs to DIR/output_<count>_<index>.png" },
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
	{ "file", 'f', AX_OPT_STRING, "FILE", NULL, NULL, false,
	  "where to save the image (required); replaced atomically, untouched on failure" },
	{ "format", 0, AX_OPT_CHOICE, "FORMAT", screenshot_formats, "png", false, "image format: png or jpeg" },
	{ "quality", 0, AX_OPT_INT, "N", NULL, NULL, false, "JPEG quality, 0 to 100 (default: Chromium's)" },
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
	{ "SANDBOX_ID", AX_POS_OPTIONAL, "the sandbox; default: the current session" },
	{ "SERVER", AX_POS_REQUIRED, "an MCP server (aio mcp servers lists them)" },
	END_POSITIONALS,
};

static const ax_positional_spec mcp_call_positionals[] = {
	{ "SANDBOX_ID", AX_POS_OPTIONAL, "the sandbox; default: the current session" },
	{ "SERVER", AX_POS_REQUIRED, "an MCP server (aio mcp servers lists them)" },
	{ "TOOL", AX_POS_REQUIRED, "one of its tools (aio mcp tools SERVER lists them)" },
	END_POSITIONALS,
};

static const ax_option_spec aio_mcp_call_options[] = {
	{ "args", 0, AX_OPT_STRING, "JSON", NULL, NULL, false, "the tool's arguments as a JSON object" },
	{ "arg", 0, AX_OPT_KV, "KEY=VALUE", NULL, NULL, true,
	  "one argument; VALUE is JSON when it parses as JSON, else a string (overrides --args)" },
	{ "save-images", 0, AX_OPT_STRING, "DIR", NULL, NULL, false,
	  "write image and audio content to DIR/<tool>_<n>.<ext>" },
	{ "timeout", 't', AX_OPT_DURATION, "DURATION", NULL, "300", false, "how long the call may take" },
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
	{ "SANDBOX_ID", AX_POS_OPTIONAL, "the sandbox; default: the current session" },
	{ "PATH", AX_POS_REQUIRED, "absolute path inside the sandbox" },
	END_POSITIONALS,
};

static const ax_option_spec file_cat_options[] = {
	{ "encoding", 0, AX_OPT_STRING, "ENCODING", NULL, "utf-8", false, "text encoding of the file" },
	END_OPTIONS,
};

static const ax_option_spec file_write_options[] = {
	{ "content", 'c', AX_OPT_STRING, "TEXT", NULL, NULL, false, "the content (default: standard input)" },
	{ "encoding", 0, AX_OPT_STRING, "ENCODING", NULL, "utf-8", false, "text encoding of the file" },
	END_OPTIONS,
};

static const ax_positional_spec upload_positionals[] = {
	{ "SANDBOX_ID", AX_POS_OPTIONAL, "the sandbox; default: the current session" },
	{ "LOCAL", AX_POS_REQUIRED, "local file or directory" },
	{ "REMOTE", AX_POS_REQUIRED, "target path inside the sandbox" },
	END_POSITIONALS,
};

static const ax_positional_spec download_positionals[] = {
	{ "SANDBOX_ID", AX_POS_OPTIONAL, "the sandbox; default: the current session" },
	{ "REMOTE", AX_POS_REQUIRED, "file or directory inside the sandbox" },
	{ "LOCAL", AX_POS_REQUIRED, "local target path" },
	END_POSITIONALS,
};

static const ax_option_spec upload_options[] = {
	{ "recursive", 'r', AX_OPT_FLAG, NULL, NULL, NULL, false, "upload a directory tree" },
	{ "mode", 0, AX_OPT_STRING, "MODE", NULL, "644", false, "octal mode of uploaded files" },
	{ "directory-mode", 0, AX_OPT_STRING, "MODE", NULL, "755", false, "octal mode of created directories" },
	{ "follow-symlinks", 0, AX_OPT_FLAG, NULL, NULL, NULL, false, "upload what local symlinks point to" },
	END_OPTIONS,
};

static const ax_option_spec download_options[] = {
	{ "recursive", 'r', AX_OPT_FLAG, NULL, NULL, NULL, false, "download a directory tree" },
	{ "force", 'f', AX_OPT_FLAG, NULL, NULL, NULL, false, "replace an existing local target" },
	{ "chunk-size", 0, AX_OPT_INT, "BYTES", NULL, "1048576", false, "read size, 1024 to 16777216" },
	END_OPTIONS,
};

static const ax_option_spec checkpoint_create_options[] = {
	{ "name", 'n', AX_OPT_STRING, "NAME", NULL, NULL, false, "a name for the checkpoint" },
	END_OPTIONS,
};

static const ax_option_spec checkpoint_list_options[] = {
	{ "all", 'a', AX_OPT_FLAG, NULL, NULL, NULL, false, "every sandbox's checkpoints" },
	END_OPTIONS,
};

static const ax_positional_spec checkpoint_restore_positionals[] = {
	{ "CHECKPOINT", AX_POS_OPTIONAL, "a checkpoint id, or latest (default)" },
	END_POSITIONALS,
};

static const ax_option_spec checkpoint_restore_options[] = {
	{ "source-sandbox", 's', AX_OPT_STRING, "SANDBOX_ID", NULL, NULL, false,
	  "whose latest checkpoint (default: the current session)" },
	{ "timeout", 't', AX_OPT_DURATION, "DURATION", NULL, NULL, false,
	  "lifetime of the new sandbox (default: defaults.timeout)" },
	END_OPTIONS,
};

static const ax_positional_spec checkpoint_delete_positionals[] = {
	{ "CHECKPOINT_ID", AX_POS_REQUIRED, "the checkpoint to delete" },
	END_POSITIONALS,
};

static const ax_option_spec checkpoint_watch_options[] = {
	{ "interval", 'i', AX_OPT_DURATION, "DURATION", NULL, NULL, false,
	  "time between checkpoints (default: checkpoint.interval)" },
	{ "count", 'c', AX_OPT_INT, "N", NULL, NULL, false, "stop after N checkpoints (default: until Ctrl-C)" },
	{ "name-prefix", 0, AX_OPT_STRING, "PREFIX", NULL, "scheduled", false, "checkpoints are named PREFIX-1, PREFIX-2, ..." },
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
	{ "plain", 0, AX_OPT_FLAG, NULL, NULL, NULL, false, "the prompt without panes (also when TERM=dumb)" },
	END_OPTIONS,
};

static const char *const shell_examples[] = {
	"allox-cli shell",
	"allox-cli shell --plain",
	"printf 'sandbox create\\naio exec -- uname -a\\n' | allox-cli shell",
	NULL,
};

static const ax_command_spec commands[] = {
	{ "run", "", "Run a command in a sandbox through execd",
	  "Streams the command's stdout and stderr to yours as they arrive and exits with its exit status "
	  "(124 when --timeout ends it, 130 on Ctrl-C). Options come before the command; a leading sandbox "
	  "UUID selects the sandbox, otherwise the current session is used. -o json prints "
	  "{exit_code, stdout, stderr, duration_ms} alone on stdout.",
	  run_positionals, run_options, AX_FMT_RAW | AX_FMT_JSON, AX_FMT_RAW, AX_CMD_OPTIONS_FIRST, ax_cmd_run,
	  run_examples },
	{ "aio", "exec", "Run a shell command through the AIO runtime",
	  "The arguments are shell-quoted and joined, so what you type is what runs. Exits with the command's "
	  "exit status, 124 on timeout. Options come before the command.",
	  run_positionals, aio_exec_options, AX_FMT_RAW | AX_FMT_JSON, AX_FMT_RAW, AX_CMD_OPTIONS_FIRST,
	  ax_cmd_aio_exec, aio_exec_examples },
	{ "aio", "read", "Print a file through the AIO runtime", NULL,
	  path_positionals, NULL, AX_FMT_RAW | AX_FMT_JSON, AX_FMT_RAW, 0, ax_cmd_aio_read, NULL },
	{ "aio", "jupyter run", "Run code in the sandbox's Jupyter kernel",
	  "Each session is one kernel that keeps its variables; without --session, calls share the sandbox's "
	  "default session, so consecutive calls see each other's state. The kernel starts on first use. Raw "
	  "output is what a notebook shows: streams on stdout and stderr, text/plain results, errors with their "
	  "traceback on stderr (coloured only on a terminal). A timeout interrupts the code; the kernel keeps "
	  "its state. Exits 1 when the status is not ok (error or timeout); -o json prints the result object "
	  "{kernel_name, session_id, status, execution_count, outputs, code, msg_id}.",
	  sandbox_id_positionals, aio_jupyter_run_options, AX_FMT_RAW | AX_FMT_JSON, AX_FMT_RAW, 0,
	  ax_cmd_aio_jupyter_run, aio_jupyter_run_examples },
	{ "aio", "browser info", "Show the sandbox's browser: user agent, CDP URL, viewport",
	  "Starts the sandbox's headless Chromium on first use. cdp_url is a browser-level DevTools WebSocket on "
	  "127.0.0.1 that CDP clients (Puppeteer, Playwright, chrome-remote-interface) can connect to from the "
	  "host. Local sandboxes have no VNC: vnc_url is null.",
	  sandbox_id_positionals, NULL, OBJECT_FORMATS, AX_FMT_TABLE, 0, ax_cmd_aio_browser_info,
	  aio_browser_info_examples },
	{ "aio", "screenshot", "Save a screenshot of the sandbox's browser page",
	  "Captures the current page of the sandbox's Chromium (started on first use) at its viewport size and "
	  "writes it to FILE through a temporary file beside it, so FILE is the whole image or untouched. Prints "
	  "{path, format, width, height, bytes}.",
	  sandbox_id_positionals, aio_screenshot_options, OBJECT_FORMATS, AX_FMT_TABLE, 0, ax_cmd_aio_screenshot,
	  aio_screenshot_examples },
	{ "aio", "mcp servers", "List the sandbox's MCP servers",
	  "Through the AIO runtime's REST bridge, or its /mcp endpoint where the bridge is missing. Local "
	  "sandboxes have the built-in sandbox and browser servers plus the profile's [mcp.servers.<name>] "
	  "tables; the table shows where each configured server's stderr is logged.",
	  sandbox_id_positionals, NULL, OBJECT_FORMATS, AX_FMT_TABLE, 0, ax_cmd_aio_mcp_servers,
	  aio_mcp_servers_examples },
	{ "aio", "mcp tools", "List the tools of an MCP server",
	  "An unknown server exits 1 and lists the servers. -o json prints the full tool objects (input "
	  "schemas included).",
	  mcp_tools_positionals, NULL, OBJECT_FORMATS, AX_FMT_TABLE, 0, ax_cmd_aio_mcp_tools, aio_mcp_tools_examples },
	{ "aio", "mcp call", "Call a tool of an MCP server",
	  "Raw output prints text content, images as [mime, N bytes] (or saved with --save-images), other "
	  "content as JSON, then structuredContent. Exits 1 when the tool reports isError or the server or "
	  "tool is unknown (the error lists what exists), 2 for malformed --args.",
	  mcp_call_positionals, aio_mcp_call_options, AX_FMT_RAW | AX_FMT_JSON, AX_FMT_RAW, 0, ax_cmd_aio_mcp_call,
	  aio_mcp_call_examples },
	{ "file", "cat", "Print a file from a sandbox", NULL,
	  path_positionals, file_cat_options, AX_FMT_RAW | AX_FMT_JSON, AX_FMT_RAW, 0, ax_cmd_file_cat, NULL },
	{ "file", "write", "Write a file in a sandbox from --content or standard input", NULL,
	  path_positionals, file_write_options, OBJECT_FORMATS, AX_FMT_TABLE, 0, ax_cmd_file_write, NULL },
	{ "file", "upload", "Upload a file or directory tree into a sandbox",
	  "Streams in constant memory. Local symlinks are refused unless --follow-symlinks. Remote files are "
	  "replaced.",
	  upload_positionals, upload_options, OBJECT_FORMATS, AX_FMT_TABLE, 0, ax_cmd_file_upload, NULL },
	{ "file", "download", "Download a file or directory tree from a sandbox",
	  "Streams into a staging path beside LOCAL and renames it into place only when complete; on any "
	  "failure nothing partial remains. Remote symlinks and entries escaping REMOTE are refused.",
	  download_positionals, download_options, OBJECT_FORMATS, AX_FMT_TABLE, 0, ax_cmd_file_download, NULL },
	{ "file", "ls", "List a directory in a sandbox",
	  "Sorted by name. Names are shown as the sandbox has them: the table shows control characters as "
	  "spaces, -o json escapes them, -o raw prints their bytes (one entry per line: a newline or tab in a "
	  "name becomes a space).",
	  path_positionals, NULL, OBJECT_FORMATS | AX_FMT_RAW, AX_FMT_TABLE, 0, ax_cmd_file_ls, NULL },

	{ "sandbox", "create", "Create a sandbox and wait until its runtime answers",
	  "Creates a sandbox, waits until the runtime answers its readiness path through the sandbox's endpoint "
	  "(unless --skip-health-check) and makes it the current session. A sandbox that does not become ready "
	  "is deleted. With the embedded local engine the default image is host. --cpu, --memory, --pids and --disk "
	  "are sent as resourceLimits (cpu, memory, pids, ephemeral-storage); sandbox get shows the limits in force.",
	  NULL, sandbox_create_options, OBJECT_FORMATS, AX_FMT_TABLE, 0, ax_cmd_sandbox_create,
	  sandbox_create_examples },
	{ "sandbox", "list", "List sandboxes", NULL,
	  NULL, NULL, OBJECT_FORMATS | AX_FMT_RAW, AX_FMT_TABLE, 0, ax_cmd_sandbox_list, NULL },
	{ "sandbox", "get", "Show a sandbox's state, image and limits", NULL,
	  sandbox_id_positionals, NULL, OBJECT_FORMATS, AX_FMT_TABLE, 0, ax_cmd_sandbox_get, NULL },
	{ "sandbox", "endpoint", "Show the URL of a sandbox's AIO runtime or of one of its ports",
	  "Without --port, the AIO runtime's URL. With --port N, the URL where port N of the sandbox is reached: "
	  "with the local engine a host-loopback address that forwards into the sandbox (only the host reaches it), "
	  "and an error (exit status 1) when nothing listens on the port.",
	  sandbox_id_positionals, sandbox_endpoint_options, OBJECT_FORMATS | AX_FMT_RAW, AX_FMT_TABLE, 0,
	  ax_cmd_sandbox_endpoint, sandbox_endpoint_examples },
	{ "sandbox", "renew", "Move a sandbox's expiry to now plus a duration", NULL,
	  sandbox_id_positionals, sandbox_renew_options, OBJECT_FORMATS, AX_FMT_TABLE, 0, ax_cmd_sandbox_renew, NULL },
	{ "sandbox", "pause", "Freeze every process of a sandbox", NULL,
	  sandbox_id_positionals, NULL, OBJECT_FORMATS, AX_FMT_TABLE, 0, ax_cmd_sandbox_pause, NULL },
	{ "sandbox", "resume", "Thaw a paused sandbox", NULL,
	  sandbox_id_positionals, NULL, OBJECT_FORMATS, AX_FMT_TABLE, 0, ax_cmd_sandbox_resume, NULL },
	{ "sandbox", "kill", "Delete a sandbox (and forget it if it is the current session)", NULL,
	  sandbox_id_positionals, NULL, OBJECT_FORMATS, AX_FMT_TABLE, 0, ax_cmd_sandbox_kill, NULL },

	{ "session", "current", "Show the current session", NULL,
	  NULL, NULL, OBJECT_FORMATS, AX_FMT_TABLE, 0, ax_cmd_session_current, NULL },
	{ "session", "use", "Make a sandbox the current session", NULL,
	  session_use_positionals, NULL, OBJECT_FORMATS, AX_FMT_TABLE, 0, ax_cmd_session_use, NULL },
	{ "session", "clear", "Forget the current session", NULL,
	  NULL, NULL, OBJECT_FORMATS, AX_FMT_TABLE, 0, ax_cmd_session_clear, NULL },

	{ "checkpoint", "create", "Save a checkpoint of a sandbox and wait until it is ready",
	  "Captures the sandbox's whole writable file system (the sandbox is frozen for the moment of the "
	  "capture) and waits up to checkpoint.create_timeout seconds. Prints the checkpoint with its size on "
	  "disk (when the server reports it) and how long it took.",
	  sandbox_id_positionals, checkpoint_create_options, OBJECT_FORMATS, AX_FMT_TABLE, 0, ax_cmd_checkpoint_create,
	  checkpoint_create_examples },
	{ "checkpoint", "list", "List the checkpoints of a sandbox, or of every sandbox with --all", NULL,
	  sandbox_id_positionals, checkpoint_list_options, OBJECT_FORMATS, AX_FMT_TABLE, 0, ax_cmd_checkpoint_list,
	  NULL },
	{ "checkpoint", "restore", "Create a new sandbox from a checkpoint and make it current",
	  "CHECKPOINT is an id or latest (the newest ready checkpoint of --source-sandbox or the current "
	  "session). The source sandbox is left running. Waits until the new sandbox's runtime answers "
	  "(defaults.ready_timeout).",
	  checkpoint_restore_positionals, checkpoint_restore_options, OBJECT_FORMATS, AX_FMT_TABLE, 0,
	  ax_cmd_checkpoint_restore, checkpoint_restore_examples },
	{ "checkpoint", "delete", "Delete a checkpoint",
	  "Sandboxes restored from it keep running: their layers stay until they end.",
	  checkpoint_delete_positionals, NULL, OBJECT_FORMATS, AX_FMT_TABLE, 0, ax_cmd_checkpoint_delete, NULL },
	{ "checkpoint", "watch", "Save a checkpoint on an interval until Ctrl-C",
	  "Runs in the foreground: sleeps the interval, saves PREFIX-N, prints it, and repeats. Ctrl-C stops "
	  "it with exit status 0; a failed checkpoint ends it with status 1.",
	  sandbox_id_positionals, checkpoint_watch_options, 0, AX_FMT_TABLE, 0, ax_cmd_checkpoint_watch,
	  checkpoint_watch_examples },

	{ "config", "init", "Write a commented configuration template",
	  "Writes every key commented out with its default. An existing file is kept unless --force is given.",
	  NULL, config_init_options, 0, AX_FMT_TABLE, AX_CMD_NO_CONFIG, ax_cmd_config_init, NULL },
	{ "config", "show", "Show resolved settings and where each came from",
	  "Each value is shown with its source: flag, env:VARIABLE, file or default. The API key is masked.",
	  NULL, NULL, AX_FMT_TABLE | AX_FMT_JSON | AX_FMT_YAML, AX_FMT_TABLE, AX_CMD_NO_CONFIG,
	  ax_cmd_config_show, config_show_examples },
	{ "config", "set", "Set one key, keeping the rest of the file",
	  "VALUE is checked against the key's type (boolean, integer, duration, list as a,b or a TOML array). "
	  "The file is edited in place: comments and order survive, and it is replaced atomically.",
	  config_set_positionals, NULL, 0, AX_FMT_TABLE, AX_CMD_NO_CONFIG, ax_cmd_config_set,
	  config_set_examples },
	{ "config", "path", "Print the path of the configuration file in use", NULL,
	  NULL, NULL, 0, AX_FMT_TABLE, AX_CMD_NO_CONFIG, ax_cmd_config_path, NULL },
	{ "shell", "", "Open the interactive allox> shell",
	  "On a terminal: panes for sessions (refreshed every few seconds), checkpoints of the selected sandbox "
	  "and the running command's output, a status line and the allox> line (readline: history in "
	  "$ALLOX_HOME/history, Ctrl-R, Tab completion of verbs, options, values, ids and paths). Each line is "
	  "split like a POSIX shell would (quotes, backslashes; no expansion) and runs exactly as "
	  "`allox-cli WORDS` would. Ctrl-C cancels the running command, never the shell; Ctrl-D, exit and quit "
	  "leave. Tab/Shift-Tab or F2-F4 move between panes, Enter on a sandbox makes it current, Enter on a "
	  "checkpoint asks to restore it, ? shows the keys. Shell words: help [GROUP [VERB]], use ID, history, "
	  "clear, exit [STATUS]. --plain (or TERM=dumb): the same prompt without panes. With standard input not "
	  "a terminal (script mode) it reads one command per line, prints only the commands' own output and "
	  "exits with the status of the last failing command (0 if none failed).",
	  NULL, shell_options, 0, AX_FMT_TABLE, 0, ax_cmd_shell, shell_examples },
	{ NULL, NULL, NULL, NULL, NULL, NULL, 0, AX_FMT_TABLE, 0, NULL, NULL },
};

static const char *const protocol_choices[] = { "http", "https", NULL };

static const ax_option_spec global_options[] = {
	{ "profile", 0, AX_OPT_STRING, "NAME", NULL, NULL, false, "use $ALLOX_HOME/NAME.toml" },
	{ "config", 0, AX_OPT_STRING, "PATH", NULL, NULL, false, "use this configuration file (wins over --profile)" },
	{ "domain", 0, AX_OPT_STRING, "DOMAIN", NULL, NULL, false, "lifecycle server: local, unix:/path, host:port or URL" },
	{ "api-key", 0, AX_OPT_STRING, "KEY", NULL, NULL, false, "OpenSandbox API key" },
	{ "protocol", 0, AX_OPT_CHOICE, "PROTOCOL", protocol_choices, NULL, false, "http or https" },
	{ "request-timeout", 0, AX_OPT_INT, "SECONDS", NULL, NULL, false, "timeout of each server request" },
	{ "use-server-proxy", 0, AX_OPT_FLAG, NULL, NULL, NULL, false, "ask the server for proxied endpoints" },
	{ "no-use-server-proxy", 0, AX_OPT_FLAG, NULL, NULL, NULL, false, "use direct endpoints" },
	{ "verbose", 'v', AX_OPT_FLAG, NULL, NULL, NULL, false, "diagnostics on stderr" },
	{ "no-color", 0, AX_OPT_FLAG, NULL, NULL, NULL, false, "no colour (also: NO_COLOR=1)" },
	{ "version", 0, AX_OPT_FLAG, NULL, NULL, NULL, false, "print the version and exit" },
	{ "help", 'h', AX_OPT_FLAG, NULL, NULL, NULL, false, "show help and exit" },
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
