/* The egress API of egress-api.yaml (GET, PATCH and DELETE /policy) for
 * every sandbox, and the engine's side of its egress policy: the start of
 * its resolver at create and adoption, and the endpoint of port 18080.
 *
 * One listener on the host's loopback serves every sandbox, each under its
 * own path (/egress/<id>), behind its own token in OPENSANDBOX-EGRESS-AUTH,
 * which the endpoint answer carries and the official SDKs forward. The
 * sandbox never learns the token, and cannot reach the host's loopback
 * anyway: it cannot loosen its own policy. */
#include "engine/engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "engine/egress/egress.h"
#include "engine/egress/egress_policy.h"
#include "engine/http_server.h"
#include "engine/route.h"
#include "engine/wire_error.h"
#include "lib/secret.h"

#define AUTH_HEADER "OPENSANDBOX-EGRESS-AUTH"
#define PREFIX "/egress/"

int ax_egress_hook(void *arg, int netns_fd, ax_error *err)
{
	const ax_egress_start_arg *a = arg;

	return ax_egress_start(a->engine->egress, a->id, netns_fd, a->policy, true, err);
}

void ax_egress_adopt(ax_engine *e, const json_t *rec)
{
	const json_t *policy = json_object_get(rec, "networkPolicy");
	const char *id = json_string_value(json_object_get(rec, "id")) ?: "";
	ax_error err;
	int ns;

	if (!policy)
		return;
	ns = ax_netns_of(rec);
	if (ns < 0)
		return;
	/* Its filter is in its namespace still; only the resolver died with the
	 * engine before. */
	if (ax_egress_start(e->egress, id, ns, policy, false, &err) < 0)
		ax_engine_log(e, "egress of %s: %s", id, err.message);
	close(ns);
}

/* ---------- the endpoint ---------- */

static int random_token(char out[65])
{
	unsigned char raw[32];

	if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
		return -1;
	for (size_t i = 0; i < sizeof raw; i++)
		snprintf(out + 2 * i, 3, "%02x", raw[i]);
	return 0;
}

/* The engine's egress API listener, made at the first need (lock held). */
static int egress_listener(ax_engine *e, ax_error *err)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	ax_http_server *srv;
	int fd;

	if (e->egress_http)
		return 0;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, SOMAXCONN) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
		if (fd >= 0)
			close(fd);
		return ax_fail(err, AX_CODE_IO, "cannot listen on the host's loopback");
	}
	srv = calloc(1, sizeof *srv);
	if (!srv) {
		close(fd);
		return ax_fail(err, AX_CODE_NOMEM, "out of memory");
	}
	srv->handle = ax_egress_api_handle;
	if (ax_http_serve(srv, e, fd, false, err) < 0) {
		free(srv);
		close(fd);
		return -1;
	}
	e->egress_http = srv;
	e->egress_port = ntohs(a.sin_port);
	return 0;
}

json_t *ax_egress_endpoint(ax_engine *e, json_t *rec, ax_error *err)
{
	const char *id = json_string_value(json_object_get(rec, "id")) ?: "";
	char token[65], ep[160];
	ax_error why;

	/* Sandboxes made before the egress API get their token now. */
	if (!json_is_string(json_object_get(rec, "egressToken"))) {
		if (random_token(token) < 0) {
			ax_wire_fail(err, "GENERAL::UNKNOWN_ERROR", "no randomness for a token");
			return NULL;
		}
		json_object_set_new(rec, "egressToken", json_string(token));
		if (ax_store_save(e, rec, &why) < 0)
			ax_engine_log(e, "cannot save %s: %s", id, why.message);
	}
	if (egress_listener(e, &why) < 0) {
		ax_wire_fail(err, "SANDBOX::RUNTIME_ERROR", "cannot serve the egress API: %s", why.message);
		return NULL;
	}
	snprintf(ep, sizeof ep, "127.0.0.1:%d" PREFIX "%s", e->egress_port, id);
	return json_pack("{s:s, s:{s:O}}", "endpoint", ep, "headers", AUTH_HEADER, json_object_get(rec, "egressToken"));
}

void ax_egress_api_stop(ax_engine *e)
{
	if (e->egress_http) {
		ax_http_stop(e->egress_http);
		free(e->egress_http);
		e->egress_http = NULL;
	}
}

/* ---------- GET, PATCH, DELETE /policy ---------- */

/* PolicyStatusResponse for REC: what is enforced. */
static json_t *status_of(const json_t *rec)
{
	const json_t *policy = json_object_get(rec, "networkPolicy");
	const char *net = json_string_value(json_object_get(rec, "network")) ?: "host";
	bool none = strcmp(net, "none") == 0;

	if (policy)
		return json_pack("{s:s, s:s, s:s, s:O}", "status", "ok", "mode", ax_policy_mode(policy), "enforcementMode",
				 ax_policy_denies_by_default(policy) ? "dns+nft" : "dns", "policy", policy);
	return json_pack("{s:s, s:s, s:s, s:s, s:{s:s, s:[]}}", "status", "ok", "mode", none ? "deny_all" : "allow_all",
			 "enforcementMode", "none", "reason",
			 none ? "the sandbox has no network (created with network none)"
			      : "the sandbox was created without networkPolicy: its egress is not filtered",
			 "policy", "defaultAction", none ? "deny" : "allow", "egress");
}

/* PATCH (add RULES) or DELETE (remove the targets of BODY) sandbox REC's
 * policy; the policy status after it (lock held). */
static json_t *change(ax_engine *e, json_t *rec, bool patch, const json_t *body, ax_error *err)
{
	const char *id = json_string_value(json_object_get(rec, "id")) ?: "", *state;
	json_t *rules = NULL, *next;
	ax_error why;
	char reason[600];

	if (!json_object_get(rec, "networkPolicy")) {
		ax_wire_fail(err, "EGRESS::INVALID_PARAMETER",
			     "sandbox %s was created without networkPolicy, so nothing filters its egress to change; "
			     "create it with one ({} allows everything and can be changed)", id);
		return NULL;
	}
	state = json_string_value(json_object_get(json_object_get(rec, "status"), "state")) ?: "";
	if (strcmp(state, "Running") != 0 && strcmp(state, "Paused") != 0) {
		ax_wire_fail(err, "EGRESS::INVALID_PARAMETER", "sandbox %s is %s: its policy can change only while it runs",
			     id, state);
		return NULL;
	}
	if (patch) {
		rules = ax_policy_rules(body, reason, sizeof reason);
		next = rules ? ax_policy_patch(json_object_get(rec, "networkPolicy"), rules) : NULL;
	} else {
		next = ax_policy_delete(json_object_get(rec, "networkPolicy"), body, reason, sizeof reason);
	}
	json_decref(rules);
	if (!next) {
		ax_wire_fail(err, "EGRESS::INVALID_PARAMETER", "%s", reason);
		return NULL;
	}
	/* Enforced first: a record that says more than is enforced would lie. */
	if (ax_egress_set_policy(e->egress, id, next, &why) < 0) {
		json_decref(next);
		ax_wire_fail(err, "EGRESS::RUNTIME_ERROR", "cannot apply the policy: %s", why.message);
		return NULL;
	}
	json_object_set_new(rec, "networkPolicy", next);
	if (ax_store_save(e, rec, &why) < 0)
		ax_engine_log(e, "cannot save %s: %s", id, why.message);
	ax_engine_log(e, "egress policy of %s changed (%s)", id, patch ? "PATCH" : "DELETE");
	return status_of(rec);
}

/* Sandbox ID's record if AUTH is its token (lock held). */
static json_t *authorized(ax_engine *e, const char *id, const char *auth)
{
	json_t *rec = json_object_get(e->sandboxes, id);
	const char *token = json_string_value(json_object_get(rec, "egressToken"));

	if (!token || !auth || !ax_secret_equal(token, strlen(token), auth, strlen(auth)))
		return NULL;
	return rec;
}

/* The routes' answers: the egress API's errors are text/plain. */
static void policy_route(ax_engine *e, const ax_req *req, const ax_route_args *a, ax_resp *resp)
{
	bool get = strcmp(req->method, "GET") == 0;
	json_t *rec, *body = NULL, *out = NULL;
	json_error_t jerr;
	ax_error err;

	pthread_mutex_lock(&e->lock);
	/* The same answer whether the sandbox exists or not. */
	rec = authorized(e, a->v[0], req->egress_auth);
	if (!rec)
		ax_wire_fail(&err, "EGRESS::UNAUTHORIZED",
			"missing or wrong %s header (the endpoint answer of port %d carries it)", AUTH_HEADER,
			AX_EGRESS_PORT);
	else if (!get && !(body = json_loadb(req->body ?: "", req->body_len, 0, &jerr)))
		ax_wire_fail(&err, "EGRESS::INVALID_PARAMETER", "the body is not JSON: %s", jerr.text);
	else
		out = get ? status_of(rec) : change(e, rec, strcmp(req->method, "PATCH") == 0, body, &err);
	pthread_mutex_unlock(&e->lock);
	json_decref(body);
	if (out) {
		resp->status = 200;
		resp->body = out;
	} else {
		ax_resp_text(resp, ax_wire_status(err.peer_code), "%s", err.message);
	}
}

static const ax_route egress_routes[] = {
	{ "GET", PREFIX "{id}/policy", policy_route },
	{ "PATCH", PREFIX "{id}/policy", policy_route },
	{ "DELETE", PREFIX "{id}/policy", policy_route },
	{ NULL, NULL, NULL },
};

void ax_egress_api_handle(ax_engine *e, const ax_req *req, ax_resp *resp)
{
	const ax_route *r;
	ax_route_args args;
	int status;

	r = ax_route_find(egress_routes, req->method, req->path, &args, &status);
	if (r)
		r->fn(e, req, &args, resp);
	else if (status == 405)
		ax_resp_text(resp, 405, "%s not allowed on /policy", req->method);
	else
		ax_resp_text(resp, 404, "no route for %s %s (the egress API serves /policy)", req->method, req->path);
}
