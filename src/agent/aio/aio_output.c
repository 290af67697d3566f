#include "agent/aio/aio_output.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HALF (AIO_OUTPUT_KEEP / 2)

void aio_output_free(struct aio_output *o)
{
	free(o->head);
	free(o->ring);
	memset(o, 0, sizeof *o);
}

static int grow_head(struct aio_output *o, size_t need)
{
	size_t cap = o->head_cap ? o->head_cap : 4096;
	char *p;

	while (cap < need)
		cap *= 2;
	if (cap > HALF)
		cap = HALF;
	p = realloc(o->head, cap);
	if (!p)
		return -1;
	o->head = p;
	o->head_cap = cap;
	return 0;
}

int aio_output_append(struct aio_output *o, const char *data, size_t len)
{
	size_t n, at;

	o->total += len;
	if (o->head_len < HALF) {
		n = HALF - o->head_len < len ? HALF - o->head_len : len;
		if (o->head_len + n > o->head_cap && grow_head(o, o->head_len + n) < 0)
			return -1;
		memcpy(o->head + o->head_len, data, n);
		o->head_len += n;
		data += n;
		len -= n;
	}
	if (!len)
		return 0;
	if (!o->ring && !(o->ring = malloc(HALF)))
		return -1;
	/* Only the last HALF bytes of a long write can survive anyway. */
	if (len > HALF) {
		data += len - HALF;
		len = HALF;
	}
	while (len) {
		at = (o->ring_start + o->ring_len) % HALF;
		n = HALF - at < len ? HALF - at : len;
		memcpy(o->ring + at, data, n);
		if (o->ring_len + n > HALF) {
			o->ring_start = (o->ring_start + o->ring_len + n - HALF) % HALF;
			o->ring_len = HALF;
		} else {
			o->ring_len += n;
		}
		data += n;
		len -= n;
	}
	return 0;
}

/* Byte I of the kept output: the head, then the ring in order. */
static char kept_at(const struct aio_output *o, size_t i)
{
	return i < o->head_len ? o->head[i] : o->ring[(o->ring_start + i - o->head_len) % HALF];
}

static int continuation(char c)
{
	return ((unsigned char)c & 0xc0) == 0x80;
}

char *aio_output_render(const struct aio_output *o, size_t limit, size_t *len)
{
	size_t kept = o->head_len + o->ring_len, first, last, i, n = 0;
	char note[96];
	int note_len = 0;
	char *buf;

	first = kept;
	last = 0;
	if (o->total > limit) {
		/* Cut at character boundaries so the halves stay valid UTF-8. */
		first = limit / 2 < o->head_len ? limit / 2 : o->head_len;
		while (first > 0 && first < kept && continuation(kept_at(o, first)))
			first--;
		last = limit / 2 < o->ring_len + (o->head_len - first) ? limit / 2 : o->ring_len + (o->head_len - first);
		while (last > 0 && continuation(kept_at(o, kept - last)))
			last--;
		note_len = snprintf(note, sizeof note, "\n... [%" PRIu64 " bytes of output truncated] ...\n",
				    o->total - first - last);
	}
	buf = malloc(first + (size_t)note_len + last + 1);
	if (!buf)
		return NULL;
	for (i = 0; i < first; i++)
		buf[n++] = kept_at(o, i);
	memcpy(buf + n, note, (size_t)note_len);
	n += (size_t)note_len;
	for (i = kept - last; i < kept; i++)
		buf[n++] = kept_at(o, i);
	buf[n] = '\0';
	*len = n;
	return buf;
}
