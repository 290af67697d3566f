#include "agent/ext/jupyter/jupyter_kernel.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/rand.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "agent/aio/aio_session.h"
#include "lib/fs.h"
#include "agent/core/log.h"
#include "agent/core/proc_spawn.h"
#include "lib/timeutil.h"

/* A first start may import a lot (a cold page cache in a fresh sandbox). */
#define START_TIMEOUT_MS 60000
/* How long one kernel_info_request may take before it is asked again. */
#define INFO_WAIT_MS 1000
/* How long to wait for iopub traffic proving the subscription is live. */
#define IOPUB_WAIT_MS 200
/* SIGTERM to SIGKILL when a kernel is stopped. */
#define STOP_GRACE_MS 1000
/* zmq retries connecting to a socket the kernel has not bound yet; the
 * default 100 ms would add up to that to every start. */
#define RECONNECT_MS 10

/* "<files>-<suffix>" */
static void file_path(const struct jk_kernel *k, const char *suffix, char *buf, size_t size)
{
	snprintf(buf, size, "%s-%s", k->files, suffix);
}

static void *open_socket(const struct jk_site *site, const struct jk_kernel *k, int type, enum jl_port port)
{
	char endpoint[512];
	void *s = zmq_socket(site->zmq, type);
	int zero = 0, ivl = RECONNECT_MS;

	if (!s)
		return NULL;
	jl_endpoint(endpoint, sizeof endpoint, k->files, port);
	/* Closing must never wait for a dead kernel to take what is queued. */
	zmq_setsockopt(s, ZMQ_LINGER, &zero, sizeof zero);
	zmq_setsockopt(s, ZMQ_RECONNECT_IVL, &ivl, sizeof ivl);
	if (type == ZMQ_DEALER) {
		/* shell and control share one identity, as jupyter_client's do. */
		zmq_setsockopt(s, ZMQ_ROUTING_ID, k->session, strlen(k->session));
	} else {
		/* Outputs must not be dropped at a high-water mark: the idle that
		 * ends an execution would be lost with them. */
		zmq_setsockopt(s, ZMQ_RCVHWM, &zero, sizeof zero);
		zmq_setsockopt(s, ZMQ_SUBSCRIBE, "", 0);
	}
	if (zmq_connect(s, endpoint) < 0) {
		zmq_close(s);
		return NULL;
	}
	return s;
}

static int random_key(char key[65])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char b[32];
	size_t i;

	if (RAND_bytes(b, sizeof b) != 1)
		return -1;
	for (i = 0; i < sizeof b; i++) {
		key[2 * i] = hex[b[i] >> 4];
		key[2 * i + 1] = hex[b[i] & 0xf];
	}
	key[64] = '\0';
	return 0;
}

void jk_kernel_log_tail(const struct jk_kernel *k, char *buf, size_t size)
{
	char path[4096], tail[1024];
	ssize_t n = 0;
	off_t end;
	char *line, *nl;
	int fd;

	buf[0] = '\0';
	file_path(k, "log", path, sizeof path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	end = lseek(fd, 0, SEEK_END);
	if (end > 0)
		n = pread(fd, tail, sizeof tail - 1, end > (off_t)sizeof tail - 1 ? end - (off_t)sizeof tail + 1 : 0);
	close(fd);
	if (n <= 0)
		return;
	tail[n] = '\0';
	while (n > 0 && (tail[n - 1] == '\n' || tail[n - 1] == '\r' || tail[n - 1] == ' '))
		tail[--n] = '\0';
	nl = strrchr(tail, '\n');
	line = nl ? nl + 1 : tail;
	snprintf(buf, size, "%s", line);
}

/* Wait up to MS for a message on SOCK, watching the process: 1 with MSG
 * filled, 0 on timeout, -1 if the kernel ended. Invalid messages are
 * logged and skipped. */
static int wait_message(struct jk_kernel *k, void *sock, int ms, struct jw_msg *msg)
{
	long long deadline = ax_mono_ms() + ms;
	zmq_pollitem_t items[2] = {
		{ sock, 0, ZMQ_POLLIN, 0 },
		{ NULL, k->proc.pidfd, ZMQ_POLLIN, 0 },
	};
	const char *why;
	long long left;
	int rc;

	for (;;) {
		rc = jc_recv(sock, k->key, msg, &why);
		if (rc > 0)
			return 1;
		if (rc < 0)
			ag_log("kernel %s: dropped a message: %s", k->name, why);
		left = deadline - ax_mono_ms();
		if (left <= 0)
			return 0;
		if (zmq_poll(items, 2, (long)left) < 0 && errno != EINTR)
			return -1;
		if (items[1].revents & ZMQ_POLLIN)
			return -1;
	}
}

/* The readiness handshake of jupyter_client's wait_for_ready: kernel_info
 * until it answers on shell, then until iopub carries something (a SUB
 * socket only hears what is published after its subscription arrived). */
static int wait_ready(struct jk_kernel *k, struct ag_error *err)
{
	long long deadline = ax_mono_ms() + START_TIMEOUT_MS;
	char id[JC_ID_SIZE], why[128], tail[300];
	bool answered = false;
	struct jw_msg m;
	int rc = 0;

	while (ax_mono_ms() < deadline) {
		if (jc_send(k->shell, k->key, k->session, "kernel_info_request", NULL, id) < 0)
			return ag_fail(err, 500, "kernel %s: cannot send kernel_info_request: %s", k->name,
				       strerror(errno));
		while (!answered && (rc = wait_message(k, k->shell, INFO_WAIT_MS, &m)) > 0) {
			answered = strcmp(m.msg_type, "kernel_info_reply") == 0;
			jw_msg_free(&m);
		}
		if (answered && (rc = wait_message(k, k->iopub, IOPUB_WAIT_MS, &m)) > 0) {
			jw_msg_free(&m);
			return 0;
		}
		if (rc < 0)
			break;
	}
	if (jk_kernel_dead(k, why, sizeof why)) {
		jk_kernel_log_tail(k, tail, sizeof tail);
		return ag_fail(err, 500, "kernel %s failed to start (%s)%s%s", k->name, why,
			       *tail ? ": " : "", tail);
	}
	return ag_fail(err, 500, "kernel %s did not answer within %d s", k->name, START_TIMEOUT_MS / 1000);
}

/* The kernel's environment: the agent's (less its own variables), the
 * spec's env, and JPY_PARENT_PID so that ipykernel exits if the agent
 * dies outside a sandbox (in one, the agent is PID 1 and ipykernel skips
 * the check). */
static char **kernel_environ(const struct jk_spec *spec)
{
	char parent[32], **env;
	const char **extra;
	size_t n = 0, i;

	while (spec->env[n])
		n++;
	extra = calloc(n + 2, sizeof *extra);
	if (!extra)
		return NULL;
	snprintf(parent, sizeof parent, "JPY_PARENT_PID=%d", (int)getpid());
	extra[0] = parent;
	for (i = 0; i < n; i++)
		extra[i + 1] = spec->env[i];
	env = ag_child_environ(extra);
	free(extra);
	return env;
}

static int launch(const struct jk_site *site, struct jk_kernel *k, const struct jk_spec *spec, const char *cwd,
		  struct ag_error *err)
{
	char conn[4096], log[4096];
	char **argv = NULL, **env = NULL;
	int rc = -1;

	file_path(k, "connection.json", conn, sizeof conn);
	file_path(k, "log", log, sizeof log);
	if (jl_write_connection(conn, k->files, k->key, spec->name, err) < 0)
		return -1;
	argv = jk_spec_argv(spec, conn);
	env = kernel_environ(spec);
	if (!argv || !env)
		ag_fail(err, 500, "out of memory");
	else
		rc = jl_spawn(site->reaper, argv, env, cwd, log, &k->proc, err);
	jk_strv_free(argv);
	free(env);	/* its strings are borrowed */
	return rc;
}

struct jk_kernel *jk_kernel_start(const struct jk_site *site, const char *id, const struct jk_spec *spec,
				  const char *cwd, struct ag_error *err)
{
	struct jk_kernel *k = calloc(1, sizeof *k);
	long long t0 = ax_mono_ms();

	if (!k || !(k->files = ax_path_join(site->dir, id))) {
		free(k);
		ag_fail(err, 500, "out of memory");
		return NULL;
	}
	snprintf(k->name, sizeof k->name, "%s", spec->name);
	k->interrupt_message = spec->interrupt_message;
	k->reaper = site->reaper;
	k->proc.pidfd = -1;
	aio_session_new_id(k->session);
	if (random_key(k->key) < 0) {
		ag_fail(err, 500, "cannot make a kernel key: RAND_bytes failed");
		goto fail;
	}
	/* Connect first: zmq retries until the kernel has bound its sockets. */
	k->shell = open_socket(site, k, ZMQ_DEALER, JL_SHELL);
	k->control = open_socket(site, k, ZMQ_DEALER, JL_CONTROL);
	k->iopub = open_socket(site, k, ZMQ_SUB, JL_IOPUB);
	if (!k->shell || !k->control || !k->iopub) {
		ag_fail(err, 500, "kernel sockets: %s", zmq_strerror(zmq_errno()));
		goto fail;
	}
	if (launch(site, k, spec, cwd, err) < 0 || wait_ready(k, err) < 0)
		goto fail;
	ag_log("kernel %s started as %s (pid %d) in %lld ms", k->name, id, (int)k->proc.pid, ax_mono_ms() - t0);
	return k;
fail:
	jk_kernel_free(k);
	return NULL;
}

void jk_kernel_kill(struct jk_kernel *k)
{
	jl_signal(&k->proc, SIGKILL);
}

bool jk_kernel_dead(struct jk_kernel *k, char *why, size_t size)
{
	if (k->proc.pid > 0 && !jl_ended(&k->proc, 0))
		return false;
	if (k->proc.pid > 0)
		jl_collect(k->reaper, &k->proc, 1000, why, size);
	else
		snprintf(why, size, "it ended");
	return true;
}

static void remove_file(const struct jk_kernel *k, const char *suffix)
{
	char path[4096];

	file_path(k, suffix, path, sizeof path);
	unlink(path);
}

void jk_kernel_free(struct jk_kernel *k)
{
	static const char *const ports[] = { "1", "2", "3", "4", "5" };
	size_t i;

	if (!k)
		return;
	jl_stop(k->reaper, &k->proc, STOP_GRACE_MS);
	if (k->shell)
		zmq_close(k->shell);
	if (k->control)
		zmq_close(k->control);
	if (k->iopub)
		zmq_close(k->iopub);
	if (k->files) {
		remove_file(k, "connection.json");
		remove_file(k, "log");
		/* A killed kernel leaves its ipc sockets behind. */
		for (i = 0; i < sizeof ports / sizeof ports[0]; i++)
			remove_file(k, ports[i]);
	}
	free(k->files);
	free(k);
}
