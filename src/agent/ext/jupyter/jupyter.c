/* Kernels by session: the registry behind /v1/jupyter and the MCP sandbox
 * server.
 *
 * A session is one kernel, started on its first call and kept until the
 * session is deleted, its kernel dies, or (for sessions other than the
 * default one) it has been idle for SESSION_TIMEOUT_S. Calls without a
 * session id share the session "default", so consecutive calls see each
 * other's variables.
 *
 * Calls on one session take turns in arrival order (a ticket queue): the
 * holder of the turn is the only thread that uses the session's kernel, so
 * its sockets need no lock. The session's mutex guards the queue, the
 * kernel pointer (swapped only by the turn holder) and the flags; the
 * registry's mutex guards the list and reference counts, and is always taken
 * first. Kernels start outside both locks. */
#include "agent/ext/jupyter/jupyter.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "agent/aio/aio_session.h"
#include "agent/ext/jupyter/jupyter_exec.h"
#include "agent/ext/jupyter/jupyter_kernel.h"
#include "agent/ext/jupyter/jupyter_outputs.h"
#include "agent/ext/jupyter/jupyter_spec.h"
#include "agent/core/log.h"

#define DEFAULT_SESSION "default"
#define DEFAULT_KERNEL "python3"
#define DEFAULT_TIMEOUT_S 30.0
#define SESSION_TIMEOUT_S 1800
#define MAX_SESSIONS 16
#define SESSION_ID_MAX 128

struct jsession {
	char id[SESSION_ID_MAX + 1];
	char kernel_name[JK_NAME_MAX + 1];
	char language[JK_LANG_MAX + 1];
	bool keep;                      /* an execd context: never idle-expired */
	struct jsession *next;
	int refs;                       /* registry lock */
	pthread_mutex_t lock;           /* the rest */
	pthread_cond_t turn;
	unsigned long next_ticket, serving;
	struct jk_kernel *kernel;
	int interrupt_fd;               /* the running call's (jx_watch), -1: none */
	bool deleted;
	time_t created;
	double last_used;
};

struct ag_jupyter {
	pthread_mutex_t lock;
	struct jsession *sessions;
	size_t n;
	struct ag_reaper *reaper;
	void *zmq;
	char dir[256];                  /* "" until the first kernel */
	unsigned long kernels;          /* started so far: names their files */
};

static double wall_now(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

struct ag_jupyter *ag_jupyter_new(void)
{
	struct ag_jupyter *j = calloc(1, sizeof *j);

	if (j && pthread_mutex_init(&j->lock, NULL) != 0) {
		free(j);
		j = NULL;
	}
	return j;
}

void ag_jupyter_set_reaper(struct ag_jupyter *j, struct ag_reaper *reaper)
{
	j->reaper = reaper;
}

static struct jsession *session_new(const char *id, const struct jk_spec *spec)
{
	struct jsession *s = calloc(1, sizeof *s);

	if (!s)
		return NULL;
	if (pthread_mutex_init(&s->lock, NULL) != 0) {
		free(s);
		return NULL;
	}
	if (pthread_cond_init(&s->turn, NULL) != 0) {
		pthread_mutex_destroy(&s->lock);
		free(s);
		return NULL;
	}
	snprintf(s->id, sizeof s->id, "%s", id);
	snprintf(s->kernel_name, sizeof s->kernel_name, "%s", spec->name);
	snprintf(s->language, sizeof s->language, "%s", spec->language);
	s->interrupt_fd = -1;
	s->created = time(NULL);
	s->last_used = wall_now();
	s->refs = 1;	/* the registry's */
	return s;
}

/* The session's kernel, taken out of it (under its lock, so that a
 * concurrent kill never sees a freed kernel). */
static struct jk_kernel *detach_kernel(struct jsession *s)
{
	struct jk_kernel *k;

	pthread_mutex_lock(&s->lock);
	k = s->kernel;
	s->kernel = NULL;
	pthread_mutex_unlock(&s->lock);
	return k;
}

static void session_destroy(struct jsession *s)
{
	jk_kernel_free(s->kernel);
	pthread_cond_destroy(&s->turn);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/* Drop N references to S. */
static void release(struct ag_jupyter *j, struct jsession *s, int n)
{
	int left;

	pthread_mutex_lock(&j->lock);
	s->refs -= n;
	left = s->refs;
	pthread_mutex_unlock(&j->lock);
	if (!left)
		session_destroy(s);
}

static void unref(struct ag_jupyter *j, struct jsession *s)
{
	release(j, s, 1);
}

static bool is_deleted(struct jsession *s)
{
	bool deleted;

	pthread_mutex_lock(&s->lock);
	deleted = s->deleted;
	pthread_mutex_unlock(&s->lock);
	return deleted;
}

static void take_turn(struct jsession *s)
{
	unsigned long ticket;

	pthread_mutex_lock(&s->lock);
	ticket = s->next_ticket++;
	while (s->serving != ticket)
		pthread_cond_wait(&s->turn, &s->lock);
	pthread_mutex_unlock(&s->lock);
}

static void end_turn(struct jsession *s)
{
	pthread_mutex_lock(&s->lock);
	s->serving++;
	s->last_used = wall_now();
	pthread_cond_broadcast(&s->turn);
	pthread_mutex_unlock(&s->lock);
}

/* Take S out of the list (registry lock held); the caller inherits the
 * registry's reference. */
static void unlink_locked(struct ag_jupyter *j, struct jsession *s)
{
	struct jsession **p;

	for (p = &j->sessions; *p; p = &(*p)->next)
		if (*p == s) {
			*p = s->next;
			j->n--;
			break;
		}
	pthread_mutex_lock(&s->lock);
	s->deleted = true;
	/* A call running in it must not keep the kernel alive. */
	if (s->kernel && s->next_ticket != s->serving)
		jk_kernel_kill(s->kernel);
	pthread_mutex_unlock(&s->lock);
}

/* Stop the kernel of S, unlinked already, once the calls in it are over. */
static void stop_kernel(struct jsession *s)
{
	take_turn(s);
	jk_kernel_free(detach_kernel(s));
	end_turn(s);
}

/* stop_kernel, then drop the reference unlink_locked handed over. */
static void retire(struct ag_jupyter *j, struct jsession *s)
{
	stop_kernel(s);
	unref(j, s);
}

/* Unlink the sessions idle past SESSION_TIMEOUT_S into *EXPIRED (registry
 * lock held). The default session lives as long as the sandbox. */
static void expire_locked(struct ag_jupyter *j, struct jsession **expired)
{
	double limit = wall_now() - SESSION_TIMEOUT_S;
	struct jsession *s, *next;
	bool idle;

	for (s = j->sessions; s; s = next) {
		next = s->next;
		pthread_mutex_lock(&s->lock);
		idle = s->next_ticket == s->serving && s->last_used < limit && strcmp(s->id, DEFAULT_SESSION) != 0 &&
		       !s->keep;
		pthread_mutex_unlock(&s->lock);
		if (!idle)
			continue;
		unlink_locked(j, s);
		s->next = *expired;
		*expired = s;
	}
}

static void retire_all(struct ag_jupyter *j, struct jsession *list)
{
	struct jsession *next;

	for (; list; list = next) {
		next = list->next;
		ag_log("jupyter session %s idle for %d s: shutting its kernel down", list->id, SESSION_TIMEOUT_S);
		retire(j, list);
	}
}

static struct jsession *find_locked(struct ag_jupyter *j, const char *id)
{
	struct jsession *s;

	for (s = j->sessions; s; s = s->next)
		if (strcmp(s->id, id) == 0)
			return s;
	return NULL;
}

/* Session ID with a reference for the caller; created (for kernel SPEC)
 * when SPEC is given and it is missing. *CREATED tells which. NULL with ERR
 * (404, 503). */
static struct jsession *session_get(struct ag_jupyter *j, const char *id, const struct jk_spec *spec, bool *created,
				    struct ag_error *err)
{
	struct jsession *s, *expired = NULL;

	*created = false;
	pthread_mutex_lock(&j->lock);
	expire_locked(j, &expired);
	s = find_locked(j, id);
	if (!s && !spec) {
		ag_fail(err, 404, "Session not found: %s", id);
	} else if (!s && j->n >= MAX_SESSIONS) {
		ag_fail(err, 503, "No kernel available: %d Jupyter sessions are running; delete one first",
			MAX_SESSIONS);
	} else if (!s) {
		s = session_new(id, spec);
		if (s) {
			s->next = j->sessions;
			j->sessions = s;
			j->n++;
			*created = true;
		} else {
			ag_fail(err, 500, "out of memory");
		}
	}
	if (s)
		s->refs++;
	pthread_mutex_unlock(&j->lock);
	retire_all(j, expired);
	return s;
}

/* The directory for kernel files and the ZeroMQ context, made on first use. */
static int prepare_site(struct ag_jupyter *j, struct jk_site *site, char *kernel_id, size_t size,
			struct ag_error *err)
{
	const char *tmp = getenv("TMPDIR");
	int rc = 0;

	pthread_mutex_lock(&j->lock);
	if (!j->reaper) {
		rc = ag_fail(err, 503, "No kernel available: the agent cannot watch child processes");
		goto out;
	}
	if (!j->dir[0]) {
		/* ipc socket paths must fit in sun_path (108 bytes). */
		if (!tmp || !*tmp || strlen(tmp) > 64)
			tmp = "/tmp";
		snprintf(j->dir, sizeof j->dir, "%s/allox-jupyter.XXXXXX", tmp);
		if (!mkdtemp(j->dir)) {
			rc = ag_fail(err, 500, "kernel directory %s: %s", j->dir, strerror(errno));
			j->dir[0] = '\0';
			goto out;
		}
	}
	if (!j->zmq && !(j->zmq = zmq_ctx_new())) {
		rc = ag_fail(err, 500, "ZeroMQ: %s", zmq_strerror(zmq_errno()));
		goto out;
	}
	site->zmq = j->zmq;
	site->reaper = j->reaper;
	site->dir = j->dir;
	snprintf(kernel_id, size, "k%lu", ++j->kernels);
out:
	pthread_mutex_unlock(&j->lock);
	return rc;
}

/* Start S's kernel (the caller holds the turn). */
static int start_kernel(struct ag_jupyter *j, struct jsession *s, const char *cwd, struct ag_error *err)
{
	const char *home = getenv("HOME");
	struct jk_site site;
	struct jk_spec spec;
	struct jk_kernel *k;
	char kid[32];
	struct stat st;

	if (!cwd || !*cwd)
		cwd = home && *home ? home : "/";
	if (stat(cwd, &st) < 0 || !S_ISDIR(st.st_mode))
		return ag_fail(err, 400, "Working directory does not exist: %s", cwd);
	if (prepare_site(j, &site, kid, sizeof kid, err) < 0 || jk_spec_find(s->kernel_name, &spec, err) < 0)
		return -1;
	k = jk_kernel_start(&site, kid, &spec, cwd, err);
	jk_spec_free(&spec);
	if (!k)
		return -1;
	pthread_mutex_lock(&s->lock);
	s->kernel = k;
	/* Deleted while it started: stopped by whoever retires the session. */
	pthread_mutex_unlock(&s->lock);
	return 0;
}

static json_t *result_json(const struct jsession *s, const char *code, const char *status, json_t *execution_count,
			   json_t *outputs, const char *msg_id)
{
	return json_pack("{s:s, s:s, s:s, s:O, s:O, s:s, s:s?}", "kernel_name", s->kernel_name, "session_id", s->id,
			 "status", status, "execution_count", execution_count, "outputs", outputs, "code", code,
			 "msg_id", msg_id);
}

/* A kernel that died since the last call: say so instead of running CODE
 * in a fresh one that lacks the state CODE may need. */
static json_t *died_between_calls(struct jsession *s, const char *code)
{
	char why[128], note[512];
	struct jo_outputs outs;
	json_t *o, *outputs, *null;

	if (!jk_kernel_dead(s->kernel, why, sizeof why))
		return NULL;
	ag_log("jupyter session %s: the kernel died between calls (%s)", s->id, why);
	jk_kernel_free(detach_kernel(s));
	snprintf(note, sizeof note,
		 "The kernel died (%s) after the previous call; its state is lost and this code did not run. "
		 "The next call starts a fresh kernel.", why);
	jo_init(&outs);
	jo_add_error(&outs, "DeadKernelError", note);
	outputs = jo_result(&outs);
	null = json_null();
	o = result_json(s, code, "error", null, outputs, NULL);
	json_decref(outputs);
	json_decref(null);
	jo_free(&outs);
	return o;
}

static bool session_id_ok(const char *id)
{
	const unsigned char *p;

	if (!*id || strlen(id) > SESSION_ID_MAX)
		return false;
	for (p = (const unsigned char *)id; *p; p++)
		if (*p < 0x20 || *p == 0x7f || *p == '/')
			return false;
	return true;
}

/* Check the names of a request and get (or create) its session. */
static struct jsession *request_session(struct ag_jupyter *j, const char *session_id, const char *kernel_name,
					bool *created, struct ag_error *err)
{
	struct jk_spec spec;
	struct jsession *s;

	*created = false;
	if (!session_id_ok(session_id)) {
		ag_fail(err, 400, "session_id must be 1 to %d characters, without '/' or control characters",
			SESSION_ID_MAX);
		return NULL;
	}
	if (kernel_name && !jk_spec_name_ok(kernel_name)) {
		ag_fail(err, 400, "invalid kernel name: %.100s", kernel_name);
		return NULL;
	}
	s = session_get(j, session_id, NULL, created, err);
	if (!s) {
		/* A new session: its kernel must exist before the session does. */
		if (jk_spec_find(kernel_name ? kernel_name : DEFAULT_KERNEL, &spec, err) < 0)
			return NULL;
		s = session_get(j, session_id, &spec, created, err);
		jk_spec_free(&spec);
		if (!s)
			return NULL;
	}
	if (kernel_name && strcasecmp(kernel_name, s->kernel_name) != 0) {
		ag_fail(err, 400, "Session %s runs kernel %s, not %s", s->id, s->kernel_name, kernel_name);
		unref(j, s);
		return NULL;
	}
	return s;
}

/* The end of a call on S (after its turn): drop the caller's reference,
 * and when the call FAILED in a session it CREATED whose kernel never
 * started, forget that session too: it is no session. */
static void finish_call(struct ag_jupyter *j, struct jsession *s, bool created, bool failed)
{
	bool drop = false;

	if (created && failed) {
		pthread_mutex_lock(&j->lock);
		pthread_mutex_lock(&s->lock);
		drop = !s->kernel && !s->deleted;
		pthread_mutex_unlock(&s->lock);
		if (drop)
			unlink_locked(j, s);
		pthread_mutex_unlock(&j->lock);
	}
	if (drop)
		stop_kernel(s);
	/* The registry's reference too when the session was dropped. */
	release(j, s, drop ? 2 : 1);
}

static int run_in_turn(struct ag_jupyter *j, struct jsession *s, const char *code, const char *cwd, double timeout_s,
		       const struct jx_watch *w, json_t **result, struct ag_error *err)
{
	struct jx_run run;
	double ms = (timeout_s > 0 ? timeout_s : DEFAULT_TIMEOUT_S) * 1000;

	if (is_deleted(s))
		return ag_fail(err, 404, "Session %s was deleted", s->id);
	if (s->kernel && (*result = died_between_calls(s, code)))
		return 0;
	if (!s->kernel && start_kernel(j, s, cwd, err) < 0)
		return -1;
	if (jx_execute(s->kernel, code, ms > 24 * 3600e3 ? 24 * 3600 * 1000 : (int)ms, w, &run, err) < 0)
		return -1;
	if (run.kernel_lost)
		jk_kernel_free(detach_kernel(s));
	*result = result_json(s, code, jx_status_name(run.status), run.execution_count, run.outputs, run.msg_id);
	jx_run_free(&run);
	return *result ? 0 : ag_fail(err, 500, "out of memory");
}

int ag_jupyter_execute_in(struct ag_jupyter *j, const char *code, const char *kernel_name, const char *session_id,
			  const char *cwd, double timeout_s, json_t **result, struct ag_error *err)
{
	return ag_jupyter_execute_for(j, code, kernel_name, session_id, cwd, timeout_s, -1, result, err);
}

int ag_jupyter_execute_for(struct ag_jupyter *j, const char *code, const char *kernel_name, const char *session_id,
			   const char *cwd, double timeout_s, int client_fd, json_t **result,
			   struct ag_error *err)
{
	struct jx_watch w = { .client_fd = client_fd, .interrupt_fd = -1 };
	struct jsession *s;
	bool created;
	int rc;

	*result = NULL;
	if (!code)
		return ag_fail(err, 400, "code is required");
	s = request_session(j, session_id ? session_id : DEFAULT_SESSION, kernel_name, &created, err);
	if (!s)
		return -1;
	take_turn(s);
	rc = run_in_turn(j, s, code, cwd, timeout_s, &w, result, err);
	end_turn(s);
	finish_call(j, s, created, rc < 0);
	return rc;
}

int ag_jupyter_execute(struct ag_jupyter *j, const char *code, const char *kernel_name, const char *session_id,
		       double timeout_s, json_t **result, struct ag_error *err)
{
	return ag_jupyter_execute_in(j, code, kernel_name, session_id, NULL, timeout_s, result, err);
}

int ag_jupyter_create(struct ag_jupyter *j, const char *session_id, const char *kernel_name, const char *cwd,
		      json_t **result, struct ag_error *err)
{
	char new_id[JC_ID_SIZE];
	struct jsession *s;
	bool created;
	int rc = 0;

	*result = NULL;
	if (!session_id) {
		aio_session_new_id(new_id);
		session_id = new_id;
	}
	s = request_session(j, session_id, kernel_name, &created, err);
	if (!s)
		return -1;
	take_turn(s);
	if (is_deleted(s))
		rc = ag_fail(err, 404, "Session %s was deleted", s->id);
	else if (!s->kernel)
		rc = start_kernel(j, s, cwd, err);
	end_turn(s);
	if (rc == 0)
		*result = json_pack("{s:s, s:s, s:s}", "session_id", s->id, "kernel_name", s->kernel_name, "message",
				    created ? "Session created" : "Session already exists");
	finish_call(j, s, created, rc < 0);
	return rc;
}

int ag_jupyter_delete(struct ag_jupyter *j, const char *session_id, struct ag_error *err)
{
	struct jsession *s;

	pthread_mutex_lock(&j->lock);
	s = find_locked(j, session_id);
	if (s)
		unlink_locked(j, s);
	pthread_mutex_unlock(&j->lock);
	if (!s)
		return ag_fail(err, 404, "Session not found: %s", session_id);
	retire(j, s);
	return 0;
}

int ag_jupyter_delete_all(struct ag_jupyter *j)
{
	return ag_jupyter_delete_language(j, NULL);
}

json_t *ag_jupyter_sessions(struct ag_jupyter *j)
{
	json_t *map = json_object();
	struct jsession *s, *expired = NULL;
	time_t now = time(NULL);

	pthread_mutex_lock(&j->lock);
	expire_locked(j, &expired);
	for (s = j->sessions; s; s = s->next) {
		pthread_mutex_lock(&s->lock);
		json_object_set_new(map, s->id,
				    json_pack("{s:s, s:f, s:I}", "kernel_name", s->kernel_name, "last_used", s->last_used,
					      "age_seconds", (json_int_t)(now - s->created)));
		pthread_mutex_unlock(&s->lock);
	}
	pthread_mutex_unlock(&j->lock);
	retire_all(j, expired);
	return json_pack("{s:o}", "sessions", map);
}

static void keep(struct jsession *s)
{
	pthread_mutex_lock(&s->lock);
	s->keep = true;
	pthread_mutex_unlock(&s->lock);
}

static json_t *context_json(const struct jsession *s)
{
	return json_pack("{s:s, s:s}", "id", s->id, "language", s->language[0] ? s->language : s->kernel_name);
}

int ag_jupyter_context_create(struct ag_jupyter *j, const char *language, const char *cwd, json_t **result,
			      struct ag_error *err)
{
	char id[JC_ID_SIZE];
	struct jk_spec spec;
	struct jsession *s;
	bool created;
	int rc;

	*result = NULL;
	if (jk_spec_for_language(language, &spec, err) < 0)
		return -1;
	aio_session_new_id(id);
	s = session_get(j, id, &spec, &created, err);
	jk_spec_free(&spec);
	if (!s)
		return -1;
	keep(s);
	take_turn(s);
	rc = is_deleted(s) ? ag_fail(err, 404, "Context %s was deleted", s->id) : start_kernel(j, s, cwd, err);
	end_turn(s);
	if (rc == 0 && !(*result = context_json(s)))
		rc = ag_fail(err, 500, "out of memory");
	finish_call(j, s, created, rc < 0);
	return rc;
}

static bool speaks(const struct jsession *s, const char *language)
{
	return !language || strcasecmp(s->language, language) == 0;
}

json_t *ag_jupyter_contexts(struct ag_jupyter *j, const char *language)
{
	json_t *list = json_array();
	struct jsession *s;

	pthread_mutex_lock(&j->lock);
	for (s = j->sessions; s; s = s->next)
		if (speaks(s, language))
			json_array_append_new(list, context_json(s));
	pthread_mutex_unlock(&j->lock);
	return list;
}

int ag_jupyter_context_get(struct ag_jupyter *j, const char *id, json_t **result, struct ag_error *err)
{
	struct jsession *s;

	pthread_mutex_lock(&j->lock);
	s = find_locked(j, id);
	*result = s ? context_json(s) : NULL;
	pthread_mutex_unlock(&j->lock);
	if (!s)
		return ag_fail(err, 404, "context %s not found", id);
	return *result ? 0 : ag_fail(err, 500, "out of memory");
}

int ag_jupyter_delete_language(struct ag_jupyter *j, const char *language)
{
	struct jsession *list = NULL, *s, *next, **p;
	int n = 0;

	pthread_mutex_lock(&j->lock);
	for (p = &j->sessions; (s = *p);) {
		if (!speaks(s, language)) {
			p = &s->next;
			continue;
		}
		unlink_locked(j, s);
		s->next = list;
		list = s;
		n++;
	}
	pthread_mutex_unlock(&j->lock);
	for (s = list; s; s = next) {
		next = s->next;
		retire(j, s);
	}
	return n;
}

int ag_jupyter_interrupt(struct ag_jupyter *j, const char *id, struct ag_error *err)
{
	const uint64_t one = 1;
	struct jsession *s;
	int fd = -1;

	pthread_mutex_lock(&j->lock);
	s = find_locked(j, id);
	if (s) {
		pthread_mutex_lock(&s->lock);
		fd = s->interrupt_fd;
		/* Under the lock: the running call closes it only after clearing it. */
		if (fd >= 0 && write(fd, &one, sizeof one) < 0)
			ag_log("jupyter session %s: interrupt: %s", s->id, strerror(errno));
		pthread_mutex_unlock(&s->lock);
	}
	pthread_mutex_unlock(&j->lock);
	if (!s)
		return ag_fail(err, 404, "context %s not found", id);
	return 0;
}

struct jsession *ag_jupyter_context_open(struct ag_jupyter *j, const char *id, const char *language, bool *created,
					 struct ag_error *err)
{
	char default_id[SESSION_ID_MAX + 1];
	struct jk_spec spec;
	struct jsession *s;

	*created = false;
	if (id)
		return session_get(j, id, NULL, created, err);
	if (jk_spec_for_language(language, &spec, err) < 0)
		return NULL;
	snprintf(default_id, sizeof default_id, "default-%s", spec.language);
	s = session_get(j, default_id, &spec, created, err);
	jk_spec_free(&spec);
	if (s)
		keep(s);
	return s;
}

const char *ag_jupyter_context_id(const struct jsession *s)
{
	return s->id;
}

static void set_interrupt_fd(struct jsession *s, int fd)
{
	pthread_mutex_lock(&s->lock);
	s->interrupt_fd = fd;
	pthread_mutex_unlock(&s->lock);
}

int ag_jupyter_context_run(struct ag_jupyter *j, struct jsession *s, const char *code, const struct jx_watch *w,
			   json_t **result, struct ag_error *err)
{
	int rc;

	*result = NULL;
	take_turn(s);
	set_interrupt_fd(s, w->interrupt_fd);
	rc = run_in_turn(j, s, code, NULL, 24 * 3600, w, result, err);
	set_interrupt_fd(s, -1);
	end_turn(s);
	return rc;
}

void ag_jupyter_context_close(struct ag_jupyter *j, struct jsession *s, bool created, bool failed)
{
	finish_call(j, s, created, failed);
}

json_t *ag_jupyter_info(struct ag_jupyter *j)
{
	size_t n;

	pthread_mutex_lock(&j->lock);
	n = j->n;
	pthread_mutex_unlock(&j->lock);
	return json_pack("{s:s, s:o, s:I, s:i, s:i, s:s, s:s}", "default_kernel", DEFAULT_KERNEL, "available_kernels",
			 jk_spec_names(), "active_sessions", (json_int_t)n, "session_timeout_seconds", SESSION_TIMEOUT_S,
			 "max_sessions", MAX_SESSIONS, "description",
			 "Jupyter kernels started on demand, one per session, spoken to over ZeroMQ; calls without "
			 "a session_id share the session \"default\"",
			 "kernel_detection", "kernelspecs (kernels/<name>/kernel.json in the Jupyter data paths)");
}

void ag_jupyter_free(struct ag_jupyter *j)
{
	struct jsession *s;

	if (!j)
		return;
	/* No call is running: the server has stopped. */
	while ((s = j->sessions)) {
		j->sessions = s->next;
		session_destroy(s);
	}
	if (j->zmq)
		zmq_ctx_term(j->zmq);
	if (j->dir[0])
		rmdir(j->dir);
	pthread_mutex_destroy(&j->lock);
	free(j);
}
