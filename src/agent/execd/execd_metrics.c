#include "agent/execd/execd_metrics.h"

#include <dirent.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "agent/execd/execd_event.h"
#include "agent/execd/execd_http.h"
#include "agent/execd/execd_stream.h"
#include "lib/timeutil.h"

#define CG "/sys/fs/cgroup"
#define MIB (1024.0 * 1024.0)
/* GET /metrics measures CPU use over this long. */
#define SAMPLE_MS 200
/* GET /metrics/watch: one event a second, as the spec says. */
#define WATCH_MS 1000

/* The first number in FILE (after KEY and a space when KEY is given, e.g.
 * "usage_usec 123" in cpu.stat). 0, or -1 when absent or "max". */
static int read_number(const char *file, const char *key, long long *v)
{
	FILE *f = fopen(file, "re");
	char line[256];
	size_t klen = key ? strlen(key) : 0;
	int rc = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof line, f)) {
		char *p = line, *end;

		if (key) {
			if (strncmp(line, key, klen) != 0 || line[klen] != ' ')
				continue;
			p = line + klen + 1;
		}
		*v = strtoll(p, &end, 10);
		rc = end == p ? -1 : 0;
		break;
	}
	fclose(f);
	return rc;
}

/* Clock ticks of utime, stime, cutime and cstime in a /proc/PID/stat. */
static long long stat_ticks(const char *pid)
{
	char path[300], buf[1024], *p;
	unsigned long long ut, st;
	long long cut, cst;
	FILE *f;
	size_t n;

	snprintf(path, sizeof path, "/proc/%s/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* The command name may hold spaces and parentheses: fields follow the last ')'. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %lld %lld", &ut, &st, &cut,
			 &cst) != 4)
		return 0;
	return (long long)(ut + st) + cut + cst;
}

static long long statm_resident_pages(const char *pid)
{
	char path[300];
	long long size, resident = 0;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%s/statm", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%lld %lld", &size, &resident) != 2)
		resident = 0;
	fclose(f);
	return resident;
}

/* Over every process /proc lists: CPU ticks (*TICKS) and resident pages
 * (*PAGES). A process reaped meanwhile has its time in its parent's
 * cutime, so nothing is lost but a little is counted twice, at worst. */
static void proc_totals(long long *ticks, long long *pages)
{
	DIR *d = opendir("/proc");
	struct dirent *e;

	*ticks = *pages = 0;
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		*ticks += stat_ticks(e->d_name);
		*pages += statm_resident_pages(e->d_name);
	}
	closedir(d);
}

static int64_t cpu_ns_used(void)
{
	long long v, pages;

	if (read_number(CG "/cpuacct/cpuacct.usage", NULL, &v) == 0 ||
	    read_number(CG "/cpu,cpuacct/cpuacct.usage", NULL, &v) == 0)
		return v;
	if (read_number(CG "/cpu.stat", "usage_usec", &v) == 0)
		return v * 1000;
	proc_totals(&v, &pages);
	return (int64_t)(v * (1000000000.0 / (double)sysconf(_SC_CLK_TCK)));
}

void ag_cpu_sample_take(struct ag_cpu_sample *s)
{
	s->cpu_ns = cpu_ns_used();
	s->mono_ns = ax_mono_ns();
}

/* The CPUs the sandbox may use: those it may run on, bounded by a CFS quota,
 * read from its cgroup or else as the engine gave it (MILLIS, 0: none). */
static double cpu_count(long long millis)
{
	cpu_set_t set;
	double n = 1, quota_cpus = 0;
	long long quota, period;
	FILE *f;

	if (sched_getaffinity(0, sizeof set, &set) == 0)
		n = CPU_COUNT(&set);
	if (read_number(CG "/cpu/cpu.cfs_quota_us", NULL, &quota) == 0 &&
	    read_number(CG "/cpu/cpu.cfs_period_us", NULL, &period) == 0 && quota > 0 && period > 0)
		quota_cpus = (double)quota / (double)period;
	f = fopen(CG "/cpu.max", "re");
	if (f) {
		if (fscanf(f, "%lld %lld", &quota, &period) == 2 && quota > 0 && period > 0)
			quota_cpus = (double)quota / (double)period;
		fclose(f);
	}
	if (quota_cpus <= 0 && millis > 0)
		quota_cpus = (double)millis / 1000.0;
	return quota_cpus > 0 && quota_cpus < n ? quota_cpus : n;
}

static double host_mem_bytes(void)
{
	long long kb;

	return read_number("/proc/meminfo", "MemTotal:", &kb) == 0 ? (double)kb * 1024 : 0;
}

/* Memory in use and the most there may be, in bytes: a cgroup's usage less
 * its reclaimable file cache (as docker stats counts it) and its limit,
 * else the resident memory of the sandbox's processes and the limit the
 * engine gave (MAX, 0: none: the host's RAM). */
static void memory(long long max, double *used, double *total)
{
	long long usage, inactive = 0, limit;
	double host = host_mem_bytes();

	*total = max > 0 && (host <= 0 || (double)max < host) ? (double)max : host;
	if (read_number(CG "/memory/memory.usage_in_bytes", NULL, &usage) == 0) {
		read_number(CG "/memory/memory.stat", "total_inactive_file", &inactive);
		if (read_number(CG "/memory/memory.limit_in_bytes", NULL, &limit) == 0 && limit > 0 &&
		    (host <= 0 || (double)limit < host))
			*total = (double)limit;
	} else if (read_number(CG "/memory.current", NULL, &usage) == 0) {
		read_number(CG "/memory.stat", "inactive_file", &inactive);
		if (read_number(CG "/memory.max", NULL, &limit) == 0 && limit > 0 && (host <= 0 || (double)limit < host))
			*total = (double)limit;
	} else {
		long long ticks, pages;

		proc_totals(&ticks, &pages);
		usage = pages * sysconf(_SC_PAGESIZE);
	}
	*used = (double)(usage > inactive ? usage - inactive : usage);
	/* Shared pages count once per process in the /proc sum. */
	if (*total > 0 && *used > *total)
		*used = *total;
}

static double round2(double v)
{
	return (double)(long long)(v * 100 + 0.5) / 100;
}

json_t *ag_metrics_json(const struct ag_ctx *ctx, const struct ag_cpu_sample *prev, const struct ag_cpu_sample *now)
{
	double cpus = cpu_count(ctx->cpu_millis), used, total, pct = 0;
	int64_t wall = now->mono_ns - prev->mono_ns;
	struct statvfs vfs;
	json_t *o;

	if (wall > 0 && now->cpu_ns > prev->cpu_ns)
		pct = (double)(now->cpu_ns - prev->cpu_ns) * 100.0 / ((double)wall * cpus);
	if (pct > 100)
		pct = 100;
	memory(ctx->memory_max, &used, &total);
	o = json_pack("{s:f,s:f,s:f,s:f,s:I}", "cpu_count", round2(cpus), "cpu_used_pct", round2(pct), "mem_total_mib",
		      round2(total / MIB), "mem_used_mib", round2(used / MIB), "timestamp", (json_int_t)ag_now_ms());
	if (o && statvfs("/", &vfs) == 0) {
		double bsize = (double)vfs.f_frsize;

		json_object_set_new(o, "disk_total_mib", json_real(round2((double)vfs.f_blocks * bsize / MIB)));
		json_object_set_new(o, "disk_used_mib",
				    json_real(round2((double)(vfs.f_blocks - vfs.f_bfree) * bsize / MIB)));
	}
	return o;
}

enum MHD_Result ag_execd_metrics(struct ag_req *req)
{
	struct ag_cpu_sample a, b;
	json_t *o;

	ag_cpu_sample_take(&a);
	usleep(SAMPLE_MS * 1000);
	ag_cpu_sample_take(&b);
	o = ag_metrics_json(req->ctx, &a, &b);
	if (!o)
		return ag_execd_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME, "out of memory");
	return ag_reply_json(req, MHD_HTTP_OK, o);
}

struct watch {
	const struct ag_ctx *ctx;
	int conn_fd;
	struct ag_cpu_sample last;
	bool started;
	struct ag_buf out;
};

/* Wait for the next tick; false when the client hangs up meanwhile. */
static bool wait_tick(const struct watch *w)
{
	struct pollfd p = { .fd = w->conn_fd, .events = POLLRDHUP };
	int64_t deadline = ax_mono_ms() + WATCH_MS, left;

	while ((left = deadline - ax_mono_ms()) > 0) {
		if (w->conn_fd < 0) {
			usleep((useconds_t)left * 1000);
			continue;
		}
		if (poll(&p, 1, (int)left) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)))
			return false;
	}
	return true;
}

/* One SSE event: "data: {Metrics}\n\n". */
static int add_event(struct watch *w)
{
	struct ag_cpu_sample now;
	json_t *o;
	char *text;
	int rc;

	ag_cpu_sample_take(&now);
	o = ag_metrics_json(w->ctx, &w->last, &now);
	w->last = now;
	text = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	json_decref(o);
	if (!text)
		return -1;
	rc = ag_buf_add(&w->out, "data: ", 6) == 0 && ag_buf_add(&w->out, text, strlen(text)) == 0 &&
			     ag_buf_add(&w->out, "\n\n", 2) == 0
		     ? 0
		     : -1;
	free(text);
	return rc;
}

static ssize_t read_watch(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct watch *w = cls;

	if (!ag_buf_pending(&w->out)) {
		if (w->started && !wait_tick(w))
			return MHD_CONTENT_READER_END_WITH_ERROR;
		w->started = true;
		if (add_event(w) < 0)
			return MHD_CONTENT_READER_END_WITH_ERROR;
	}
	return (ssize_t)ag_buf_take(&w->out, buf, max);
}

static void free_watch(void *cls)
{
	struct watch *w = cls;

	ag_buf_free(&w->out);
	free(w);
}

enum MHD_Result ag_execd_metrics_watch(struct ag_req *req)
{
	struct watch *w = calloc(1, sizeof *w);
	struct MHD_Response *resp;

	if (!w)
		return ag_execd_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME, "out of memory");
	w->ctx = req->ctx;
	w->conn_fd = ag_connection_fd(req);
	/* The first event's CPU figure covers a short sample, not zero time. */
	ag_cpu_sample_take(&w->last);
	usleep(SAMPLE_MS * 1000);
	resp = ag_with_stream_headers(MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, read_watch, w, free_watch));
	if (!resp) {
		free_watch(w);
		return MHD_NO;
	}
	return ag_reply_queue(req, MHD_HTTP_OK, resp);
}
