#include "agent/execd/execd_registry.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "lib/timeutil.h"

/* Finished commands kept for polling; the oldest go first past this. */
#define KEEP_MAX 256
/* How long an interrupt waits for the SIGKILL to take effect. */
#define KILL_WAIT_MS 2000

struct ag_cmd {
	struct execd_registry *reg;     /* where it is (or was) listed */
	char id[AG_CMD_ID_LEN + 1];
	char *content;
	char *error;
	pid_t pid;              /* 0 until started and again once finished */
	bool running, background, has_exit, listed;
	int exit_code;
	int log_fd;
	unsigned refs;
	struct timespec started, finished;
	struct ag_cmd *next;
};

struct execd_registry {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct ag_cmd *head, *tail;
	size_t count;
	size_t alive;           /* commands not yet freed, listed or not */
	bool closed;            /* execd_registry_free was called */
};

struct execd_registry *execd_registry_new(void)
{
	struct execd_registry *reg = calloc(1, sizeof *reg);

	if (!reg)
		return NULL;
	if (pthread_mutex_init(&reg->lock, NULL) != 0) {
		free(reg);
		return NULL;
	}
	if (ax_mono_cond_init(&reg->changed) != 0) {
		pthread_mutex_destroy(&reg->lock);
		free(reg);
		return NULL;
	}
	return reg;
}

static void registry_destroy(struct execd_registry *reg)
{
	pthread_cond_destroy(&reg->changed);
	pthread_mutex_destroy(&reg->lock);
	free(reg);
}

static void new_id(char out[AG_CMD_ID_LEN + 1])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char raw[AG_CMD_ID_LEN / 2];
	size_t i;

	if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) {
		/* No entropy (very early boot): unique is all an id must be. */
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		memset(raw, 0, sizeof raw);
		memcpy(raw, &ts, sizeof ts < sizeof raw ? sizeof ts : sizeof raw);
		raw[sizeof raw - 1] ^= (unsigned char)getpid();
	}
	for (i = 0; i < sizeof raw; i++) {
		out[2 * i] = hex[raw[i] >> 4];
		out[2 * i + 1] = hex[raw[i] & 15];
	}
	out[AG_CMD_ID_LEN] = '\0';
}

static void cmd_free(struct ag_cmd *c)
{
	if (c->log_fd >= 0)
		close(c->log_fd);
	free(c->content);
	free(c->error);
	free(c);
}

/* Drop a reference to C, lock held: true when it was the last one. Then C is
 * no longer counted alive and must be freed (cmd_free) by the caller. */
static bool unref_locked(struct ag_cmd *c)
{
	if (--c->refs != 0)
		return false;
	c->reg->alive--;
	return true;
}

/* Unlist the oldest finished commands until one more fits under KEEP_MAX. Lock held. */
static void evict_locked(struct execd_registry *reg)
{
	struct ag_cmd **pp = &reg->head, *prev = NULL;

	while (reg->count >= KEEP_MAX && *pp) {
		struct ag_cmd *c = *pp;

		if (c->running) {
			prev = c;
			pp = &c->next;
			continue;
		}
		*pp = c->next;
		if (reg->tail == c)
			reg->tail = prev;
		reg->count--;
		c->listed = false;
		if (unref_locked(c))
			cmd_free(c);
	}
}

void execd_registry_free(struct execd_registry *reg)
{
	struct ag_cmd *c, *next;
	bool last;

	if (!reg)
		return;
	pthread_mutex_lock(&reg->lock);
	for (c = reg->head; c; c = next) {
		next = c->next;
		c->next = NULL;
		c->listed = false;
		if (unref_locked(c))
			cmd_free(c);
	}
	reg->head = reg->tail = NULL;
	reg->count = 0;
	reg->closed = true;
	last = reg->alive == 0;
	pthread_mutex_unlock(&reg->lock);
	/* Otherwise a command still in use (a background pump winding down)
	 * frees the registry with its last reference: see ag_cmd_put. */
	if (last)
		registry_destroy(reg);
}

struct ag_cmd *ag_cmd_create(struct execd_registry *reg, const char *content, bool background)
{
	struct ag_cmd *c = calloc(1, sizeof *c);

	if (!c)
		return NULL;
	c->content = strdup(content);
	if (!c->content) {
		free(c);
		return NULL;
	}
	new_id(c->id);
	c->reg = reg;
	c->running = true;
	c->background = background;
	c->log_fd = -1;
	c->refs = 2;	/* the list's and the caller's */
	c->listed = true;
	clock_gettime(CLOCK_REALTIME, &c->started);
	pthread_mutex_lock(&reg->lock);
	/* Make room first, so the new command is never a candidate. */
	evict_locked(reg);
	if (reg->tail)
		reg->tail->next = c;
	else
		reg->head = c;
	reg->tail = c;
	reg->count++;
	reg->alive++;
	pthread_mutex_unlock(&reg->lock);
	return c;
}

const char *ag_cmd_id(const struct ag_cmd *c)
{
	return c->id;
}

void ag_cmd_set_pid(struct ag_cmd *c, pid_t pid)
{
	struct execd_registry *reg = c->reg;

	pthread_mutex_lock(&reg->lock);
	if (c->running)
		c->pid = pid;
	pthread_mutex_unlock(&reg->lock);
}

void ag_cmd_set_log(struct ag_cmd *c, int fd)
{
	struct execd_registry *reg = c->reg;

	pthread_mutex_lock(&reg->lock);
	if (c->log_fd >= 0)
		close(c->log_fd);
	c->log_fd = fd;
	pthread_mutex_unlock(&reg->lock);
}

void ag_cmd_finish(struct ag_cmd *c, int exit_code, const char *error)
{
	char *copy = error && *error ? strdup(error) : NULL;
	struct execd_registry *reg = c->reg;

	pthread_mutex_lock(&reg->lock);
	if (c->running) {
		c->running = false;
		/* A late interrupt must not signal a group whose id may be reused. */
		c->pid = 0;
		c->has_exit = true;
		c->exit_code = exit_code;
		free(c->error);
		c->error = copy;
		copy = NULL;
		clock_gettime(CLOCK_REALTIME, &c->finished);
		pthread_cond_broadcast(&reg->changed);
	}
	pthread_mutex_unlock(&reg->lock);
	free(copy);
}

void ag_cmd_put(struct ag_cmd *c)
{
	struct execd_registry *reg;
	bool last, reg_last;

	if (!c)
		return;
	reg = c->reg;
	pthread_mutex_lock(&reg->lock);
	last = unref_locked(c);
	reg_last = last && reg->closed && reg->alive == 0;
	pthread_mutex_unlock(&reg->lock);
	if (last)
		cmd_free(c);
	if (reg_last)
		registry_destroy(reg);
}

static struct ag_cmd *find_locked(struct execd_registry *reg, const char *id)
{
	struct ag_cmd *c;

	for (c = reg->head; c; c = c->next)
		if (strcmp(c->id, id) == 0)
			return c;
	return NULL;
}

int ag_cmd_status_get(struct execd_registry *reg, const char *id, struct ag_cmd_status *st)
{
	struct ag_cmd *c;
	int rc = -1;

	memset(st, 0, sizeof *st);
	pthread_mutex_lock(&reg->lock);
	c = find_locked(reg, id);
	if (c) {
		memcpy(st->id, c->id, sizeof st->id);
		st->content = strdup(c->content);
		st->error = c->error ? strdup(c->error) : NULL;
		st->running = c->running;
		st->background = c->background;
		st->has_exit = c->has_exit;
		st->exit_code = c->exit_code;
		st->started = c->started;
		st->finished = c->finished;
		rc = st->content && (!c->error || st->error) ? 0 : -1;
	}
	pthread_mutex_unlock(&reg->lock);
	if (rc < 0)
		ag_cmd_status_free(st);
	return rc;
}

void ag_cmd_status_free(struct ag_cmd_status *st)
{
	free(st->content);
	free(st->error);
	st->content = st->error = NULL;
}

int ag_cmd_log_dup(struct execd_registry *reg, const char *id, int *fd)
{
	struct ag_cmd *c;
	int rc;

	pthread_mutex_lock(&reg->lock);
	c = find_locked(reg, id);
	if (!c)
		rc = -1;
	else if (!c->background)
		rc = -2;
	else if (c->log_fd < 0 || (*fd = fcntl(c->log_fd, F_DUPFD_CLOEXEC, 0)) < 0)
		rc = -3;
	else
		rc = 0;
	pthread_mutex_unlock(&reg->lock);
	return rc;
}

/* Wait, lock held, until C has finished or DEADLINE passes. */
static void wait_finished_locked(struct ag_cmd *c, const struct timespec *deadline)
{
	struct execd_registry *reg = c->reg;

	while (c->running)
		if (pthread_cond_timedwait(&reg->changed, &reg->lock, deadline) == ETIMEDOUT)
			break;
}

int ag_cmd_interrupt(struct execd_registry *reg, const char *id, int grace_ms)
{
	struct timespec deadline;
	struct ag_cmd *c;

	pthread_mutex_lock(&reg->lock);
	c = find_locked(reg, id);
	if (!c || !c->running || c->pid <= 1) {
		pthread_mutex_unlock(&reg->lock);
		return c ? -2 : -1;
	}
	c->refs++;
	/* Signal with the lock held: the owner clears pid under it as soon as
	 * it learns the command ended, which keeps the window in which a
	 * reaped group id could be reused down to that hand-over. */
	kill(-c->pid, SIGTERM);
	deadline = ax_mono_deadline(grace_ms);
	wait_finished_locked(c, &deadline);
	if (c->running && c->pid > 1) {
		kill(-c->pid, SIGKILL);
		deadline = ax_mono_deadline(KILL_WAIT_MS);
		wait_finished_locked(c, &deadline);
	}
	pthread_mutex_unlock(&reg->lock);
	ag_cmd_put(c);
	return 0;
}
