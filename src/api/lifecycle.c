#include "config.h"

#include "api/lifecycle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/fs.h"
#include "api/lifecycle_decode.h"

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
		return ax_fail(err, AX_CODE_NOMEM, "out of memory");
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
			return ax_fail(err, AX_CODE_NOMEM, "out of memory");
		int conn;

		lc->local = true;
		if (ax_local_engine_ensure(home, verbose, &conn, err) < 0 ||
		    ax_http_init(&lc->http, "http://localhost/v1", sock, timeout, err) < 0) {
			if (conn >= 0)
				close(conn);
			free(sock);
			return -1;
		}
		lc->http.fd = conn;
		lc->http.connected = true;
		lc->http.fresh = true;
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

int ax_lc_call(ax_lifecycle *lc, const char *method, const char *path, const json_t *body, long expect,
	       json_t **out, ax_error *err)
{
	ax_http_response r;
	int rc;

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
	rc = ax_lc_decode_answer(method, path, expect, r.status, r.body, r.len, out, err);
	ax_http_response_free(&r);
	return rc;
}

json_t *ax_lc_list_all(ax_lifecycle *lc, const char *collection, const char *query, ax_error *err)
{
	json_t *all = json_array();
	bool more = true;
	int page;

	for (page = 1; page < 100000 && more; page++) {
		char path[512];
		json_t *doc;
		int rc;

		snprintf(path, sizeof path, "%s?page=%d&pageSize=200%s%s", collection, page, query ? "&" : "",
			 query ? query : "");
		if (ax_lc_call(lc, "GET", path, NULL, 200, &doc, err) < 0) {
			json_decref(all);
			return NULL;
		}
		rc = ax_lc_decode_page(doc, collection, page, all, &more, err);
		json_decref(doc);
		if (rc < 0) {
			json_decref(all);
			return NULL;
		}
	}
	return all;
}

int ax_lc_get_sandbox(ax_lifecycle *lc, const char *id, json_t **out, ax_error *err)
{
	char *eid = ax_http_escape(id), *path = NULL;
	int rc;

	*out = NULL;
	if (!eid || asprintf(&path, "/sandboxes/%s", eid) < 0) {
		free(eid);
		return ax_fail(err, AX_CODE_NOMEM, "out of memory");
	}
	free(eid);
	rc = ax_lc_call(lc, "GET", path, NULL, 200, out, err);
	free(path);
	return rc;
}

int ax_lc_endpoint(ax_lifecycle *lc, const char *id, int port, char **url, json_t **headers, ax_error *err)
{
	char path[512];
	char *eid = ax_http_escape(id);
	json_t *doc;
	int rc;

	*url = NULL;
	if (headers)
		*headers = NULL;
	if (!eid)
		return ax_fail(err, AX_CODE_NOMEM, "out of memory");
	snprintf(path, sizeof path, "/sandboxes/%s/endpoints/%d%s", eid, port,
		 lc->use_server_proxy ? "?use_server_proxy=true" : "");
	free(eid);
	if (ax_lc_call(lc, "GET", path, NULL, 200, &doc, err) < 0)
		return -1;
	rc = ax_lc_decode_endpoint(doc, port, url, headers, err);
	json_decref(doc);
	return rc;
}
