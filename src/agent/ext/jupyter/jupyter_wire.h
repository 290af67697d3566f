/* The Jupyter messaging protocol's wire format (messaging spec 5.3), without
 * any socket: a message travels as the frames
 *
 *   [routing ids...] "<IDS|MSG>" signature header parent_header metadata content [buffers...]
 *
 * where the signature is the lowercase hex HMAC-SHA256, under the connection
 * file's key, of the four JSON frames exactly as sent, one after the other.
 * An empty key means no signing (an empty signature frame). Pure functions,
 * so tests/unit/test_jupyter_wire.c checks them without a kernel; the
 * sockets are in jupyter_channel.c. */
#ifndef ALLOX_AGENT_JUPYTER_WIRE_H
#define ALLOX_AGENT_JUPYTER_WIRE_H

#include <jansson.h>
#include <stddef.h>

#define JW_DELIM "<IDS|MSG>"
/* Hex digits of an HMAC-SHA256. */
#define JW_SIG_LEN 64
/* The protocol version this client speaks (ipykernel 6 answers with it too). */
#define JW_PROTOCOL_VERSION "5.3"

struct jw_frame {
	const void *data;
	size_t len;
};

/* The signature of the four JSON frames in SIG ("" when KEY is ""). 0, or
 * -1 when OpenSSL fails. */
int jw_sign(const char *key, const struct jw_frame json[4], char sig[JW_SIG_LEN + 1]);

/* A message ready to send: the four JSON frames as text and their signature. */
struct jw_encoded {
	char *json[4];          /* header, parent_header, metadata, content */
	size_t len[4];
	char sig[JW_SIG_LEN + 1];
};

/* Serialize and sign; NULL PARENT or METADATA stand for {}. 0, or -1 on ENOMEM. */
int jw_encode(const char *key, const json_t *header, const json_t *parent, const json_t *metadata,
	      const json_t *content, struct jw_encoded *out);
void jw_encoded_free(struct jw_encoded *e);

/* A received message. MSG_TYPE and PARENT_ID point into the JSON ("" when
 * absent). */
struct jw_msg {
	json_t *header, *parent, *metadata, *content;
	const char *msg_type;
	const char *parent_id;
};

/* Check and parse the N frames of a received message: find the delimiter
 * (after any routing ids), verify the signature in constant time, parse the
 * four JSON frames (which must be objects). 0 with MSG filled, or -1 with
 * *WHY saying what was wrong (MSG then holds nothing). */
int jw_decode(const char *key, const struct jw_frame *frames, size_t n, struct jw_msg *msg, const char **why);
void jw_msg_free(struct jw_msg *m);

/* A header {msg_id, session, username, date, msg_type, version}. DATE is
 * "YYYY-MM-DDTHH:MM:SS.ffffffZ" (jw_date_now). NULL on ENOMEM. */
json_t *jw_header(const char *msg_id, const char *session, const char *msg_type, const char *date);
void jw_date_now(char date[32]);

#endif
