/* The execd event stream (POST /command): each event is one bare JSON
 * object followed by "\n\n" (no SSE "data:" prefix), as the official execd
 * writes it and the official SDKs parse it. Keys with empty values are left
 * out, except "text" on stdout/stderr events, which may be "" for a blank
 * line. */
#ifndef ALLOX_AGENT_EXECD_EVENT_H
#define ALLOX_AGENT_EXECD_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes waiting to be sent: DATA[OFF..LEN). */
struct ag_buf {
	char *data;
	size_t off, len, cap;
};

int ag_buf_add(struct ag_buf *b, const void *data, size_t len);
/* Copy up to MAX pending bytes into OUT and consume them. */
size_t ag_buf_take(struct ag_buf *b, char *out, size_t max);
size_t ag_buf_pending(const struct ag_buf *b);
void ag_buf_free(struct ag_buf *b);

/* Append TEXT[0..LEN) as a JSON string. Invalid UTF-8 becomes U+FFFD and
 * NUL becomes \u0000, so any bytes a command prints are representable. */
int ag_json_escape(struct ag_buf *b, const char *text, size_t len);

/* {"type":TYPE,"text":TEXT,"timestamp":MS}: init, stdout, stderr, ping. */
int ag_event_text(struct ag_buf *b, const char *type, const char *text, size_t len);
/* ag_event_text for stdout and stderr; a TEXT that ends no line (a piece of
 * a longer one, or the last one without a terminator) gets "partial":true
 * (our extension of ServerStreamEvent: without it a client ends each event
 * with a newline, and a 100 MB line would come back cut every 32 KiB). */
int ag_event_output(struct ag_buf *b, const char *type, const char *text, size_t len, bool ended);
/* {"type":"execution_complete","execution_time":MS,"timestamp":MS} */
int ag_event_complete(struct ag_buf *b, int64_t execution_ms);
/* {"type":"error","error":{"ename":ENAME,"evalue":EVALUE,"traceback":[TRACE]},"timestamp":MS} */
int ag_event_error(struct ag_buf *b, const char *ename, const char *evalue, const char *trace);
/* {"type":"execution_count","execution_count":N,"timestamp":MS} */
int ag_event_execution_count(struct ag_buf *b, uint64_t n);
/* A non-zero exit status as the bash kernel reports it:
 * {"type":"error","error":{"ename":"","evalue":"STATUS","traceback":[]},"timestamp":MS} */
int ag_event_exit_status(struct ag_buf *b, int status);

#endif
