/* What a route handler sees: the request, the agent's shared state and reply
 * helpers. Adding an endpoint = one row in routes.c + one handler function.
 *
 * Handlers run on the connection's own thread (one thread per connection), so
 * a handler may block, and a streaming response may block in its content
 * reader (MHD_create_response_from_callback) until more output exists. */
#ifndef ALLOX_AGENT_ROUTE_H
#define ALLOX_AGENT_ROUTE_H

#include <jansson.h>
#include <microhttpd.h>
#include <stdarg.h>
#include <stddef.h>
#include <time.h>

struct ag_reaper;
struct aio_sessions;
struct execd_registry;
struct execd_sessions;
struct ag_jupyter;
struct ag_browser;
struct ag_mcp;
struct ag_ext;
struct ag_netwait;
struct ag_relay;
struct ag_error;

/* Read-only after start-up, shared by every connection thread: the pointers
 * never change; the objects behind them have their own locks. main.c owns
 * them. */
struct ag_ctx {
	const char *sandbox_id;
	const char *version;
	const char *token;
	size_t token_len;
	struct ag_reaper *reaper;   /* register children you spawn and wait for; see reaper.h */
	struct aio_sessions *aio_sessions;      /* AIO shell sessions; see aio_session.h */
	struct execd_registry *execd;           /* execd commands by id; see execd_registry.h */
	struct execd_sessions *sessions;        /* execd bash sessions; see execd_session.h */
	struct ag_jupyter *jupyter;             /* Jupyter kernels by session; see jupyter.h */
	struct ag_browser *browser;             /* the sandbox's Chromium; see browser.h */
	struct ag_mcp *mcp;                     /* MCP servers and /mcp sessions; see mcp.h */
	struct ag_relay *cdp_relay;             /* DevTools from the host; see cdp_relay.h */
	/* jupyter, browser and mcp are NULL in the agent's own context: they live
	 * in the extension module, whose handlers see a copy with them set. */
	struct ag_ext *ext;                     /* the extension module's loader; see ext_loader.h */
	struct ag_netwait *net;                 /* the sandbox's network coming up; see netwait.h */
	/* The sandbox's memory and CPU limits as the engine set them (0: none),
	 * for /metrics when its cgroup is not visible inside. */
	long long memory_max;
	long long cpu_millis;
	time_t started;
};

struct ag_route;

struct ag_req {
	struct MHD_Connection *conn;
	const struct ag_ctx *ctx;
	const struct ag_route *route;
	const char *method;         /* as sent; HEAD is routed to GET handlers */
	const char *path;           /* without the query string */
	const char *subpath;        /* AG_PREFIX routes: the part after the prefix */
	char *body;                 /* AG_BODY_BUFFER: NUL-terminated request body */
	size_t body_len;
	int body_too_large;
	int responded;
	void *state;                /* for handlers that need per-request state */
	void (*free_state)(void *state);
};

typedef enum MHD_Result (*ag_handler)(struct ag_req *req);
/* AG_BODY_STREAM: called for each chunk of the body as it arrives; return 0 to
 * go on, -1 to drop the connection. */
typedef int (*ag_body_fn)(struct ag_req *req, const char *data, size_t len);

enum ag_match {
	AG_EXACT,
	AG_PREFIX,
};

enum ag_body {
	AG_BODY_NONE,       /* a body, if any, is ignored */
	AG_BODY_BUFFER,     /* collected into req->body, up to body_max (default 1 MiB) */
	AG_BODY_STREAM,     /* handed to on_body chunk by chunk */
};

struct ag_route {
	const char *method;
	const char *path;
	enum ag_match match;
	ag_handler handle;  /* called once the whole body has arrived */
	enum ag_body body;
	size_t body_max;
	ag_body_fn on_body;
};

/* For the *_ROUTES_VIA(h) row macros: each handler as itself. */
#define AG_ROUTE_SELF(handler) handler

/* The table, terminated by a row with a NULL method (routes.c). */
extern const struct ag_route ag_routes[];

/* Reply helpers: each queues one complete response. */
enum MHD_Result ag_reply_json(struct ag_req *req, unsigned status, json_t *body);  /* steals BODY */
enum MHD_Result ag_reply_empty(struct ag_req *req, unsigned status);
/* AIO-style failure: {"success":false,"message":"..."} */
enum MHD_Result ag_reply_failure(struct ag_req *req, unsigned status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* ERR as ag_reply_failure with its status (0: 500): how the AIO routes of
 * Jupyter, the browser and MCP answer a failure. */
enum MHD_Result ag_reply_error(struct ag_req *req, const struct ag_error *err);
/* The body of ag_reply_failure, for replies that need more headers. */
json_t *ag_vfailure(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* execd-style failure (the spec's ErrorResponse): {"code":CODE,"message":"..."} */
json_t *ag_vcode_error(const char *code, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Is PATH one of the AIO runtime API's (under /v1/, or MCP's /mcp)? Everything
 * else the agent serves is execd's, whose errors have another shape. */
int ag_path_is_aio(const char *path);
/* A refusal the server makes before any handler runs (no such route, wrong
 * method, body too large), in the shape of the API PATH belongs to: the AIO
 * envelope, or execd's ErrorResponse with CODE. */
json_t *ag_refusal(const char *path, const char *code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A complete JSON response (Content-Type set) for BODY, which it steals; NULL on ENOMEM. */
struct MHD_Response *ag_json_response(json_t *body);
/* Queue RESP with the headers every reply carries, then release it. */
enum MHD_Result ag_reply_queue(struct ag_req *req, unsigned status, struct MHD_Response *resp);

/* A JSON string for TEXT even when it is not valid UTF-8 (URLs arrive
 * percent-decoded, so a path may hold any bytes): bad bytes become '?'. */
json_t *ag_json_text(const char *text);

/* The AIO envelope {"success":true,"message":MSG,"data":DATA,"hint":null}; steals DATA. */
json_t *ag_envelope(const char *message, json_t *data);

#endif
