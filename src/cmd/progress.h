/*
 * A one-line transfer progress bar on stderr: bytes, percentage, rate, ETA.
 * Only on a terminal, only once a transfer has run for half a second (quick
 * ones stay silent), and erased when done so the result prints cleanly.
 */
#ifndef ALLOX_PROGRESS_H
#define ALLOX_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct ax_progress {
	bool enabled;                /* stderr is a terminal */
	bool shown;                  /* a line is on screen and must be erased */
	const char *label;           /* "upload", "download" */
	long long total;             /* bytes; < 0 unknown */
	unsigned long long done;
	double start, last;          /* ax_mono_s() */
} ax_progress;

/* Start timing. TOTAL < 0 when unknown; ax_progress_set_total may fill it in later. */
void ax_progress_start(ax_progress *p, const char *label, long long total);
void ax_progress_set_total(ax_progress *p, long long total);
/* DONE bytes so far; draws at most a few times a second. */
void ax_progress_update(ax_progress *p, unsigned long long done);
/* Erase the line, if one was drawn. */
void ax_progress_end(ax_progress *p);

/* "1.5 MiB", "512 B" into BUF. */
void ax_format_bytes(double bytes, char *buf, size_t size);

#endif
