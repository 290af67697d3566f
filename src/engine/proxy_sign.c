/* The proxy's secrets: the engine's key, sandboxes' proxy tokens and the
 * signatures of signed endpoints (HMAC-SHA256 under the key). */
#include "engine/proxy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "engine/sandbox.h"
#include "engine/wire_error.h"
#include "lib/fs.h"

int ax_proxy_key_load(ax_engine *e, ax_error *err)
{
	char *path = ax_path_join(e->state_dir, "proxy.key"), key[65];
	ssize_t n = -1;
	int fd;

	if (!path)
		return ax_fail(err, AX_CODE_NOMEM, "out of memory");
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd >= 0) {
		n = read(fd, key, 64);
		close(fd);
	}
	if (n != 64) {
		if (ax_random_hex(key, 32) < 0 || ax_write_file_replace(path, key, 64, 0600, err) < 0) {
			free(path);
			return err->message[0] ? -1 : ax_fail(err, AX_CODE_ENGINE, "no randomness for a key");
		}
	}
	key[64] = '\0';
	memcpy(e->proxy_key, key, sizeof e->proxy_key);
	free(path);
	return 0;
}

static void hmac_hex(const ax_engine *e, const char *msg, char out[65])
{
	unsigned char mac[EVP_MAX_MD_SIZE];
	unsigned len = 0;

	HMAC(EVP_sha256(), e->proxy_key, (int)strlen(e->proxy_key), (const unsigned char *)msg, strlen(msg), mac, &len);
	for (unsigned i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", i < len ? mac[i] : 0);
}

void ax_proxy_token(const ax_engine *e, const char *id, char out[65])
{
	char msg[256];

	snprintf(msg, sizeof msg, "proxy-token\n%s", id);
	hmac_hex(e, msg, out);
}

void ax_proxy_sign(const ax_engine *e, const char *id, long port, unsigned long long expires, char out[65])
{
	char msg[256];

	snprintf(msg, sizeof msg, "signed-endpoint\n%s\n%ld\n%llu", id, port, expires);
	hmac_hex(e, msg, out);
}

static void base36(unsigned long long v, char out[16])
{
	char tmp[16];
	int n = 0, i = 0;

	do
		tmp[n++] = "0123456789abcdefghijklmnopqrstuvwxyz"[v % 36];
	while ((v /= 36) && n < 15);
	while (n)
		out[i++] = tmp[--n];
	out[i] = '\0';
}

json_t *ax_proxy_endpoint(ax_engine *e, const char *id, const char *port_s, const char *host,
			  unsigned long long expires, ax_error *err)
{
	json_t *direct = ax_sandbox_endpoint(e, id, port_s, err), *headers;
	char ep[512], token[65], sig[65], exp36[16];
	long port;

	/* The direct endpoint first: the sandbox exists, runs and listens. */
	if (!direct || ax_port_parse(port_s, &port, err) < 0) {
		json_decref(direct);
		return NULL;
	}
	/* What the service behind the port wants (the agent's token, the
	 * egress API's) still goes to it, through the proxy. */
	headers = json_object_get(direct, "headers") ? json_deep_copy(json_object_get(direct, "headers")) : json_object();
	json_decref(direct);
	if (expires) {
		base36(expires, exp36);
		ax_proxy_sign(e, id, port, expires, sig);
		snprintf(ep, sizeof ep, "%s/v1/sandboxes/%s/proxy/%ld/sig-%s-%s", host, id, port, exp36, sig);
	} else {
		ax_proxy_token(e, id, token);
		json_object_set_new(headers, AX_PROXY_TOKEN_HEADER, json_string(token));
		snprintf(ep, sizeof ep, "%s/v1/sandboxes/%s/proxy/%ld", host, id, port);
	}
	if (!json_object_size(headers))
		return json_pack("{s:s}", "endpoint", ep);
	return json_pack("{s:s, s:o}", "endpoint", ep, "headers", headers);
}
