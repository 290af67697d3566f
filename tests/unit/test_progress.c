/* The stream's progress bar: drawn on its err when that is a terminal, erased at the end, never elsewhere. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/output.h"

/* Past the half second before a bar may show. */
static void wait_to_show(void)
{
	struct timespec t = { 0, 600 * 1000 * 1000 };

	nanosleep(&t, NULL);
}

/* Everything written to the terminal so far (nonblocking). */
static size_t drain(int master, char *buf, size_t size)
{
	size_t n = 0;
	ssize_t r;

	while (n < size - 1 && (r = read(master, buf + n, size - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
	return n;
}

static void test_bar_on_a_terminal(void **state)
{
	struct winsize ws = { .ws_row = 24, .ws_col = 100 };
	ax_render_opts ro = { .format = AX_FMT_JSON };
	int master, slave;
	FILE *err;
	ax_stream s;
	ax_progress p;
	char buf[4096];
	size_t n;

	(void)state;
	assert_int_equal(openpty(&master, &slave, NULL, NULL, &ws), 0);
	assert_int_equal(fcntl(master, F_SETFL, O_NONBLOCK), 0);
	err = fdopen(slave, "w");
	assert_non_null(err);
	/* A document format too: the bar is on err and erased, so it never mixes into the document. */
	ax_stream_init(&s, stdout, err, &ro);
	ax_progress_start(&p, &s, "download", 4 << 20);
	ax_progress_update(&p, 1 << 20);
	assert_int_equal(drain(master, buf, sizeof buf), 0);
	wait_to_show();
	ax_progress_update(&p, 2 << 20);
	n = drain(master, buf, sizeof buf);
	assert_true(n > 0);
	assert_true(strncmp(buf, "\rdownload 2.0 MiB / 4.0 MiB  50%", 32) == 0);
	assert_non_null(strstr(buf, "ETA "));
	assert_non_null(strstr(buf, "[###"));
	assert_string_equal(buf + n - 3, "\033[K");
	ax_progress_end(&p);
	drain(master, buf, sizeof buf);
	assert_string_equal(buf, "\r\033[K");
	/* Nothing more to erase. */
	ax_progress_end(&p);
	assert_int_equal(drain(master, buf, sizeof buf), 0);
	ax_stream_free(&s);
	fclose(err);
	close(master);
}

static void test_no_bar_elsewhere(void **state)
{
	ax_render_opts ro = { .format = AX_FMT_RAW };
	int fds[2];
	FILE *err;
	ax_stream s;
	ax_progress p;
	char buf[64];

	(void)state;
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(fcntl(fds[0], F_SETFL, O_NONBLOCK), 0);
	err = fdopen(fds[1], "w");
	assert_non_null(err);
	ax_stream_init(&s, stdout, err, &ro);
	ax_progress_start(&p, &s, "upload", -1);
	wait_to_show();
	ax_progress_update(&p, 1 << 20);
	ax_progress_end(&p);
	assert_int_equal(drain(fds[0], buf, sizeof buf), 0);
	/* Without a stream: counted, never shown. */
	ax_progress_start(&p, NULL, "upload", -1);
	ax_progress_update(&p, 7);
	assert_int_equal((int)p.done, 7);
	ax_progress_end(&p);
	ax_stream_free(&s);
	fclose(err);
	close(fds[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bar_on_a_terminal),
		cmocka_unit_test(test_no_bar_elsewhere),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
