#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/timeutil.h"

static void test_mono_moves_forward(void **state)
{
	int64_t a = ax_mono_ms();
	double s = ax_mono_s();
	struct timespec pause = { 0, 20 * 1000000L };

	(void)state;
	nanosleep(&pause, NULL);
	assert_true(ax_mono_ms() - a >= 20);
	assert_true(ax_mono_s() - s >= 0.02);
	/* Both read the same clock. */
	assert_true(ax_mono_s() * 1000 - (double)ax_mono_ms() < 5);
}

static void test_deadline(void **state)
{
	struct timespec now = ax_mono_deadline(0), later = ax_mono_deadline(1500), past = ax_mono_deadline(-5);
	int64_t diff = ((int64_t)later.tv_sec - now.tv_sec) * 1000 + (later.tv_nsec - now.tv_nsec) / 1000000;

	(void)state;
	assert_true(diff >= 1500 && diff < 1600);
	assert_true(later.tv_nsec >= 0 && later.tv_nsec < 1000000000L);
	assert_true(past.tv_sec >= now.tv_sec);
}

/* A timed wait on the monotonic condition ends at its deadline. */
static void test_cond_waits_its_length(void **state)
{
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cond;
	struct timespec deadline;
	int64_t t0;
	int rc;

	(void)state;
	assert_int_equal(ax_mono_cond_init(&cond), 0);
	pthread_mutex_lock(&lock);
	t0 = ax_mono_ms();
	deadline = ax_mono_deadline(50);
	do
		rc = pthread_cond_timedwait(&cond, &lock, &deadline);
	while (rc == 0);
	pthread_mutex_unlock(&lock);
	assert_int_equal(rc, ETIMEDOUT);
	assert_true(ax_mono_ms() - t0 >= 49 && ax_mono_ms() - t0 < 1000);
	pthread_cond_destroy(&cond);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mono_moves_forward),
		cmocka_unit_test(test_deadline),
		cmocka_unit_test(test_cond_waits_its_length),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
