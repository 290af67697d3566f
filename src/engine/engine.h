/* allox-engine: the local OpenSandbox lifecycle server. */
#ifndef ALLOX_ENGINE_H
#define ALLOX_ENGINE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>
#include <jansson.h>

#include "lib/ax_error.h"
#include "lib/quantity.h"
#include "engine/runtime/runtime.h"
#include "engine/runtime/uidrange.h"

/* A sandbox's console.log (its entrypoint's and agent's output) is capped at
 * this many bytes, and so is console.log.1, which holds the output before. */
#define AX_CONSOLE_LOG_MAX_DEFAULT (8LL << 20)
#define AX_CONSOLE_LOG_MAX_MIN (64LL << 10)
#define AX_CONSOLE_LOG_MAX_MAX (1LL << 40)

typedef struct ax_engine {
	char *home;            /* $ALLOX_HOME */
	char *state_dir;       /* $ALLOX_HOME/engine */
	char *sandboxes_dir;   /* $ALLOX_HOME/engine/sandboxes */
	char *snapshots_dir;   /* $ALLOX_HOME/engine/snapshots: <id>.json per snapshot */
	char *layers_dir;      /* $ALLOX_HOME/engine/layers: <snapshot id>/ per captured layer */
	char *volumes_dir;     /* $ALLOX_HOME/volumes: named volumes (volume.h), canonical */
	char **host_prefixes;  /* canonical directories host volumes may be below (--allow-host-volumes), NULL-terminated */
	char *agent_path;      /* allox-agent on the host */
	char *api_key;         /* required on TCP unless insecure */
	char proxy_key[65];    /* the server proxy's HMAC key (proxy.h), read at start */
	const char *clock_file;/* test-only clock offset (ALLOX_ENGINE_CLOCK_OFFSET_FILE) */
	long create_delay_ms;  /* test-only pause between spawn and Running, without the lock (ALLOX_ENGINE_TEST_CREATE_DELAY_MS) */
	ax_uidrange uids;      /* host uid ranges sandboxes are mapped to */
	bool nesting;          /* sandboxes may create user namespaces (--allow-nesting) */
	long long console_log_max; /* bytes: console.log's cap, and console.log.1's (--console-log-max) */
	struct rlimit nofile;  /* RLIMIT_NOFILE as the engine was started, which sandboxes get back */
	char host_mask[4096];  /* under lock: the host image's mask layer (host_mask.c), "" = none */
	long long host_mask_ms;/* CLOCK_MONOTONIC ms of its last scan */
	/* resourceLimits a create does not give (--default-cpu, -memory, -pids),
	 * as the operator wrote them; "" = no limit. Indexed by ax_limit_kind. */
	char default_limit[AX_LIMIT_N][32];
	FILE *log;
	pthread_mutex_t lock;  /* guards sandboxes and every record */
	json_t *sandboxes;     /* id -> record (see store.c) */
	json_t *snapshots;     /* id -> snapshot record (see snapshots.c) */
	json_t *capturing;     /* sandbox id -> captures holding it frozen */
	int captures;          /* capture threads still running */
	pthread_cond_t captured; /* signalled when a capture thread ends */
	pthread_cond_t started;  /* broadcast when a Pending sandbox runs or is removed (sandboxes.c create) */
	_Atomic long long last_request_ms; /* CLOCK_MONOTONIC ms of the last request */
	long long unsynced_since_ms;  /* under lock: capture time of the oldest snapshot not yet on disk, 0: none */
	char boot_id[64];      /* the kernel's, read at start: a snapshot not yet synced records it */
	struct ax_fwds *forwards; /* under lock: endpoints' forwarders (forward.h), made at the first */
	struct ax_egresses *egress; /* sandboxes' resolvers and filters (egress.h) */
	struct ax_http_server *egress_http; /* under lock: the egress API's listener, made at the first need */
	int egress_port;       /* its port on the host's loopback */
} ax_engine;

/* Current time as the engine sees it (real time plus the test clock offset). */
time_t ax_engine_now(const ax_engine *e);
void ax_engine_log(ax_engine *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Requests and answers, independent of libmicrohttpd. */
typedef struct ax_req {
	const char *method;
	const char *path;        /* without the /v1 prefix */
	const char *host;        /* the Host header, or NULL */
	json_t *query;           /* name -> array of values */
	const char *body;
	size_t body_len;
	const char *egress_auth; /* the OPENSANDBOX-EGRESS-AUTH header, or NULL */
	bool unix_socket;        /* came on the engine's unix socket (not TCP) */
} ax_req;

typedef struct ax_resp {
	int status;
	json_t *body;            /* NULL: empty body */
	char location[2048];
	char size_header[32];    /* X-Allox-Snapshot-Size: bytes, "" for none */
	bool text;               /* body is a JSON string sent as text/plain (the egress API's errors) */
} ax_resp;

/* Route one request; fills RESP. */
void ax_engine_handle(ax_engine *e, const ax_req *req, ax_resp *resp);

/* Error envelope {code, message}. */
void ax_resp_error(ax_resp *resp, int status, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A text/plain answer (the egress API's errors are). */
void ax_resp_text(ax_resp *resp, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* store.c */
int ax_store_load(ax_engine *e, ax_error *err);
int ax_store_save(ax_engine *e, json_t *record, ax_error *err);
/* The same, atomic but not flushed to disk: for the records of a sandbox's
 * creation. They need to survive an engine crash, which the page cache
 * does; after a power cut every sandbox is gone anyway (the next engine
 * marks it Terminated), and on ext4 each fsync here also waits for the new
 * state directories' journal commit (1-3 ms per create). */
int ax_store_save_nosync(ax_engine *e, json_t *record, ax_error *err);
char *ax_store_dir(const ax_engine *e, const char *id);

/* sandbox_background.c (the domain API of sandboxes: sandbox.h) */
void ax_sandboxes_reap(ax_engine *e);
void ax_sandboxes_adopt(ax_engine *e);
/* Scan the host for what the host image must hide (lock not held): at a
 * create until a scan succeeds, then (create or tick) when the last one is
 * 10 s old and sandboxes exist. */
void ax_sandboxes_scan_host(ax_engine *e);
/* True if a capture holds sandbox ID frozen (lock held). */
bool ax_sandbox_capturing(ax_engine *e, const char *id);
/* Freeze or thaw sandbox ID for a capture (lock held); -1 with ERR. */
int ax_sandbox_freeze_for_capture(ax_engine *e, const char *id, ax_error *err);
void ax_sandbox_thaw_after_capture(ax_engine *e, const char *id);
int ax_new_uuid(char out[37]);
/* Sort newest first by createdAt, then id. */
int ax_newest_first(const void *a, const void *b);

/* network.c */
/* The create request's extension that picks a sandbox's network (the
 * lifecycle spec's networkPolicy has no field for it). */
#define AX_NET_EXTENSION "allox.network"
/* "isolated" (or NULL: the default), "none" or "host" into *MODE (may be
 * NULL); -1 for anything else. */
int ax_net_mode_parse(const char *s, ax_net_mode *mode);
/* GET /sandboxes/{id}/endpoints/{port}: the Endpoint, or NULL with ERR. */
json_t *ax_sandbox_endpoint(ax_engine *e, const char *id, const char *port, ax_error *err);
/* PORT as a port number (1-65535); -1 with SANDBOX::INVALID_PARAMETER. */
int ax_port_parse(const char *s, long *port, ax_error *err);
/* Stop the endpoints' forwarders of sandbox ID (lock held). */
void ax_endpoints_drop(ax_engine *e, const char *id);
/* An fd of the network namespace of REC's PID 1, or -1 when it is not running. */
int ax_netns_of(const json_t *rec);

/* create_fields.c: SANDBOX::INVALID_PARAMETER for a create field the engine
 * cannot honour (networkPolicy checked too, for a sandbox on network MODE). */
int ax_create_fields_check(const json_t *body, ax_net_mode mode, ax_error *err);

/* egress_api.c: a sandbox's egress policy (networkPolicy, egress.h) and the
 * egress API. */
typedef struct ax_egress_start_arg {
	ax_engine *engine;
	const char *id;
	const json_t *policy;    /* normal form (egress_policy.h) */
} ax_egress_start_arg;
/* ax_rt_spec.net_hook of a sandbox with a policy (ARG: ax_egress_start_arg). */
int ax_egress_hook(void *arg, int netns_fd, ax_error *err);
/* A restarted engine's resolver for running sandbox REC, if it has a policy (lock held). */
void ax_egress_adopt(ax_engine *e, const json_t *rec);
/* The endpoint of port 18080 of sandbox REC (lock held); NULL with ERR. */
json_t *ax_egress_endpoint(ax_engine *e, json_t *rec, ax_error *err);
/* The egress API listener's requests: /egress/<id>/policy. */
void ax_egress_api_handle(ax_engine *e, const ax_req *req, ax_resp *resp);
/* Stop that listener (the engine's exit). */
void ax_egress_api_stop(ax_engine *e);

/* snapshots.c: snapshots and their layers. The operations take the lock and
 * return the spec's Snapshot (with its size on disk in *SIZE, -1 if not
 * known) or fail with a wire code. */
int ax_snapshots_load(ax_engine *e, ax_error *err);
void ax_snapshots_adopt(ax_engine *e);
/* Capture sandbox SANDBOX_ID; BODY is {name?}. */
json_t *ax_snapshot_create(ax_engine *e, const char *sandbox_id, const json_t *body, long long *size, ax_error *err);
json_t *ax_snapshot_get(ax_engine *e, const char *id, long long *size, ax_error *err);
int ax_snapshot_delete(ax_engine *e, const char *id, ax_error *err);
struct ax_page;
/* Those of sandbox SANDBOX (NULL: any) in one of STATES (empty: any). */
json_t *ax_snapshot_list(ax_engine *e, const json_t *states, const char *sandbox, const struct ax_page *page,
			 ax_error *err);
/* Fill a new sandbox record REC from snapshot SNAPSHOT_ID: image and layers
 * (lock held). -1 with ERR when the snapshot can't be restored. */
int ax_snapshot_restore_into(ax_engine *e, const char *snapshot_id, json_t *rec, ax_error *err);
/* The owners' base on disk of each layer of sandbox record REC (its
 * "layers" and "layerBases"); NULL if none or ENOMEM. */
unsigned *ax_layer_bases(const json_t *rec);
/* Paths of the layer ids in LAYERS, NULL-terminated; NULL if none or ENOMEM. */
char **ax_layer_paths(const ax_engine *e, const json_t *layers);
/* Remove captured layers no snapshot or sandbox refers to (lock held). */
void ax_layers_gc(ax_engine *e);
/* Remove retired layers (and, at start-up, partial captures); without the lock. */
void ax_layers_sweep(ax_engine *e, bool partial_too);
/* Wait (bounded) for running captures before the engine exits. */
void ax_snapshots_drain(ax_engine *e, int seconds);
/* Write the Ready snapshots not yet on disk to it (one syncfs), then mark
 * them durable: when FORCE (the engine is stopping), when no request came
 * for a second, or when the oldest has waited 35 s. Called by the tick. */
void ax_snapshots_sync(ax_engine *e, bool force);

/* layers.c */
/* Copy the writable layer SRC to DST (see layers.c); 0 with the copy's size
 * on disk in *BYTES, or -1 with ERR. */
int ax_layer_copy(const char *src, const char *dst, long long *bytes, ax_error *err);

#endif
