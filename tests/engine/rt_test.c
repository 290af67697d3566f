/* rt_test: drives the sandbox runtime from the shell (tests/cli/runtime.sh).
 *
 *   rt_test start [--id ID] [--layer DIR]... [--hide PATH] [--images DIR] [--log PATH]
 *                 [--mem BYTES] [--pids N] [--cpu MILLICPUS] [--env K=V]... [--keep-fd N]...
 *                 [--uid-base UID] [--layer-base UID]
 *                 STATE_DIR IMAGE -- ARGV...
 *       prints the handle as JSON and saves it to STATE_DIR/handle.json
 *   rt_test alive|freeze|thaw|kill|remove STATE_DIR
 *   rt_test bench N [BASE_DIR]
 *       median start-to-exec of /bin/true as PID 1 against the bwrap floor
 *
 * The id defaults to STATE_DIR's name and hide_path to STATE_DIR/../../..
 * (i.e. $ALLOX_HOME when STATE_DIR is $ALLOX_HOME/engine/sandboxes/<id>).
 * The uid base is claimed as the engine claims it (for STATE_DIR) unless
 * given; --layer-base is where every --layer's owners start on disk. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine/runtime/runtime.h"
#include "engine/runtime/host_mask.h"
#include "engine/runtime/uidrange.h"

#define MAX_LIST 32

typedef struct opts {
	ax_rt_spec spec;
	const char *layers[MAX_LIST + 1], *env[MAX_LIST + 1];
	int keep[MAX_LIST + 1];
	unsigned layer_bases[MAX_LIST + 1];
	char id[128], hide[PATH_MAX];
} opts;

static const ax_uidrange uid_ranges = { AX_UIDRANGE_DIR, AX_UIDRANGE_FIRST, AX_UIDRANGE_COUNT };

static int usage(void)
{
	fprintf(stderr, "usage: rt_test start [options] STATE_DIR IMAGE -- ARGV...\n"
			"       rt_test alive|freeze|thaw|kill|remove STATE_DIR\n"
			"       rt_test bench N [BASE_DIR]\n");
	return 2;
}

static int report(const ax_error *err)
{
	fprintf(stderr, "rt_test: %s\n", err->message);
	if (err->hint[0])
		fprintf(stderr, "  %s\n", err->hint);
	return 1;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static char *handle_path(const char *sd)
{
	static const char name[] = "/handle.json";
	char *p = malloc(strlen(sd) + sizeof name);

	if (p)
		sprintf(p, "%s%s", sd, name);
	return p;
}

static json_t *handle_json(const char *id, const ax_rt_handle *h)
{
	return json_pack("{s:s, s:i, s:I, s:i, s:I, s:b, s:s}", "id", id, "pid", (int)h->pid, "start",
			 (json_int_t)h->start, "init_pid", (int)h->init_pid, "init_start", (json_int_t)h->init_start,
			 "cgroup", h->cgroup, "note", h->note);
}

static int load_handle(const char *sd, char *id, size_t idlen, ax_rt_handle *h)
{
	char *path = handle_path(sd);
	json_error_t je;
	json_t *j = path ? json_load_file(path, 0, &je) : NULL;
	const char *sid = NULL, *note = "";
	json_int_t pid = 0, start = 0, ipid = 0, istart = 0;
	int cg = 0;

	free(path);
	memset(h, 0, sizeof *h);
	if (!j || json_unpack(j, "{s:s, s:I, s:I, s:I, s:I, s:b, s?s}", "id", &sid, "pid", &pid, "start", &start,
			      "init_pid", &ipid, "init_start", &istart, "cgroup", &cg, "note", &note) < 0) {
		fprintf(stderr, "rt_test: cannot read %s/handle.json\n", sd);
		json_decref(j);
		return -1;
	}
	snprintf(id, idlen, "%s", sid);
	h->pid = (pid_t)pid;
	h->start = (unsigned long long)start;
	h->init_pid = (pid_t)ipid;
	h->init_start = (unsigned long long)istart;
	h->cgroup = cg;
	snprintf(h->note, sizeof h->note, "%s", note);
	json_decref(j);
	return 0;
}

static int add(const char **list, const char *v)
{
	int n = 0;

	while (list[n])
		n++;
	if (n >= MAX_LIST)
		return -1;
	list[n] = v;
	return 0;
}

static int parse_start(int argc, char **argv, opts *o)
{
	int i, nkeep = 0;

	memset(o, 0, sizeof *o);
	o->keep[0] = -1;
	for (i = 2; i < argc && strncmp(argv[i], "--", 2) == 0 && argv[i][2]; i += 2) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			return -1;
		if (!strcmp(k, "--id"))
			snprintf(o->id, sizeof o->id, "%s", v);
		else if (!strcmp(k, "--layer") && add(o->layers, v) == 0)
			o->spec.layers = o->layers;
		else if (!strcmp(k, "--env") && add(o->env, v) == 0)
			o->spec.env = o->env;
		else if (!strcmp(k, "--hide"))
			snprintf(o->hide, sizeof o->hide, "%s", v);
		else if (!strcmp(k, "--images"))
			o->spec.image_dir = v;
		else if (!strcmp(k, "--log"))
			o->spec.log_path = v;
		else if (!strcmp(k, "--mem"))
			o->spec.memory_bytes = atoll(v);
		else if (!strcmp(k, "--pids"))
			o->spec.pids_max = atoll(v);
		else if (!strcmp(k, "--cpu"))
			o->spec.cpu_millis = atoll(v);
		else if (!strcmp(k, "--uid-base"))
			o->spec.uid_base = (unsigned)strtoul(v, NULL, 10);
		else if (!strcmp(k, "--layer-base")) {
			for (int j = 0; j < MAX_LIST; j++)
				o->layer_bases[j] = (unsigned)strtoul(v, NULL, 10);
			o->spec.layer_bases = o->layer_bases;
		}
		else if (!strcmp(k, "--keep-fd") && nkeep < MAX_LIST) {
			o->keep[nkeep++] = atoi(v);
			o->keep[nkeep] = -1;
			o->spec.keep_fds = o->keep;
		} else
			return -1;
	}
	if (i + 3 >= argc || strcmp(argv[i + 2], "--") != 0)
		return -1;
	o->spec.state_dir = argv[i];
	o->spec.image = argv[i + 1];
	o->spec.argv = (const char *const *)&argv[i + 3];
	if (!o->id[0]) {
		const char *slash = strrchr(argv[i], '/');

		snprintf(o->id, sizeof o->id, "%s", slash ? slash + 1 : argv[i]);
	}
	if (!o->hide[0])
		snprintf(o->hide, sizeof o->hide, "%s/../../..", argv[i]);
	o->spec.id = o->id;
	o->spec.hide_path = o->hide;
	return 0;
}

static int claim_uids(const char *sd, unsigned *base, ax_error *err)
{
	char real[PATH_MAX];

	if (!realpath(sd, real))
		return ax_fail(err, AX_CODE_RUNTIME, "%s: %s", sd, strerror(errno));
	return ax_uidrange_claim(&uid_ranges, real, base, err);
}

/* The host image's mask, as the engine builds it, under IMAGES (made if missing). */
static int host_mask(const char *images, char *out, size_t len, ax_error *err)
{
	char note[256];

	if (mkdir(images, 0700) < 0 && errno != EEXIST)
		return ax_fail(err, AX_CODE_RUNTIME, "%s: %s", images, strerror(errno));
	return ax_host_mask_get(images, out, len, note, sizeof note, err);
}

static int cmd_start(int argc, char **argv)
{
	char mask[PATH_MAX], images[PATH_MAX + 16];
	ax_rt_handle h;
	ax_error err;
	opts o;
	json_t *j;
	char *path, *text;
	int rc;

	if (parse_start(argc, argv, &o) < 0)
		return usage();
	ax_error_clear(&err);
	if (!o.spec.uid_base && claim_uids(o.spec.state_dir, &o.spec.uid_base, &err) < 0)
		return report(&err);
	snprintf(images, sizeof images, "%s", o.spec.image_dir ?: "");
	if (!images[0])
		snprintf(images, sizeof images, "%s/../../images", o.spec.state_dir);
	if (strcmp(o.spec.image, "host") == 0) {
		if (host_mask(images, mask, sizeof mask, &err) < 0)
			return report(&err);
		o.spec.host_mask = mask;
	}
	if (ax_rt_start(&o.spec, &h, &err) < 0)
		return report(&err);
	j = handle_json(o.id, &h);
	text = j ? json_dumps(j, JSON_COMPACT) : NULL;
	path = handle_path(o.spec.state_dir);
	rc = text && path && json_dump_file(j, path, JSON_COMPACT) == 0 ? 0 : 1;
	if (text)
		printf("%s\n", text);
	if (rc)
		fprintf(stderr, "rt_test: cannot write the handle\n");
	free(text);
	free(path);
	json_decref(j);
	return rc;
}

static int cmd_handle(const char *cmd, const char *sd)
{
	ax_rt_handle h;
	ax_error err;
	char id[128];
	int rc;

	ax_error_clear(&err);
	if (!strcmp(cmd, "remove"))
		return ax_rt_remove_state(sd, &err) < 0 ? report(&err) : 0;
	if (load_handle(sd, id, sizeof id, &h) < 0)
		return 1;
	if (!strcmp(cmd, "alive")) {
		rc = ax_rt_alive(&h);
		printf("%d\n", rc);
		return rc ? 0 : 1;
	}
	if (!strcmp(cmd, "freeze"))
		rc = ax_rt_freeze(&h, id, &err);
	else if (!strcmp(cmd, "thaw"))
		rc = ax_rt_thaw(&h, id, &err);
	else if (!strcmp(cmd, "kill"))
		rc = ax_rt_kill(&h, id, &err);
	else
		return usage();
	return rc < 0 ? report(&err) : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One bench run's times, in ms from just before the start. */
typedef struct sample {
	double exec, ret, exit;
} sample;

/* `rt_test stamp FD` (run as PID 1) writes CLOCK_MONOTONIC at main() to FD;
 * the clock is not namespaced, so it compares with the parent's. */
static int cmd_stamp(const char *fd)
{
	char buf[64];
	int n = snprintf(buf, sizeof buf, "%.6f\n", now_ms());

	return write(atoi(fd), buf, (size_t)n) == n ? 0 : 1;
}

static double read_stamp(int fd)
{
	struct pollfd p = { fd, POLLIN, 0 };
	char buf[64];
	ssize_t n;

	if (poll(&p, 1, 10000) <= 0 || (n = read(fd, buf, sizeof buf - 1)) <= 0)
		return -1;
	buf[n] = '\0';
	return atof(buf);
}

static int run_floor(const char *self, sample *s)
{
	const char *const floor_argv[] = { "/usr/bin/bwrap", "--ro-bind", "/", "/", "--unshare-all", "--share-net",
					   "--proc", "/proc", "--dev", "/dev", self, "stamp", "3", NULL };
	int p[2];
	double t0 = now_ms();
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 1);
		dup2(p[1], 3);
		execv(floor_argv[0], (char *const *)floor_argv);
		_exit(127);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -1;
	}
	s->exec = read_stamp(p[0]) - t0;
	s->ret = s->exec;
	close(p[0]);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	s->exit = now_ms() - t0;
	return s->exec < 0 ? -1 : 0;
}

/* Wait (bounded) for a process that is not our child to exit. */
static void wait_gone(pid_t pid)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	struct pollfd p;

	if (fd < 0)
		return;
	p.fd = fd;
	p.events = POLLIN;
	poll(&p, 1, 10000);
	close(fd);
}

static int run_ours(const char *base, const char *mask, const char *self, int i, sample *s)
{
	char sd[PATH_MAX], id[32], fdarg[16];
	const char *argv[] = { self, "stamp", fdarg, NULL };
	int p[2], keep[2];
	ax_rt_spec spec;
	ax_rt_handle h;
	ax_error err;
	double t0;
	int rc = -1;

	snprintf(id, sizeof id, "bench-%d", i);
	snprintf(sd, sizeof sd, "%s/engine/sandboxes/%s", base, id);
	if ((mkdir(sd, 0700) < 0 && errno != EEXIST) || pipe2(p, O_CLOEXEC) < 0)
		return -1;
	snprintf(fdarg, sizeof fdarg, "%d", p[1]);
	keep[0] = p[1];
	keep[1] = -1;
	memset(&spec, 0, sizeof spec);
	spec.id = id;
	spec.state_dir = sd;
	spec.image = "host";
	spec.argv = argv;
	spec.keep_fds = keep;
	spec.hide_path = base;
	spec.host_mask = mask;
	ax_error_clear(&err);
	if (claim_uids(sd, &spec.uid_base, &err) < 0) {
		report(&err);
		goto out;
	}
	t0 = now_ms();
	if (ax_rt_start(&spec, &h, &err) < 0) {
		report(&err);
		goto out;
	}
	s->ret = now_ms() - t0;
	close(p[1]);
	p[1] = -1;
	s->exec = read_stamp(p[0]) - t0;
	wait_gone(h.pid);
	s->exit = now_ms() - t0;
	if (ax_rt_kill(&h, id, &err) < 0 || ax_rt_remove_state(sd, &err) < 0)
		report(&err);
	else
		rc = s->exec < 0 ? -1 : 0;
out:
	close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
	return rc;
}

enum { EXEC, RET, EXIT };

static void print_row(const char *what, const sample *v, int n, int which)
{
	double *x = malloc((size_t)n * sizeof *x);

	if (!x)
		return;
	for (int i = 0; i < n; i++)
		x[i] = which == EXEC ? v[i].exec : which == RET ? v[i].ret : v[i].exit;
	printf("  %-34s median %6.2f ms\n", what, median(x, n));
	free(x);
}

static int cmd_bench(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 20, rc = 1;
	char base[PATH_MAX], dir[PATH_MAX + 32], self[PATH_MAX], mask[PATH_MAX];
	sample *fl = NULL, *ours = NULL, warm;
	ax_error err;
	ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);

	if (n < 1 || n > 10000 || len <= 0)
		return usage();
	self[len] = '\0';
	if (argc > 3)
		snprintf(base, sizeof base, "%s", argv[3]);
	else if (!mkdtemp(strcpy(base, "/tmp/rt-bench.XXXXXX")))
		return 1;
	snprintf(dir, sizeof dir, "%s/engine", base);
	mkdir(dir, 0700);
	snprintf(dir, sizeof dir, "%s/engine/sandboxes", base);
	mkdir(dir, 0700);
	snprintf(dir, sizeof dir, "%s/engine/images", base);
	if (host_mask(dir, mask, sizeof mask, &err) < 0)
		return report(&err);
	fl = calloc((size_t)n, sizeof *fl);
	ours = calloc((size_t)n, sizeof *ours);
	/* Untimed warm-up: builds the skeleton, fills caches. */
	if (!fl || !ours || run_floor(self, &warm) < 0 || run_ours(base, mask, self, -1, &warm) < 0)
		goto out;
	for (int i = 0; i < n; i++)
		if (run_floor(self, &fl[i]) < 0 || run_ours(base, mask, self, i, &ours[i]) < 0)
			goto out;
	printf("%d runs, PID 1 = rt_test stamp (reports CLOCK_MONOTONIC at main)\n", n);
	printf("floor: bwrap --ro-bind / / --unshare-all --share-net --proc /proc --dev /dev\n");
	print_row("fork to exec", fl, n, EXEC);
	print_row("fork to bwrap exit", fl, n, EXIT);
	printf("ax_rt_start, host image:\n");
	print_row("call to exec", ours, n, EXEC);
	print_row("call to return", ours, n, RET);
	print_row("call to bwrap exit", ours, n, EXIT);
	rc = 0;
out:
	free(fl);
	free(ours);
	if (argc <= 3)
		ax_rt_remove_state(base, &err);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "start"))
		return cmd_start(argc, argv);
	if (!strcmp(argv[1], "bench"))
		return cmd_bench(argc, argv);
	if (!strcmp(argv[1], "stamp") && argc == 3)
		return cmd_stamp(argv[2]);
	if (argc == 3)
		return cmd_handle(argv[1], argv[2]);
	return usage();
}
