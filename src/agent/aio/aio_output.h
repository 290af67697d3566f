/* A command's combined output as /v1/shell/exec keeps it: the first and the
 * last AIO_OUTPUT_KEEP / 2 bytes, so however much a command prints, memory
 * stays bounded and both its start and its end (usually the error) survive. */
#ifndef ALLOX_AGENT_AIO_OUTPUT_H
#define ALLOX_AGENT_AIO_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

#define AIO_OUTPUT_KEEP ((size_t)10 << 20)
/* What AIO's truncate flag (default on) cuts an answer to. */
#define AIO_OUTPUT_TRUNCATE ((size_t)30000)

struct aio_output {
	char *head;         /* the first bytes, up to AIO_OUTPUT_KEEP / 2 */
	size_t head_len, head_cap;
	char *ring;         /* the latest bytes after the head, AIO_OUTPUT_KEEP / 2 of them */
	size_t ring_start, ring_len;
	uint64_t total;     /* every byte ever appended */
};

void aio_output_free(struct aio_output *o);
/* Keep DATA; -1 on ENOMEM (the bytes are then only counted). */
int aio_output_append(struct aio_output *o, const char *data, size_t len);
/* The output cut to at most LIMIT bytes (plus a note of what was left
 * out), malloc'd, in *LEN. NULL on ENOMEM. */
char *aio_output_render(const struct aio_output *o, size_t limit, size_t *len);

#endif
