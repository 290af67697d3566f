/* allox-cli: argv -> command registry -> handler -> renderer. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli/help.h"
#include "cli/hidden.h"
#include "cli/parse.h"
#include "cli/registry.h"
#include "cli/target.h"
#include "cmd/groups.h"
#include "lib/fs.h"
#include "lib/suggest.h"
#include "ui/shell.h"

static const char *const prog = "allox-cli";

/* The groups allox-cli offers, in the order help lists them. The framework
 * reads them from here, so src/cmd needs nothing above it and the shell
 * (ui/) is one more group. */
static const ax_group_spec *const groups[] = {
	&ax_group_sandbox, &ax_group_session, &ax_group_aio, &ax_group_run, &ax_group_file,
	&ax_group_checkpoint, &ax_group_volume, &ax_group_config, &ax_group_shell, NULL,
};
static const ax_registry registry = { .groups = groups };

/* The signal (SIGINT or SIGTERM) received once a command has asked to handle
 * interrupts itself; 0 before. */
static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
	/* Only the first counts: tools like timeout(1) signal the process and then
	 * its group, and the cleanup under way must not be cut short. */
	if (!interrupted)
		interrupted = sig;
}

static void catch_one(int sig)
{
	struct sigaction sa, old;

	/* A signal ignored at start (a background job in a script) stays ignored. */
	if (sigaction(sig, NULL, &old) < 0 || old.sa_handler == SIG_IGN)
		return;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_interrupt;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a blocked poll or read wakes up and the command notices. */
	sigaction(sig, &sa, NULL);
}

static void catch_interrupts(void)
{
	catch_one(SIGINT);
	catch_one(SIGTERM);
}

/* Like curl: make sure 0-2 are open, so no file we open later becomes stdout. */
static void ensure_std_fds(void)
{
	int fd;

	do {
		fd = open("/dev/null", O_RDWR);
	} while (fd >= 0 && fd <= 2);
	if (fd > 2)
		close(fd);
}

static char *allox_home(void)
{
	const char *h = getenv("ALLOX_HOME"), *home = getenv("HOME");

	if (h && *h)
		return strdup(h);
	return ax_path_join(home && *home ? home : "/", ".allox");
}

static void print_error(const ax_error *err, ax_format format, const ax_command_spec *cmd, const char *usage_group)
{
	if (format == AX_FMT_JSON) {
		json_t *e = json_pack("{s:{s:s, s:s}}", "error", "message", err->message, "code", ax_error_code_name(err));

		if (err->hint[0])
			json_object_set_new(json_object_get(e, "error"), "hint", json_string(err->hint));
		json_dumpf(e, stderr, JSON_COMPACT | JSON_PRESERVE_ORDER);
		fputc('\n', stderr);
		json_decref(e);
		return;
	}
	if (err->exit_code == AX_EXIT_USAGE && cmd)
		ax_usage_line(stderr, prog, cmd);
	else if (err->exit_code == AX_EXIT_USAGE && usage_group)
		fprintf(stderr, "Usage: %s %s VERB [ARGS] [OPTIONS]\n", prog, usage_group);
	else if (err->exit_code == AX_EXIT_USAGE)
		fprintf(stderr, "Usage: %s [GLOBAL OPTIONS] GROUP VERB [ARGS] [OPTIONS]\n", prog);
	fprintf(stderr, "Error: %s\n", err->message);
	if (err->hint[0])
		fprintf(stderr, "%s\n", err->hint);
	if (err->exit_code == AX_EXIT_USAGE) {
		if (cmd)
			fprintf(stderr, "Try '%s %s%s%s --help' for help.\n", prog, cmd->group,
				cmd->name[0] ? " " : "", cmd->name);
		else
			fprintf(stderr, "Try '%s %s%s--help' for help.\n", prog, usage_group ? usage_group : "",
				usage_group ? " " : "");
	}
}

static int finish_stdout(void)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "Error: cannot write output: %s\n", strerror(errno ? errno : EIO));
		return AX_EXIT_FAILURE;
	}
	return AX_EXIT_OK;
}

static int terminal_width(void)
{
	struct winsize ws;
	const char *cols = getenv("COLUMNS");

	if (cols && atoi(cols) > 0)
		return atoi(cols);
	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 0;
}

static ax_render_opts render_opts(ax_format format, const ax_globals *g, const ax_config *cfg)
{
	ax_render_opts o;
	const char *no_color = getenv("NO_COLOR");

	o.format = format;
	o.utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	o.width = terminal_width();
	o.color = isatty(STDOUT_FILENO) && !(no_color && *no_color) && !g->flags.no_color &&
		  (!cfg || ax_config_bool(cfg, "color"));
	o.color_err = isatty(STDERR_FILENO) && !(no_color && *no_color) && !g->flags.no_color &&
		      (!cfg || ax_config_bool(cfg, "color"));
	return o;
}

static size_t list_groups(const char **names, size_t max)
{
	const ax_group_spec *const *g;
	size_t n = 0;

	for (g = registry.groups; *g && n < max; g++)
		names[n++] = (*g)->name;
	if (n < max)
		names[n++] = "help";
	return n;
}

/* The format a command line asks for when it fails before a command parses
 * it (an unknown global option, group or verb): `-o json` anywhere before
 * "--" still gets its error as JSON. */
static ax_format format_asked(int argc, char **argv)
{
	int i;

	for (i = 0; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "-ojson") == 0 || strcmp(argv[i], "--output=json") == 0 ||
		    ((strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) && i + 1 < argc &&
		     strcmp(argv[i + 1], "json") == 0))
			return AX_FMT_JSON;
	return AX_FMT_TABLE;
}

static int unknown_group(const char *word, ax_format format)
{
	const char *group_names[16];
	ax_error err;
	size_t n = list_groups(group_names, 16);
	const char *hint = ax_suggest(word, group_names, n);

	if (hint)
		ax_fail(&err, AX_CODE_USAGE, "unknown command '%s' (did you mean '%s'?)", word, hint);
	else
		ax_fail(&err, AX_CODE_USAGE, "unknown command '%s'", word);
	print_error(&err, format, NULL, NULL);
	return AX_EXIT_USAGE;
}

static int unknown_verb(const ax_group_spec *g, const char *word, ax_format format)
{
	const char *names[64];
	const ax_command_spec *const *c;
	size_t n = 0;
	ax_error err;
	const char *hint;

	for (c = g->verbs; *c && n < 64; c++)
		names[n++] = (*c)->name;
	hint = ax_suggest(word, names, n);
	if (hint)
		ax_fail(&err, AX_CODE_USAGE, "unknown verb '%s' for '%s' (did you mean '%s'?)", word,
			g->name, hint);
	else
		ax_fail(&err, AX_CODE_USAGE, "unknown verb '%s' for '%s'", word, g->name);
	print_error(&err, format, NULL, g->name);
	return AX_EXIT_USAGE;
}

/* `allox-cli help [GROUP [VERB]]` */
static int help_command(int argc, char **argv)
{
	const ax_group_spec *g;
	const ax_command_spec *c;
	int words;

	if (argc == 0) {
		ax_help_root(stdout, prog, &registry);
		return finish_stdout();
	}
	g = ax_registry_group(&registry, argv[0]);
	if (!g)
		return unknown_group(argv[0], AX_FMT_TABLE);
	c = ax_group_verb(g, argc - 1, argv + 1, &words);
	if (argc == 1 && (!c || c->name[0])) {
		ax_help_group(stdout, prog, g);
		return finish_stdout();
	}
	if (!c)
		return unknown_verb(g, argv[1], AX_FMT_TABLE);
	ax_help_command(stdout, prog, c);
	return finish_stdout();
}

static int run_command(const ax_command_spec *cmd, int argc, char **argv, const ax_globals *g)
{
	ax_args args;
	ax_error err;
	ax_ctx ctx;
	ax_config cfg;
	ax_result res;
	ax_render_opts ro;
	ax_stream stream;
	char *home = NULL, *path = NULL;
	int status;

	ax_error_clear(&err);
	memset(&res, 0, sizeof res);
	memset(&cfg, 0, sizeof cfg);
	if (ax_args_parse(cmd, argc, argv, &args, &err) < 0) {
		print_error(&err, args.format, cmd, NULL);
		return AX_EXIT_USAGE;
	}
	if (args.help) {
		ax_help_command(stdout, prog, cmd);
		ax_args_free(&args);
		return finish_stdout();
	}
	home = allox_home();
	memset(&ctx, 0, sizeof ctx);
	ctx.home = home;
	ctx.argv0 = prog;
	ctx.globals = g;
	ctx.err = stderr;
	ctx.verbose = g->verbose;
	ctx.interrupted = &interrupted;
	ctx.catch_interrupts = catch_interrupts;
	ctx.registry = &registry;
	status = -1;
	if (!home) {
		ax_fail(&err, AX_CODE_IO, "out of memory");
		goto out;
	}
	if (!(cmd->flags & AX_CMD_NO_CONFIG)) {
		if (ax_config_path(home, g->profile, g->config_path, &path, &err) < 0 ||
		    ax_config_load(&cfg, path, &g->flags, &err) < 0)
			goto out;
		ctx.config = &cfg;
	}
	ro = render_opts(args.format, g, ctx.config);
	ax_stream_init(&stream, stdout, stderr, &ro);
	ctx.stream = &stream;
	status = ax_dispatch(&ctx, &args, &res, &err);
	if (status == AX_EXIT_OK)
		ax_idcache_note(&ctx, &args, &res);
	if (status >= 0 && ax_render_result(stdout, &res, &ro, &err) < 0)
		status = -1;
	ax_stream_free(&stream);
out:
	if (status < 0) {
		print_error(&err, args.format, err.exit_code == AX_EXIT_USAGE ? cmd : NULL, NULL);
		status = err.exit_code ? err.exit_code : AX_EXIT_FAILURE;
	}
	json_decref(res.data);
	json_decref(res.human);
	free(res.text);
	ax_config_free(&cfg);
	ax_args_free(&args);
	free(path);
	free(home);
	if (finish_stdout() != AX_EXIT_OK && status == AX_EXIT_OK)
		status = AX_EXIT_FAILURE;
	return status;
}

/* __commands and __complete (src/cli/hidden.h): for tools, not in help. */
static int hidden_command(const ax_globals *g, int argc, char **argv)
{
	char *home = allox_home();
	int rc = home ? ax_hidden_main(&registry, g, home, argc, argv, stdout, stderr) : AX_EXIT_FAILURE;

	free(home);
	return rc;
}

int main(int argc, char **argv)
{
	ax_globals g;
	ax_error err;
	const ax_group_spec *group;
	const ax_command_spec *cmd;
	int used, words;

	ensure_std_fds();
	/* Only the character set: output widths and the TUI need it. Messages
	 * stay English throughout (strerror's too), and numbers keep '.', as
	 * data formats want; loading every category cost 12 files per command. */
	setlocale(LC_CTYPE, "");
	/* A closed pipe must be a reported write error (exit 1), not a silent death. */
	signal(SIGPIPE, SIG_IGN);

	argc--;
	argv++;
	ax_error_clear(&err);
	if (ax_globals_parse(argc, argv, &g, &used, &err) < 0) {
		print_error(&err, format_asked(argc, argv), NULL, NULL);
		return AX_EXIT_USAGE;
	}
	argc -= used;
	argv += used;
	if (g.version) {
		printf("%s %s\n", prog, PACKAGE_VERSION);
		return finish_stdout();
	}
	/* No arguments on a terminal: the interactive shell. */
	if (argc == 0 && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) &&
	    (cmd = ax_group_verb(&ax_group_shell, 0, argv, &words)))
		return run_command(cmd, 0, argv, &g);
	if (argc == 0) {
		ax_help_root(stdout, prog, &registry);
		return finish_stdout();
	}
	if (strcmp(argv[0], "help") == 0)
		return help_command(argc - 1, argv + 1);
	if (ax_hidden_verb(argv[0]))
		return hidden_command(&g, argc, argv);
	group = ax_registry_group(&registry, argv[0]);
	if (!group)
		return unknown_group(argv[0], format_asked(argc, argv));
	cmd = ax_group_verb(group, argc - 1, argv + 1, &words);
	if (!cmd) {
		if (argc == 1 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || g.help) {
			ax_help_group(stdout, prog, group);
			return finish_stdout();
		}
		return unknown_verb(group, argv[1], format_asked(argc, argv));
	}
	if (g.help) {
		ax_help_command(stdout, prog, cmd);
		return finish_stdout();
	}
	return run_command(cmd, argc - 1 - words, argv + 1 + words, &g);
}
