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

void ax_egress_endpoint(ax_engine *e, json_t *rec, ax_resp *resp)
{
	const char *id = json_string_value(json_object_get(rec, "id")) ?: "";
	char token[65], ep[160];
	ax_error err;

	/* Sandboxes made before the egress API get their token now. */
	if (!json_is_string(json_object_get(rec, "egressToken"))) {
		if (random_token(token) < 0) {
			ax_resp_error(resp, 500, "GENERAL::UNKNOWN_ERROR", "no randomness for a token");
			return;
		}
		json_object_set_new(rec, "egressToken", json_string(token));
		if (ax_store_save(e, rec, &err) < 0)
			ax_engine_log(e, "cannot save %s: %s", id, err.message);
	}
	if (egress_listener(e, &err) < 0) {
		ax_resp_error(resp, 500, "SANDBOX::RUNTIME_ERROR", "cannot serve the egress API: %s", err.message);
		return;
	}
	snprintf(ep, sizeof ep, "127.0.0.1:%d" PREFIX "%s", e->egress_port, id);
	resp->status = 200;
	resp->body = json_pack("{s:s, s:{s:O}}", "endpoint", ep, "headers", AUTH_HEADER,
			       json_object_get(rec, "egressToken"));
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

static void change(ax_engine *e, json_t *rec, const ax_req *req, ax_resp *resp)
{
	const char *id = json_string_value(json_object_get(rec, "id")) ?: "", *state;
	json_t *body, *rules = NULL, *next;
	json_error_t jerr;
	ax_error err;
	char why[600];

	if (!json_object_get(rec, "networkPolicy")) {
		ax_resp_text(resp, 400, "sandbox %s was created without networkPolicy, so nothing filters its egress to change; "
		     "create it with one ({} allows everything and can be changed)", id);
		return;
	}
	state = json_string_value(json_object_get(json_object_get(rec, "status"), "state")) ?: "";
	if (strcmp(state, "Running") != 0 && strcmp(state, "Paused") != 0) {
		ax_resp_text(resp, 400, "sandbox %s is %s: its policy can change only while it runs", id, state);
		return;
	}
	body = json_loadb(req->body ?: "", req->body_len, 0, &jerr);
	if (!body) {
		ax_resp_text(resp, 400, "the body is not JSON: %s", jerr.text);
		return;
	}
	if (strcmp(req->method, "PATCH") == 0) {
		rules = ax_policy_rules(body, why, sizeof why);
		next = rules ? ax_policy_patch(json_object_get(rec, "networkPolicy"), rules) : NULL;
	} else {
		next = ax_policy_delete(json_object_get(rec, "networkPolicy"), body, why, sizeof why);
	}
	json_decref(body);
	json_decref(rules);
	if (!next) {
		ax_resp_text(resp, 400, "%s", why);
		return;
	}
	/* Enforced first: a record that says more than is enforced would lie. */
	if (ax_egress_set_policy(e->egress, id, next, &err) < 0) {
		json_decref(next);
		ax_resp_text(resp, 500, "cannot apply the policy: %s", err.message);
		return;
	}
	json_object_set_new(rec, "networkPolicy", next);
	if (ax_store_save(e, rec, &err) < 0)
		ax_engine_log(e, "cannot save %s: %s", id, err.message);
	ax_engine_log(e, "egress policy of %s changed (%s)", id, req->method);
	resp->status = 200;
	resp->body = status_of(rec);
}

void ax_egress_api_handle(ax_engine *e, const ax_req *req, ax_resp *resp)
{
	char id[128];
	const char *rest, *token;
	json_t *rec;
	size_t n;

	if (strncmp(req->path, PREFIX, strlen(PREFIX)) != 0) {
		ax_resp_text(resp, 404, "no route for %s %s", req->method, req->path);
		return;
	}
	n = strcspn(req->path + strlen(PREFIX), "/");
	rest = req->path + strlen(PREFIX) + n;
	if (n == 0 || n >= sizeof id || strcmp(rest, "/policy") != 0) {
		ax_resp_text(resp, 404, "no route for %s %s (the egress API serves /policy)", req->method, req->path);
		return;
	}
	memcpy(id, req->path + strlen(PREFIX), n);
	id[n] = '\0';
	pthread_mutex_lock(&e->lock);
	rec = json_object_get(e->sandboxes, id);
	token = json_string_value(json_object_get(rec, "egressToken"));
	/* The same answer whether the sandbox exists or not. */
	if (!token || !req->egress_auth ||
	    !ax_secret_equal(token, strlen(token), req->egress_auth, strlen(req->egress_auth))) {
		pthread_mutex_unlock(&e->lock);
		ax_resp_text(resp, 401, "missing or wrong %s header (the endpoint answer of port %d carries it)", AUTH_HEADER,
		     AX_EGRESS_PORT);
		return;
	}
	if (strcmp(req->method, "GET") == 0) {
		resp->status = 200;
		resp->body = status_of(rec);
	} else if (strcmp(req->method, "PATCH") == 0 || strcmp(req->method, "DELETE") == 0) {
		change(e, rec, req, resp);
	} else {
		ax_resp_text(resp, 405, "%s not allowed on /policy", req->method);
	}
	pthread_mutex_unlock(&e->lock);
}
