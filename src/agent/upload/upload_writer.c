#include "agent/upload/upload_writer.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fs.h"

#define BUF_SIZE (1u << 20)
/* One being filled, the others queued or being written: 3 MiB at most,
 * and only while a large file arrives. */
#define BUFS 3

struct upload_writer {
	int fd;
	char *buf[BUFS];
	int filling;                 /* the buffer being filled, -1: none yet */
	size_t used;                 /* bytes in it */
	bool started;                /* the thread runs */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	/* Under lock: full buffers in order, free ones, the end, the first error. */
	int queue[BUFS];
	size_t queued_len[BUFS];
	int qhead, qlen;
	int free_list[BUFS];
	int nfree;
	bool closing;
	int err;
};

struct upload_writer *upload_writer_new(int fd)
{
	struct upload_writer *w = calloc(1, sizeof *w);

	if (!w)
		return NULL;
	w->fd = fd;
	w->filling = -1;
	return w;
}

static void *writer_main(void *arg)
{
	struct upload_writer *w = arg;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		int idx, e = 0;
		size_t len;

		while (w->qlen == 0 && !w->closing)
			pthread_cond_wait(&w->changed, &w->lock);
		if (w->qlen == 0)
			break;
		idx = w->queue[w->qhead];
		len = w->queued_len[w->qhead];
		w->qhead = (w->qhead + 1) % BUFS;
		w->qlen--;
		/* After a failure the rest is dropped, so the receiver never waits. */
		if (!w->err) {
			pthread_mutex_unlock(&w->lock);
			if (ax_write_all(w->fd, w->buf[idx], len) < 0)
				e = errno;
			pthread_mutex_lock(&w->lock);
		}
		if (e && !w->err)
			w->err = e;
		w->free_list[w->nfree++] = idx;
		pthread_cond_broadcast(&w->changed);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* The thread and the other buffers, when the first buffer is full: 0, or
 * -1 with nothing changed. */
static int start(struct upload_writer *w)
{
	char *more[BUFS] = { NULL };
	int i;

	for (i = 1; i < BUFS; i++)
		if (!(more[i] = malloc(BUF_SIZE)))
			goto undo;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->changed, NULL);
	if (pthread_create(&w->thread, NULL, writer_main, w) != 0) {
		pthread_mutex_destroy(&w->lock);
		pthread_cond_destroy(&w->changed);
		goto undo;
	}
	for (i = 1; i < BUFS; i++) {
		w->buf[i] = more[i];
		w->free_list[w->nfree++] = i;
	}
	w->started = true;
	return 0;
undo:
	for (i = 1; i < BUFS; i++)
		free(more[i]);
	return -1;
}

/* Queue the buffer being filled; under w->lock. */
static void enqueue(struct upload_writer *w)
{
	int at = (w->qhead + w->qlen) % BUFS;

	w->queue[at] = w->filling;
	w->queued_len[at] = w->used;
	w->qlen++;
	pthread_cond_broadcast(&w->changed);
}

/* Queue the full buffer being filled and take a free one. Without a
 * thread (no memory or threads left for one), write it here. */
static int hand_over(struct upload_writer *w)
{
	int e;

	if (!w->started && start(w) < 0) {
		if (ax_write_all(w->fd, w->buf[w->filling], w->used) < 0)
			return -1;
		w->used = 0;
		return 0;
	}
	pthread_mutex_lock(&w->lock);
	enqueue(w);
	while (w->nfree == 0)
		pthread_cond_wait(&w->changed, &w->lock);
	w->filling = w->free_list[--w->nfree];
	w->used = 0;
	e = w->err;
	pthread_mutex_unlock(&w->lock);
	return e ? (errno = e, -1) : 0;
}

int upload_writer_add(struct upload_writer *w, const void *data, size_t len)
{
	const char *p = data;

	if (w->filling < 0) {
		if (!(w->buf[0] = malloc(BUF_SIZE)))
			return ax_write_all(w->fd, data, len);   /* no memory for buffers: unbuffered */
		w->filling = 0;
	}
	while (len) {
		size_t n = BUF_SIZE - w->used < len ? BUF_SIZE - w->used : len;

		memcpy(w->buf[w->filling] + w->used, p, n);
		w->used += n;
		p += n;
		len -= n;
		if (w->used == BUF_SIZE && hand_over(w) < 0)
			return -1;
	}
	return 0;
}

/* Stop the thread and free W; KEEP: write what is left first, else drop it. */
static int end(struct upload_writer *w, bool keep)
{
	int e = 0;

	if (!w)
		return 0;
	if (w->started) {
		pthread_mutex_lock(&w->lock);
		if (!keep) {
			if (!w->err)
				w->err = ECANCELED;   /* the thread drops what is queued */
		} else if (w->used) {
			enqueue(w);
		}
		w->closing = true;
		pthread_cond_broadcast(&w->changed);
		pthread_mutex_unlock(&w->lock);
		pthread_join(w->thread, NULL);
		e = w->err;
		pthread_mutex_destroy(&w->lock);
		pthread_cond_destroy(&w->changed);
	} else if (keep && w->used && ax_write_all(w->fd, w->buf[w->filling], w->used) < 0) {
		e = errno;
	}
	for (int i = 0; i < BUFS; i++)
		free(w->buf[i]);
	free(w);
	if (e)
		errno = e;
	return e ? -1 : 0;
}

int upload_writer_finish(struct upload_writer *w)
{
	return end(w, true);
}

void upload_writer_drop(struct upload_writer *w)
{
	end(w, false);
}
