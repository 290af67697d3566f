/* sandbox create | list | get | endpoint | renew | pause | resume | kill */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/common.h"
#include "lib/duration.h"
#include "lib/http.h"
#include "api/lifecycle_decode.h"
#include "cmd/mcp_config.h"
#include "lib/quantity.h"
#include "cmd/sandbox_policy.h"
#include "cmd/sandbox_volumes.h"
#include "lib/session.h"
#include "cmd/target.h"
#include "lib/timeutil.h"
#include "cmd/groups.h"

#define LOCAL_IMAGE "host"

/* "/sandboxes/<escaped id><suffix>"; malloc'd. */
static char *sandbox_path(const char *id, const char *suffix)
{
	char *eid = ax_http_escape(id), *path = NULL;

	if (eid && asprintf(&path, "/sandboxes/%s%s", eid, suffix) < 0)
		path = NULL;
	free(eid);
	return path;
}

static json_t *kv_object(const json_t *pairs)
{
	json_t *obj = json_object(), *pair;
	size_t i;

	json_array_foreach(pairs, i, pair)
		json_object_set(obj, json_string_value(json_array_get(pair, 0)), json_array_get(pair, 1));
	return obj;
}

/* With the embedded engine the default image is the host and the default
 * entrypoint a no-op, unless the configuration chose otherwise. */
static bool from_default(const ax_config *cfg, const char *name)
{
	return strcmp(json_string_value(json_object_get(cfg->sources, name)) ?: "", "default") == 0;
}

/* --cpu, --memory, --pids, --disk: their option, the CLI's name in `sandbox
 * get`, the config key's resolved name and the resourceLimits key. */
static const struct {
	const char *option, *config;
	ax_limit_kind kind;
} limit_keys[] = {
	{ "cpu", "default_cpu", AX_LIMIT_CPU },
	{ "memory", "default_memory", AX_LIMIT_MEMORY },
	{ "pids", "default_pids", AX_LIMIT_PIDS },
	{ "disk", "default_disk", AX_LIMIT_DISK },
};

/* resourceLimits of a new sandbox: each option, else its defaults.* key;
 * "" or unset sends nothing. Both were checked already: options by the
 * parser (their kinds), keys when the configuration was loaded. */
static json_t *sandbox_limits(const ax_ctx *ctx, const ax_args *args)
{
	json_t *limits = json_object();

	for (size_t i = 0; i < sizeof limit_keys / sizeof limit_keys[0]; i++) {
		const json_t *v = ax_arg_json(args, limit_keys[i].option);
		char text[64];

		if (!v)
			v = ax_config_value(ctx->config, limit_keys[i].config);
		if (json_is_integer(v))
			snprintf(text, sizeof text, "%lld", (long long)json_integer_value(v));
		else if (json_is_string(v) && json_string_length(v))
			snprintf(text, sizeof text, "%.63s", json_string_value(v));
		else
			continue;
		json_object_set_new(limits, ax_limit_key(limit_keys[i].kind), json_string(text));
	}
	return limits;
}

json_t *ax_sandbox_request(ax_ctx *ctx, const ax_args *args, bool local, const char *snapshot_id, ax_error *err)
{
	const ax_config *cfg = ctx->config;
	const char *image = ax_arg_string(args, "image");
	const char *timeout = ax_arg_string(args, "timeout");
	const json_t *entry = ax_arg_json(args, "entrypoint");
	json_t *req, *meta, *env, *ep, *limits;
	long long secs = 0;
	bool none = false;

	if (!image && !snapshot_id)
		image = local && from_default(cfg, "default_image") ? LOCAL_IMAGE : ax_config_string(cfg, "default_image");
	if (!snapshot_id && (!image || !*image)) {
		ax_fail(err, AX_CODE_USAGE, "Image required. Use --image or defaults.image in config.");
		return NULL;
	}
	if (timeout) {
		if (ax_duration_parse_nullable(timeout, &secs, &none, err) < 0)
			return NULL;
	} else {
		const json_t *t = ax_config_value(cfg, "default_timeout");

		if (json_is_integer(t))
			secs = json_integer_value(t), none = secs == 0;
		else if (ax_duration_parse_nullable(json_string_value(t), &secs, &none, err) < 0)
			return NULL;
	}
	if (!none && secs < 60) {
		ax_fail(err, AX_CODE_USAGE, "--timeout must be at least 60s (the server minimum), or none");
		return NULL;
	}
	if (none && snapshot_id) {
		ax_fail(err, AX_CODE_USAGE, "a restored sandbox needs a lifetime: --timeout none is not allowed");
		return NULL;
	}
	if (entry)
		ep = json_deep_copy(entry);
	else if (local && from_default(cfg, "default_entrypoint"))
		ep = json_pack("[sss]", "tail", "-f", "/dev/null");
	else
		ep = json_deep_copy(ax_config_value(cfg, "default_entrypoint"));
	meta = json_pack("{s:s, s:s}", "tool", "allox", "version", PACKAGE_VERSION);
	if (ax_arg_json(args, "metadata")) {
		json_t *user = kv_object(ax_arg_json(args, "metadata"));

		json_object_update(meta, user);
		json_decref(user);
	}
	env = kv_object(ax_arg_json(args, "env"));
	if (snapshot_id)
		json_object_set_new(meta, "checkpoint", json_string(snapshot_id));
	limits = sandbox_limits(ctx, args);
	req = json_pack("{s:o, s:o, s:o}", "entrypoint", ep, "metadata", meta, "resourceLimits", limits);
	if (snapshot_id)
		json_object_set_new(req, "snapshotId", json_string(snapshot_id));
	else
		json_object_set_new(req, "image", json_pack("{s:s}", "uri", image));
	if (json_object_size(env))
		json_object_set(req, "env", env);
	json_decref(env);
	json_object_set_new(req, "timeout", none ? json_null() : json_integer(secs));
	/* The lifecycle spec's networkPolicy has no field for a namespace
	 * without a network or for the host's: an allox extension says it. */
	if (ax_arg_string(args, "network"))
		json_object_set_new(req, "extensions", json_pack("{s:s}", "allox.network", ax_arg_string(args, "network")));
	if (ax_sandbox_policy_request(args, req, err) < 0 || ax_sandbox_volumes_request(args, req, err) < 0) {
		json_decref(req);
		return NULL;
	}
	/* The profile's MCP servers travel in extensions (the agent starts them). */
	if (ax_mcp_add_extension(cfg, req, err) < 0) {
		json_decref(req);
		return NULL;
	}
	return req;
}

/* Wait until the runtime really answers GET <health path> through its
 * endpoint, with the endpoint's headers. Returns seconds taken, or -1. */
double ax_wait_ready(ax_ctx *ctx, ax_lifecycle *lc, const char *id, long long timeout_s, char **url_out,
			 ax_error *err)
{
	const ax_config *cfg = ctx->config;
	const char *path = ax_config_string(cfg, "aio_health_path");
	char *url = NULL, *fixed = NULL;
	json_t *headers = NULL, *v;
	const char *k;
	double t0;
	ax_http http;
	ax_http_response r;
	ax_error last;
	useconds_t pause = 2000;
	long attempts = 0;
	double elapsed = -1;

	t0 = ax_mono_s();
	if (ax_lc_endpoint(lc, id, (int)ax_config_int(cfg, "aio_port"), &url, &headers, err) < 0)
		return -1;
	if (path[0] != '/' && asprintf(&fixed, "/%s", path) >= 0)
		path = fixed;
	if (ax_http_init(&http, url, NULL, 1, err) < 0)
		goto out;
	json_object_foreach(headers, k, v)
		ax_http_set_header(&http, k, json_string_value(v));
	http.no_retry = true;  /* this loop is the retry, with its own faster pace */
	if (ctx->verbose)
		fprintf(stderr, "[verbose] AIO health check: GET %s%s (timeout %llds)\n", url, path, timeout_s);
	snprintf(last.message, sizeof last.message, "no answer");
	for (;;) {
		attempts++;
		if (ax_http_request(&http, "GET", path, NULL, &r, &last) == 0) {
			if (ctx->verbose)
				fprintf(stderr, "[verbose]   -> %ld\n", r.status);
			if (r.status == 200) {
				ax_http_response_free(&r);
				elapsed = (ax_mono_s() - t0);
				if (ctx->verbose)
					fprintf(stderr, "[verbose] AIO ready in %.2fs\n", elapsed);
				break;
			}
			snprintf(last.message, sizeof last.message, "HTTP %ld", r.status);
			ax_http_response_free(&r);
		} else if (ctx->verbose) {
			fprintf(stderr, "[verbose]   -> HTTP error: %s\n", last.message);
		}
		if ((ax_mono_s() - t0) >= (double)timeout_s) {
			ax_fail(err, AX_CODE_NOT_READY,
				"Sandbox %s did not become ready within %llds (%ld attempts; last: %s)", id, timeout_s,
				attempts, last.message);
			ax_error_hint(err, "Check %s%s, or use --skip-health-check for images without the AIO API.",
				      url, path);
			break;
		}
		/* Start fast (a local sandbox answers within milliseconds), back off to the original's 0.2 s. */
		usleep(pause);
		if (pause < 200000)
			pause *= 2;
	}
	ax_http_free(&http);
out:
	free(fixed);
	if (elapsed >= 0 && url_out)
		*url_out = url;
	else
		free(url);
	json_decref(headers);
	return elapsed;
}

int ax_ready_timeout(ax_ctx *ctx, const char *flag, long long *secs, ax_error *err)
{
	const json_t *rt = ax_config_value(ctx->config, "ready_timeout");

	if (flag)
		return ax_duration_parse(flag, secs, err);
	if (json_is_integer(rt)) {
		*secs = json_integer_value(rt);
		return 0;
	}
	return ax_duration_parse(json_string_value(rt), secs, err);
}

int ax_sandbox_launch(ax_ctx *ctx, ax_lifecycle *lc, const json_t *req, const char *ready_flag, bool skip,
		      json_t **launched, ax_error *err)
{
	json_t *created = NULL;
	const char *id;
	long long ready = 0;
	double took = -1;
	char *aio_url = NULL;
	int rc = -1;

	*launched = NULL;
	skip = skip || ax_config_bool(ctx->config, "skip_health_check");
	if (ax_ready_timeout(ctx, ready_flag, &ready, err) < 0)
		return -1;
	if (ax_lc_call(lc, "POST", "/sandboxes", req, 202, &created, err) < 0)
		goto out;
	id = json_string_value(json_object_get(created, "id"));
	if (!id) {
		ax_fail(err, AX_CODE_PROTOCOL, "the server's create answer has no id");
		goto out;
	}
	if (!skip) {
		took = ax_wait_ready(ctx, lc, id, ready, &aio_url, err);
		if (took < 0) {
			/* A sandbox that never became ready is of no use: don't leave it running. */
			char *path = sandbox_path(id, "");
			ax_error cleanup;

			if (!path || ax_lc_call(lc, "DELETE", path, NULL, 204, NULL, &cleanup) < 0)
				fprintf(ctx->err, "Warning: could not delete sandbox %s\n", id);
			free(path);
			goto out;
		}
	}
	if (!aio_url)
		aio_url = ax_aio_url_or_null(lc, ctx->config, id);
	if (ax_session_set(ctx->home, id, aio_url ? aio_url : "", NULL, err) < 0)
		goto out;
	*launched = json_pack("{s:s, s:s}", "id", id, "aio_url", aio_url ? aio_url : "");
	if (took >= 0)
		json_object_set_new(*launched, "aio_ready_seconds", json_real(round(took * 100) / 100));
	rc = 0;
out:
	free(aio_url);
	json_decref(created);
	return rc;
}

static int cmd_sandbox_create(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	ax_lifecycle *lc = &ctx->target->lc;
	json_t *req, *launched = NULL, *out;
	char *joined = NULL;
	size_t i, off = 0, len = 0;
	json_t *x;
	int rc = -1;

	req = ax_sandbox_request(ctx, args, lc->local, NULL, err);
	if (!req ||
	    ax_sandbox_launch(ctx, lc, req, ax_arg_string(args, "ready-timeout"), ax_arg_flag(args, "skip-health-check"),
			      &launched, err) < 0)
		goto out;
	json_array_foreach(json_object_get(req, "entrypoint"), i, x)
		len += strlen(json_string_value(x)) + 1;
	joined = calloc(1, len + 1);
	json_array_foreach(json_object_get(req, "entrypoint"), i, x)
		off += (size_t)sprintf(joined + off, "%s%s", i ? " " : "", json_string_value(x));
	out = json_pack("{s:O, s:O, s:O, s:s}", "id", json_object_get(launched, "id"), "image",
			json_object_get(json_object_get(req, "image"), "uri"), "aio_url", json_object_get(launched, "aio_url"),
			"entrypoint", joined ? joined : "");
	if (json_object_get(launched, "aio_ready_seconds"))
		json_object_set(out, "aio_ready_seconds", json_object_get(launched, "aio_ready_seconds"));
	res->kind = AX_RESULT_DATA;
	res->data = out;
	res->view.title = "Sandbox Created";
	rc = 0;
out:
	free(joined);
	json_decref(req);
	json_decref(launched);
	return rc;
}

static const char *state_of(const json_t *sbx)
{
	return json_string_value(json_object_get(json_object_get(sbx, "status"), "state"));
}

static int cmd_sandbox_list(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	static const char *const columns[] = { "id", "state", "image", "expires_at", NULL };
	json_t *all = ax_lc_list_all(&ctx->target->lc, "/sandboxes", NULL, err), *rows, *s;
	size_t i;

	if (!all)
		return -1;
	rows = json_array();
	json_array_foreach(all, i, s)
		json_array_append_new(rows, ax_lc_sandbox_object(s));
	json_decref(all);
	res->kind = AX_RESULT_DATA;
	res->data = rows;
	res->view.title = "Sandboxes";
	res->view.columns = columns;
	return 0;
}

static int cmd_sandbox_get(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	ax_lifecycle *lc = &ctx->target->lc;
	const char *id = ctx->target->sandbox_id;
	json_t *s = NULL;

	if (ax_lc_get_sandbox(lc, id, &s, err) < 0)
		return -1;
	res->kind = AX_RESULT_DATA;
	res->data = ax_lc_sandbox_object(s);
	json_object_del(res->data, "expires_at");
	json_object_del(res->data, "created_at");
	/* The limits in force, defaults included, when the server says (the
	 * local engine does): named as the options of sandbox create. */
	for (size_t i = 0; i < sizeof limit_keys / sizeof limit_keys[0]; i++) {
		const json_t *v = json_object_get(json_object_get(s, "resourceLimits"), ax_limit_key(limit_keys[i].kind));

		if (json_is_string(v))
			json_object_set(res->data, limit_keys[i].option, (json_t *)v);
	}
	{
		/* Why it is in that state (its agent died, its entrypoint exited...);
		 * a running sandbox's message is only the engine's note on limits. */
		const json_t *st = json_object_get(s, "status");
		const char *msg = json_string_value(json_object_get(st, "message"));
		const char *reason = json_string_value(json_object_get(st, "reason"));

		if (msg && *msg && !(reason && strcmp(reason, "SANDBOX_RUNNING") == 0))
			json_object_set_new(res->data, "message", json_string(msg));
	}
	if (json_is_string(json_object_get(s, "network")))
		json_object_set(res->data, "network", json_object_get(s, "network"));
	ax_sandbox_policy_show(s, res->data);
	res->view.title = "Sandbox";
	json_decref(s);
	return 0;
}


/* With --port N: where port N of the sandbox is reached, as a URL, with
 * the headers to send; without: the AIO runtime's URL, as the original. */
static int cmd_sandbox_endpoint(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	ax_lifecycle *lc = &ctx->target->lc;
	const char *id = ctx->target->sandbox_id;
	const json_t *port_opt = ax_arg_json(args, "port");
	char *url = NULL;
	json_t *headers = NULL;

	if (port_opt) {
		/* 1..65535: the table's bounds, checked by the parser. */
		json_int_t port = json_integer_value(port_opt);

		if (ax_lc_endpoint(lc, id, (int)port, &url, &headers, err) < 0)
			return -1;
		res->kind = AX_RESULT_DATA;
		res->data = json_pack("{s:s, s:I, s:s}", "sandbox_id", id, "port", port, "url", url);
		if (json_object_size(headers))
			json_object_set(res->data, "headers", headers);
		res->view.title = "Endpoint";
		json_decref(headers);
		free(url);
		return 0;
	}
	if (ax_lc_endpoint(lc, id, (int)ax_config_int(ctx->config, "aio_port"), &url, NULL, err) < 0) {
		char cause[sizeof err->message];

		snprintf(cause, sizeof cause, "%s", err->message);
		ax_fail(err, AX_CODE_AIO_CONNECT, "Failed to connect to AIO sandbox '%s': %.600s", id, cause);
		ax_error_hint(err, "Check that the sandbox exists (allox-cli sandbox get %s) and the server is reachable.", id);
		return -1;
	}
	res->kind = AX_RESULT_DATA;
	res->data = json_pack("{s:s, s:s}", "sandbox_id", id, "aio_url", url);
	res->view.title = "AIO Endpoint";
	free(url);
	return 0;
}


static int cmd_sandbox_renew(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	ax_lifecycle *lc = &ctx->target->lc;
	const char *id = ctx->target->sandbox_id;
	const char *t = ax_arg_string(args, "timeout");
	long long secs;
	char when[32], *path;
	json_t *body, *out;
	int rc;

	if (ax_duration_parse(t, &secs, err) < 0)
		return -1;
	ax_time_rfc3339(time(NULL) + (time_t)secs, when);
	body = json_pack("{s:s}", "expiresAt", when);
	path = sandbox_path(id, "/renew-expiration");
	rc = path ? ax_lc_call(lc, "POST", path, body, 200, &out, err)
		  : ax_fail(err, AX_CODE_NOMEM, "out of memory");
	free(path);
	json_decref(body);
	if (rc < 0)
		return -1;
	res->kind = AX_RESULT_DATA;
	res->data = json_pack("{s:s, s:s}", "sandbox_id", id, "expires_at",
			      json_string_value(json_object_get(out, "expiresAt")) ?: when);
	res->view.title = "Sandbox Renewed";
	json_decref(out);
	return 0;
}


/* POST pause/resume, then read back the state the sandbox really reached. */
static int pause_or_resume(ax_lifecycle *lc, const char *id, const char *verb, const char *title, ax_result *res,
			   ax_error *err)
{
	char suffix[16], *path, *state;
	json_t *s = NULL;
	size_t i;
	int rc;

	snprintf(suffix, sizeof suffix, "/%s", verb);
	path = sandbox_path(id, suffix);
	rc = path ? ax_lc_call(lc, "POST", path, NULL, 202, NULL, err)
		  : ax_fail(err, AX_CODE_NOMEM, "out of memory");
	free(path);
	if (rc < 0 || ax_lc_get_sandbox(lc, id, &s, err) < 0)
		return -1;
	state = strdup(state_of(s) ?: "unknown");
	for (i = 0; state && state[i]; i++)
		state[i] = (char)tolower((unsigned char)state[i]);
	res->kind = AX_RESULT_DATA;
	res->data = json_pack("{s:s, s:s}", "id", id, "status", state ? state : "unknown");
	res->view.title = title;
	free(state);
	json_decref(s);
	return 0;
}

static int cmd_sandbox_pause(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	return pause_or_resume(&ctx->target->lc, ctx->target->sandbox_id, "pause", "Sandbox Paused", res, err);
}

static int cmd_sandbox_resume(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	return pause_or_resume(&ctx->target->lc, ctx->target->sandbox_id, "resume", "Sandbox Resumed", res, err);
}

static int cmd_sandbox_kill(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	ax_lifecycle *lc = &ctx->target->lc;
	const char *id = ctx->target->sandbox_id;
	char *path = sandbox_path(id, "");
	bool cleared;
	int rc;

	rc = path ? ax_lc_call(lc, "DELETE", path, NULL, 204, NULL, err)
		  : ax_fail(err, AX_CODE_NOMEM, "out of memory");
	free(path);
	if (rc < 0)
		return -1;
	if (ax_session_clear(ctx->home, id, &cleared, err) < 0)
		return -1;
	res->kind = AX_RESULT_DATA;
	res->data = json_pack("{s:s, s:s}", "id", id, "status", "killed");
	res->view.title = "Sandbox Killed";
	return 0;
}


/* The table entries of the verbs above (cmd/command.h). */

static const char *const network_modes[] = { "isolated", "none", "host", NULL };

static const ax_option_spec sandbox_create_options[] = {
	{ .name = "image", .short_name = 'i', .kind = AX_VAL_TEXT, .metavar = "IMAGE",
	  .help = "image: host or rootfs:/path locally, a container image on a server (default: defaults.image)" },
	{ .name = "timeout", .short_name = 't', .kind = AX_VAL_LIFETIME, .metavar = "DURATION",
	  .help = "lifetime such as 30m or 2h, or none for no expiry (default: defaults.timeout)" },
	{ .name = "env", .short_name = 'e', .kind = AX_VAL_KV, .metavar = "KEY=VALUE", .repeatable = true,
	  .help = "environment variable for the sandbox" },
	{ .name = "metadata", .short_name = 'm', .kind = AX_VAL_KV, .metavar = "KEY=VALUE", .repeatable = true,
	  .help = "metadata label" },
	{ .name = "entrypoint", .kind = AX_VAL_TEXT, .metavar = "ARG", .repeatable = true,
	  .help = "one argv element of the entrypoint; replaces defaults.entrypoint" },
	{ .name = "ready-timeout", .kind = AX_VAL_DURATION, .metavar = "DURATION",
	  .help = "how long to wait for the runtime (default: defaults.ready_timeout)" },
	{ .name = "skip-health-check", .kind = AX_VAL_NONE, .help = "do not wait for the runtime to answer" },
	{ .name = "cpu", .kind = AX_VAL_CPU, .metavar = "CPUS",
	  .help = "CPU time, such as 2, 0.5 or 500m (default: defaults.cpu)" },
	{ .name = "memory", .kind = AX_VAL_MEMORY, .metavar = "SIZE",
	  .help = "memory limit, such as 512Mi or 2Gi (default: defaults.memory)" },
	{ .name = "pids", .kind = AX_VAL_PIDS, .metavar = "N",
	  .help = "most processes and threads at once (default: defaults.pids, else the server's)" },
	{ .name = "disk", .kind = AX_VAL_DISK, .metavar = "SIZE",
	  .help = "size of the writable layer, such as 1Gi (default: defaults.disk)" },
	{ .name = "network", .kind = AX_VAL_CHOICE, .metavar = "MODE", .choices = network_modes,
	  .help = "isolated (own namespace, outbound only), none (loopback only) or host (unsafe: the host's network); "
	  "default: the server's (isolated locally)" },
	{ .name = "allow-domain", .kind = AX_VAL_TEXT, .metavar = "DOMAIN", .repeatable = true,
	  .help = "let the sandbox resolve and reach DOMAIN (*.DOMAIN: its subdomains); with any, all else is denied" },
	{ .name = "deny-domain", .kind = AX_VAL_TEXT, .metavar = "DOMAIN", .repeatable = true,
	  .help = "never let the sandbox resolve DOMAIN (*.DOMAIN: its subdomains); wins over --allow-domain" },
	{ .name = "volume", .short_name = 'v', .kind = AX_VAL_TEXT, .metavar = "SRC:PATH[:ro]", .repeatable = true,
	  .help = "mount SRC at PATH in the sandbox, read-only with :ro: a host directory (SRC starts with / or .; "
	  "only below the prefixes the local engine allows) or a named volume (SRC a name, made if missing)" },
	AX_OPTIONS_END,
};

static const ax_option_spec sandbox_endpoint_options[] = {
	{ .name = "port", .short_name = 'p', .kind = AX_VAL_INT, .metavar = "N", .min = "1", .max = "65535",
	  .help = "a port a server in the sandbox listens on: print its URL (default: the AIO runtime's)" },
	AX_OPTIONS_END,
};

static const char *const sandbox_endpoint_examples[] = {
	"allox-cli sandbox endpoint",
	"allox-cli sandbox endpoint --port 8000 -o raw",
	"curl \"$(allox-cli sandbox endpoint --port 8000 -o json | jq -r .url)/\"",
	NULL,
};

static const ax_option_spec sandbox_renew_options[] = {
	{ .name = "timeout", .short_name = 't', .kind = AX_VAL_DURATION, .metavar = "DURATION", .required = true,
	  .help = "new lifetime from now (required)" },
	AX_OPTIONS_END,
};

static const char *const sandbox_create_examples[] = {
	"allox-cli sandbox create",
	"allox-cli sandbox create --timeout 2h -e DEBUG=1 -m project=demo -o json",
	"allox-cli sandbox create --image rootfs:/srv/images/alpine --timeout none",
	"allox-cli sandbox create --cpu 0.5 --memory 512Mi --pids 256 --disk 1Gi",
	"allox-cli sandbox create --network none",
	"allox-cli sandbox create --allow-domain pypi.org --allow-domain '*.pythonhosted.org'",
	"allox-cli sandbox create -v /srv/data:/data:ro -v cache:/home/gem/.cache",
	NULL,
};

static const ax_command_spec sandbox_create_verb = {
	.group = "sandbox", .name = "create", .summary = "Create a sandbox and wait until its runtime answers",
	.description = "Creates a sandbox, waits until the runtime answers its readiness path through the "
	"sandbox's endpoint (unless --skip-health-check) and makes it the current session. A sandbox that does "
	"not become ready is deleted. With the embedded local engine the default image is host. --cpu, --memory, "
	"--pids and --disk are sent as resourceLimits (cpu, memory, pids, ephemeral-storage); sandbox get shows "
	"the limits in force.",
	.options = sandbox_create_options, .formats = AX_OBJECT_FORMATS, .default_format = AX_FMT_TABLE,
	.target = AX_TARGET_SERVER, .handler = cmd_sandbox_create, .examples = sandbox_create_examples,
};

static const ax_command_spec sandbox_list_verb = {
	.group = "sandbox", .name = "list", .summary = "List sandboxes",
	.formats = AX_OBJECT_FORMATS | AX_FMT_RAW, .default_format = AX_FMT_TABLE, .target = AX_TARGET_SERVER,
	.handler = cmd_sandbox_list,
};

static const ax_command_spec sandbox_get_verb = {
	.group = "sandbox", .name = "get", .summary = "Show a sandbox's state, image and limits",
	.positionals = ax_sandbox_id_positionals, .formats = AX_OBJECT_FORMATS, .default_format = AX_FMT_TABLE,
	.target = AX_TARGET_SANDBOX, .handler = cmd_sandbox_get,
};

static const ax_command_spec sandbox_endpoint_verb = {
	.group = "sandbox", .name = "endpoint",
	.summary = "Show the URL of a sandbox's AIO runtime or of one of its ports",
	.description = "Without --port, the AIO runtime's URL. With --port N, the URL where port N of the sandbox "
	"is reached: with the local engine a host-loopback address that forwards into the sandbox (only the host "
	"reaches it), and an error (exit status 1) when nothing listens on the port.",
	.positionals = ax_sandbox_id_positionals, .options = sandbox_endpoint_options,
	.formats = AX_OBJECT_FORMATS | AX_FMT_RAW, .default_format = AX_FMT_TABLE, .target = AX_TARGET_SANDBOX,
	.handler = cmd_sandbox_endpoint, .examples = sandbox_endpoint_examples,
};

static const ax_command_spec sandbox_renew_verb = {
	.group = "sandbox", .name = "renew", .summary = "Move a sandbox's expiry to now plus a duration",
	.positionals = ax_sandbox_id_positionals, .options = sandbox_renew_options,
	.formats = AX_OBJECT_FORMATS, .default_format = AX_FMT_TABLE, .target = AX_TARGET_SANDBOX,
	.handler = cmd_sandbox_renew,
};

static const ax_command_spec sandbox_pause_verb = {
	.group = "sandbox", .name = "pause", .summary = "Freeze every process of a sandbox",
	.positionals = ax_sandbox_id_positionals, .formats = AX_OBJECT_FORMATS, .default_format = AX_FMT_TABLE,
	.target = AX_TARGET_SANDBOX, .handler = cmd_sandbox_pause,
};

static const ax_command_spec sandbox_resume_verb = {
	.group = "sandbox", .name = "resume", .summary = "Thaw a paused sandbox",
	.positionals = ax_sandbox_id_positionals, .formats = AX_OBJECT_FORMATS, .default_format = AX_FMT_TABLE,
	.target = AX_TARGET_SANDBOX, .handler = cmd_sandbox_resume,
};

static const ax_command_spec sandbox_kill_verb = {
	.group = "sandbox", .name = "kill", .summary = "Delete a sandbox (and forget it if it is the current "
	"session)",
	.positionals = ax_sandbox_id_positionals, .formats = AX_OBJECT_FORMATS, .default_format = AX_FMT_TABLE,
	.target = AX_TARGET_SANDBOX, .handler = cmd_sandbox_kill,
};

static const ax_command_spec *const sandbox_verbs[] = {
	&sandbox_create_verb,
	&sandbox_list_verb,
	&sandbox_get_verb,
	&sandbox_endpoint_verb,
	&sandbox_renew_verb,
	&sandbox_pause_verb,
	&sandbox_resume_verb,
	&sandbox_kill_verb,
	NULL,
};

const ax_group_spec ax_group_sandbox = {
	.name = "sandbox",
	.summary = "Create, inspect and end sandboxes",
	.verbs = sandbox_verbs,
};
