/* What the two multipart upload routes (execd's POST /files/upload, AIO's
 * POST /v1/file/upload) share: MHD's form parser fed with the request body
 * as it arrives (AG_BODY_STREAM), and the file part streamed to a temporary
 * file that is renamed into place at the end or removed.
 *
 * A route keeps its own per-request state, a struct whose first member is a
 * struct upload_sink; the routes differ in how they name the temporary file,
 * put it in place and report failures. */
#ifndef ALLOX_AGENT_UPLOAD_SINK_H
#define ALLOX_AGENT_UPLOAD_SINK_H

#include <stddef.h>

#include "agent/core/route.h"

struct upload_writer;

struct upload_sink {
	struct MHD_PostProcessor *pp;   /* NULL: not a form MHD parses, or finished */
	int fd;                         /* the temporary file, -1 when none is open */
	char *path;                     /* its path (malloc'd), NULL once in place */
	struct upload_writer *writer;   /* what upload_sink_write queued for fd */
};

/* The route's state for REQ: on the first chunk of the body, SIZE zeroed
 * bytes starting with a struct upload_sink (fd -1, a form parser of
 * PP_BUFFER bytes that hands each part to ON_PART with the state as its
 * closure), made req->state with FREE_STATE; later, that state. NULL on
 * ENOMEM. */
void *upload_sink_state(struct ag_req *req, size_t size, void (*free_state)(void *state),
			MHD_PostDataIterator on_part, size_t pp_buffer);

/* Hand a chunk of the body to the form parser: -1 if there is none or the
 * body is malformed. */
int upload_sink_feed(struct upload_sink *s, const char *data, size_t len);

/* The body has ended: flush the last part to the parser and drop it. -1 if
 * the body ended mid-form, 0 otherwise (also when there was no parser). */
int upload_sink_end_form(struct upload_sink *s);

/* Append to the temporary file, through a writer thread for large files
 * (upload_writer.h): 0, or -1 with errno set (also for an earlier write
 * that failed on that thread). */
int upload_sink_write(struct upload_sink *s, const void *data, size_t len);

/* Every byte appended is written: call before using fd (chmod, close).
 * 0, or -1 with errno set when a write failed. */
int upload_sink_flush(struct upload_sink *s);

/* The temporary file is in place (renamed): forget its path. */
void upload_sink_placed(struct upload_sink *s);

/* Close the temporary file (what was not written yet is dropped) and remove
 * it unless it was put in place. */
void upload_sink_discard(struct upload_sink *s);

/* For the route's free_state: drop the parser, then upload_sink_discard. */
void upload_sink_release(struct upload_sink *s);

#endif
