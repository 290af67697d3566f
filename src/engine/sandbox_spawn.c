/* Starting a sandbox's runtime: the agent's sockets, token and log, the
 * runtime spec from the record, the host uids it maps to. */
#include "engine/sandbox.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "engine/egress/egress.h"
#include "engine/volume.h"
#include "lib/fs.h"

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
json_t *ax_effective_limits(const ax_engine *e, const json_t *given)
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
json_t *ax_sandbox_spawn(ax_engine *e, const json_t *rec, ax_error *err)
{
	const char *id = json_string_value(json_object_get(rec, "id"));
	const json_t *ep = json_object_get(rec, "entrypoint"), *limits = json_object_get(rec, "resourceLimits");
	char token[65], fdbuf[5][16], maxbuf[24], membuf[24], cpubuf[24], *dir = ax_store_dir(e, id), *resolv = NULL;
	const json_t *policy = json_object_get(rec, "networkPolicy");
	ax_egress_start_arg egress = { e, id, policy };
	char **env = env_list(json_object_get(rec, "env"));
	char **layers = ax_layer_paths(e, json_object_get(rec, "layers"));
	unsigned *bases = ax_layer_bases(rec);
	const char **argv = NULL;
	int lfd = -1, cfd = -1, tp[2] = { -1, -1 }, rp[2] = { -1, -1 }, ofd = -1, port = 0, cdp_port = 0, keep[6];
	ax_net_mode mode = AX_NET_ISOLATED;
	size_t i, n = json_array_size(ep);
	ax_rt_volume *volumes = NULL;
	size_t n_volumes = 0;
	ax_rt_spec spec;
	ax_rt_handle h;
	json_t *x, *runtime = NULL;

	if (!dir || !env || (json_array_size(json_object_get(rec, "layers")) && (!layers || !bases)) ||
	    ax_random_hex(token, 32) < 0) {
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
	snprintf(membuf, sizeof membuf, "%lld", limit_of(limits, AX_LIMIT_MEMORY));
	snprintf(cpubuf, sizeof cpubuf, "%lld", limit_of(limits, AX_LIMIT_CPU));
	argv = calloc(n + 21, sizeof *argv);
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
	/* The sandbox's cgroup is not visible inside: the agent reports these
	 * limits in /metrics. */
	if (limit_of(limits, AX_LIMIT_MEMORY) > 0) {
		argv[i++] = "--memory-max";
		argv[i++] = membuf;
	}
	if (limit_of(limits, AX_LIMIT_CPU) > 0) {
		argv[i++] = "--cpu-max";
		argv[i++] = cpubuf;
	}
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
	if (ax_volumes_open(e, rec, &volumes, &n_volumes, err) < 0)
		goto out;
	spec.volumes = volumes;
	spec.n_volumes = n_volumes;
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
	ax_volumes_close(volumes, n_volumes);
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
int ax_claim_uids(ax_engine *e, json_t *rec, const char *dir, ax_error *err)
{
	unsigned base;

	if (ax_uidrange_claim(&e->uids, dir, &base, err) < 0)
		return -1;
	json_object_set_new(rec, "uidBase", json_integer(base));
	return 0;
}

