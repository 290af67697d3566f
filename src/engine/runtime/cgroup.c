/* Per-sandbox cgroups: <controller>/allox/<id> on cgroup v1 hierarchies, or
 * one allox/<id> directory on cgroup2 for whatever v1 does not provide
 * (freezing needs no controller there). Paths are rediscovered from
 * /proc/self/mountinfo on every call, so a restarted engine finds them. */
#include "engine/runtime/runtime_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/timeutil.h"

static const char *const v1_name[AX_CG_N] = { "freezer", "memory", "pids", "cpu", NULL };

/* The CFS period: quota = CPUs x period (what runc and Docker use). */
#define CPU_PERIOD_US 100000LL

/* How deep kill and remove follow cgroups made below a sandbox's own. */
#define TREE_DEPTH_MAX 64

/* Mount points of the v1 controllers we use and of cgroup2. */
typedef struct cg_mounts {
	char path[AX_CG_N][PATH_MAX];
} cg_mounts;

static bool has_token(const char *list, const char *tok, char sep)
{
	size_t n = strlen(tok);

	for (const char *p = list; p && *p; p = strchr(p, sep), p = p ? p + 1 : NULL)
		if (strncmp(p, tok, n) == 0 && (p[n] == sep || p[n] == '\0' || p[n] == '\n'))
			return true;
	return false;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *dst, size_t len, const char *src, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o + 1 < len; i++) {
		if (src[i] == '\\' && i + 3 < n && src[i + 1] >= '0' && src[i + 1] <= '3' &&
		    src[i + 2] >= '0' && src[i + 2] <= '7' && src[i + 3] >= '0' && src[i + 3] <= '7') {
			dst[o++] = (char)((src[i + 1] - '0') * 64 + (src[i + 2] - '0') * 8 + (src[i + 3] - '0'));
			i += 3;
		} else {
			dst[o++] = src[i];
		}
	}
	dst[o] = '\0';
}

static void find_mounts(cg_mounts *m)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;

	memset(m, 0, sizeof *m);
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		/* id parent maj:min root mountpoint opts [optional...] - fstype source superopts */
		const char *mp = line, *sep = strstr(line, " - "), *end;
		char fstype[32], super[512];
		int i;

		for (i = 0; i < 4 && mp; i++) {
			mp = strchr(mp, ' ');
			if (mp)
				mp++;
		}
		if (!mp || !sep || !(end = strchr(mp, ' ')))
			continue;
		if (sscanf(sep, " - %31s %*s %511s", fstype, super) != 2)
			continue;
		if (strcmp(fstype, "cgroup2") == 0 && !m->path[AX_CG_V2][0]) {
			unescape(m->path[AX_CG_V2], PATH_MAX, mp, (size_t)(end - mp));
		} else if (strcmp(fstype, "cgroup") == 0) {
			for (i = 0; i < AX_CG_V2; i++)
				if (!m->path[i][0] && has_token(super, v1_name[i], ','))
					unescape(m->path[i], PATH_MAX, mp, (size_t)(end - mp));
		}
	}
	free(line);
	fclose(f);
}

static bool v2_has(const char *root, const char *controller)
{
	char path[PATH_MAX + 32], buf[512];

	snprintf(path, sizeof path, "%s/cgroup.controllers", root);
	return ax_rt_read_small(path, buf, sizeof buf) == 0 && has_token(buf, controller, ' ');
}

/* Controllers must be enabled in every ancestor's subtree_control to reach allox/<id>. */
static int v2_enable(const char *dir, bool memory, bool pids, bool cpu)
{
	char path[PATH_MAX + 32], buf[512];
	int e = 0;

	snprintf(path, sizeof path, "%s/cgroup.subtree_control", dir);
	if (ax_rt_read_small(path, buf, sizeof buf) != 0)
		buf[0] = '\0';
	if (memory && !has_token(buf, "memory", ' '))
		e = ax_rt_write_file(path, "+memory");
	if (!e && pids && !has_token(buf, "pids", ' '))
		e = ax_rt_write_file(path, "+pids");
	if (!e && cpu && !has_token(buf, "cpu", ' '))
		e = ax_rt_write_file(path, "+cpu");
	return e;
}

/* rmdir every cgroup below DIRFD, depth first; 0 or the first errno. Removing
 * entries while reading the directory may skip one: callers retry until the
 * sandbox's own directory goes. */
static int remove_below(int dirfd, int depth)
{
	int first = 0, fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 3);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *ent;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return errno;
	}
	while ((ent = readdir(d))) {
		int sub;

		if (ent->d_type != DT_DIR || strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0)
			continue;
		sub = openat(dirfd, ent->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0) {
			int e = depth < TREE_DEPTH_MAX ? remove_below(sub, depth + 1) : ELOOP;

			if (e && !first)
				first = e;
			close(sub);
		}
		if (unlinkat(dirfd, ent->d_name, AT_REMOVEDIR) < 0 && errno != ENOENT && !first)
			first = errno;
	}
	closedir(d);
	return first;
}

/* rmdir DIR and every cgroup made below it; 0 (also when DIR is gone) or an errno. */
static int remove_tree(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), below = 0;

	if (fd < 0)
		return errno == ENOENT ? 0 : errno;
	below = remove_below(fd, 1);
	close(fd);
	if (rmdir(dir) == 0 || errno == ENOENT)
		return 0;
	return below ? below : errno;
}

/* SIGKILL the members of the cgroup at DIRFD and of those below it. */
static int kill_tree(int dirfd, int depth)
{
	int seen = 0, fd = openat(dirfd, "cgroup.procs", O_RDONLY | O_CLOEXEC);
	FILE *f = fd >= 0 ? fdopen(fd, "re") : NULL;
	DIR *d;
	struct dirent *ent;
	int pid;

	if (f) {
		while (fscanf(f, "%d", &pid) == 1)
			if (pid > 0 && kill(pid, SIGKILL) == 0)
				seen++;
		fclose(f);
	} else if (fd >= 0) {
		close(fd);
	}
	if (depth >= TREE_DEPTH_MAX || (fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 3)) < 0)
		return seen;
	if (!(d = fdopendir(fd))) {
		close(fd);
		return seen;
	}
	while ((ent = readdir(d))) {
		int sub;

		if (ent->d_type != DT_DIR || strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0)
			continue;
		sub = openat(dirfd, ent->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0) {
			seen += kill_tree(sub, depth + 1);
			close(sub);
		}
	}
	closedir(d);
	return seen;
}

static bool has_members(const char *dir)
{
	char path[PATH_MAX + 32], buf[64];

	snprintf(path, sizeof path, "%s/cgroup.procs", dir);
	return ax_rt_read_small(path, buf, sizeof buf) == 0 && buf[0] != '\0';
}

static int write_limit(const char *dir, const char *file, long long value, ax_error *err)
{
	char path[PATH_MAX + 32], num[32];
	int e;

	snprintf(path, sizeof path, "%s/%s", dir, file);
	snprintf(num, sizeof num, "%lld", value);
	e = ax_rt_write_file(path, num);
	if (e)
		return ax_fail(err, AX_CODE_RUNTIME, "cannot set %s to %s: %s", path, num, strerror(e));
	return 0;
}

static int make_dirs(const cg_mounts *m, const char *id, ax_cgroup *cg, char *note, size_t notelen,
		     ax_error *err)
{
	for (int k = 0; k < AX_CG_N; k++) {
		char parent[PATH_MAX];

		if (!cg->dir[k][0])
			continue;
		snprintf(parent, sizeof parent, "%s/allox", m->path[k]);
		if (mkdir(parent, 0755) < 0 && errno != EEXIST)
			goto unavailable;
		if (mkdir(cg->dir[k], 0755) == 0)
			continue;
		if (errno != EEXIST)
			goto unavailable;
		/* In use means the id is running; left over from a crash is
		 * recreated, so its old limits don't apply to this start. */
		if (has_members(cg->dir[k])) {
			ax_cgroup created = *cg;

			for (int j = k; j < AX_CG_N; j++)
				created.dir[j][0] = '\0';
			ax_cg_remove(&created);
			return ax_fail(err, AX_CODE_RUNTIME,
				       "sandbox %s is already running (cgroup %s has processes)", id, cg->dir[k]);
		}
		if (remove_tree(cg->dir[k]) == 0 && mkdir(cg->dir[k], 0755) == 0)
			continue;
unavailable:
		ax_rt_note(note, notelen, "cgroups unavailable (%s: %s): no limits, pause uses SIGSTOP",
			   cg->dir[k], strerror(errno));
		for (int j = k; j < AX_CG_N; j++)
			cg->dir[j][0] = '\0';
		ax_cg_remove(cg);
		memset(cg, 0, sizeof *cg);
		return 0;
	}
	return 0;
}

/* CPU time per wall time: v1 cpu.cfs_quota_us per cpu.cfs_period_us, or v2 cpu.max. */
static int write_cpu(const ax_cgroup *cg, bool v2cpu, long long millis, char *note, size_t notelen, ax_error *err)
{
	long long quota = millis * CPU_PERIOD_US / 1000;

	if (cg->dir[AX_CG_CPU][0]) {
		if (write_limit(cg->dir[AX_CG_CPU], "cpu.cfs_period_us", CPU_PERIOD_US, err) < 0)
			return -1;
		return write_limit(cg->dir[AX_CG_CPU], "cpu.cfs_quota_us", quota, err);
	}
	if (v2cpu && cg->dir[AX_CG_V2][0]) {
		char path[PATH_MAX + 16], val[64];
		int e;

		snprintf(path, sizeof path, "%s/cpu.max", cg->dir[AX_CG_V2]);
		snprintf(val, sizeof val, "%lld %lld", quota, CPU_PERIOD_US);
		e = ax_rt_write_file(path, val);
		if (e)
			return ax_fail(err, AX_CODE_RUNTIME, "cannot set %s to %s: %s", path, val, strerror(e));
		return 0;
	}
	ax_rt_note(note, notelen, "cpu limit not enforced: no cpu cgroup controller");
	return 0;
}

int ax_cg_create(const ax_rt_spec *spec, ax_cgroup *cg, char *note, size_t notelen, ax_error *err)
{
	const char *id = spec->id;
	long long memory_bytes = spec->memory_bytes, pids_max = spec->pids_max;
	cg_mounts m;
	bool v2mem, v2pids, v2cpu;

	memset(cg, 0, sizeof *cg);
	find_mounts(&m);
	v2mem = m.path[AX_CG_V2][0] && !m.path[AX_CG_MEMORY][0] && v2_has(m.path[AX_CG_V2], "memory");
	v2pids = m.path[AX_CG_V2][0] && !m.path[AX_CG_PIDS][0] && v2_has(m.path[AX_CG_V2], "pids");
	v2cpu = m.path[AX_CG_V2][0] && !m.path[AX_CG_CPU][0] && v2_has(m.path[AX_CG_V2], "cpu");
	for (int k = 0; k < AX_CG_N; k++) {
		if (!m.path[k][0])
			continue;
		/* In hybrid mode cgroup2 is used only for what v1 lacks. */
		if (k == AX_CG_V2 && m.path[AX_CG_FREEZER][0] && !v2mem && !v2pids && !v2cpu)
			continue;
		snprintf(cg->dir[k], PATH_MAX, "%s/allox/%s", m.path[k], id);
	}
	if (cg->dir[AX_CG_V2][0] && (v2mem || v2pids || v2cpu)) {
		const char *v2 = m.path[AX_CG_V2];
		char allox[PATH_MAX + 8];

		snprintf(allox, sizeof allox, "%s/allox", v2);
		if (v2_enable(v2, v2mem, v2pids, v2cpu) != 0 || (mkdir(allox, 0755) < 0 && errno != EEXIST) ||
		    v2_enable(allox, v2mem, v2pids, v2cpu) != 0) {
			ax_rt_note(note, notelen, "cannot enable cgroup2 controllers in %s", allox);
			v2mem = v2pids = v2cpu = false;
		}
	}
	if (make_dirs(&m, id, cg, note, notelen, err) < 0)
		return -1;
	if (!ax_cg_can_freeze(cg))
		ax_rt_note(note, notelen, "no freezer cgroup: pause uses SIGSTOP");
	if (memory_bytes > 0) {
		int rc = 0;

		if (cg->dir[AX_CG_MEMORY][0]) {
			char memsw[PATH_MAX + 32];

			rc = write_limit(cg->dir[AX_CG_MEMORY], "memory.limit_in_bytes", memory_bytes, err);
			/* With swap accounting, memory+swap gets the same bound: swap
			 * must not stretch the limit. */
			snprintf(memsw, sizeof memsw, "%s/memory.memsw.limit_in_bytes", cg->dir[AX_CG_MEMORY]);
			if (rc == 0 && access(memsw, F_OK) == 0)
				rc = write_limit(cg->dir[AX_CG_MEMORY], "memory.memsw.limit_in_bytes", memory_bytes, err);
		} else if (v2mem && cg->dir[AX_CG_V2][0])
			rc = write_limit(cg->dir[AX_CG_V2], "memory.max", memory_bytes, err);
		else
			ax_rt_note(note, notelen, "memory limit not enforced: no memory cgroup controller");
		if (rc < 0)
			goto fail;
	}
	if (pids_max > 0) {
		int rc = 0;

		if (cg->dir[AX_CG_PIDS][0])
			rc = write_limit(cg->dir[AX_CG_PIDS], "pids.max", pids_max, err);
		else if (v2pids && cg->dir[AX_CG_V2][0])
			rc = write_limit(cg->dir[AX_CG_V2], "pids.max", pids_max, err);
		else
			ax_rt_note(note, notelen, "pids limit not enforced: no pids cgroup controller");
		if (rc < 0)
			goto fail;
	}
	if (spec->cpu_millis > 0 && write_cpu(cg, v2cpu, spec->cpu_millis, note, notelen, err) < 0)
		goto fail;
	return 0;
fail:
	ax_cg_remove(cg);
	memset(cg, 0, sizeof *cg);
	return -1;
}

void ax_cg_locate(const char *id, ax_cgroup *cg)
{
	cg_mounts m;

	memset(cg, 0, sizeof *cg);
	find_mounts(&m);
	for (int k = 0; k < AX_CG_N; k++) {
		struct stat st;

		if (!m.path[k][0])
			continue;
		snprintf(cg->dir[k], PATH_MAX, "%s/allox/%s", m.path[k], id);
		if (stat(cg->dir[k], &st) < 0 || !S_ISDIR(st.st_mode))
			cg->dir[k][0] = '\0';
	}
}

bool ax_cg_can_freeze(const ax_cgroup *cg)
{
	return cg->dir[AX_CG_FREEZER][0] || cg->dir[AX_CG_V2][0];
}

static void freeze_files(const ax_cgroup *cg, char *ctl, char *state, size_t len)
{
	if (cg->dir[AX_CG_FREEZER][0]) {
		snprintf(ctl, len, "%s/freezer.state", cg->dir[AX_CG_FREEZER]);
		snprintf(state, len, "%s/freezer.state", cg->dir[AX_CG_FREEZER]);
	} else {
		snprintf(ctl, len, "%s/cgroup.freeze", cg->dir[AX_CG_V2]);
		snprintf(state, len, "%s/cgroup.events", cg->dir[AX_CG_V2]);
	}
}

int ax_cg_freeze(const ax_cgroup *cg, bool frozen, ax_error *err)
{
	bool v1 = cg->dir[AX_CG_FREEZER][0] != '\0';
	const char *want = v1 ? (frozen ? "FROZEN" : "THAWED") : (frozen ? "1" : "0");
	char ctl[PATH_MAX + 32], state[PATH_MAX + 32], buf[256];
	long long deadline = ax_mono_ms() + AX_RT_WAIT_MS;
	long us = 20;
	int e;

	freeze_files(cg, ctl, state, sizeof ctl);
	e = ax_rt_write_file(ctl, want);
	if (e)
		return ax_fail(err, AX_CODE_RUNTIME, "cannot write %s to %s: %s", want, ctl, strerror(e));
	for (;;) {
		bool done;

		if ((e = ax_rt_read_small(state, buf, sizeof buf)) != 0)
			return ax_fail(err, AX_CODE_RUNTIME, "cannot read %s: %s", state, strerror(e));
		/* v1 reads FREEZING until every task is frozen; v2 reports it in cgroup.events. */
		if (v1)
			done = strncmp(buf, want, strlen(want)) == 0 && buf[strlen(want)] == '\n';
		else
			done = strstr(buf, frozen ? "frozen 1" : "frozen 0") != NULL;
		if (done)
			return 0;
		if (ax_mono_ms() > deadline)
			break;
		/* A v1 freezer can stay in FREEZING when a task was busy in the kernel
		 * at the first attempt; asking again retries it (as runc does). */
		if (v1 && frozen)
			ax_rt_write_file(ctl, want);
		ax_rt_sleep_us(us);
		if (us < 10000)
			us *= 2;
	}
	if (frozen)
		ax_rt_write_file(ctl, v1 ? "THAWED" : "0");
	return ax_fail(err, AX_CODE_RUNTIME, "cgroup %s did not %s within %d s",
		       v1 ? cg->dir[AX_CG_FREEZER] : cg->dir[AX_CG_V2], frozen ? "freeze" : "thaw",
		       AX_RT_WAIT_MS / 1000);
}

void ax_cg_thaw_nowait(const ax_cgroup *cg)
{
	char ctl[PATH_MAX + 32], state[PATH_MAX + 32];

	if (!ax_cg_can_freeze(cg))
		return;
	freeze_files(cg, ctl, state, sizeof ctl);
	ax_rt_write_file(ctl, cg->dir[AX_CG_FREEZER][0] ? "THAWED" : "0");
}

int ax_cg_kill_all(const ax_cgroup *cg)
{
	int seen = 0;

	for (int k = 0; k < AX_CG_N; k++) {
		char path[PATH_MAX + 32];
		int fd;

		if (!cg->dir[k][0])
			continue;
		if (k == AX_CG_V2) {
			/* cgroup.kill (5.14+) also catches tasks forked while we read
			 * cgroup.procs, and those of the cgroups below. */
			snprintf(path, sizeof path, "%s/cgroup.kill", cg->dir[k]);
			ax_rt_write_file(path, "1");
		}
		fd = open(cg->dir[k], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		seen += kill_tree(fd, 1);
		close(fd);
	}
	return seen;
}

int ax_cg_remove(const ax_cgroup *cg)
{
	int first = 0;

	for (int k = 0; k < AX_CG_N; k++) {
		int e;

		if (!cg->dir[k][0])
			continue;
		e = remove_tree(cg->dir[k]);
		if (e && !first)
			first = e;
	}
	return first;
}

/* ---------- the freezer hold ---------- */

#define HOLD_PREFIX ".freezer-hold-"

/* Where this engine's hold is; false without a v1 freezer. */
static bool own_hold(char *out, size_t len)
{
	cg_mounts m;

	find_mounts(&m);
	if (!m.path[AX_CG_FREEZER][0])
		return false;
	snprintf(out, len, "%s/allox/" HOLD_PREFIX "%ld", m.path[AX_CG_FREEZER], (long)getpid());
	return true;
}

static void drop_hold(const char *dir)
{
	char state[PATH_MAX + 420];

	snprintf(state, sizeof state, "%s/freezer.state", dir);
	ax_rt_write_file(state, "THAWED");
	rmdir(dir);
}

/* Whether PID runs: a zombie (a killed engine its parent has not reaped
 * yet) does not. */
static bool runs(long pid)
{
	char state;

	if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
		return false;
	/* Unreadable: another pid namespace's, assume it runs. */
	return ax_rt_proc_stat((pid_t)pid, &state, NULL) < 0 || (state != 'Z' && state != 'X');
}

/* Remove the holds of engines that are gone (killed, so they never released). */
static void drop_stale_holds(const char *parent)
{
	DIR *d = opendir(parent);
	struct dirent *ent;

	while (d && (ent = readdir(d))) {
		char dir[PATH_MAX + 400], *end;   /* parent + a d_name */
		long pid;

		if (strncmp(ent->d_name, HOLD_PREFIX, strlen(HOLD_PREFIX)) != 0)
			continue;
		pid = strtol(ent->d_name + strlen(HOLD_PREFIX), &end, 10);
		if (*end == '\0' && pid > 0 && runs(pid))
			continue;
		snprintf(dir, sizeof dir, "%s/%s", parent, ent->d_name);
		drop_hold(dir);
	}
	if (d)
		closedir(d);
}

void ax_rt_hold_freezer(void)
{
	char dir[PATH_MAX + 64], state[PATH_MAX + 96], *slash;

	if (!own_hold(dir, sizeof dir))
		return;
	slash = strrchr(dir, '/');
	*slash = '\0';             /* the parent, freezer/allox */
	drop_stale_holds(dir);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return;
	*slash = '/';
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return;
	snprintf(state, sizeof state, "%s/freezer.state", dir);
	ax_rt_write_file(state, "FROZEN");
}

void ax_rt_release_freezer(void)
{
	char dir[PATH_MAX + 64];

	if (own_hold(dir, sizeof dir))
		drop_hold(dir);
}
