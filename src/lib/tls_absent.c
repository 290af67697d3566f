/* GnuTLS as libmicrohttpd's static archive needs it, for servers that never
 * serve TLS: allox-agent (every sandbox's init) and allox-engine (a unix
 * socket or plain TCP on loopback).
 *
 * Why: linking the shared libmicrohttpd drags in GnuTLS and eight libraries
 * behind it (nettle, hogweed, gmp, p11-kit, tasn1, idn2, unistring, ffi).
 * Mapping and relocating them, and GnuTLS's constructor, cost 2.0 ms of every
 * agent start (allox-agent --version: 3.6 ms shared, 1.6 ms static; `perf
 * stat -r 100`), on the critical path of every sandbox create and restore,
 * and ~1 MiB of each sandbox's memory. configure links libmicrohttpd.a
 * instead when Debian ships it (--disable-static-microhttpd to opt out), and
 * this file answers the archive's references to GnuTLS.
 *
 * Behaviour: libmicrohttpd calls into GnuTLS only for a daemon started with
 * MHD_USE_TLS, which allox never does, except gnutls_global_init and
 * gnutls_global_deinit from its constructor and destructor, which succeed
 * here. Every other entry point fails the way GnuTLS reports a missing
 * feature (GNUTLS_E_UNIMPLEMENTED_FEATURE, NULL or nothing), so a TLS daemon
 * would fail to start instead of running without TLS. The prototypes come
 * from GnuTLS's own headers, so the compiler checks each definition. */
#include <gnutls/abstract.h>
#include <gnutls/gnutls.h>
#include <stdlib.h>

#define UNSUPPORTED GNUTLS_E_UNIMPLEMENTED_FEATURE

gnutls_alloc_function gnutls_malloc = malloc;

int gnutls_global_init(void)
{
	return 0;
}

void gnutls_global_deinit(void)
{
}

const char *gnutls_strerror(int error)
{
	return error == UNSUPPORTED ? "TLS is not built into this program" : "TLS error";
}

int gnutls_init(gnutls_session_t *session, unsigned int flags)
{
	*session = NULL;
	return UNSUPPORTED;
}

void gnutls_deinit(gnutls_session_t session)
{
}

int gnutls_priority_init(gnutls_priority_t *priority_cache, const char *priorities, const char **err_pos)
{
	*priority_cache = NULL;
	return UNSUPPORTED;
}

void gnutls_priority_deinit(gnutls_priority_t priority_cache)
{
}

int gnutls_priority_set(gnutls_session_t session, gnutls_priority_t priority)
{
	return UNSUPPORTED;
}

int gnutls_certificate_allocate_credentials(gnutls_certificate_credentials_t *res)
{
	*res = NULL;
	return UNSUPPORTED;
}

void gnutls_certificate_free_credentials(gnutls_certificate_credentials_t sc)
{
}

void gnutls_certificate_server_set_request(gnutls_session_t session, gnutls_certificate_request_t req)
{
}

void gnutls_certificate_set_dh_params(gnutls_certificate_credentials_t res, gnutls_dh_params_t dh_params)
{
}

void gnutls_certificate_set_retrieve_function2(gnutls_certificate_credentials_t cred,
					       gnutls_certificate_retrieve_function2 *func)
{
}

void gnutls_certificate_set_retrieve_function3(gnutls_certificate_credentials_t cred,
					       gnutls_certificate_retrieve_function3 *func)
{
}

int gnutls_certificate_set_x509_key_mem(gnutls_certificate_credentials_t res, const gnutls_datum_t *cert,
					const gnutls_datum_t *key, gnutls_x509_crt_fmt_t type)
{
	return UNSUPPORTED;
}

int gnutls_certificate_set_x509_key_mem2(gnutls_certificate_credentials_t res, const gnutls_datum_t *cert,
					 const gnutls_datum_t *key, gnutls_x509_crt_fmt_t type, const char *pass,
					 unsigned int flags)
{
	return UNSUPPORTED;
}

int gnutls_certificate_set_x509_trust_mem(gnutls_certificate_credentials_t res, const gnutls_datum_t *ca,
					  gnutls_x509_crt_fmt_t type)
{
	return UNSUPPORTED;
}

int gnutls_psk_allocate_server_credentials(gnutls_psk_server_credentials_t *sc)
{
	*sc = NULL;
	return UNSUPPORTED;
}

void gnutls_psk_free_server_credentials(gnutls_psk_server_credentials_t sc)
{
}

void gnutls_psk_set_server_credentials_function(gnutls_psk_server_credentials_t cred,
						gnutls_psk_server_credentials_function *func)
{
}

int gnutls_dh_params_init(gnutls_dh_params_t *dh_params)
{
	*dh_params = NULL;
	return UNSUPPORTED;
}

void gnutls_dh_params_deinit(gnutls_dh_params_t dh_params)
{
}

int gnutls_dh_params_import_pkcs3(gnutls_dh_params_t params, const gnutls_datum_t *pkcs3_params,
				  gnutls_x509_crt_fmt_t format)
{
	return UNSUPPORTED;
}

int gnutls_credentials_set(gnutls_session_t session, gnutls_credentials_type_t type, void *cred)
{
	return UNSUPPORTED;
}

int gnutls_alpn_set_protocols(gnutls_session_t session, const gnutls_datum_t *protocols, unsigned protocols_size,
			      unsigned flags)
{
	return UNSUPPORTED;
}

void gnutls_session_set_ptr(gnutls_session_t session, void *ptr)
{
}

void *gnutls_session_get_ptr(gnutls_session_t session)
{
	return NULL;
}

void gnutls_transport_set_int2(gnutls_session_t session, int r, int s)
{
}

int gnutls_handshake(gnutls_session_t session)
{
	return UNSUPPORTED;
}

int gnutls_bye(gnutls_session_t session, gnutls_close_request_t how)
{
	return UNSUPPORTED;
}

ssize_t gnutls_record_recv(gnutls_session_t session, void *data, size_t data_size)
{
	return UNSUPPORTED;
}

ssize_t gnutls_record_send(gnutls_session_t session, const void *data, size_t data_size)
{
	return UNSUPPORTED;
}

size_t gnutls_record_check_pending(gnutls_session_t session)
{
	return 0;
}

int gnutls_record_get_direction(gnutls_session_t session)
{
	return 0;
}

gnutls_cipher_algorithm_t gnutls_cipher_get(gnutls_session_t session)
{
	return GNUTLS_CIPHER_UNKNOWN;
}

gnutls_protocol_t gnutls_protocol_get_version(gnutls_session_t session)
{
	return GNUTLS_VERSION_UNKNOWN;
}
