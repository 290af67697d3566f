/* The stream's progress bar (output.h). */
#include "lib/output.h"

#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "lib/timeutil.h"

#define SHOW_AFTER 0.5     /* seconds: quicker transfers never flash a bar */
#define REDRAW_EVERY 0.2

/* "1.5 MiB", "512 B" */
static void format_bytes(double bytes, char *buf, size_t size)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	size_t u = 0;

	while (bytes >= 1024 && u < 4) {
		bytes /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%.0f B", bytes);
	else
		snprintf(buf, size, "%.1f %s", bytes, units[u]);
}

static void format_eta(double secs, char *buf, size_t size)
{
	long s = (long)(secs + 0.5);

	if (s >= 3600)
		snprintf(buf, size, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(buf, size, "%ld:%02ld", s / 60, s % 60);
}

static int terminal_columns(int fd)
{
	struct winsize ws;

	if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 80;
}

/* Best effort: a lost progress line is not worth failing a transfer for. */
static void put(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);

		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

void ax_progress_start(ax_progress *p, const ax_stream *s, const char *label, long long total)
{
	memset(p, 0, sizeof *p);
	/* Written with write(2), unbuffered, so a line is whole or absent. */
	p->fd = s && s->err ? fileno(s->err) : -1;
	if (p->fd >= 0 && !isatty(p->fd))
		p->fd = -1;
	p->label = label;
	p->total = total;
	p->start = ax_mono_s();
}

void ax_progress_set_total(ax_progress *p, long long total)
{
	p->total = total;
}

static void draw(ax_progress *p, double elapsed)
{
	char line[512], done[32], total[32], rate[32], eta[32] = "", bar[64];
	double bps = elapsed > 0 ? (double)p->done / elapsed : 0;
	int cols = terminal_columns(p->fd), pct = -1, len, width;

	format_bytes((double)p->done, done, sizeof done);
	format_bytes(bps, rate, sizeof rate);
	if (p->total > 0) {
		unsigned long long d = p->done < (unsigned long long)p->total ? p->done : (unsigned long long)p->total;

		pct = (int)(d * 100 / (unsigned long long)p->total);
		format_bytes((double)p->total, total, sizeof total);
		if (bps > 0) {
			char left[24];

			format_eta((double)((unsigned long long)p->total - d) / bps, left, sizeof left);
			snprintf(eta, sizeof eta, "  ETA %s", left);
		}
	}
	if (pct >= 0)
		len = snprintf(line, sizeof line, "\r%s %s / %s %3d%%  %s/s%s", p->label, done, total, pct, rate, eta);
	else
		len = snprintf(line, sizeof line, "\r%s %s  %s/s", p->label, done, rate);
	if (len < 0 || len >= (int)sizeof line)
		return;
	/* A bar only where it fits; never wrap, or \r stops erasing the line. */
	width = cols - 1 - (len - 1) - 3;
	if (pct >= 0 && width >= 10) {
		int fill, i;

		if (width > (int)sizeof bar - 1)
			width = (int)sizeof bar - 1;
		fill = width * pct / 100;
		for (i = 0; i < width; i++)
			bar[i] = i < fill ? '#' : '-';
		bar[width] = '\0';
		len += snprintf(line + len, sizeof line - (size_t)len, " [%s]", bar);
	} else if (len - 1 > cols - 1) {
		len = cols;
	}
	if (len >= (int)sizeof line - 4)
		len = (int)sizeof line - 4;
	/* Erase what a longer earlier line left to the right. */
	snprintf(line + len, sizeof line - (size_t)len, "\033[K");
	put(p->fd, line, (size_t)len + 3);
	p->shown = true;
}

void ax_progress_update(ax_progress *p, unsigned long long done)
{
	double now, elapsed;

	p->done = done;
	if (p->fd < 0)
		return;
	now = ax_mono_s();
	elapsed = now - p->start;
	if (elapsed < SHOW_AFTER || (p->shown && now - p->last < REDRAW_EVERY))
		return;
	p->last = now;
	draw(p, elapsed);
}

void ax_progress_end(ax_progress *p)
{
	if (p->shown)
		put(p->fd, "\r\033[K", 4);
	p->shown = false;
}
