/* Lazy loading of the extension module (ext.h). dlopen() costs about a
 * millisecond once; linking libzmq, libwebsockets and OpenSSL into the agent
 * cost every sandbox ~5 MiB of resident memory and ~3 ms of start-up, most of
 * it relocating libraries that most sandboxes never call. */
#include "agent/core/ext_loader.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/core/log.h"

struct ag_ext {
	pthread_mutex_t lock;
	char *path;
	struct ag_ext_config conf;
	int loaded;                         /* under LOCK; once 1, API and CTX never change */
	const struct ag_ext_api *api;
	struct ag_ctx ctx;                  /* the agent's, plus the module's objects */
};

static const struct ag_ext_mhd agent_mhd = {
	.create_response_from_buffer = MHD_create_response_from_buffer,
	.add_response_header = MHD_add_response_header,
	.queue_response = MHD_queue_response,
	.create_response_from_callback = MHD_create_response_from_callback,
	.destroy_response = MHD_destroy_response,
	.lookup_connection_value = MHD_lookup_connection_value,
	.get_connection_info = MHD_get_connection_info,
};

struct ag_ext *ag_ext_new(const char *path, const struct ag_ext_config *conf)
{
	struct ag_ext *e = calloc(1, sizeof *e);

	if (!e)
		return NULL;
	e->path = strdup(path);
	if (!e->path) {
		free(e);
		return NULL;
	}
	e->conf = *conf;
	e->conf.mhd = &agent_mhd;
	pthread_mutex_init(&e->lock, NULL);
	return e;
}

void ag_ext_free(struct ag_ext *e)
{
	if (!e)
		return;
	if (e->loaded)
		e->api->stop(&e->ctx);
	/* The module stays mapped: libraries it pulled in (libzmq, OpenSSL) may
	 * run atexit handlers, and the process is about to end anyway. */
	pthread_mutex_destroy(&e->lock);
	free(e->path);
	free(e);
}

char *ag_ext_path(const char *argv0)
{
	char self[PATH_MAX], *slash, *path;
	ssize_t n;

	if (argv0 && argv0[0] == '/') {
		snprintf(self, sizeof self, "%s", argv0);
	} else {
		n = readlink("/proc/self/exe", self, sizeof self - 1);
		if (n <= 0)
			return strdup(AG_EXT_FILE);
		self[n] = '\0';
	}
	slash = strrchr(self, '/');
	if (slash)
		*slash = '\0';
	if (asprintf(&path, "%s/%s", self, AG_EXT_FILE) < 0)
		return NULL;
	return path;
}

/* Under E->lock: dlopen and check the module, start it with a copy of CTX.
 * 0, or -1 with WHY. A failure is not remembered: the next request tries
 * again. */
static int load(struct ag_ext *e, const struct ag_ctx *ctx, char *why, size_t why_size)
{
	const struct ag_ext_api *api;
	char msg[512] = "";
	void *h;

	/* RTLD_NOW: an unresolved symbol fails here, with a message, rather
	 * than killing init in the middle of a request. */
	h = dlopen(e->path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(why, why_size, "%s", dlerror());
		return -1;
	}
	api = dlsym(h, AG_EXT_SYMBOL);
	if (!api) {
		snprintf(why, why_size, "%s: no %s: not an allox-agent extension module", e->path, AG_EXT_SYMBOL);
		dlclose(h);
		return -1;
	}
	if (api->abi != AG_EXT_ABI || api->ctx_size != sizeof(struct ag_ctx) || api->req_size != sizeof(struct ag_req)) {
		snprintf(why, why_size, "%s: built for another allox-agent (ABI %u, want %u)", e->path, api->abi,
			 AG_EXT_ABI);
		dlclose(h);
		return -1;
	}
	e->ctx = *ctx;
	if (api->start(&e->ctx, &e->conf, msg, sizeof msg) < 0) {
		snprintf(why, why_size, "%s: %s", e->path, msg);
		dlclose(h);
		return -1;
	}
	e->api = api;
	e->loaded = 1;
	ag_log("loaded %s", e->path);
	return 0;
}

static int ensure_loaded(struct ag_ext *e, const struct ag_ctx *ctx, char *why, size_t why_size)
{
	int rc = 0;

	pthread_mutex_lock(&e->lock);
	if (!e->loaded)
		rc = load(e, ctx, why, why_size);
	pthread_mutex_unlock(&e->lock);
	return rc;
}

/* The module's row for the agent's row ROUTE: the same method and path. */
static const struct ag_route *module_row(const struct ag_route *rows, const struct ag_route *route)
{
	for (; rows->method; rows++)
		if (rows->match == route->match && strcmp(rows->method, route->method) == 0 &&
		    strcmp(rows->path, route->path) == 0)
			return rows;
	return NULL;
}

enum MHD_Result ag_ext_route(struct ag_req *req)
{
	struct ag_ext *e = req->ctx->ext;
	const struct ag_route *row;
	char why[768];

	if (!e)
		return ag_reply_failure(req, MHD_HTTP_SERVICE_UNAVAILABLE, "%s %s needs the agent extension module %s",
					req->method, req->path, AG_EXT_FILE);
	if (ensure_loaded(e, req->ctx, why, sizeof why) < 0) {
		ag_log("%s %s: extension module unavailable: %s", req->method, req->path, why);
		return ag_reply_failure(req, MHD_HTTP_SERVICE_UNAVAILABLE,
					"%s %s needs the agent extension module %s, which cannot be loaded: %s",
					req->method, req->path, AG_EXT_FILE, why);
	}
	row = module_row(e->api->routes, req->route);
	if (!row)
		return ag_reply_failure(req, MHD_HTTP_SERVICE_UNAVAILABLE, "the agent extension module %s does not serve %s %s",
					e->path, req->route->method, req->route->path);
	req->route = row;
	req->ctx = &e->ctx;
	return row->handle(req);
}

bool ag_ext_loaded(const struct ag_ctx *ctx)
{
	struct ag_ext *e = ctx->ext;
	bool loaded;

	if (!e)
		return false;
	pthread_mutex_lock(&e->lock);
	loaded = e->loaded;
	pthread_mutex_unlock(&e->lock);
	return loaded;
}

json_t *ag_ext_code_contexts(const struct ag_ctx *ctx, const char *language)
{
	struct ag_ext *e = ctx->ext;
	json_t *list;
	char *text;

	if (!ag_ext_loaded(ctx))
		return json_array();
	text = e->api->code_contexts(&e->ctx, language);
	list = text ? json_loads(text, 0, NULL) : NULL;
	free(text);
	return list;
}
