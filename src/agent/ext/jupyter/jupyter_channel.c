#include "agent/ext/jupyter/jupyter_channel.h"

#include <errno.h>
#include <string.h>
#include <zmq.h>

#include "agent/aio/aio_session.h"

/* Routing ids, the delimiter, signature, four JSON frames and a few buffers
 * fit; frames past this (buffers, which nothing here reads) are dropped. */
#define MAX_FRAMES 16

static int send_frame(void *sock, const void *data, size_t len, int more)
{
	return zmq_send(sock, data, len, more ? ZMQ_SNDMORE : 0) < 0 ? -1 : 0;
}

int jc_send(void *sock, const char *key, const char *session, const char *msg_type, json_t *content,
	    char msg_id[JC_ID_SIZE])
{
	struct jw_encoded e;
	char date[32];
	json_t *header;
	int rc = -1, i;

	/* A fresh id and date every time: the kernel drops a repeated signature. */
	aio_session_new_id(msg_id);
	jw_date_now(date);
	header = jw_header(msg_id, session, msg_type, date);
	if (!content)
		content = json_object();
	if (header && content && jw_encode(key, header, NULL, NULL, content, &e) == 0) {
		/* A DEALER adds no routing id of its own: the kernel's ROUTER does. */
		rc = send_frame(sock, JW_DELIM, strlen(JW_DELIM), 1);
		if (rc == 0)
			rc = send_frame(sock, e.sig, strlen(e.sig), 1);
		for (i = 0; i < 4 && rc == 0; i++)
			rc = send_frame(sock, e.json[i], e.len[i], i < 3);
		jw_encoded_free(&e);
	} else {
		errno = ENOMEM;
	}
	json_decref(header);
	json_decref(content);
	return rc;
}

/* Throw away the rest of a message whose first frames were taken. */
static void discard_rest(void *sock)
{
	zmq_msg_t extra;
	int more = 1;

	while (more) {
		zmq_msg_init(&extra);
		more = zmq_msg_recv(&extra, sock, 0) >= 0 && zmq_msg_more(&extra);
		zmq_msg_close(&extra);
	}
}

int jc_recv(void *sock, const char *key, struct jw_msg *msg, const char **why)
{
	zmq_msg_t parts[MAX_FRAMES];
	struct jw_frame frames[MAX_FRAMES];
	size_t n, i;
	int rc;

	zmq_msg_init(&parts[0]);
	if (zmq_msg_recv(&parts[0], sock, ZMQ_DONTWAIT) < 0) {
		zmq_msg_close(&parts[0]);
		return 0;
	}
	/* The rest of a multipart message is delivered with its first frame. */
	for (n = 1; n < MAX_FRAMES && zmq_msg_more(&parts[n - 1]); n++) {
		zmq_msg_init(&parts[n]);
		if (zmq_msg_recv(&parts[n], sock, 0) < 0) {
			zmq_msg_close(&parts[n]);
			break;
		}
	}
	if (n == MAX_FRAMES && zmq_msg_more(&parts[n - 1]))
		discard_rest(sock);
	for (i = 0; i < n; i++)
		frames[i] = (struct jw_frame){ zmq_msg_data(&parts[i]), zmq_msg_size(&parts[i]) };
	rc = jw_decode(key, frames, n, msg, why) == 0 ? 1 : -1;
	for (i = 0; i < n; i++)
		zmq_msg_close(&parts[i]);
	return rc;
}
