/* allox-agent: the init (PID 1) of a local sandbox. It serves the execd and
 * AIO runtime APIs on a socket the engine bound for it, runs the sandbox's
 * entrypoint, reaps every orphan and takes everything down on SIGTERM.
 *
 *   allox-agent --listen-fd N --token-fd M --sandbox-id ID [--status-file PATH]
 *               [--log-rotate-fd K --log-max BYTES] [--] [ENTRYPOINT ARGV...]
 *
 * With --log-rotate-fd, stderr is the sandbox's console log and K the file
 * it rotates into: both are kept under BYTES (console.h).
 *
 * Exit status: 0 after SIGTERM/SIGINT, 2 bad arguments, 1 runtime failure. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <arpa/inet.h>

#include "agent/aio/aio_session.h"
#include "agent/core/auth.h"
#include "lib/close_fds.h"
#include "agent/core/console.h"
#include "lib/ax_error.h"
#include "agent/execd/execd_registry.h"
#include "agent/execd/execd_session.h"
#include "agent/core/ext_loader.h"
#include "agent/core/log.h"
#include "agent/core/netwait.h"
#include "agent/core/reaper.h"
#include "agent/core/route.h"
#include "agent/core/server.h"
#include "agent/core/supervise.h"
#include "lib/timeutil.h"

#ifdef PACKAGE_VERSION
#define AG_VERSION PACKAGE_VERSION
#else
#define AG_VERSION "dev"
#endif

/* How long the entrypoint gets between SIGTERM and SIGKILL. */
#define GRACE_MS 2000
/* How long to wait for killed processes to be reaped, so the status file
 * records how the entrypoint ended. */
#define REAP_AFTER_KILL_MS 1000

static const char usage_text[] =
	"usage: allox-agent --listen-fd N --token-fd M --sandbox-id ID [--status-file PATH]\n"
	"                   [--log-rotate-fd K --log-max BYTES] [--net-ready-fd R] [--cdp-listen-fd C]\n"
	"                   [--memory-max BYTES] [--cpu-max MILLICORES] [--] [ENTRYPOINT ARGV...]\n";

struct options {
	int listen_fd;
	int net_ready_fd;
	int cdp_listen_fd;
	int token_fd;
	int log_rotate_fd;
	long long log_max;
	long long memory_max;   /* the sandbox's limits, for /metrics; 0 = none */
	long long cpu_millis;
	const char *sandbox_id;
	const char *status_file;
	char **entrypoint;
};

/* The agent's whole state: owned here, lent to the parts that need it. */
struct agent {
	struct options opt;
	char token[AG_TOKEN_MAX + 1];
	struct ag_ctx ctx;
	struct ag_reaper reaper;
	int have_reaper;
	struct aio_sessions *aio_sessions;
	struct execd_registry *execd;
	struct execd_sessions *sessions;
	struct ag_ext *ext;         /* Jupyter, browser, MCP: loaded on first use */
	char *ext_path;
	struct ag_supervisor sup;
	struct ag_server server;
	struct ag_console console;
	struct ag_netwait net;
	int sigfd;
};

static int parse_fd(const char *opt, const char *s, int *fd, ax_error *err)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > INT_MAX)
		return ax_fail(err, AX_CODE_USAGE, "%s: not a file descriptor: %s", opt, s);
	*fd = (int)v;
	return 0;
}

static int parse_count(const char *opt, const char *s, long long *out, ax_error *err)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < 1)
		return ax_fail(err, AX_CODE_USAGE, "%s: not a positive whole number: %s", opt, s);
	*out = v;
	return 0;
}

/* 1 when the caller asked for --help or --version (already answered). */
static int parse_args(int argc, char **argv, struct options *o, ax_error *err)
{
	enum { OPT_LISTEN = 256, OPT_TOKEN, OPT_ID, OPT_STATUS, OPT_ROTATE, OPT_MAX, OPT_NET, OPT_CDP, OPT_MEMORY, OPT_CPU, OPT_VERSION };
	static const struct option longs[] = {
		{ "listen-fd", required_argument, NULL, OPT_LISTEN },
		{ "token-fd", required_argument, NULL, OPT_TOKEN },
		{ "log-rotate-fd", required_argument, NULL, OPT_ROTATE },
		{ "log-max", required_argument, NULL, OPT_MAX },
		{ "net-ready-fd", required_argument, NULL, OPT_NET },
		{ "cdp-listen-fd", required_argument, NULL, OPT_CDP },
		{ "memory-max", required_argument, NULL, OPT_MEMORY },
		{ "cpu-max", required_argument, NULL, OPT_CPU },
		{ "sandbox-id", required_argument, NULL, OPT_ID },
		{ "status-file", required_argument, NULL, OPT_STATUS },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->listen_fd = o->token_fd = o->log_rotate_fd = o->net_ready_fd = o->cdp_listen_fd = -1;
	o->status_file = AG_STATUS_FILE_DEFAULT;
	opterr = 0;
	/* "+": the first operand starts the entrypoint, whose options are its own;
	 * ":": report a missing value apart from an unknown option. */
	while ((c = getopt_long(argc, argv, "+:h", longs, NULL)) != -1) {
		switch (c) {
		case OPT_LISTEN:
			if (parse_fd("--listen-fd", optarg, &o->listen_fd, err) < 0)
				return -1;
			break;
		case OPT_TOKEN:
			if (parse_fd("--token-fd", optarg, &o->token_fd, err) < 0)
				return -1;
			break;
		case OPT_ROTATE:
			if (parse_fd("--log-rotate-fd", optarg, &o->log_rotate_fd, err) < 0)
				return -1;
			break;
		case OPT_NET:
			if (parse_fd("--net-ready-fd", optarg, &o->net_ready_fd, err) < 0)
				return -1;
			break;
		case OPT_CDP:
			if (parse_fd("--cdp-listen-fd", optarg, &o->cdp_listen_fd, err) < 0)
				return -1;
			break;
		case OPT_MAX:
			if (parse_count("--log-max", optarg, &o->log_max, err) < 0)
				return -1;
			break;
		case OPT_MEMORY:
			if (parse_count("--memory-max", optarg, &o->memory_max, err) < 0)
				return -1;
			break;
		case OPT_CPU:
			if (parse_count("--cpu-max", optarg, &o->cpu_millis, err) < 0)
				return -1;
			break;
		case OPT_ID:
			o->sandbox_id = optarg;
			break;
		case OPT_STATUS:
			o->status_file = optarg;
			break;
		case OPT_VERSION:
			printf("allox-agent %s\n", AG_VERSION);
			return 1;
		case 'h':
			fputs(usage_text, stdout);
			return 1;
		case ':':
			return ax_fail(err, AX_CODE_USAGE, "%s needs a value", argv[optind - 1]);
		default:
			return ax_fail(err, AX_CODE_USAGE, "unknown option: %s", argv[optind - 1]);
		}
	}
	o->entrypoint = argv + optind;
	if (o->listen_fd < 0)
		return ax_fail(err, AX_CODE_USAGE, "--listen-fd is required");
	/* Never serve without a token: the API is a shell. */
	if (o->token_fd < 0)
		return ax_fail(err, AX_CODE_USAGE, "--token-fd is required");
	if (o->token_fd == o->listen_fd)
		return ax_fail(err, AX_CODE_USAGE, "--listen-fd and --token-fd must differ");
	if ((o->log_rotate_fd >= 0) != (o->log_max > 0))
		return ax_fail(err, AX_CODE_USAGE, "--log-rotate-fd and --log-max go together");
	if (o->log_rotate_fd >= 0 &&
	    (o->log_rotate_fd <= STDERR_FILENO || o->log_rotate_fd == o->listen_fd || o->log_rotate_fd == o->token_fd))
		return ax_fail(err, AX_CODE_USAGE, "--log-rotate-fd must be above 2 and differ from the others");
	if (!o->sandbox_id || !*o->sandbox_id)
		return ax_fail(err, AX_CODE_USAGE, "--sandbox-id is required");
	if (!*o->status_file || o->status_file[0] != '/')
		return ax_fail(err, AX_CODE_USAGE, "--status-file must be an absolute path");
	return 0;
}

/* Files opened later must never land on 0-2, where a child would take them
 * for its standard streams. */
static void occupy_std_fds(void)
{
	int fd;

	for (fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) < 0)
			return;
}

/* Close every fd above stderr but the N in KEEP (-1 for none): what the
 * sandbox's setup handed down by accident (bubblewrap keeps the user
 * namespace fd it joined open, for one) must not reach the commands we run. */
static void close_strays(int *keep, size_t n)
{
	ax_close_fds_except(keep, n);
}

/* bubblewrap hands its kept capabilities down as inheritable and ambient
 * too. Root's programs get them from the bounding set at exec anyway; what
 * those two sets add is capabilities for programs that are not root's
 * (CVE-2022-24769 in Moby): clear both, as Docker does. */
static void clear_inherited_caps(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (syscall(SYS_capget, &hdr, data) == 0) {
		data[0].inheritable = data[1].inheritable = 0;
		syscall(SYS_capset, &hdr, data);
	}
}

/* Check FD is a listening TCP socket, mark it CLOEXEC and describe it in WHERE. */
static int check_listen_fd(int fd, char *where, size_t where_size, ax_error *err)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t len = sizeof ss;
	int listening = 0;
	socklen_t optlen = sizeof listening;
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;

	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &optlen) < 0)
		return ax_fail(err, AX_CODE_USAGE, "--listen-fd %d: %s", fd, strerror(errno));
	if (!listening)
		return ax_fail(err, AX_CODE_USAGE, "--listen-fd %d: socket is not listening", fd);
	if (getsockname(fd, (struct sockaddr *)&ss, &len) == 0) {
		if (ss.ss_family == AF_INET) {
			const struct sockaddr_in *in = (const struct sockaddr_in *)&ss;

			inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
			port = ntohs(in->sin_port);
		} else if (ss.ss_family == AF_INET6) {
			const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&ss;

			inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
			port = ntohs(in6->sin6_port);
		}
	}
	snprintf(where, where_size, "%s:%u", host, port);
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		return ax_fail(err, AX_CODE_IO, "--listen-fd %d: %s", fd, strerror(errno));
	return 0;
}

/* Route the signals PID 1 acts on to a signalfd. Blocked before any thread
 * starts, so every thread inherits the mask and only the main loop sees them. */
static int signals_to_fd(ax_error *err)
{
	struct sigaction ign;
	sigset_t set;
	int fd;

	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	/* Writes to closed pipes and sockets must fail with EPIPE, not kill init. */
	sigaction(SIGPIPE, &ign, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return ax_fail(err, AX_CODE_SIGNAL, "sigprocmask: %s", strerror(errno));
	fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (fd < 0)
		return ax_fail(err, AX_CODE_SIGNAL, "signalfd: %s", strerror(errno));
	return fd;
}

static void on_orphan_reaped(pid_t pid, int status, void *arg)
{
	struct agent *a = arg;
	ax_error err;

	ax_error_clear(&err);
	if (ag_supervise_child_exited(&a->sup, pid, status, &err) < 0)
		ag_log("%s", err.message);
}

static void reap(struct agent *a)
{
	ag_reaper_reap(&a->reaper, on_orphan_reaped, a);
}

/* Wait up to TIMEOUT_MS for signals; reap on SIGCHLD. Returns the first
 * SIGTERM/SIGINT seen, 0 if none. */
static int wait_signals(struct agent *a, int timeout_ms)
{
	struct pollfd p = { .fd = a->sigfd, .events = POLLIN };
	struct signalfd_siginfo si;
	int stop = 0;

	if (poll(&p, 1, timeout_ms) <= 0)
		return 0;
	while (read(a->sigfd, &si, sizeof si) == (ssize_t)sizeof si)
		if ((si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT) && !stop)
			stop = (int)si.ssi_signo;
	/* SIGCHLDs coalesce, so reap whatever woke us. */
	reap(a);
	return stop;
}

static int is_init(void)
{
	return getpid() == 1;
}

/* Anything left to wait for: the entrypoint's group, or as PID 1 any child. */
static int children_left(const struct agent *a)
{
	siginfo_t si;

	if (ag_supervise_signal(&a->sup, 0) == 0)
		return 1;
	memset(&si, 0, sizeof si);
	return is_init() && waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0;
}

/* Signal the entrypoint's group and, as PID 1, every process of the sandbox
 * (kill(-1) outside a PID namespace would hit all of the user's processes). */
static void signal_all(const struct agent *a, int sig)
{
	ag_supervise_signal(&a->sup, sig);
	if (is_init())
		kill(-1, sig);
}

static void wait_children(struct agent *a, int budget_ms)
{
	long long deadline = ax_mono_ms() + budget_ms;

	while (children_left(a)) {
		long long left = deadline - ax_mono_ms();

		if (left <= 0)
			break;
		wait_signals(a, (int)left);
	}
}

static void terminate_children(struct agent *a)
{
	signal_all(a, SIGTERM);
	wait_children(a, GRACE_MS);
	if (!children_left(a))
		return;
	ag_log("processes still running %d s after SIGTERM: sending SIGKILL", GRACE_MS / 1000);
	signal_all(a, SIGKILL);
	wait_children(a, REAP_AFTER_KILL_MS);
}

static int run(struct agent *a, ax_error *err)
{
	char where[INET6_ADDRSTRLEN + 8];
	int sig = 0;

	if (check_listen_fd(a->opt.listen_fd, where, sizeof where, err) < 0)
		return -1;
	if (ag_token_read(a->opt.token_fd, a->token, err) < 0)
		return -1;
	/* Outside a PID namespace (tests, debugging) orphans of the entrypoint
	 * must still come to us to be reaped. */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	a->sigfd = signals_to_fd(err);
	if (a->sigfd < 0)
		return -1;
	if (ag_reaper_init(&a->reaper) < 0)
		return ax_fail(err, AX_CODE_NOMEM, "cannot set up the reaper");
	a->have_reaper = 1;
	a->aio_sessions = aio_sessions_new();
	a->execd = execd_registry_new();
	a->sessions = execd_sessions_new();
	if (!a->aio_sessions || !a->execd || !a->sessions)
		return ax_fail(err, AX_CODE_NOMEM, "cannot set up the command registries");
	/* MCP: servers from the create request's extensions (the engine passes
	 * them in ALLOX_AGENT_MCP_SERVERS). Test hooks: ALLOX_AGENT_MCP_NO_BRIDGE=1
	 * hides the REST bridge (the client's /mcp fallback),
	 * ALLOX_AGENT_MCP_TEST_CLIENT_CAPABILITIES declares capabilities to the
	 * servers (so they send the requests we refuse). */
	{
		const char *no_bridge = getenv("ALLOX_AGENT_MCP_NO_BRIDGE");
		struct ag_ext_config conf = {
			.mcp_servers = getenv("ALLOX_AGENT_MCP_SERVERS"),
			.mcp_bridge = !(no_bridge && strcmp(no_bridge, "1") == 0),
			.mcp_test_caps = getenv("ALLOX_AGENT_MCP_TEST_CLIENT_CAPABILITIES"),
			.cdp_listen_fd = a->opt.cdp_listen_fd,
		};

		a->ext = a->ext_path ? ag_ext_new(a->ext_path, &conf) : NULL;
		if (!a->ext)
			return ax_fail(err, AX_CODE_NOMEM, "cannot set up the extension module's loader");
	}
	a->ctx = (struct ag_ctx){
		.sandbox_id = a->opt.sandbox_id,
		.version = AG_VERSION,
		.token = a->token,
		.token_len = strlen(a->token),
		.reaper = &a->reaper,
		.aio_sessions = a->aio_sessions,
		.execd = a->execd,
		.sessions = a->sessions,
		.ext = a->ext,
		.net = &a->net,
		.memory_max = a->opt.memory_max,
		.cpu_millis = a->opt.cpu_millis,
		.started = time(NULL),
	};
	ag_log("allox-agent %s for sandbox %s (pid %d)", AG_VERSION, a->opt.sandbox_id, (int)getpid());
	/* The entrypoint is forked first, while the agent has a single thread,
	 * so the fork copies no other thread's locks; its exec is confirmed once
	 * the agent serves, off the path to the sandbox's readiness. */
	ag_supervise_start(&a->sup, a->opt.status_file, a->opt.entrypoint, ag_console_out_fd(&a->console));
	if (ag_console_start(&a->console, err) < 0) {
		terminate_children(a);
		return -1;
	}
	if (ag_server_start(&a->server, a->opt.listen_fd, &a->ctx, ag_routes, err) < 0) {
		terminate_children(a);
		return -1;
	}
	if (ag_supervise_confirm(&a->sup, err) < 0) {
		ag_server_stop(&a->server);
		signal_all(a, SIGKILL);
		return -1;
	}
	ag_log("serving on %s", where);
	while (!sig)
		sig = wait_signals(a, -1);
	ag_log("received %s: shutting down", sig == SIGTERM ? "SIGTERM" : "SIGINT");
	/* Refuse new connections first; requests in flight may be streaming a
	 * child's output and end when the children do. */
	ag_server_quiesce(&a->server);
	terminate_children(a);
	ag_server_stop(&a->server);
	ag_log("stopped");
	return 0;
}

int main(int argc, char **argv)
{
	struct agent a;
	ax_error err;
	int rc;

	/* Nothing else inside may ptrace us or open our /proc files (fds,
	 * memory, environ): processes of the sandbox run as our uid, and we
	 * hold the console log's host fds and the token. They lack
	 * CAP_SYS_PTRACE, which alone overrides this; exec gives our children
	 * their dumpability back. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	memset(&a, 0, sizeof a);
	a.sigfd = -1;
	a.console.log_fd = -1;
	ax_error_clear(&err);
	occupy_std_fds();
	rc = parse_args(argc, argv, &a.opt, &err);
	if (rc > 0)
		return AX_EXIT_OK;
	if (rc < 0) {
		ag_log("%s", err.message);
		fputs(usage_text, stderr);
		return err.exit_code;
	}
	{
		int keep[] = { a.opt.listen_fd, a.opt.token_fd, a.opt.log_rotate_fd, a.opt.net_ready_fd,
				a.opt.cdp_listen_fd };

		close_strays(keep, sizeof keep / sizeof keep[0]);
	}
	/* Never inherited by what we start: only we wait on it. */
	if (a.opt.net_ready_fd >= 0 && fcntl(a.opt.net_ready_fd, F_SETFD, FD_CLOEXEC) < 0)
		a.opt.net_ready_fd = -1;
	if (a.opt.cdp_listen_fd >= 0 && fcntl(a.opt.cdp_listen_fd, F_SETFD, FD_CLOEXEC) < 0)
		a.opt.cdp_listen_fd = -1;
	ag_netwait_init(&a.net, a.opt.net_ready_fd);
	clear_inherited_caps();
	rc = ag_console_open(&a.console, a.opt.log_rotate_fd, a.opt.log_max, &err);
	if (rc == 0) {
		a.ext_path = ag_ext_path(argv[0]);
		rc = run(&a, &err);
	}
	if (rc < 0)
		ag_log("%s", err.message);
	ag_console_close(&a.console);
	/* The server has stopped: no request can reach these any more. */
	aio_sessions_free(a.aio_sessions);
	execd_registry_free(a.execd);
	execd_sessions_free(a.sessions, a.have_reaper ? &a.reaper : NULL);
	ag_ext_free(a.ext);
	free(a.ext_path);
	if (a.have_reaper)
		ag_reaper_destroy(&a.reaper);
	if (a.sigfd >= 0)
		close(a.sigfd);
	ag_netwait_destroy(&a.net);
	return rc < 0 ? err.exit_code : AX_EXIT_OK;
}
