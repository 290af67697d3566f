#include "config.h"

#include "lifecycle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"

void ax_lc_close(ax_lifecycle *lc)
{
	ax_http_free(&lc->http);
	free(lc->display);
	memset(lc, 0, sizeof *lc);
}

static int open_url(ax_lifecycle *lc, const char *domain, const char *protocol, long timeout, ax_error *err)
{
	char *base;
	size_t n = strlen(domain);
	int rc;

	/* A domain that already names a scheme wins over connection.protocol. */
	while (n > 0 && domain[n - 1] == '/')
		n--;
	if (strncmp(domain, "http://", 7) == 0 || strncmp(domain, "https://", 8) == 0)
		rc = asprintf(&base, "%.*s/v1", (int)n, domain);
	else
		rc = asprintf(&base, "%s://%.*s/v1", protocol, (int)n, domain);
	if (rc < 0)
		return ax_fail(err, AX_EXIT_FAILURE, "NOMEM", "out of memory");
	rc = ax_http_init(&lc->http, base, NULL, timeout, err);
	lc->display = base;
	return rc;
}

int ax_lc_open(ax_lifecycle *lc, const ax_config *cfg, const char *home, bool verbose, ax_error *err)
{
	const char *domain = ax_config_string(cfg, "domain");
	const char *key = ax_config_string(cfg, "api_key");
	long timeout = (long)ax_config_int(cfg, "request_timeout");

	memset(lc, 0, sizeof *lc);
	lc->use_server_proxy = ax_config_bool(cfg, "use_server_proxy");
	if (!domain || !*domain || strcmp(domain, "local") == 0) {
		char *sock = ax_local_socket_path(home);

		if (!sock)
			return ax_fail(err, AX_EXIT_FAILURE, "NOMEM", "out of memory");
		lc->local = true;
		if (ax_local_engine_ensure(home, verbose, err) < 0 ||
		    ax_http_init(&lc->http, "http://localhost/v1", sock, timeout, err) < 0) {
			free(sock);
			return -1;
		}
		lc->display = sock;
	} else if (strncmp(domain, "unix:", 5) == 0) {
		if (ax_http_init(&lc->http, "http://localhost/v1", domain + 5, timeout, err) < 0)
			return -1;
		lc->display = strdup(domain);
	} else if (open_url(lc, domain, ax_config_string(cfg, "protocol"), timeout, err) < 0) {
		return -1;
	}
	lc->http.verbose = verbose;
	if (key && *key)
		ax_http_set_header(&lc->http, "OPEN-SANDBOX-API-KEY", key);
	return 0;
}

/* Turn an error answer into one line: the spec's {code, message} envelope,
 * FastAPI's 422 {"detail": [...]}, or the raw body. */
static int server_error(const ax_http_response *r, ax_error *err)
{
	json_t *body = json_loadb(r->body, r->len, 0, NULL);
	const char *code = json_string_value(json_object_get(body, "code"));
	const char *msg = json_string_value(json_object_get(body, "message"));
	int rc;

	if (code || msg) {
		rc = ax_fail(err, AX_EXIT_FAILURE, code ? code : "HTTP", "Sandbox error [%s]: %s",
			     code ? code : "HTTP", msg ? msg : "(no message)");
	} else if (r->len) {
		rc = ax_fail(err, AX_EXIT_FAILURE, "HTTP", "Sandbox error [HTTP %ld]: %.400s", r->status, r->body);
	} else {
		rc = ax_fail(err, AX_EXIT_FAILURE, "HTTP", "Sandbox error [HTTP %ld]: empty response", r->status);
	}
	json_decref(body);
	return rc;
}

int ax_lc_call(ax_lifecycle *lc, const char *method, const char *path, const json_t *body, long expect,
	       json_t **out, ax_error *err)
{
	ax_http_response r;
	json_t *doc = NULL;
	json_error_t jerr;

	if (out)
		*out = NULL;
	if (ax_http_request(&lc->http, method, path, body, &r, err) < 0) {
		if (lc->local)
			ax_error_hint(err, "Is the local engine running? See %s and the engine log in $ALLOX_HOME/engine.log.",
				      lc->display);
		else
			ax_error_hint(err, "Check connection.domain (allox-cli config show) and that the server is up.");
		return -1;
	}
	if (r.status != expect) {
		server_error(&r, err);
		ax_http_response_free(&r);
		return -1;
	}
	if (out && r.len) {
		doc = json_loadb(r.body, r.len, 0, &jerr);
		if (!doc) {
			ax_http_response_free(&r);
			return ax_fail(err, AX_EXIT_FAILURE, "PROTOCOL", "%s %s: invalid JSON from the server: %s",
				       method, path, jerr.text);
		}
		*out = doc;
	}
	ax_http_response_free(&r);
	return 0;
}

json_t *ax_lc_list_all(ax_lifecycle *lc, const char *collection, const char *query, ax_error *err)
{
	json_t *all = json_array();
	int page;

	for (page = 1; page < 100000; page++) {
		char path[512];
		json_t *doc, *items, *item;
		size_t i;
		bool more;

		long pages;

		snprintf(path, sizeof path, "%s?page=%d&pageSize=200%s%s", collection, page, query ? "&" : "",
			 query ? query : "");
		if (ax_lc_call(lc, "GET", path, NULL, 200, &doc, err) < 0) {
			json_decref(all);
			return NULL;
		}
		items = json_object_get(doc, "items");
		if (!json_is_array(items)) {
			json_decref(doc);
			json_decref(all);
			ax_fail(err, AX_EXIT_FAILURE, "PROTOCOL", "GET %s: the server's answer has no items", collection);
			return NULL;
		}
		json_array_foreach(items, i, item)
			json_array_append(all, item);
		more = json_is_true(json_object_get(json_object_get(doc, "pagination"), "hasNextPage"));
		/* Trust hasNextPage only as far as totalPages goes: a server that
		 * always says "more" must not keep us paging forever. */
		pages = (long)json_integer_value(json_object_get(json_object_get(doc, "pagination"), "totalPages"));
		json_decref(doc);
		if (!more || json_array_size(items) == 0 || (pages > 0 && page >= pages))
			break;
	}
	return all;
}

int ax_lc_endpoint(ax_lifecycle *lc, const char *id, int port, char **url, json_t **headers, ax_error *err)
{
	char path[512];
	char *eid = ax_http_escape(id);
	json_t *doc;
	const char *ep;

	*url = NULL;
	if (headers)
		*headers = NULL;
	if (!eid)
		return ax_fail(err, AX_EXIT_FAILURE, "NOMEM", "out of memory");
	snprintf(path, sizeof path, "/sandboxes/%s/endpoints/%d%s", eid, port,
		 lc->use_server_proxy ? "?use_server_proxy=true" : "");
	free(eid);
	if (ax_lc_call(lc, "GET", path, NULL, 200, &doc, err) < 0)
		return -1;
	ep = json_string_value(json_object_get(doc, "endpoint"));
	if (!ep || !*ep) {
		json_decref(doc);
		return ax_fail(err, AX_EXIT_FAILURE, "PROTOCOL", "the server returned no endpoint for port %d", port);
	}
	if (asprintf(url, "http://%s", ep) < 0) {
		*url = NULL;
		json_decref(doc);
		return ax_fail(err, AX_EXIT_FAILURE, "NOMEM", "out of memory");
	}
	if (headers) {
		json_t *h = json_object_get(doc, "headers");

		*headers = json_is_object(h) ? json_incref(h) : json_object();
	}
	json_decref(doc);
	return 0;
}
