#include "agent/execd/execd_session.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/aio/aio_session.h"
#include "agent/core/proc_spawn.h"
#include "agent/core/reaper.h"

#define REAP_WAIT_MS 10000
/* How many processes a kill of a session's commands looks at, at most. */
#define DESCENDANTS_MAX 4096

/* Run by bash -c. Names start with __allox_ so they hardly meet a user's. A
 * per-run directory change is undone after the run (the override is for
 * that run); one the command makes itself stays.
 *
 * A /code run (its number marked "c") is sourced rather than evaled, with
 * a SIGINT trap that returns: an interrupt then ends the whole run, even a
 * loop in the shell itself, with status 130, and the shell with its state
 * lives on, as an interactive bash (the official bash kernel's) does.
 * Sourced, not run in a function, so declare still makes globals. */
static const char driver[] =
	"while IFS= read -r -d '' __allox_seq && IFS= read -r -d '' __allox_cwd && "
	"IFS= read -r -d '' __allox_cmd; do\n"
	"  if [ \"${__allox_seq#c}\" != \"$__allox_seq\" ]; then\n"
	"    __allox_seq=${__allox_seq#c}\n"
	"    trap 'trap - INT; return 130' INT\n"
	"    . <(printf '%s' \"$__allox_cmd\") </dev/null 3>&-\n"
	"    __allox_rc=$?\n"
	"    trap - INT\n"
	"  elif [ -n \"$__allox_cwd\" ]; then\n"
	"    __allox_back=$PWD\n"
	"    cd -- \"$__allox_cwd\" && eval \"$__allox_cmd\" </dev/null 3>&-\n"
	"    __allox_rc=$?\n"
	"    cd -- \"$__allox_back\" 2>/dev/null\n"
	"  else\n"
	"    eval \"$__allox_cmd\" </dev/null 3>&-\n"
	"    __allox_rc=$?\n"
	"  fi\n"
	"  printf '%s %d\\n' \"$__allox_seq\" \"$__allox_rc\" >&3\n"
	"done\n";

struct execd_sessions {
	pthread_mutex_t lock;
	struct ag_bash *head;
	char default_context[AG_SESSION_ID_LEN + 1];	/* "" until first used */
};

struct execd_sessions *execd_sessions_new(void)
{
	struct execd_sessions *reg = calloc(1, sizeof *reg);

	if (reg && pthread_mutex_init(&reg->lock, NULL) != 0) {
		free(reg);
		return NULL;
	}
	return reg;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void bash_free(struct ag_bash *s)
{
	close_fd(&s->pidfd);
	close_fd(&s->in_fd);
	close_fd(&s->out_fd);
	close_fd(&s->err_fd);
	close_fd(&s->status_fd);
	free(s);
}

/* Kill the shell's whole process group and collect its status. */
static void stop_shell(struct ag_reaper *reaper, struct ag_bash *s)
{
	if (s->pid > 1)
		kill(-s->pid, SIGKILL);
	if (reaper && ag_reaper_wait(reaper, s->pid, NULL, REAP_WAIT_MS) != 0)
		ag_reaper_forget(reaper, s->pid);
}

void execd_sessions_free(struct execd_sessions *reg, struct ag_reaper *reaper)
{
	struct ag_bash *s, *next;

	if (!reg)
		return;
	for (s = reg->head; s; s = next) {
		next = s->next;
		stop_shell(reaper, s);
		bash_free(s);
	}
	pthread_mutex_destroy(&reg->lock);
	free(reg);
}

/* What the forked child needs, all prepared before fork. */
struct child {
	const char *bash, *cwd;
	char **env;
	int in_r, out_w, err_w, status_w;
};

/* In the forked child: async-signal-safe calls only. */
static void child_main(void *arg, int report_fd)
{
	const struct child *c = arg;
	char *argv[] = { "bash", "--noprofile", "--norc", "-c", (char *)driver, "bash", NULL };
	struct sigaction dfl;
	int e;

	ag_child_setup();
	/* A SIGINT ignored by whoever started the agent would be one the
	 * driver cannot trap (bash keeps signals ignored at entry). */
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigaction(SIGINT, &dfl, NULL);
	if (dup2(c->in_r, 0) < 0 || dup2(c->out_w, 1) < 0 || dup2(c->err_w, 2) < 0 || chdir(c->cwd) < 0)
		goto fail;
	ag_child_close_fds(report_fd);
	/* After the close-on-exec sweep: dup2 clears the flag, but not when
	 * the descriptor is already 3. */
	if (c->status_w == 3 ? fcntl(3, F_SETFD, 0) < 0 : dup2(c->status_w, 3) < 0)
		goto fail;
	execve(c->bash, argv, c->env);
fail:
	e = errno;
	if (write(report_fd, &e, sizeof e) < 0) {
		/* The parent then sees the shell exit instead. */
	}
	_exit(127);
}

static int make_pipes(int fds[4][2])
{
	int i;

	for (i = 0; i < 4; i++)
		if (pipe2(fds[i], O_CLOEXEC) < 0)
			return -1;
	/* The agent's ends are read without blocking: one poll loop serves a run. */
	for (i = 1; i < 4; i++)
		fcntl(fds[i][0], F_SETFL, O_NONBLOCK);
	return 0;
}

static int check_dir(const char *cwd, ax_error *err)
{
	struct stat st;

	if (stat(cwd, &st) < 0)
		return ax_fail(err, AX_CODE_CWD, "working directory %s: %s", cwd, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return ax_fail(err, AX_CODE_CWD, "working directory %s: %s", cwd, strerror(ENOTDIR));
	return 0;
}

static int spawn(const struct ag_ctx *ctx, struct ag_bash *s, const char *cwd, ax_error *err)
{
	int fds[4][2] = { { -1, -1 }, { -1, -1 }, { -1, -1 }, { -1, -1 } }, e, i, rc = -1;
	struct child c = { NULL, cwd, NULL, -1, -1, -1, -1 };
	const char *step;

	c.env = ag_child_environ(NULL);
	c.bash = c.env ? ag_find_program("bash", c.env) : NULL;
	if (!c.env) {
		ax_fail(err, AX_CODE_NOMEM, "out of memory");
		goto out;
	}
	if (!c.bash) {
		ax_fail(err, AX_CODE_SPAWN, "bash sessions need bash, which is not on this sandbox's PATH");
		goto out;
	}
	if (make_pipes(fds) < 0) {
		ax_fail(err, AX_CODE_SPAWN, "pipe: %s", strerror(errno));
		goto out;
	}
	c.in_r = fds[0][0];
	c.out_w = fds[1][1];
	c.err_w = fds[2][1];
	c.status_w = fds[3][1];
	e = ag_child_fork(ctx->reaper, child_main, &c, &s->pid, &s->pidfd, &step);
	if (e) {
		if (s->pid)
			stop_shell(ctx->reaper, s);
		ax_fail(err, AX_CODE_SPAWN, "bash session: %s: %s", step, strerror(e));
		goto out;
	}
	s->in_fd = fds[0][1];
	s->out_fd = fds[1][0];
	s->err_fd = fds[2][0];
	s->status_fd = fds[3][0];
	fds[0][1] = fds[1][0] = fds[2][0] = fds[3][0] = -1;
	rc = 0;
out:
	for (i = 0; i < 4; i++) {
		close_fd(&fds[i][0]);
		close_fd(&fds[i][1]);
	}
	free((char *)c.bash);
	free(c.env);
	return rc;
}

int ag_bash_create(const struct ag_ctx *ctx, const char *cwd, bool context, char id[AG_SESSION_ID_LEN + 1],
		   ax_error *err)
{
	struct execd_sessions *reg = ctx->sessions;
	struct ag_bash *s;
	const char *home = getenv("HOME");

	if (!cwd || !*cwd)
		cwd = home && *home ? home : "/";
	if (check_dir(cwd, err) < 0)
		return -1;
	s = calloc(1, sizeof *s);
	if (!s)
		return ax_fail(err, AX_CODE_NOMEM, "out of memory");
	s->pidfd = s->in_fd = s->out_fd = s->err_fd = s->status_fd = -1;
	if (spawn(ctx, s, cwd, err) < 0) {
		bash_free(s);
		return -1;
	}
	s->context = context;
	aio_session_new_id(s->id);
	memcpy(id, s->id, sizeof s->id);
	pthread_mutex_lock(&reg->lock);
	s->refs = 1;
	s->next = reg->head;
	reg->head = s;
	pthread_mutex_unlock(&reg->lock);
	return 0;
}

static struct ag_bash *find_locked(struct execd_sessions *reg, const char *id)
{
	struct ag_bash *s;

	for (s = reg->head; s; s = s->next)
		if (strcmp(s->id, id) == 0)
			return s;
	return NULL;
}

static void unlink_locked(struct execd_sessions *reg, struct ag_bash *s)
{
	struct ag_bash **p;

	for (p = &reg->head; *p; p = &(*p)->next)
		if (*p == s) {
			*p = s->next;
			s->gone = true;
			s->refs--;	/* the registry's own */
			return;
		}
}

struct ag_bash *ag_bash_begin(struct execd_sessions *reg, const char *id, bool *busy)
{
	struct ag_bash *s;

	pthread_mutex_lock(&reg->lock);
	s = find_locked(reg, id);
	*busy = s && s->busy;
	if (s && !s->busy) {
		s->busy = true;
		s->refs++;
	} else {
		s = NULL;
	}
	pthread_mutex_unlock(&reg->lock);
	return s;
}

void ag_bash_end(struct execd_sessions *reg, struct ag_bash *s)
{
	bool last;

	pthread_mutex_lock(&reg->lock);
	s->busy = false;
	last = --s->refs == 0;
	pthread_mutex_unlock(&reg->lock);
	if (last)
		bash_free(s);
}

void ag_bash_lost(struct execd_sessions *reg, struct ag_bash *s)
{
	pthread_mutex_lock(&reg->lock);
	if (!s->gone)
		unlink_locked(reg, s);
	pthread_mutex_unlock(&reg->lock);
}

int ag_bash_delete(const struct ag_ctx *ctx, const char *id)
{
	struct execd_sessions *reg = ctx->sessions;
	struct ag_bash *s;
	bool last = false;

	pthread_mutex_lock(&reg->lock);
	s = find_locked(reg, id);
	if (s) {
		unlink_locked(reg, s);
		/* A run streaming meanwhile sees the shell end and says so. */
		s->refs++;
	}
	pthread_mutex_unlock(&reg->lock);
	if (!s)
		return -1;
	stop_shell(ctx->reaper, s);
	pthread_mutex_lock(&reg->lock);
	last = --s->refs == 0;
	pthread_mutex_unlock(&reg->lock);
	if (last)
		bash_free(s);
	return 0;
}

bool ag_bash_is_context(struct execd_sessions *reg, const char *id)
{
	const struct ag_bash *s;

	pthread_mutex_lock(&reg->lock);
	s = find_locked(reg, id);
	pthread_mutex_unlock(&reg->lock);
	return s && s->context;
}

json_t *ag_bash_contexts(struct execd_sessions *reg)
{
	json_t *list = json_array();
	const struct ag_bash *s;

	pthread_mutex_lock(&reg->lock);
	for (s = reg->head; list && s; s = s->next)
		if (s->context && json_array_append_new(list, json_pack("{s:s, s:s}", "id", s->id, "language", "bash")) < 0) {
			json_decref(list);
			list = NULL;
		}
	pthread_mutex_unlock(&reg->lock);
	return list;
}

int ag_bash_default_context(const struct ag_ctx *ctx, char id[AG_SESSION_ID_LEN + 1], ax_error *err)
{
	struct execd_sessions *reg = ctx->sessions;
	char made[AG_SESSION_ID_LEN + 1];
	bool raced = false;

	pthread_mutex_lock(&reg->lock);
	if (!find_locked(reg, reg->default_context))
		reg->default_context[0] = '\0';
	memcpy(id, reg->default_context, sizeof reg->default_context);
	pthread_mutex_unlock(&reg->lock);
	if (*id)
		return 0;
	if (ag_bash_create(ctx, NULL, true, made, err) < 0)
		return -1;
	pthread_mutex_lock(&reg->lock);
	/* Two first runs at once: the first to get here makes the default. */
	raced = reg->default_context[0] != '\0';
	if (!raced)
		memcpy(reg->default_context, made, sizeof made);
	memcpy(id, reg->default_context, sizeof reg->default_context);
	pthread_mutex_unlock(&reg->lock);
	if (raced)
		ag_bash_delete(ctx, made);
	return 0;
}

void ag_bash_delete_contexts(const struct ag_ctx *ctx)
{
	struct execd_sessions *reg = ctx->sessions;
	char id[AG_SESSION_ID_LEN + 1];
	const struct ag_bash *s;

	/* One at a time: a delete waits for its shell outside the lock. */
	for (;;) {
		pthread_mutex_lock(&reg->lock);
		for (s = reg->head; s && !s->context; s = s->next)
			;
		if (s)
			memcpy(id, s->id, sizeof id);
		pthread_mutex_unlock(&reg->lock);
		if (!s || ag_bash_delete(ctx, id) < 0)
			return;
	}
}

int ag_bash_interrupt(struct execd_sessions *reg, const char *id)
{
	const struct ag_bash *s;
	int rc = -1;

	pthread_mutex_lock(&reg->lock);
	s = find_locked(reg, id);
	if (s && s->context) {
		/* Idle, the shell would die of it: only a running code is told. */
		if (s->busy)
			kill(-s->pid, SIGINT);
		rc = 0;
	}
	pthread_mutex_unlock(&reg->lock);
	return rc;
}

/* The parent pid in a /proc/PID/stat, or -1. */
static pid_t parent_of(const char *pid)
{
	char path[300], buf[512], *p;
	FILE *f;
	size_t n;
	int ppid;

	snprintf(path, sizeof path, "/proc/%s/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && sscanf(p + 1, " %*c %d", &ppid) == 1 ? ppid : -1;
}

void ag_bash_kill_runs(const struct ag_bash *s)
{
	pid_t pids[DESCENDANTS_MAX], parents[DESCENDANTS_MAX], tree[DESCENDANTS_MAX];
	size_t n = 0, ntree = 0, i, j;
	struct dirent *e;
	DIR *d = opendir("/proc");

	if (!d)
		return;
	while ((e = readdir(d)) && n < DESCENDANTS_MAX) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		pids[n] = (pid_t)atoi(e->d_name);
		parents[n] = parent_of(e->d_name);
		n++;
	}
	closedir(d);
	tree[ntree++] = s->pid;
	/* Breadth first: each pass adds the children of what is in the tree. */
	for (i = 0; i < ntree; i++)
		for (j = 0; j < n && ntree < DESCENDANTS_MAX; j++)
			if (parents[j] == tree[i] && pids[j] != s->pid)
				tree[ntree++] = pids[j];
	for (i = 1; i < ntree; i++)
		kill(tree[i], SIGKILL);
}
