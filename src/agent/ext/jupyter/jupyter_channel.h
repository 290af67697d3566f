/* Jupyter messages on ZeroMQ sockets: jupyter_wire.c's frames sent and
 * received as one multipart message. The sockets belong to one kernel and
 * are used by one thread at a time (see jupyter.c). */
#ifndef ALLOX_AGENT_JUPYTER_CHANNEL_H
#define ALLOX_AGENT_JUPYTER_CHANNEL_H

#include <jansson.h>

#include "agent/ext/jupyter/jupyter_wire.h"

/* A msg_id or session id: a UUID. */
#define JC_ID_SIZE 37

/* Send a MSG_TYPE request with CONTENT (stolen; NULL: {}) and no parent on
 * SOCK, from SESSION, signed with KEY. Its fresh msg_id goes to MSG_ID.
 * 0, or -1 with errno set. */
int jc_send(void *sock, const char *key, const char *session, const char *msg_type, json_t *content,
	    char msg_id[JC_ID_SIZE]);

/* Take one whole message from SOCK without blocking: 1 with MSG filled, 0
 * when none is waiting, -1 when one arrived but was not a valid message
 * (it is dropped; *WHY says why). */
int jc_recv(void *sock, const char *key, struct jw_msg *msg, const char **why);

#endif
