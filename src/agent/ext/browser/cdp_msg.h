/* Chrome DevTools Protocol messages as JSON text: building commands,
 * telling responses from events, error texts and base64 payloads. Pure
 * functions, no I/O, so they are unit-tested on their own (cdp.c moves the
 * bytes). */
#ifndef ALLOX_AGENT_CDP_MSG_H
#define ALLOX_AGENT_CDP_MSG_H

#include <jansson.h>
#include <stddef.h>

enum cdp_msg_kind {
	CDP_MSG_RESPONSE,   /* has an integer "id": the answer to a command */
	CDP_MSG_EVENT,      /* has a "method" and no id */
};

/* A parsed message; the pointers borrow from the document it came from. */
struct cdp_msg {
	enum cdp_msg_kind kind;
	long long id;               /* responses */
	const char *method;         /* events */
	const char *session;        /* "sessionId", or NULL (the browser itself) */
	json_t *result;             /* responses: "result" (NULL when error is set) */
	json_t *error;              /* responses: "error" {code, message, data?} */
	json_t *params;             /* events: "params" (may be NULL) */
};

/* Parse LEN bytes of BUF. 0 with *DOC (a new reference the caller releases)
 * and M filled, or -1 when it is not JSON or neither a response nor an event. */
int cdp_msg_parse(const char *buf, size_t len, json_t **doc, struct cdp_msg *m);

/* {"id":ID,"method":METHOD,"params":PARAMS,"sessionId":SESSION} as compact
 * text; PARAMS (may be NULL: {}) is borrowed, SESSION may be NULL. malloc'd,
 * NULL on ENOMEM or when METHOD is missing. */
char *cdp_msg_command(long long id, const char *method, const json_t *params, const char *session, size_t *len);

/* "MESSAGE (code N)" and ": DATA" when the error has data, into BUF. */
void cdp_msg_error_text(const json_t *error, char *buf, size_t size);

#endif
