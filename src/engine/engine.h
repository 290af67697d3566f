/* allox-engine: the local OpenSandbox lifecycle server. */
#ifndef ALLOX_ENGINE_H
#define ALLOX_ENGINE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include <jansson.h>

#include "error.h"

typedef struct ax_engine {
	char *home;            /* $ALLOX_HOME */
	char *state_dir;       /* $ALLOX_HOME/engine */
	char *sandboxes_dir;   /* $ALLOX_HOME/engine/sandboxes */
	char *agent_path;      /* allox-agent on the host */
	char *api_key;         /* required on TCP unless insecure */
	const char *clock_file;/* test-only clock offset (ALLOX_ENGINE_CLOCK_OFFSET_FILE) */
	FILE *log;
	pthread_mutex_t lock;  /* guards sandboxes and every record */
	json_t *sandboxes;     /* id -> record (see store.c) */
} ax_engine;

/* Current time as the engine sees it (real time plus the test clock offset). */
time_t ax_engine_now(const ax_engine *e);
void ax_engine_log(ax_engine *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Requests and answers, independent of libmicrohttpd. */
typedef struct ax_req {
	const char *method;
	const char *path;        /* without the /v1 prefix */
	json_t *query;           /* name -> array of values */
	const char *body;
	size_t body_len;
} ax_req;

typedef struct ax_resp {
	int status;
	json_t *body;            /* NULL: empty body */
	char location[256];
} ax_resp;

/* Route one request; fills RESP. */
void ax_engine_handle(ax_engine *e, const ax_req *req, ax_resp *resp);

/* Error envelope {code, message}. */
void ax_resp_error(ax_resp *resp, int status, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* store.c */
int ax_store_load(ax_engine *e, ax_error *err);
int ax_store_save(ax_engine *e, json_t *record, ax_error *err);
char *ax_store_dir(const ax_engine *e, const char *id);

/* sandboxes.c */
void ax_sandboxes_route(ax_engine *e, const ax_req *req, ax_resp *resp);
void ax_sandboxes_reap(ax_engine *e);
void ax_sandboxes_adopt(ax_engine *e);

#endif
