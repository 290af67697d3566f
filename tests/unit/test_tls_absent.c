/* src/lib/tls_absent.c: libmicrohttpd's static archive linked without GnuTLS
 * still serves plain HTTP, and refuses to start a TLS daemon instead of
 * serving it in the clear. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <gnutls/gnutls.h>
#include <microhttpd.h>

/* Any PEM text: the daemon must fail before it would parse it. */
static const char PEM[] = "-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n";

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *data, size_t *size, void **state)
{
	return MHD_NO;
}

static void test_plain_daemon_starts(void **state)
{
	struct MHD_Daemon *d;

	(void)state;
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_NO_LISTEN_SOCKET, 0, NULL, NULL, answer,
			     NULL, MHD_OPTION_END);
	assert_non_null(d);
	MHD_stop_daemon(d);
}

static void test_tls_daemon_refused(void **state)
{
	struct MHD_Daemon *d;

	(void)state;
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_NO_LISTEN_SOCKET | MHD_USE_TLS, 0, NULL,
			     NULL, answer, NULL, MHD_OPTION_HTTPS_MEM_KEY, PEM, MHD_OPTION_HTTPS_MEM_CERT, PEM,
			     MHD_OPTION_END);
	assert_null(d);
}

static void test_errors_say_why(void **state)
{
	gnutls_session_t s;

	(void)state;
	assert_int_equal(gnutls_global_init(), 0);
	assert_int_equal(gnutls_init(&s, GNUTLS_SERVER), GNUTLS_E_UNIMPLEMENTED_FEATURE);
	assert_null(s);
	assert_string_equal(gnutls_strerror(GNUTLS_E_UNIMPLEMENTED_FEATURE), "TLS is not built into this program");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_daemon_starts),
		cmocka_unit_test(test_tls_daemon_refused),
		cmocka_unit_test(test_errors_say_why),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
