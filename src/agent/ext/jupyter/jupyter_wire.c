#include "agent/ext/jupyter/jupyter_wire.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

int jw_sign(const char *key, const struct jw_frame json[4], char sig[JW_SIG_LEN + 1])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char mac[EVP_MAX_MD_SIZE];
	char digest[] = "SHA256";
	OSSL_PARAM params[2];
	EVP_MAC_CTX *ctx = NULL;
	EVP_MAC *hmac;
	size_t len = 0, i;
	int ok = 0;

	sig[0] = '\0';
	if (!*key)
		return 0;
	/* EVP_MAC rather than HMAC_CTX (deprecated in OpenSSL 3): the four
	 * frames are fed one by one, never copied together. */
	hmac = EVP_MAC_fetch(NULL, "HMAC", NULL);
	if (hmac)
		ctx = EVP_MAC_CTX_new(hmac);
	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0);
	params[1] = OSSL_PARAM_construct_end();
	if (ctx && EVP_MAC_init(ctx, (const unsigned char *)key, strlen(key), params)) {
		ok = 1;
		for (i = 0; i < 4 && ok; i++)
			ok = EVP_MAC_update(ctx, json[i].data, json[i].len);
		ok = ok && EVP_MAC_final(ctx, mac, &len, sizeof mac) && len * 2 == JW_SIG_LEN;
	}
	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(hmac);
	if (!ok)
		return -1;
	for (i = 0; i < len; i++) {
		sig[2 * i] = hex[mac[i] >> 4];
		sig[2 * i + 1] = hex[mac[i] & 0xf];
	}
	sig[JW_SIG_LEN] = '\0';
	return 0;
}

void jw_encoded_free(struct jw_encoded *e)
{
	size_t i;

	for (i = 0; i < 4; i++) {
		free(e->json[i]);
		e->json[i] = NULL;
	}
}

int jw_encode(const char *key, const json_t *header, const json_t *parent, const json_t *metadata,
	      const json_t *content, struct jw_encoded *out)
{
	const json_t *parts[4] = { header, parent, metadata, content };
	struct jw_frame frames[4];
	json_t *empty = json_object();
	size_t i;

	memset(out, 0, sizeof *out);
	for (i = 0; i < 4; i++) {
		/* No NaN or Infinity: jansson refuses them, as the spec asks. */
		out->json[i] = json_dumps(parts[i] ? parts[i] : empty, JSON_COMPACT | JSON_PRESERVE_ORDER);
		if (!out->json[i])
			break;
		out->len[i] = strlen(out->json[i]);
		frames[i] = (struct jw_frame){ out->json[i], out->len[i] };
	}
	json_decref(empty);
	if (i < 4 || jw_sign(key, frames, out->sig) < 0) {
		jw_encoded_free(out);
		return -1;
	}
	return 0;
}

void jw_msg_free(struct jw_msg *m)
{
	json_decref(m->header);
	json_decref(m->parent);
	json_decref(m->metadata);
	json_decref(m->content);
	memset(m, 0, sizeof *m);
}

static const char *string_in(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

int jw_decode(const char *key, const struct jw_frame *frames, size_t n, struct jw_msg *msg, const char **why)
{
	char want[JW_SIG_LEN + 1];
	json_t **slots[4];
	size_t d, i;

	memset(msg, 0, sizeof *msg);
	/* Routing ids come first, as many as the socket type adds: scan. */
	for (d = 0; d < n; d++)
		if (frames[d].len == strlen(JW_DELIM) && memcmp(frames[d].data, JW_DELIM, frames[d].len) == 0)
			break;
	if (d == n) {
		*why = "no <IDS|MSG> delimiter";
		return -1;
	}
	if (n - d < 6) {
		*why = "fewer than six frames after the delimiter";
		return -1;
	}
	/* Signed are the exact bytes received, never a re-serialization. */
	if (jw_sign(key, frames + d + 2, want) < 0) {
		*why = "cannot compute the HMAC";
		return -1;
	}
	if (frames[d + 1].len != strlen(want) || CRYPTO_memcmp(frames[d + 1].data, want, strlen(want)) != 0) {
		*why = "invalid signature";
		return -1;
	}
	slots[0] = &msg->header;
	slots[1] = &msg->parent;
	slots[2] = &msg->metadata;
	slots[3] = &msg->content;
	for (i = 0; i < 4; i++) {
		*slots[i] = json_loadb(frames[d + 2 + i].data, frames[d + 2 + i].len, 0, NULL);
		if (!json_is_object(*slots[i])) {
			jw_msg_free(msg);
			*why = "a JSON frame is not an object";
			return -1;
		}
	}
	msg->msg_type = string_in(msg->header, "msg_type");
	msg->parent_id = string_in(msg->parent, "msg_id");
	return 0;
}

json_t *jw_header(const char *msg_id, const char *session, const char *msg_type, const char *date)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "msg_id", msg_id, "session", session, "username",
			 "allox", "date", date, "msg_type", msg_type, "version", JW_PROTOCOL_VERSION);
}

void jw_date_now(char date[32])
{
	struct timeval tv;
	struct tm tm;
	char secs[24];

	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	strftime(secs, sizeof secs, "%Y-%m-%dT%H:%M:%S", &tm);
	/* Time zone explicit: a naive date is read as local time by the kernel. */
	snprintf(date, 32, "%s.%06ldZ", secs, (long)tv.tv_usec);
}
