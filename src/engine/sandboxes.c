/* The /sandboxes routes of the lifecycle API, backed by the bubblewrap runtime. */
#include "engine/engine.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/fs.h"
#include "engine/runtime/disk.h"
#include "engine/egress/egress.h"
#include "engine/egress/egress_policy.h"
#include "engine/runtime/host_mask.h"
#include "engine/runtime/runtime.h"
#include "lib/timeutil.h"
#include "engine/runtime/untrusted.h"

#define MIN_TIMEOUT 60

/* ---------- records ---------- */

static void set_status(json_t *rec, ax_engine *e, const char *state, const char *reason, const char *message)
{
	char now[32];
	json_t *st = json_object();

	ax_time_rfc3339(ax_engine_now(e), now);
	json_object_set_new(st, "state", json_string(state));
	if (reason)
		json_object_set_new(st, "reason", json_string(reason));
	if (message && *message)
		json_object_set_new(st, "message", json_string(message));
	json_object_set_new(st, "lastTransitionAt", json_string(now));
	json_object_set_new(rec, "status", st);
}

static const char *state_of(const json_t *rec)
{
	return json_string_value(json_object_get(json_object_get(rec, "status"), "state"));
}

static void handle_of(const json_t *rec, ax_rt_handle *h)
{
	const json_t *rt = json_object_get(rec, "runtime");

	memset(h, 0, sizeof *h);
	h->pid = (pid_t)json_integer_value(json_object_get(rt, "pid"));
	h->start = (unsigned long long)json_integer_value(json_object_get(rt, "start"));
	h->init_pid = (pid_t)json_integer_value(json_object_get(rt, "initPid"));
	h->init_start = (unsigned long long)json_integer_value(json_object_get(rt, "initStart"));
	h->net_pid = (pid_t)json_integer_value(json_object_get(rt, "netPid"));
	h->net_start = (unsigned long long)json_integer_value(json_object_get(rt, "netStart"));
	h->cgroup = json_is_true(json_object_get(rt, "cgroup"));
	snprintf(h->note, sizeof h->note, "%s", json_string_value(json_object_get(rt, "note")) ?: "");
}

static void collect(const ax_rt_handle *h, int tries);

/* The status file the agent keeps for the entrypoint (AG_STATUS_FILE_DEFAULT),
 * as a path below the root of the sandbox's writable layer. */
#define ENTRYPOINT_STATUS "run/allox/entrypoint.json"

/* The agent's status file, parsed; NULL when there is none or it is refused.
 * The sandbox controls that file: it is read only through untrusted.h (no
 * symlink followed, regular files only, never blocking, at most
 * AX_UNTRUSTED_MAX bytes), and never under e->lock. */
static json_t *entrypoint_file(ax_engine *e, const char *id)
{
	char *dir = ax_store_dir(e, id), *upper = dir ? ax_disk_upper(dir) : NULL;
	char *top = upper ? ax_path_join(upper, "top") : NULL, *text = NULL;
	int root = top ? ax_untrusted_root(top) : -1;
	json_t *ep = NULL;
	ax_error err;
	size_t len;

	/* A refusal is the sandbox's doing: the status just lacks the entrypoint's
	 * part (a log line per request would let it fill the engine's log). */
	if (root >= 0 && ax_untrusted_read(root, ENTRYPOINT_STATUS, AX_UNTRUSTED_MAX, &text, &len, &err) == 0)
		ep = json_loadb(text, len, 0, NULL);
	if (root >= 0)
		close(root);
	free(text);
	free(top);
	free(upper);
	free(dir);
	return ep;
}

/* Add what the entrypoint did to V, a sandbox as the API shows it (a copy
 * of its record made under the lock; this runs after the lock is released). */
static void add_entrypoint_status(ax_engine *e, json_t *v)
{
	json_t *status = json_object_get(v, "status"), *ep;
	const char *state;
	char msg[128];

	if (strcmp(json_string_value(json_object_get(status, "state")) ?: "", "Running") != 0)
		return;
	ep = entrypoint_file(e, json_string_value(json_object_get(v, "id")) ?: "");
	state = json_string_value(json_object_get(ep, "state"));
	if (state && strcmp(state, "exited") == 0) {
		snprintf(msg, sizeof msg, "entrypoint exited with code %lld",
			 (long long)json_integer_value(json_object_get(ep, "exitCode")));
		json_object_set_new(status, "reason", json_string("ENTRYPOINT_EXITED"));
		json_object_set_new(status, "message", json_string(msg));
	} else if (state && strcmp(state, "signaled") == 0) {
		snprintf(msg, sizeof msg, "entrypoint killed by signal %lld",
			 (long long)json_integer_value(json_object_get(ep, "signal")));
		json_object_set_new(status, "reason", json_string("ENTRYPOINT_EXITED"));
		json_object_set_new(status, "message", json_string(msg));
	} else if (state && strcmp(state, "failed") == 0) {
		json_object_set_new(status, "reason", json_string("ENTRYPOINT_FAILED"));
		if (json_is_string(json_object_get(ep, "error")))
			json_object_set(status, "message", json_object_get(ep, "error"));
	}
	json_decref(ep);
}

/* The record as the API shows it: no runtime internals, no environment.
 * Without the entrypoint's status, which add_entrypoint_status adds once
 * the lock is released. */
static json_t *view(const json_t *rec, bool created)
{
	static const char *const keys[] = { "id", "image", "snapshotId", "status", "metadata", "entrypoint",
					    "resourceLimits", "network", "networkPolicy", "expiresAt", "createdAt" };
	bool restored = json_object_get(rec, "snapshotId") != NULL;
	json_t *v = json_object();
	size_t i;

	for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		json_t *x = json_object_get(rec, keys[i]);

		/* The spec omits image and snapshotId from the create answer, and a
		 * restored sandbox reports its snapshot, not the image under it. */
		if (!x || json_is_null(x) || (created && strcmp(keys[i], "image") == 0) ||
		    (created && strcmp(keys[i], "snapshotId") == 0) || (restored && strcmp(keys[i], "image") == 0))
			continue;
		json_object_set_new(v, keys[i], json_deep_copy(x));
	}
	return v;
}

/* A Pending record is a create in flight (see create): wait until the
 * sandbox runs or is gone. Lock held; its record, or NULL when it went. */
static json_t *settled(ax_engine *e, const char *id)
{
	json_t *rec;

	while ((rec = json_object_get(e->sandboxes, id)) && strcmp(state_of(rec) ?: "", "Pending") == 0)
		pthread_cond_wait(&e->started, &e->lock);
	return rec;
}

static json_t *find(ax_engine *e, const char *id, ax_resp *resp)
{
	json_t *rec = json_object_get(e->sandboxes, id);

	if (!rec)
		ax_resp_error(resp, 404, "SANDBOX::NOT_FOUND", "sandbox %s not found", id);
	return rec;
}

static void save(ax_engine *e, json_t *rec)
{
	ax_error err;

	if (ax_store_save(e, rec, &err) < 0)
		ax_engine_log(e, "cannot save record: %s", err.message);
}

/* ---------- helpers ---------- */

static int random_hex(char *out, size_t bytes)
{
	unsigned char raw[64];
	size_t i;

	if (bytes > sizeof raw || getrandom(raw, bytes, 0) != (ssize_t)bytes)
		return -1;
	for (i = 0; i < bytes; i++)
		snprintf(out + 2 * i, 3, "%02x", raw[i]);
	return 0;
}

int ax_new_uuid(char out[37])
{
	unsigned char b[16];

	if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b)
		return -1;
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
		 b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
	return 0;
}

static bool string_map(const json_t *v)
{
	const char *k;
	json_t *x;

	if (!json_is_object(v))
		return false;
	json_object_foreach((json_t *)v, k, x)
		if (!json_is_string(x))
			return false;
	return true;
}

static const char *image_problem(const char *uri)
{
	struct stat st;

	if (strcmp(uri, "host") == 0)
		return NULL;
	if (strncmp(uri, "rootfs:", 7) == 0) {
		if (uri[7] != '/')
			return "rootfs images need an absolute path (rootfs:/abs/path)";
		if (stat(uri + 7, &st) < 0 || !S_ISDIR(st.st_mode))
			return "rootfs path is not a directory";
		return NULL;
	}
	return "unsupported image";
}

static int listen_loopback(int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	/* The longest backlog the kernel allows: a flood of connections must
	 * not fill it between two of the agent's accepts. */
	if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, SOMAXCONN) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
		close(fd);
		return -1;
	}
	*port = ntohs(a.sin_port);
	return fd;
}

/* ---------- create ---------- */

json_t *ax_parse_body(const ax_req *req, ax_resp *resp, bool required)
{
	json_error_t jerr;
	json_t *body;

	if (!req->body_len) {
		if (required)
			ax_resp_error(resp, 400, "SANDBOX::INVALID_PARAMETER", "a JSON request body is required");
		return required ? NULL : json_object();
	}
	body = json_loadb(req->body, req->body_len, 0, &jerr);
	if (!body || !json_is_object(body)) {
		json_decref(body);
		ax_resp_error(resp, 400, "SANDBOX::INVALID_PARAMETER", "request body is not a JSON object: %s",
			      body ? "wrong type" : jerr.text);
		return NULL;
	}
	return body;
}

static int check_create(const json_t *body, ax_resp *resp)
{
	const json_t *image = json_object_get(body, "image"), *ep = json_object_get(body, "entrypoint");
	const json_t *timeout = json_object_get(body, "timeout"), *limits = json_object_get(body, "resourceLimits");
	const json_t *meta = json_object_get(body, "metadata");
	const char *uri, *problem, *k;
	ax_net_mode mode = AX_NET_ISOLATED;
	json_t *x;
	size_t i;

	const json_t *snapshot = json_object_get(body, "snapshotId");

	if (snapshot && image) {
		ax_resp_error(resp, 400, "SANDBOX::INVALID_PARAMETER", "give either image or snapshotId, not both");
		return -1;
	}
	if (snapshot && (!json_is_string(snapshot) || !json_string_length(snapshot))) {
		ax_resp_error(resp, 400, "SANDBOX::INVALID_PARAMETER", "snapshotId must be a non-empty string");
		return -1;
	}
	uri = json_string_value(json_object_get(image, "uri"));
	if (!uri && !snapshot) {
		ax_resp_error(resp, 400, "SANDBOX::INVALID_PARAMETER", "image.uri (or snapshotId) is required");
		return -1;
	}
	problem = uri ? image_problem(uri) : NULL;
	if (problem) {
		ax_resp_error(resp, 400, "SANDBOX::INVALID_PARAMETER",
			      "%s: '%s'. Supported images: \"host\" (the host's system directories, read-only) and "
			      "\"rootfs:/abs/path\" (a directory tree)", problem, uri);
		return -1;
	}
	if ((ep || !snapshot) && (!json_is_array(ep) || json_array_size(ep) == 0)) {
		ax_resp_error(resp, 400, "SANDBOX::INVALID_PARAMETER", "entrypoint must be a non-empty array of strings");
		return -1;
	}
	json_array_foreach(ep, i, x)
		if (!json_is_string(x)) {
			ax_resp_error(resp, 400, "SANDBOX::INVALID_PARAMETER", "entrypoint[%zu] is not a string", i);
			return -1;
		}
	if (!string_map(limits)) {
		ax_resp_error(resp, 400, "SANDBOX::INVALID_PARAMETER", "resourceLimits must be an object of strings");
		return -1;
	}
	if (timeout && !json_is_null(timeout) &&
	    (!json_is_integer(timeout) || json_integer_value(timeout) < MIN_TIMEOUT)) {
		ax_resp_error(resp, 400, "SANDBOX::INVALID_PARAMETER",
			      "timeout must be an integer of at least %d seconds, or null for no expiry", MIN_TIMEOUT);
		return -1;
	}
	if (json_object_get(body, "env") && !string_map(json_object_get(body, "env"))) {
		ax_resp_error(resp, 400, "SANDBOX::INVALID_PARAMETER", "env must be an object of strings");
		return -1;
	}
	/* extensions: string to string (spec); allox.mcp.servers reaches the agent. */
	if (json_object_get(body, "extensions") && !string_map(json_object_get(body, "extensions"))) {
		ax_resp_error(resp, 400, "SANDBOX::INVALID_PARAMETER", "extensions must be an object of strings");
		return -1;
	}
	if (ax_net_mode_parse(json_string_value(json_object_get(json_object_get(body, "extensions"), AX_NET_EXTENSION)),
			      &mode) < 0) {
		ax_resp_error(resp, 400, "SANDBOX::INVALID_PARAMETER",
			      "extensions.%s must be \"isolated\", \"none\" or \"host\"", AX_NET_EXTENSION);
		return -1;
	}
	if (meta && !string_map(meta)) {
		ax_resp_error(resp, 400, "SANDBOX::INVALID_PARAMETER", "metadata must be an object of strings");
		return -1;
	}
	json_object_foreach((json_t *)meta, k, x)
		if (strncmp(k, "opensandbox.io/", 15) == 0 || !*k) {
			ax_resp_error(resp, 400, "SANDBOX::INVALID_METADATA_LABEL", "metadata key '%s' is reserved or empty", k);
			return -1;
		}
	for (int l = 0; l < AX_LIMIT_N; l++) {
		const char *v = json_string_value(json_object_get(limits, ax_limit_key((ax_limit_kind)l))), *why = "";
		long long n;

		if (v && ax_limit_parse((ax_limit_kind)l, v, &n, &why) < 0) {
			ax_resp_error(resp, 400, "SANDBOX::INVALID_PARAMETER", "resourceLimits.%s '%s': %s",
				      ax_limit_key((ax_limit_kind)l), v, why);
			return -1;
		}
	}
	return ax_create_fields_check(body, mode, resp);
}

static char **env_list(const json_t *env)
{
	size_t n = json_object_size(env), i = 0;
	char **list = calloc(n + 1, sizeof *list);
	const char *k;
	json_t *v;

	if (!list)
		return NULL;
	json_object_foreach((json_t *)env, k, v)
		if (asprintf(&list[i], "%s=%s", k, json_string_value(v)) >= 0)
			i++;
	list[i] = NULL;
	return list;
}

static void free_list(char **list)
{
	size_t i;

	for (i = 0; list && list[i]; i++)
		free(list[i]);
	free(list);
}

/* The limit of KIND in a record's resourceLimits (checked at create); 0: none. */
static long long limit_of(const json_t *limits, ax_limit_kind kind)
{
	const char *v = json_string_value(json_object_get(limits, ax_limit_key(kind))), *why;
	long long n;

	return v && ax_limit_parse(kind, v, &n, &why) == 0 ? n : 0;
}

/* The limits a new sandbox gets: those the request gives that the engine
 * knows (cpu, memory, pids, ephemeral-storage), else the engine's defaults.
 * Other keys (gpu...) are not enforced here, so not recorded either. */
static json_t *effective_limits(const ax_engine *e, const json_t *given)
{
	json_t *out = json_object();

	for (int k = 0; k < AX_LIMIT_N; k++) {
		const char *key = ax_limit_key((ax_limit_kind)k);
		json_t *v = json_object_get(given, key);

		if (json_is_string(v))
			json_object_set(out, key, v);
		else if (e->default_limit[k][0])
			json_object_set_new(out, key, json_string(e->default_limit[k]));
	}
	return out;
}

/* console.log.1 in the sandbox's state directory DIR, for its agent: the
 * agent keeps console.log under the engine's cap by moving it there when
 * full (it cannot rename host files, so it gets both; console.log itself is
 * the sandbox's stdout and stderr, opened by the runtime). */
static int open_console_old(const char *dir, ax_error *err)
{
	char *path = ax_path_join(dir, "console.log.1");
	int fd;

	if (!path)
		return ax_fail(err, AX_CODE_NOMEM, "out of memory");
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		ax_fail(err, AX_CODE_IO, "cannot open %s: %s", path, strerror(errno));
	free(path);
	return fd;
}

/* <DIR>/resolv.conf naming the sandbox's own resolver (egress.h); its
 * path, or NULL with ERR. */
static char *write_resolv_conf(const char *dir, ax_error *err)
{
	static const char conf[] = "# allox-engine: names are answered as the sandbox's egress policy allows\n"
				   "nameserver 127.0.0.1\n";
	char *path = ax_path_join(dir, "resolv.conf");

	if (!path || ax_write_file_replace(path, conf, sizeof conf - 1, 0644, err) < 0) {
		if (!path)
			ax_fail(err, AX_CODE_NOMEM, "out of memory");
		free(path);
		return NULL;
	}
	return path;
}

/* Start the runtime for REC, a copy of a reserved record that no other
 * thread sees, so this runs without the lock. The record's runtime block,
 * or NULL with ERR. */
static json_t *spawn(ax_engine *e, const json_t *rec, ax_error *err)
{
	const char *id = json_string_value(json_object_get(rec, "id"));
	const json_t *ep = json_object_get(rec, "entrypoint"), *limits = json_object_get(rec, "resourceLimits");
	char token[65], fdbuf[5][16], maxbuf[24], *dir = ax_store_dir(e, id), *resolv = NULL;
	const json_t *policy = json_object_get(rec, "networkPolicy");
	ax_egress_start_arg egress = { e, id, policy };
	char **env = env_list(json_object_get(rec, "env"));
	char **layers = ax_layer_paths(e, json_object_get(rec, "layers"));
	unsigned *bases = ax_layer_bases(rec);
	const char **argv = NULL;
	int lfd = -1, cfd = -1, tp[2] = { -1, -1 }, rp[2] = { -1, -1 }, ofd = -1, port = 0, cdp_port = 0, keep[6];
	ax_net_mode mode = AX_NET_ISOLATED;
	size_t i, n = json_array_size(ep);
	ax_rt_spec spec;
	ax_rt_handle h;
	json_t *x, *runtime = NULL;

	if (!dir || !env || (json_array_size(json_object_get(rec, "layers")) && (!layers || !bases)) ||
	    random_hex(token, 32) < 0) {
		ax_fail(err, AX_CODE_NOMEM, "cannot prepare the sandbox");
		goto out;
	}
	lfd = listen_loopback(&port);
	/* A second one for the agent's DevTools relay: Chromium listens in the
	 * sandbox's own network, out of the host's reach. */
	cfd = lfd < 0 ? -1 : listen_loopback(&cdp_port);
	if (lfd < 0 || cfd < 0 || pipe(tp) < 0) {
		ax_fail(err, AX_CODE_IO, "cannot set up the agent's socket: %s", strerror(errno));
		goto out;
	}
	/* The token travels through a pipe so it never shows in argv or the environment. */
	if (write(tp[1], token, strlen(token)) != (ssize_t)strlen(token)) {
		ax_fail(err, AX_CODE_IO, "cannot pass the token: %s", strerror(errno));
		goto out;
	}
	close(tp[1]);
	tp[1] = -1;
	ofd = open_console_old(dir, err);
	if (ofd < 0)
		goto out;
	ax_net_mode_parse(json_string_value(json_object_get(rec, "network")), &mode);
	/* The stack says when the sandbox's interface is up; the agent holds
	 * the commands it starts until then (a create does not wait for it). */
	if (mode == AX_NET_ISOLATED && pipe2(rp, O_CLOEXEC) < 0) {
		ax_fail(err, AX_CODE_IO, "cannot create a pipe: %s", strerror(errno));
		goto out;
	}
	snprintf(fdbuf[0], sizeof fdbuf[0], "%d", lfd);
	snprintf(fdbuf[1], sizeof fdbuf[1], "%d", tp[0]);
	snprintf(fdbuf[2], sizeof fdbuf[2], "%d", ofd);
	snprintf(fdbuf[3], sizeof fdbuf[3], "%d", rp[0]);
	snprintf(fdbuf[4], sizeof fdbuf[4], "%d", cfd);
	snprintf(maxbuf, sizeof maxbuf, "%lld", e->console_log_max);
	argv = calloc(n + 17, sizeof *argv);
	if (!argv) {
		ax_fail(err, AX_CODE_NOMEM, "out of memory");
		goto out;
	}
	argv[0] = e->agent_path;
	argv[1] = "--listen-fd";
	argv[2] = fdbuf[0];
	argv[3] = "--token-fd";
	argv[4] = fdbuf[1];
	argv[5] = "--sandbox-id";
	argv[6] = id;
	argv[7] = "--log-rotate-fd";
	argv[8] = fdbuf[2];
	argv[9] = "--log-max";
	argv[10] = maxbuf;
	i = 11;
	argv[i++] = "--cdp-listen-fd";
	argv[i++] = fdbuf[4];
	if (rp[0] >= 0) {
		argv[i++] = "--net-ready-fd";
		argv[i++] = fdbuf[3];
	}
	argv[i++] = "--";
	{
		size_t first = i;

		json_array_foreach(ep, i, x)
			argv[first + i] = json_string_value(x);
	}
	keep[0] = lfd;
	keep[1] = tp[0];
	keep[2] = ofd;
	keep[3] = cfd;
	keep[4] = rp[0] >= 0 ? rp[0] : -1;
	keep[5] = -1;
	memset(&spec, 0, sizeof spec);
	spec.id = id;
	spec.state_dir = dir;
	spec.image = json_string_value(json_object_get(json_object_get(rec, "image"), "uri"));
	spec.argv = argv;
	spec.env = (const char *const *)env;
	spec.keep_fds = keep;
	spec.layers = (const char *const *)layers;
	spec.layer_bases = bases;
	spec.uid_base = (unsigned)json_integer_value(json_object_get(rec, "uidBase"));
	spec.hide_path = e->home;
	/* The mask at the time of the reservation (create copies it in). */
	spec.host_mask = json_string_length(json_object_get(rec, "hostMask")) ?
				 json_string_value(json_object_get(rec, "hostMask")) : NULL;
	spec.nesting = e->nesting;
	spec.network = mode;
	spec.net_ready_w = rp[1];
	/* A policy: the engine's resolver inside (and its filter), started
	 * before anything runs there; the stack forwards no DNS of its own. */
	if (policy && mode == AX_NET_ISOLATED) {
		resolv = write_resolv_conf(dir, err);
		if (!resolv)
			goto out;
		spec.net_hook = ax_egress_hook;
		spec.net_hook_arg = &egress;
		spec.net_own_dns = true;
		spec.resolv_conf = resolv;
	}
	/* Fail closed: without its mask a host sandbox would read the host's secrets. */
	if (!spec.host_mask && strcmp(spec.image ?: "", "host") == 0) {
		ax_fail(err, AX_CODE_RUNTIME, "cannot hide the host's private files (see the engine's log)");
		goto out;
	}
	spec.memory_bytes = limit_of(limits, AX_LIMIT_MEMORY);
	spec.pids_max = limit_of(limits, AX_LIMIT_PIDS);
	spec.cpu_millis = limit_of(limits, AX_LIMIT_CPU);
	spec.disk_bytes = limit_of(limits, AX_LIMIT_DISK);
	spec.nofile_cur = e->nofile.rlim_cur;
	spec.nofile_max = e->nofile.rlim_max;
	if (ax_rt_start(&spec, &h, err) < 0) {
		ax_egress_stop(e->egress, id);
		goto out;
	}
	runtime = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:b, s:s, s:i, s:s}", "pid", (json_int_t)h.pid, "start",
			    (json_int_t)h.start, "initPid", (json_int_t)h.init_pid, "initStart",
			    (json_int_t)h.init_start, "netPid", (json_int_t)h.net_pid, "netStart",
			    (json_int_t)h.net_start, "cgroup", h.cgroup, "note", h.note, "agentPort", port,
			    "token", token);
	if (!runtime) {
		ax_rt_kill(&h, id, NULL);
		ax_fail(err, AX_CODE_NOMEM, "out of memory");
	}
out:
	if (lfd >= 0)
		close(lfd);
	if (cfd >= 0)
		close(cfd);
	if (tp[0] >= 0)
		close(tp[0]);
	if (tp[1] >= 0)
		close(tp[1]);
	if (ofd >= 0)
		close(ofd);
	for (int k = 0; k < 2; k++)
		if (rp[k] >= 0)
			close(rp[k]);
	free(argv);
	free_list(env);
	free_list(layers);
	free(bases);
	free(dir);
	free(resolv);
	return runtime;
}

/* A range of host uids for REC's sandbox, claimed for its state directory
 * DIR (released by destroy or a failed create). */
static int claim_uids(ax_engine *e, json_t *rec, const char *dir, ax_error *err)
{
	unsigned base;

	if (ax_uidrange_claim(&e->uids, dir, &base, err) < 0)
		return -1;
	json_object_set_new(rec, "uidBase", json_integer(base));
	return 0;
}

static void release_uids(ax_engine *e, const json_t *rec, const char *dir)
{
	const json_t *base = json_object_get(rec, "uidBase");

	if (json_is_integer(base) && dir)
		ax_uidrange_release(&e->uids, dir, (unsigned)json_integer_value(base));
}

/* A create holds the lock to reserve its sandbox and to record what it
 * started, not while it starts it (10-50 ms, up to the runtime's timeouts),
 * so requests about other sandboxes go on meanwhile. A reserved sandbox is
 * in e->sandboxes as Pending: listed, and refused by what needs it running
 * (pause, snapshot); delete and endpoint wait for its start to end
 * (settled), the reaper leaves it alone, and e->started is broadcast when it
 * runs or is removed. An engine that dies meanwhile leaves a Pending record
 * on disk, which the next one removes (ax_sandboxes_adopt). */

/* Reserve sandbox ID (lock held): fill REC from snapshot SNAP when given,
 * make its state directory DIR, save it and enter it Pending. Entered
 * before the lock goes, it refers to the snapshot's layers, so none can be
 * retired before the sandbox runs on it, and anything allocated per sandbox
 * from the records in e->sandboxes is seen by concurrent creates. -1 with
 * RESP filled on failure. */
static int reserve(ax_engine *e, const char *id, const char *dir, const char *snap, json_t *rec, ax_resp *resp)
{
	ax_error err;

	if (snap[0] && ax_snapshot_restore_into(e, snap, rec, resp) < 0)
		return -1;
	if (!dir || ax_mkdir_p(dir, 0700, &err) < 0 || claim_uids(e, rec, dir, &err) < 0 ||
	    ax_store_save_nosync(e, rec, &err) < 0) {
		if (!dir)
			ax_fail(&err, AX_CODE_NOMEM, "out of memory");
		ax_engine_log(e, "create %s failed: %s", id, err.message);
		ax_resp_error(resp, 500, "SANDBOX::PROVISIONING_ERROR", "cannot start sandbox: %s", err.message);
		if (dir)
			ax_rt_remove_state(dir, &err);
		release_uids(e, rec, dir);
		return -1;
	}
	json_object_set(e->sandboxes, id, rec);
	return 0;
}

/* The start of sandbox ID failed (RUNTIME NULL, ERR says why), or its
 * record went while it started (nothing removes a Pending record today;
 * should something, what started must not outlive it). Lock held: end what
 * started, remove its state and record, answer RESP. */
static void abandon(ax_engine *e, const char *id, const char *dir, json_t *runtime, ax_error *err, ax_resp *resp)
{
	if (runtime) {
		json_t *gone = json_pack("{s:O}", "runtime", runtime);
		ax_rt_handle h;

		handle_of(gone, &h);
		ax_rt_kill(&h, id, NULL);
		collect(&h, 100);
		json_decref(gone);
		json_decref(runtime);
		ax_fail(err, AX_CODE_GONE, "the sandbox was deleted while it started");
	}
	ax_engine_log(e, "create %s failed: %s", id, err->message);
	ax_resp_error(resp, 500, "SANDBOX::PROVISIONING_ERROR", "cannot start sandbox: %s", err->message);
	ax_egress_stop(e->egress, id);
	if (dir)
		ax_rt_remove_sandbox(dir, err);
	release_uids(e, json_object_get(e->sandboxes, id), dir);
	json_object_del(e->sandboxes, id);
	ax_layers_gc(e);
	pthread_cond_broadcast(&e->started);
}


static void create(ax_engine *e, const ax_req *req, ax_resp *resp)
{
	json_t *body = ax_parse_body(req, resp, true), *rec, *meta, *timeout, *spec, *runtime;
	char id[37], now[32], exp[32], *dir, snap[128] = "";
	const char *snapshot_id;
	ax_error err;

	if (!body || check_create(body, resp) < 0) {
		json_decref(body);
		return;
	}
	if (ax_new_uuid(id) < 0) {
		json_decref(body);
		ax_resp_error(resp, 500, "GENERAL::UNKNOWN_ERROR", "no randomness for an id");
		return;
	}
	ax_time_rfc3339(ax_engine_now(e), now);
	meta = json_object_get(body, "metadata");
	timeout = json_object_get(body, "timeout");
	snapshot_id = json_string_value(json_object_get(body, "snapshotId"));
	/* A restored sandbox gets no entrypoint from its snapshot (as the reference server). */
	rec = json_pack("{s:s, s:{s:O}, s:o, s:o, s:o, s:o, s:s}", "id", id, "image", "uri",
			json_object_get(json_object_get(body, "image"), "uri") ?: json_null(), "entrypoint",
			json_object_get(body, "entrypoint") ? json_incref(json_object_get(body, "entrypoint"))
							    : json_pack("[sss]", "tail", "-f", "/dev/null"),
			"metadata", meta ? json_incref(meta) : json_object(),
			"env", json_object_get(body, "env") ? json_incref(json_object_get(body, "env")) : json_object(),
			"resourceLimits", effective_limits(e, json_object_get(body, "resourceLimits")), "createdAt", now);
	if (json_is_integer(timeout)) {
		ax_time_rfc3339(ax_engine_now(e) + (time_t)json_integer_value(timeout), exp);
		json_object_set_new(rec, "expiresAt", json_string(exp));
	}
	/* MCP servers for the agent: in its environment, which the record keeps
	 * (so a restart of the sandbox gets them too) and the API never shows. */
	/* Its network: kept in the record (restarts and restores of the
	 * engine see it) and shown by get. */
	json_object_set_new(rec, "network",
			    json_string(json_string_value(json_object_get(json_object_get(body, "extensions"),
									  AX_NET_EXTENSION)) ?: "isolated"));
	/* The egress policy in force, as checked (check_create), and the egress
	 * API's token for this sandbox (egress_api.c). */
	if (json_object_get(body, "networkPolicy")) {
		char why[8];

		json_object_set_new(rec, "networkPolicy", ax_policy_normalize(json_object_get(body, "networkPolicy"),
									      why, sizeof why));
	}
	{
		char token[65];

		if (random_hex(token, 32) == 0)
			json_object_set_new(rec, "egressToken", json_string(token));
	}
	if (json_is_string(json_object_get(json_object_get(body, "extensions"), "allox.mcp.servers")))
		json_object_set(json_object_get(rec, "env"), "ALLOX_AGENT_MCP_SERVERS",
				json_object_get(json_object_get(body, "extensions"), "allox.mcp.servers"));
	if (snapshot_id)
		snprintf(snap, sizeof snap, "%s", snapshot_id);
	json_decref(body);
	set_status(rec, e, "Pending", "SANDBOX_STARTING", NULL);

	/* Whatever the image: a restore learns it from its snapshot. */
	ax_sandboxes_scan_host(e);
	dir = ax_store_dir(e, id);
	pthread_mutex_lock(&e->lock);
	if (reserve(e, id, dir, snap, rec, resp) < 0) {
		pthread_mutex_unlock(&e->lock);
		json_decref(rec);
		free(dir);
		return;
	}
	/* spawn reads a copy: requests may change the record meanwhile. */
	spec = json_deep_copy(rec);
	if (spec && e->host_mask[0])
		json_object_set_new(spec, "hostMask", json_string(e->host_mask));
	pthread_mutex_unlock(&e->lock);

	runtime = spec ? spawn(e, spec, &err) : NULL;
	if (!spec)
		ax_fail(&err, AX_CODE_NOMEM, "out of memory");
	json_decref(spec);

	pthread_mutex_lock(&e->lock);
	if (!runtime || json_object_get(e->sandboxes, id) != rec) {
		abandon(e, id, dir, runtime, &err, resp);
		pthread_mutex_unlock(&e->lock);
		json_decref(rec);
		free(dir);
		return;
	}
	json_object_set_new(rec, "runtime", runtime);
	/* Still Pending, now with its runtime: an engine that dies before the
	 * Running record is saved leaves a record the next one can clean up
	 * (an engine crash, not a power cut: no fsync on the create path). */
	if (ax_store_save_nosync(e, rec, &err) < 0)
		ax_engine_log(e, "cannot save %s: %s", id, err.message);
	if (e->create_delay_ms > 0) {
		pthread_mutex_unlock(&e->lock);
		nanosleep(&(struct timespec){ e->create_delay_ms / 1000, (e->create_delay_ms % 1000) * 1000000L }, NULL);
		pthread_mutex_lock(&e->lock);
	}
	set_status(rec, e, "Running", "SANDBOX_RUNNING",
		   json_string_value(json_object_get(json_object_get(rec, "runtime"), "note")));
	if (ax_store_save_nosync(e, rec, &err) < 0)
		ax_engine_log(e, "cannot save %s: %s", id, err.message);
	ax_engine_log(e, "created %s (%s)", id, json_string_value(json_object_get(json_object_get(rec, "image"), "uri")));
	resp->status = 202;
	resp->body = view(rec, true);
	pthread_cond_broadcast(&e->started);
	/* Under the lock: other threads hold the record through e->sandboxes. */
	json_decref(rec);
	pthread_mutex_unlock(&e->lock);
	add_entrypoint_status(e, resp->body);
	free(dir);
}

/* ---------- list ---------- */

static bool state_matches(const json_t *rec, const json_t *states)
{
	size_t i;
	json_t *s;

	if (!states)
		return true;
	json_array_foreach(states, i, s)
		if (strcasecmp(json_string_value(s), state_of(rec) ?: "") == 0)
			return true;
	return false;
}

/* metadata=k%3Dv%26k2%3Dv2 arrives decoded as "k=v&k2=v2": every pair must match. */
static int metadata_matches(const json_t *rec, const char *filter, bool *match)
{
	char *copy = strdup(filter), *save = NULL, *pair;
	const json_t *meta = json_object_get(rec, "metadata");

	*match = true;
	if (!copy)
		return -1;
	for (pair = strtok_r(copy, "&", &save); pair; pair = strtok_r(NULL, "&", &save)) {
		char *eq = strchr(pair, '=');
		const char *have;

		if (!eq || eq == pair) {
			free(copy);
			return -1;
		}
		*eq = '\0';
		have = json_string_value(json_object_get(meta, pair));
		if (!have || strcmp(have, eq + 1) != 0)
			*match = false;
	}
	free(copy);
	return 0;
}

int ax_int_param(const ax_req *req, const char *name, long def, long min, long max, long *out, ax_resp *resp)
{
	const char *s = json_string_value(json_array_get(json_object_get(req->query, name), 0));
	char *end;
	long v;

	*out = def;
	if (!s)
		return 0;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		ax_resp_error(resp, 400, "SANDBOX::INVALID_PARAMETER", "%s must be an integer from %ld to %ld", name, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

int ax_newest_first(const void *a, const void *b)
{
	const char *ca = json_string_value(json_object_get(*(json_t *const *)a, "createdAt"));
	const char *cb = json_string_value(json_object_get(*(json_t *const *)b, "createdAt"));
	int c = strcmp(cb ?: "", ca ?: "");

	return c ? c : strcmp(json_string_value(json_object_get(*(json_t *const *)a, "id")),
			      json_string_value(json_object_get(*(json_t *const *)b, "id")));
}

static json_t *list_view(void *unused, const json_t *rec)
{
	(void)unused;
	return view(rec, false);
}

static void list(ax_engine *e, const ax_req *req, ax_resp *resp)
{
	const json_t *states = json_object_get(req->query, "state");
	const char *meta = json_string_value(json_array_get(json_object_get(req->query, "metadata"), 0));
	long page, size;
	json_t **sel, *rec;
	const char *id;
	size_t n = 0;

	sel = ax_page_begin(e, req, e->sandboxes, &page, &size, resp);
	if (!sel)
		return;
	json_object_foreach(e->sandboxes, id, rec) {
		bool ok = true;

		if (meta && metadata_matches(rec, meta, &ok) < 0) {
			pthread_mutex_unlock(&e->lock);
			free(sel);
			ax_resp_error(resp, 400, "SANDBOX::INVALID_METADATA_FORMAT",
				      "metadata filter must look like key=value&key2=value2");
			return;
		}
		if (ok && state_matches(rec, states))
			sel[n++] = rec;
	}
	ax_resp_page(resp, sel, n, page, size, list_view, NULL);
	pthread_mutex_unlock(&e->lock);
	free(sel);
	{
		json_t *item;
		size_t i;

		json_array_foreach(json_object_get(resp->body, "items"), i, item)
			add_entrypoint_status(e, item);
	}
}

json_t **ax_page_begin(ax_engine *e, const ax_req *req, const json_t *records, long *page, long *size, ax_resp *resp)
{
	json_t **sel;

	if (ax_int_param(req, "page", 1, 1, 1000000, page, resp) < 0 ||
	    ax_int_param(req, "pageSize", 20, 1, 200, size, resp) < 0)
		return NULL;
	pthread_mutex_lock(&e->lock);
	sel = calloc(json_object_size(records) + 1, sizeof(json_t *));
	if (!sel) {
		pthread_mutex_unlock(&e->lock);
		ax_resp_error(resp, 500, "GENERAL::UNKNOWN_ERROR", "out of memory");
	}
	return sel;
}

void ax_resp_page(ax_resp *resp, json_t **sel, size_t n, long page, long size,
		  json_t *(*show)(void *arg, const json_t *rec), void *arg)
{
	long total = (long)n, pages = (total + size - 1) / size;
	json_t *items = json_array();

	qsort(sel, n, sizeof(json_t *), ax_newest_first);
	for (long i = (page - 1) * size; i < total && i < page * size; i++)
		json_array_append_new(items, show(arg, sel[i]));
	resp->status = 200;
	resp->body = json_pack("{s:o, s:{s:i, s:i, s:i, s:i, s:b}}", "items", items, "pagination", "page", (int)page,
			       "pageSize", (int)size, "totalItems", (int)total, "totalPages", (int)pages,
			       "hasNextPage", page < pages);
}

/* ---------- one sandbox ---------- */

/* The engine is a child subreaper, so a sandbox's processes come back to it
 * when they end; collect them so no zombie outlives the sandbox. */
static void collect(const ax_rt_handle *h, int tries)
{
	pid_t pids[3] = { h->pid, h->init_pid, h->net_pid };
	int i, left;

	do {
		left = 0;
		for (i = 0; i < 3; i++) {
			if (pids[i] <= 0)
				continue;
			if (waitpid(pids[i], NULL, WNOHANG) == 0)
				left++;
			else
				pids[i] = 0;
		}
		if (left && tries > 1)
			usleep(10000);
	} while (left && --tries > 0);
}

static void destroy(ax_engine *e, const char *id, json_t *rec)
{
	ax_rt_handle h;
	ax_error err;
	char *dir = ax_store_dir(e, id);

	handle_of(rec, &h);
	ax_endpoints_drop(e, id);
	ax_egress_stop(e->egress, id);
	/* Also without a runtime (an engine that died while spawning it): its
	 * processes and cgroups are then found by id alone. */
	if (ax_rt_kill(&h, id, &err) < 0)
		ax_engine_log(e, "kill %s: %s", id, err.message);
	collect(&h, 100);
	if (dir && ax_rt_remove_sandbox(dir, &err) < 0)
		ax_engine_log(e, "remove %s: %s", dir, err.message);
	release_uids(e, rec, dir);
	free(dir);
	json_object_del(e->sandboxes, id);
	ax_layers_gc(e);
}

static void pause_resume(ax_engine *e, const char *id, json_t *rec, bool pause, ax_resp *resp)
{
	const char *want = pause ? "Running" : "Paused";
	ax_rt_handle h;
	ax_error err;

	if (strcmp(state_of(rec) ?: "", want) != 0) {
		ax_resp_error(resp, 409, pause ? "SANDBOX::NOT_RUNNING" : "SANDBOX::NOT_PAUSED",
			      "sandbox %s is %s, not %s", id, state_of(rec) ?: "unknown", want);
		return;
	}
	handle_of(rec, &h);
	/* A capture holds the sandbox frozen and thaws it when done, if it is
	 * still meant to run; meanwhile both only change the state. */
	if (!ax_sandbox_capturing(e, id) && (pause ? ax_rt_freeze(&h, id, &err) : ax_rt_thaw(&h, id, &err)) < 0) {
		ax_resp_error(resp, 500, "SANDBOX::RUNTIME_ERROR", "cannot %s sandbox: %s", pause ? "pause" : "resume",
			      err.message);
		return;
	}
	set_status(rec, e, pause ? "Paused" : "Running", pause ? "SANDBOX_PAUSED" : "SANDBOX_RUNNING", NULL);
	save(e, rec);
	resp->status = 202;
}

static void renew(ax_engine *e, const char *id, json_t *rec, const ax_req *req, ax_resp *resp)
{
	json_t *body = ax_parse_body(req, resp, true);
	const char *when = json_string_value(json_object_get(body, "expiresAt"));
	const char *current = json_string_value(json_object_get(rec, "expiresAt"));
	char canon[32];
	time_t t, cur;

	if (!body)
		return;
	if (!when || json_object_size(body) != 1 || ax_time_parse_rfc3339(when, &t) < 0) {
		ax_resp_error(resp, 400, "SANDBOX::INVALID_PARAMETER",
			      "body must be {\"expiresAt\": \"<RFC 3339 time>\"}");
	} else if (t <= ax_engine_now(e)) {
		ax_resp_error(resp, 400, "SANDBOX::INVALID_EXPIRATION", "expiresAt %s is not in the future", when);
	} else if (current && ax_time_parse_rfc3339(current, &cur) == 0 && t <= cur) {
		ax_resp_error(resp, 400, "SANDBOX::INVALID_EXPIRATION", "expiresAt %s is not after the current expiry %s",
			      when, current);
	} else {
		ax_time_rfc3339(t, canon);
		json_object_set_new(rec, "expiresAt", json_string(canon));
		save(e, rec);
		ax_engine_log(e, "renewed %s until %s", id, canon);
		resp->status = 200;
		resp->body = json_pack("{s:s}", "expiresAt", canon);
	}
	json_decref(body);
}

static void patch_metadata(ax_engine *e, json_t *rec, const ax_req *req, ax_resp *resp)
{
	json_t *body = ax_parse_body(req, resp, true), *meta = json_object_get(rec, "metadata"), *v;
	const char *k;

	if (!body)
		return;
	json_object_foreach(body, k, v)
		if (!json_is_string(v) && !json_is_null(v)) {
			ax_resp_error(resp, 400, "SANDBOX::INVALID_PARAMETER", "metadata.%s must be a string or null", k);
			json_decref(body);
			return;
		}
	if (!meta) {
		meta = json_object();
		json_object_set_new(rec, "metadata", meta);
	}
	/* RFC 7396 merge patch: null deletes, a string sets. */
	json_object_foreach(body, k, v) {
		if (json_is_null(v))
			json_object_del(meta, k);
		else
			json_object_set(meta, k, v);
	}
	json_decref(body);
	save(e, rec);
	resp->status = 200;
	resp->body = view(rec, false);
}

void ax_sandboxes_route(ax_engine *e, const ax_req *req, ax_resp *resp)
{
	const char *rest = req->path + strlen("/sandboxes");
	char id[128], tail[128];
	json_t *rec;

	if (!*rest || strcmp(rest, "/") == 0) {
		if (strcmp(req->method, "POST") == 0)
			create(e, req, resp);
		else if (strcmp(req->method, "GET") == 0)
			list(e, req, resp);
		else
			ax_resp_error(resp, 405, "GENERAL::METHOD_NOT_ALLOWED", "%s not allowed on /sandboxes", req->method);
		return;
	}
	rest++;
	{
		size_t n = strcspn(rest, "/");

		if (n == 0 || n >= sizeof id) {
			ax_resp_error(resp, 404, "SANDBOX::NOT_FOUND", "sandbox not found");
			return;
		}
		memcpy(id, rest, n);
		id[n] = '\0';
		snprintf(tail, sizeof tail, "%s", rest + n);
	}
	pthread_mutex_lock(&e->lock);
	rec = find(e, id, resp);
	if (!rec) {
		pthread_mutex_unlock(&e->lock);
		return;
	}
	if (!tail[0] && strcmp(req->method, "GET") == 0) {
		resp->status = 200;
		resp->body = view(rec, false);
	} else if (!tail[0] && strcmp(req->method, "DELETE") == 0) {
		/* Deleting a sandbox while it starts: once started, it is known
		 * (runtime) and goes with the rest. */
		rec = settled(e, id);
		if (rec) {
			destroy(e, id, rec);
			ax_engine_log(e, "deleted %s", id);
		}
		resp->status = 204;
	} else if (strcmp(tail, "/pause") == 0 && strcmp(req->method, "POST") == 0) {
		pause_resume(e, id, rec, true, resp);
	} else if (strcmp(tail, "/resume") == 0 && strcmp(req->method, "POST") == 0) {
		pause_resume(e, id, rec, false, resp);
	} else if (strcmp(tail, "/renew-expiration") == 0 && strcmp(req->method, "POST") == 0) {
		renew(e, id, rec, req, resp);
	} else if (strcmp(tail, "/metadata") == 0 && strcmp(req->method, "PATCH") == 0) {
		patch_metadata(e, rec, req, resp);
	} else if (strcmp(tail, "/snapshots") == 0 && strcmp(req->method, "POST") == 0) {
		ax_snapshot_create(e, rec, req, resp);
	} else if (strncmp(tail, "/endpoints/", 11) == 0 && strcmp(req->method, "GET") == 0) {
		/* The agent's port and token are known once it started. */
		rec = settled(e, id);
		if (rec)
			ax_endpoint(e, rec, tail + 11, resp);
		else
			ax_resp_error(resp, 404, "SANDBOX::NOT_FOUND", "sandbox %s not found", id);
	} else {
		ax_resp_error(resp, 404, "GENERAL::NOT_FOUND", "no route for %s %s", req->method, req->path);
	}
	pthread_mutex_unlock(&e->lock);
	/* The sandbox's own files are read without the lock. */
	if (resp->status == 200 && resp->body && (!tail[0] || strcmp(tail, "/metadata") == 0))
		add_entrypoint_status(e, resp->body);
}

/* ---------- background ---------- */

/* Why the sandbox's PID 1, its allox-agent, is gone, for its status. bwrap,
 * the agent's parent, exits with the agent's code, or 128+N when signal N
 * killed it; we see that when we reap bwrap, i.e. when this engine started
 * the sandbox (a re-adopted one's bwrap is not our child). */
static void agent_gone(const ax_rt_handle *h, char *msg, size_t n)
{
	int st = 0, i, code;
	pid_t r = 0;

	/* bwrap follows its child within moments; wait for it a little. */
	for (i = 0; i < 50 && h->pid > 0; i++) {
		r = waitpid(h->pid, &st, WNOHANG);
		if (r != 0)
			break;
		usleep(10000);
	}
	code = r == h->pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	if (code > 128)
		snprintf(msg, n, "the sandbox's agent (allox-agent, pid %d) was killed by signal %d (%s)", (int)h->init_pid,
			 code - 128, strsignal(code - 128));
	else if (code >= 0)
		snprintf(msg, n, "the sandbox's agent (allox-agent, pid %d) exited with code %d", (int)h->init_pid, code);
	else
		snprintf(msg, n, "the sandbox's agent (allox-agent, pid %d) is gone", (int)h->init_pid);
}

void ax_sandboxes_reap(ax_engine *e)
{
	time_t now = ax_engine_now(e);
	json_t *rec, *expired = json_array();
	const char *id;
	size_t i;

	pthread_mutex_lock(&e->lock);
	json_object_foreach(e->sandboxes, id, rec) {
		const char *exp = json_string_value(json_object_get(rec, "expiresAt"));
		const char *state = state_of(rec) ?: "";
		ax_rt_handle h;
		time_t t;

		/* Starting (see create): what it started is not known yet. It
		 * expires at the next tick after it runs. */
		if (strcmp(state, "Pending") == 0)
			continue;
		if (exp && ax_time_parse_rfc3339(exp, &t) == 0 && t <= now) {
			json_array_append_new(expired, json_string(id));
			continue;
		}
		handle_of(rec, &h);
		if ((strcmp(state, "Running") == 0 || strcmp(state, "Paused") == 0) && !ax_rt_alive(&h)) {
			ax_error kerr;
			char why[160];

			agent_gone(&h, why, sizeof why);
			/* Whatever is left of it (cgroups, stragglers) goes now, not at delete. */
			if (ax_rt_kill(&h, id, &kerr) < 0)
				ax_engine_log(e, "cleanup of %s: %s", id, kerr.message);
			collect(&h, 1);
			ax_egress_stop(e->egress, id);
			set_status(rec, e, "Terminated", "SANDBOX_EXITED", why);
			save(e, rec);
			ax_engine_log(e, "%s exited on its own: %s", id, why);
		}
	}
	for (i = 0; i < json_array_size(expired); i++) {
		id = json_string_value(json_array_get(expired, i));
		ax_engine_log(e, "%s expired", id);
		destroy(e, id, json_object_get(e->sandboxes, id));
	}
	pthread_mutex_unlock(&e->lock);
	json_decref(expired);
}

void ax_sandboxes_scan_host(ax_engine *e)
{
	char mask[sizeof e->host_mask], note[256] = "", *images;
	long long now = ax_mono_ms();
	ax_error err;

	pthread_mutex_lock(&e->lock);
	/* 60-80 ms of stat()s per scan: at the first create (not at start, which
	 * commands that create nothing wait for), until one succeeds, then only
	 * every 10 s while sandboxes are about. */
	if (e->host_mask[0] && (now - e->host_mask_ms < 10000 || !json_object_size(e->sandboxes))) {
		pthread_mutex_unlock(&e->lock);
		return;
	}
	pthread_mutex_unlock(&e->lock);
	images = ax_path_join(e->state_dir, "images");
	if (!images || ax_mkdir_p(images, 0700, &err) < 0 ||
	    ax_host_mask_get(images, mask, sizeof mask, note, sizeof note, &err) < 0) {
		ax_engine_log(e, "cannot build the host mask: %s", images ? err.message : "out of memory");
		mask[0] = '\0';
	} else if (note[0]) {
		ax_engine_log(e, "host mask: %s", note);
	}
	free(images);
	pthread_mutex_lock(&e->lock);
	/* A failed rescan keeps the last good mask. */
	if (mask[0]) {
		snprintf(e->host_mask, sizeof e->host_mask, "%s", mask);
		e->host_mask_ms = now;
	}
	pthread_mutex_unlock(&e->lock);
}

void ax_sandboxes_adopt(ax_engine *e)
{
	json_t *rec;
	const char *id;
	void *next;

	pthread_mutex_lock(&e->lock);
	json_object_foreach_safe(e->sandboxes, next, id, rec) {
		const char *state = state_of(rec) ?: "";
		ax_rt_handle h;

		handle_of(rec, &h);
		if (strcmp(state, "Pending") == 0) {
			/* The engine died while creating it: its client got an error and
			 * no id, so nobody can use it. Whatever got started goes (by
			 * handle if spawn finished, by cgroup otherwise), and so does
			 * its state directory. */
			ax_engine_log(e, "removing %s: the engine stopped while creating it", id);
			destroy(e, id, rec);
		} else if ((strcmp(state, "Running") == 0 || strcmp(state, "Paused") == 0) && !ax_rt_alive(&h)) {
			ax_error kerr;
			char why[160];

			if (ax_rt_kill(&h, id, &kerr) < 0)
				ax_engine_log(e, "cleanup of %s: %s", id, kerr.message);

			snprintf(why, sizeof why, "the sandbox's agent (allox-agent, pid %d) ended while the engine was down",
				 (int)h.init_pid);
			set_status(rec, e, "Terminated", "SANDBOX_EXITED", why);
			save(e, rec);
		} else if (strcmp(state, "Terminated") == 0) {
			ax_error kerr;

			/* Its cgroups went when it was found dead, unless that removal
			 * failed (a cgroup still busy after the wait): retry. */
			if (ax_rt_kill(&h, id, &kerr) < 0)
				ax_engine_log(e, "cleanup of %s: %s", id, kerr.message);
		} else {
			ax_error terr;

			/* An engine that died mid-capture may have left it frozen. */
			if (strcmp(state, "Running") == 0 && ax_rt_thaw(&h, id, &terr) < 0)
				ax_engine_log(e, "thaw of %s: %s", id, terr.message);
			ax_egress_adopt(e, rec);
			ax_engine_log(e, "re-adopted %s (%s)", id, state);
		}
	}
	pthread_mutex_unlock(&e->lock);
}

/* ---------- captures ---------- */

bool ax_sandbox_capturing(ax_engine *e, const char *id)
{
	return json_integer_value(json_object_get(e->capturing, id)) > 0;
}

int ax_sandbox_freeze_for_capture(ax_engine *e, const char *id, ax_error *err)
{
	json_int_t n = json_integer_value(json_object_get(e->capturing, id));
	json_t *rec = json_object_get(e->sandboxes, id);
	ax_rt_handle h;

	if (!rec)
		return ax_fail(err, AX_CODE_NOT_FOUND, "sandbox %s is gone", id);
	handle_of(rec, &h);
	if (n == 0 && ax_rt_freeze(&h, id, err) < 0)
		return -1;
	json_object_set_new(e->capturing, id, json_integer(n + 1));
	return 0;
}

void ax_sandbox_thaw_after_capture(ax_engine *e, const char *id)
{
	json_int_t n = json_integer_value(json_object_get(e->capturing, id));
	json_t *rec = json_object_get(e->sandboxes, id);
	ax_rt_handle h;
	ax_error err;

	if (n > 1) {
		json_object_set_new(e->capturing, id, json_integer(n - 1));
		return;
	}
	json_object_del(e->capturing, id);
	if (!rec || strcmp(state_of(rec) ?: "", "Running") != 0)
		return;
	handle_of(rec, &h);
	if (ax_rt_thaw(&h, id, &err) < 0)
		ax_engine_log(e, "thaw of %s after a capture: %s", id, err.message);
}
