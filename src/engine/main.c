/* allox-engine: the embedded OpenSandbox lifecycle server for one ALLOX_HOME. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <netdb.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <microhttpd.h>

#include "engine/engine.h"
#include "lib/quantity.h"
#include "lib/fs.h"
#include "engine/egress/egress.h"
#include "engine/http_server.h"
#include "engine/proxy.h"
#include "engine/runtime/runtime.h"

#ifndef LIBEXECDIR
#define LIBEXECDIR "/usr/local/libexec"
#endif

typedef struct options {
	const char *home;
	const char *listen;
	const char *api_key_file;
	bool insecure;
	bool foreground;
	unsigned uid_base, uid_ranges;
	bool nesting;
	long long console_log_max;
	const char *default_limit[AX_LIMIT_N];
	const char *host_prefixes[17];   /* --allow-host-volumes, NULL-terminated */
	size_t n_host_prefixes;
} options;

/* Limits of sandboxes whose create names none (see allox-engine(8)): the
 * SDKs' and allox-cli's memory default, and a pids bound that stops a fork
 * bomb long before the host's pid space runs out. */
#define DEFAULT_MEMORY "2Gi"
#define DEFAULT_PIDS "1024"
/* A bound on the writable layer, so that no sandbox fills the host's disk
 * by default; its image is sparse, so an unused bound costs nothing. */
#define DEFAULT_DISK "10Gi"

/* The option that sets each default. */
static const char *const default_flag[AX_LIMIT_N] = { "--default-cpu", "--default-memory", "--default-pids",
						       "--default-disk" };

static int parse_uint(const char *s, unsigned min, unsigned max, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v < min || v > max)
		return -1;
	*out = (unsigned)v;
	return 0;
}

time_t ax_engine_now(const ax_engine *e)
{
	time_t now = time(NULL);
	FILE *f;
	long long skew = 0;

	/* Tests move the engine's clock forward instead of sleeping through a timeout. */
	if (e->clock_file && (f = fopen(e->clock_file, "r"))) {
		if (fscanf(f, "%lld", &skew) != 1)
			skew = 0;
		fclose(f);
	}
	return now + (time_t)skew;
}

void ax_engine_log(ax_engine *e, const char *fmt, ...)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	va_list ap;

	if (!e->log)
		return;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
	va_start(ap, fmt);
	fprintf(e->log, "%s ", stamp);
	vfprintf(e->log, fmt, ap);
	fputc('\n', e->log);
	fflush(e->log);
	va_end(ap);
}

static void usage(FILE *f)
{
	fputs("Usage: allox-engine [--home DIR] [--listen HOST:PORT [--api-key-file FILE | --insecure]] [--foreground]\n"
	      "                    [--default-cpu CPUS] [--default-memory SIZE] [--default-pids N]\n"
	      "                    [--default-disk SIZE]\n"
	      "                    [--uid-base UID] [--uid-ranges N] [--allow-nesting] [--console-log-max SIZE]\n"
	      "                    [--allow-host-volumes PREFIX]...\n"
	      "\n"
	      "The local OpenSandbox lifecycle server behind allox-cli. It serves a unix socket in\n"
	      "$ALLOX_HOME/run/engine.sock (and TCP with --listen), runs sandboxes with bubblewrap and\n"
	      "keeps their state in $ALLOX_HOME/engine. allox-cli starts it when needed.\n"
	      "\n"
	      "  --home DIR           ALLOX_HOME to serve (default $ALLOX_HOME or ~/.allox)\n"
	      "  --listen HOST:PORT   also serve TCP; requires the OPEN-SANDBOX-API-KEY header\n"
	      "  --api-key-file FILE  the API key for TCP (else $OPEN_SANDBOX_API_KEY)\n"
	      "  --insecure           serve TCP without an API key\n"
	      "  --foreground         do not detach; log to stderr too\n"
	      "  --default-cpu CPUS   cpu limit of sandboxes that ask for none: 1, 0.5, 500m...\n"
	      "                       or none (default: none)\n"
	      "  --default-memory SIZE\n"
	      "                       memory limit of sandboxes that ask for none, or none\n"
	      "                       (default: " DEFAULT_MEMORY ")\n"
	      "  --default-pids N     process limit of sandboxes that ask for none, or none\n"
	      "                       (default: " DEFAULT_PIDS ")\n"
	      "  --default-disk SIZE  size of the writable layer of sandboxes that ask for none, or\n"
	      "                       none (default: " DEFAULT_DISK ")\n"
	      "  --uid-base UID       first host uid of the sandboxes' uid ranges (default 1073741824)\n"
	      "  --uid-ranges N       how many ranges of 65536 uids to use from there (default 4096)\n"
	      "  --allow-nesting      let sandboxes create user namespaces (nested sandboxes)\n"
	      "  --allow-host-volumes PREFIX\n"
	      "                       let sandboxes mount host directories below PREFIX (repeatable;\n"
	      "                       default: no host volumes)\n"
	      "  --console-log-max SIZE\n"
	      "                       cap of each sandbox's console.log and of console.log.1, which\n"
	      "                       keeps the output before (default 8Mi; 64Ki to 1Ti)\n"
	      "  --version, --help\n", f);
}

/* The --allow-host-volumes prefixes, canonical (host_path.h compares
 * against them), into E; -1 with a message for one that is no directory. */
static int host_prefixes(const options *o, ax_engine *e)
{
	e->host_prefixes = calloc(o->n_host_prefixes + 1, sizeof *e->host_prefixes);
	if (!e->host_prefixes)
		return -1;
	for (size_t i = 0; i < o->n_host_prefixes; i++) {
		struct stat st;

		e->host_prefixes[i] = realpath(o->host_prefixes[i], NULL);
		if (!e->host_prefixes[i] || stat(e->host_prefixes[i], &st) < 0 || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "allox-engine: --allow-host-volumes %s: not a directory\n", o->host_prefixes[i]);
			return -1;
		}
	}
	return 0;
}

static int parse_args(int argc, char **argv, options *o)
{
	static const struct option longs[] = {
		{ "home", required_argument, NULL, 'H' },
		{ "listen", required_argument, NULL, 'l' },
		{ "api-key-file", required_argument, NULL, 'k' },
		{ "insecure", no_argument, NULL, 'i' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "default-cpu", required_argument, NULL, 'C' },
		{ "default-memory", required_argument, NULL, 'M' },
		{ "default-pids", required_argument, NULL, 'P' },
		{ "default-disk", required_argument, NULL, 'D' },
		{ "uid-base", required_argument, NULL, 'u' },
		{ "uid-ranges", required_argument, NULL, 'r' },
		{ "allow-nesting", no_argument, NULL, 'N' },
		{ "allow-host-volumes", required_argument, NULL, 'v' },
		{ "console-log-max", required_argument, NULL, 'c' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof *o);
	o->default_limit[AX_LIMIT_CPU] = "none";
	o->default_limit[AX_LIMIT_MEMORY] = DEFAULT_MEMORY;
	o->default_limit[AX_LIMIT_PIDS] = DEFAULT_PIDS;
	o->default_limit[AX_LIMIT_DISK] = DEFAULT_DISK;
	while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
		switch (c) {
		case 'H': o->home = optarg; break;
		case 'l': o->listen = optarg; break;
		case 'k': o->api_key_file = optarg; break;
		case 'i': o->insecure = true; break;
		case 'f': o->foreground = true; break;
		case 'C': o->default_limit[AX_LIMIT_CPU] = optarg; break;
		case 'M': o->default_limit[AX_LIMIT_MEMORY] = optarg; break;
		case 'P': o->default_limit[AX_LIMIT_PIDS] = optarg; break;
		case 'D': o->default_limit[AX_LIMIT_DISK] = optarg; break;
		case 'N': o->nesting = true; break;
		case 'v':
			if (o->n_host_prefixes + 1 >= sizeof o->host_prefixes / sizeof o->host_prefixes[0]) {
				fprintf(stderr, "allox-engine: at most 16 --allow-host-volumes\n");
				return -1;
			}
			o->host_prefixes[o->n_host_prefixes++] = optarg;
			break;
		case 'u':
			if (parse_uint(optarg, AX_UIDRANGE_SIZE, UINT_MAX - AX_UIDRANGE_SIZE, &o->uid_base) < 0) {
				fprintf(stderr, "allox-engine: --uid-base: expected a uid from %u to %u, got '%s'\n",
					AX_UIDRANGE_SIZE, UINT_MAX - AX_UIDRANGE_SIZE, optarg);
				return -1;
			}
			break;
		case 'r':
			if (parse_uint(optarg, 1, 65535, &o->uid_ranges) < 0) {
				fprintf(stderr, "allox-engine: --uid-ranges: expected a count from 1 to 65535, got '%s'\n",
					optarg);
				return -1;
			}
			break;
		case 'c':
			o->console_log_max = ax_quantity_bytes(optarg);
			if (o->console_log_max < AX_CONSOLE_LOG_MAX_MIN || o->console_log_max > AX_CONSOLE_LOG_MAX_MAX) {
				fprintf(stderr, "allox-engine: --console-log-max: expected a size from 64Ki to 1Ti, got '%s'\n",
					optarg);
				return -1;
			}
			break;
		case 'V': printf("allox-engine %s\n", PACKAGE_VERSION); exit(0);
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "allox-engine: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (!o->uid_base)
		o->uid_base = AX_UIDRANGE_FIRST;
	if (!o->uid_ranges)
		o->uid_ranges = AX_UIDRANGE_COUNT;
	if (!o->console_log_max)
		o->console_log_max = AX_CONSOLE_LOG_MAX_DEFAULT;
	if ((unsigned long long)o->uid_base + (unsigned long long)o->uid_ranges * AX_UIDRANGE_SIZE > UINT_MAX) {
		fprintf(stderr, "allox-engine: %u uid ranges from %u go past the last uid\n", o->uid_ranges, o->uid_base);
		return -1;
	}
	for (int k = 0; k < AX_LIMIT_N; k++) {
		const char *v = o->default_limit[k], *why = "too long";
		long long n;

		if (!default_flag[k] || strcmp(v, "none") == 0)
			continue;
		if (strlen(v) >= sizeof ((ax_engine *)0)->default_limit[k] ||
		    ax_limit_parse((ax_limit_kind)k, v, &n, &why) < 0) {
			fprintf(stderr, "allox-engine: invalid value '%s' for %s: %s (or none)\n", v, default_flag[k], why);
			return -1;
		}
	}
	return 0;
}

static char *find_agent(void)
{
	const char *env = getenv("ALLOX_AGENT");
	char self[PATH_MAX], *p;
	ssize_t n;

	if (env && *env)
		return strdup(env);
	n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = '\0';
		if (strrchr(self, '/'))
			*strrchr(self, '/') = '\0';
		if (asprintf(&p, "%s/allox-agent", self) >= 0) {
			if (access(p, X_OK) == 0)
				return p;
			free(p);
		}
	}
	return strdup(LIBEXECDIR "/allox-cli/allox-agent");
}

static int unix_listener(const char *path, ax_error *err)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	mode_t old;

	if (fd < 0)
		return ax_fail(err, AX_CODE_IO, "socket: %s", strerror(errno));
	if (strlen(path) >= sizeof a.sun_path) {
		close(fd);
		return ax_fail(err, AX_CODE_IO, "socket path too long: %s", path);
	}
	snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
	/* We hold the engine lock, so a socket file left here is stale. */
	unlink(path);
	old = umask(0177);
	if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, SOMAXCONN) < 0) {
		umask(old);
		close(fd);
		return ax_fail(err, AX_CODE_IO, "cannot listen on %s: %s", path, strerror(errno));
	}
	umask(old);
	chmod(path, 0600);
	return fd;
}

static int tcp_listener(const char *hostport, ax_error *err)
{
	char host[256];
	const char *colon = strrchr(hostport, ':');
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE };
	struct addrinfo *res = NULL;
	int fd = -1, one = 1, rc;

	if (!colon || colon == hostport || (size_t)(colon - hostport) >= sizeof host)
		return ax_fail(err, AX_CODE_USAGE, "--listen needs HOST:PORT, got '%s'", hostport);
	snprintf(host, sizeof host, "%.*s", (int)(colon - hostport), hostport);
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = '\0';
	}
	rc = getaddrinfo(host, colon + 1, &hints, &res);
	if (rc != 0)
		return ax_fail(err, AX_CODE_USAGE, "--listen %s: %s", hostport, gai_strerror(rc));
	fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
	    bind(fd, res->ai_addr, res->ai_addrlen) < 0 || listen(fd, SOMAXCONN) < 0) {
		rc = errno;
		if (fd >= 0)
			close(fd);
		freeaddrinfo(res);
		return ax_fail(err, AX_CODE_IO, "cannot listen on %s: %s", hostport, strerror(rc));
	}
	freeaddrinfo(res);
	return fd;
}

static char *read_key(const options *o, ax_error *err)
{
	const char *env = getenv("OPEN_SANDBOX_API_KEY");
	char *key = NULL;
	size_t len;

	if (!env || !*env)
		env = getenv("OPENSANDBOX_SERVER_API_KEY");
	if (o->api_key_file) {
		int rc = ax_read_file(o->api_key_file, &key, &len, err);

		if (rc != 0) {
			if (rc == 1)
				ax_fail(err, AX_CODE_IO, "API key file %s does not exist", o->api_key_file);
			return NULL;
		}
		while (len && (key[len - 1] == '\n' || key[len - 1] == '\r' || key[len - 1] == ' '))
			key[--len] = '\0';
	} else if (env && *env) {
		key = strdup(env);
	}
	if (!key || !*key) {
		free(key);
		ax_fail(err, AX_CODE_USAGE,
			"--listen needs an API key (--api-key-file or OPEN_SANDBOX_API_KEY), or --insecure");
		return NULL;
	}
	return key;
}

/* Each connection waiting for its request header holds a descriptor
 * (listen_gate.h), so take as many as the hard limit allows; *WAS gets the
 * limits as given, for the sandboxes (runtime_spawn.c). */
static void raise_nofile(struct rlimit *was)
{
	struct rlimit rl;

	memset(was, 0, sizeof *was);
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return;
	*was = rl;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		/* Should it fail, the gate holds fewer connections, that is all. */
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* Detach; the parent exits only once the child reports that it serves (or why it can't). */
static int daemonize(int *report_fd)
{
	int p[2];
	pid_t pid;
	char status[512];
	ssize_t n;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid > 0) {
		close(p[1]);
		n = read(p[0], status, sizeof status - 1);
		if (n <= 0)
			_exit(1);
		status[n] = '\0';
		if (status[0] == '0')
			_exit(0);
		fprintf(stderr, "allox-engine: %s\n", status + 1);
		_exit(status[0] == '2' ? 2 : 1);
	}
	close(p[0]);
	setsid();
	*report_fd = p[1];
	return 0;
}

static void report(int fd, int code, const char *msg)
{
	char buf[600];
	int n;

	if (fd < 0)
		return;
	n = snprintf(buf, sizeof buf, "%d%s", code, msg ? msg : "");
	if (write(fd, buf, (size_t)n) < 0) {
		/* The parent is gone; nothing else to tell. */
	}
	close(fd);
}

int main(int argc, char **argv)
{
	options o;
	ax_engine e;
	ax_error err;
	char *run_dir = NULL, *sock = NULL, *lock_path = NULL, *log_path = NULL;
	const char *h;
	int lock_fd, ufd, tfd = -1, report_fd = -1, devnull, status = 0;
	ax_http_server us = { 0 }, ts = { 0 };
	sigset_t set;

	if (parse_args(argc, argv, &o) < 0)
		return 2;
	memset(&e, 0, sizeof e);
	memset(&err, 0, sizeof err);
	raise_nofile(&e.nofile);
	h = o.home ? o.home : getenv("ALLOX_HOME");
	if (h && *h)
		e.home = strdup(h);
	else
		e.home = ax_path_join(getenv("HOME") ? getenv("HOME") : "/", ".allox");
	e.state_dir = e.home ? ax_path_join(e.home, "engine") : NULL;
	e.sandboxes_dir = e.state_dir ? ax_path_join(e.state_dir, "sandboxes") : NULL;
	e.snapshots_dir = e.state_dir ? ax_path_join(e.state_dir, "snapshots") : NULL;
	e.layers_dir = e.state_dir ? ax_path_join(e.state_dir, "layers") : NULL;
	e.volumes_dir = e.home ? ax_path_join(e.home, "volumes") : NULL;
	if (host_prefixes(&o, &e) < 0) {
		status = 2;
		goto out;
	}
	run_dir = e.home ? ax_path_join(e.home, "run") : NULL;
	sock = run_dir ? ax_path_join(run_dir, "engine.sock") : NULL;
	lock_path = run_dir ? ax_path_join(run_dir, "engine.lock") : NULL;
	log_path = e.home ? ax_path_join(e.home, "engine.log") : NULL;
	if (!e.sandboxes_dir || !e.snapshots_dir || !e.layers_dir || !sock || !lock_path || !log_path) {
		fprintf(stderr, "allox-engine: out of memory\n");
		status = 1;
		goto out;
	}
	e.clock_file = getenv("ALLOX_ENGINE_CLOCK_OFFSET_FILE");
	{
		const char *delay = getenv("ALLOX_ENGINE_TEST_CREATE_DELAY_MS");

		e.create_delay_ms = delay ? atol(delay) : 0;
	}
	for (int k = 0; k < AX_LIMIT_N; k++)
		if (strcmp(o.default_limit[k], "none") != 0)
			snprintf(e.default_limit[k], sizeof e.default_limit[k], "%s", o.default_limit[k]);
	e.agent_path = find_agent();
	e.uids.dir = AX_UIDRANGE_DIR;
	e.uids.first = o.uid_base;
	e.uids.count = o.uid_ranges;
	e.nesting = o.nesting;
	e.console_log_max = o.console_log_max;
	e.sandboxes = json_object();
	e.snapshots = json_object();
	e.capturing = json_object();
	pthread_mutex_init(&e.lock, NULL);
	pthread_cond_init(&e.captured, NULL);
	pthread_cond_init(&e.started, NULL);
	if (o.listen && !o.insecure && !(e.api_key = read_key(&o, &err))) {
		fprintf(stderr, "allox-engine: %s\n", err.message);
		status = err.exit_code;
		goto out;
	}
	if (!o.foreground && daemonize(&report_fd) < 0) {
		fprintf(stderr, "allox-engine: cannot detach: %s\n", strerror(errno));
		status = 1;
		goto out;
	}
	if (ax_mkdir_p(e.home, 0700, &err) < 0 || ax_mkdir_p(run_dir, 0700, &err) < 0 ||
	    ax_mkdir_p(e.state_dir, 0700, &err) < 0) {
		report(report_fd, 1, err.message);
		fprintf(stderr, "allox-engine: %s\n", err.message);
		status = 1;
		goto out;
	}
	chmod(run_dir, 0700);
	lock_fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lock_fd < 0 || flock(lock_fd, LOCK_EX | LOCK_NB) < 0) {
		/* Another engine serves this ALLOX_HOME: that is what the caller wanted. */
		report(report_fd, 0, NULL);
		if (o.foreground)
			fprintf(stderr, "allox-engine: already running for %s\n", e.home);
		status = o.foreground ? 1 : 0;
		goto out;
	}
	{
		/* For operators and tests: which process serves this home. */
		char *pid_path = NULL;
		char pid[32];

		snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
		if (asprintf(&pid_path, "%s/engine.pid", run_dir) >= 0)
			ax_write_file_replace(pid_path, pid, strlen(pid), 0600, &err);
		free(pid_path);
	}
	e.log = fopen(log_path, "a");
	if (e.log)
		fcntl(fileno(e.log), F_SETFD, FD_CLOEXEC);
	ax_engine_log(&e, "allox-engine %s starting for %s (agent %s)", PACKAGE_VERSION, e.home, e.agent_path);
	ax_engine_log(&e, "default limits: cpu %s, memory %s, pids %s, disk %s",
		      e.default_limit[AX_LIMIT_CPU][0] ? e.default_limit[AX_LIMIT_CPU] : "none",
		      e.default_limit[AX_LIMIT_MEMORY][0] ? e.default_limit[AX_LIMIT_MEMORY] : "none",
		      e.default_limit[AX_LIMIT_PIDS][0] ? e.default_limit[AX_LIMIT_PIDS] : "none",
		      e.default_limit[AX_LIMIT_DISK][0] ? e.default_limit[AX_LIMIT_DISK] : "none");
	if (access(e.agent_path, X_OK) < 0)
		ax_engine_log(&e, "warning: agent %s is not executable", e.agent_path);
	ax_rt_hold_freezer();
	if (ax_proxy_key_load(&e, &err) < 0 || ax_store_load(&e, &err) < 0 || ax_snapshots_load(&e, &err) < 0)
		goto fail;
	/* Sandboxes are detached from us, but their processes should come back
	 * here when they end so we can reap them (the host's init may not). */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	/* Before adoption, which restarts the resolvers of policed sandboxes. */
	e.egress = ax_egresses_new(getenv("ALLOX_ENGINE_HOSTS_FILE"));
	if (!e.egress) {
		ax_fail(&err, AX_CODE_NOMEM, "out of memory");
		goto fail;
	}
	ax_sandboxes_adopt(&e);
	ax_snapshots_adopt(&e);
	ufd = unix_listener(sock, &err);
	if (ufd < 0)
		goto fail;
	if (o.listen && (tfd = tcp_listener(o.listen, &err)) < 0)
		goto fail;
	/* Block the signals we wait for before any thread exists, so they reach sigtimedwait. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (ax_http_serve(&us, &e, ufd, false, &err) < 0)
		goto fail;
	if (tfd >= 0 && ax_http_serve(&ts, &e, tfd, !o.insecure, &err) < 0)
		goto fail;
	ax_engine_log(&e, "listening on %s%s%s%s", sock, o.listen ? " and " : "", o.listen ? o.listen : "",
		      o.listen && o.insecure ? " (insecure: no API key)" : "");
	if (!o.foreground) {
		devnull = open("/dev/null", O_RDWR);
		if (devnull >= 0) {
			dup2(devnull, 0);
			dup2(devnull, 1);
			dup2(devnull, 2);
			if (devnull > 2)
				close(devnull);
		}
	}
	report(report_fd, 0, NULL);
	for (;;) {
		struct timespec tick = { 1, 0 };
		int sig = sigtimedwait(&set, NULL, &tick);

		if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP)
			break;
		ax_sandboxes_reap(&e);
		ax_sandboxes_scan_host(&e);
		ax_snapshots_sync(&e, false);
		ax_layers_sweep(&e, false);
	}
	/* Sandboxes keep running: the next engine re-adopts them. */
	ax_engine_log(&e, "stopping");
	/* A capture cut short would leave its sandbox frozen until the next engine. */
	ax_snapshots_drain(&e, 30);
	ax_snapshots_sync(&e, true);
	ax_http_stop(&ts);
	ax_http_stop(&us);
	ax_egress_api_stop(&e);
	unlink(sock);
	ax_rt_release_freezer();
	goto out;
fail:
	ax_engine_log(&e, "fatal: %s", err.message);
	fprintf(stderr, "allox-engine: %s\n", err.message);
	report(report_fd, err.exit_code == AX_EXIT_USAGE ? 2 : 1, err.message);
	status = err.exit_code ? err.exit_code : 1;
	ax_http_stop(&ts);
	ax_http_stop(&us);
	ax_egress_api_stop(&e);
	ax_rt_release_freezer();
out:
	ax_egresses_free(e.egress);
	if (e.log)
		fclose(e.log);
	json_decref(e.sandboxes);
	json_decref(e.snapshots);
	json_decref(e.capturing);
	free(e.home);
	free(e.state_dir);
	free(e.sandboxes_dir);
	free(e.snapshots_dir);
	free(e.layers_dir);
	free(e.volumes_dir);
	for (size_t i = 0; e.host_prefixes && e.host_prefixes[i]; i++)
		free(e.host_prefixes[i]);
	free(e.host_prefixes);
	free(e.agent_path);
	free(e.api_key);
	free(run_dir);
	free(sock);
	free(lock_path);
	free(log_path);
	return status;
}
