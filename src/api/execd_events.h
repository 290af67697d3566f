/* The execd command event stream: JSON events one per line (bare, or SSE
 * "data:" lines), decoded as the bytes arrive in chunks of any size. */
#ifndef ALLOX_EXECD_EVENTS_H
#define ALLOX_EXECD_EVENTS_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/ax_error.h"

typedef struct ax_command_events {
	/* Called for each stdout/stderr line (without its terminator) as it
	 * arrives. ENDED is false when the line did not end there (our agent's
	 * "partial":true: a piece of a long line, or a last line without a
	 * terminator); execd's own events always end a line. */
	int (*on_output)(void *user, bool is_stderr, const char *text, size_t len, bool ended);
	void *user;
} ax_command_events;

/* One event is one line of output: bounded so a hostile peer cannot exhaust memory. */
#define AX_EVENT_MAX ((size_t)64 << 20)

typedef struct ax_event_decoder {
	const ax_command_events *ev;
	ax_error *err;
	char *buf;              /* bytes after the last complete event */
	size_t len, cap;
	char id[128];           /* the command's id, from the init event */
	bool terminal;          /* execution_complete or error seen */
	bool failed;            /* an error event that is no exit status: ERR says why */
	int exit_code;
} ax_event_decoder;

void ax_event_decoder_init(ax_event_decoder *d, const ax_command_events *ev, ax_error *err);
/* -1 with ERR when an event is not JSON, is over AX_EVENT_MAX, memory ran
 * out, or on_output failed. */
int ax_event_decoder_feed(ax_event_decoder *d, const char *data, size_t len);
/* The end of the stream: a last event without a newline still counts. */
int ax_event_decoder_finish(ax_event_decoder *d);
void ax_event_decoder_free(ax_event_decoder *d);

#endif
