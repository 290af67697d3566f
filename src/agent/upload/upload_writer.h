/* An uploaded file's bytes written on a thread of their own.
 *
 * Writing into the page cache was two thirds of the agent's CPU time in a
 * 1 GiB upload (0.7-0.8 s of 1.1-1.2 s: the same upload with the writes
 * left out took 0.34-0.43 s), all on the one thread that also receives and
 * parses the body. Handing full 1 MiB buffers to a writer thread runs the
 * two on both cores. Small files never start the thread: what fits in the
 * first buffer is written by upload_writer_finish itself. */
#ifndef ALLOX_AGENT_UPLOAD_WRITER_H
#define ALLOX_AGENT_UPLOAD_WRITER_H

#include <stddef.h>

struct upload_writer;

/* A writer to FD (which stays the caller's); NULL on ENOMEM. */
struct upload_writer *upload_writer_new(int fd);

/* Queue LEN bytes of DATA: 0, or -1 with errno set (a failed earlier write,
 * or ENOMEM). Blocks while every buffer waits to be written. */
int upload_writer_add(struct upload_writer *w, const void *data, size_t len);

/* Write what is left, stop the thread and free W: 0, or -1 with errno set
 * when any write failed. W may be NULL (0). */
int upload_writer_finish(struct upload_writer *w);

/* Stop the thread and free W, dropping what was not written yet (the file
 * is about to be removed). W may be NULL. */
void upload_writer_drop(struct upload_writer *w);

#endif
