/*
 * libFuzzer target for the runtime clients' decoding: the AIO envelope
 * (src/api/aio_call.c), execd's errors, file info and directory listings
 * (src/api/execd_files.c), and how a Jupyter result is shown
 * (src/cmd/jupyter_show.c). The first byte picks the HTTP status; the rest
 * is the body, exactly as long as the server sent it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/aio_call.h"
#include "api/execd_files.h"
#include "fuzz_check.h"
#include "lib/output/output_jupyter.h"

static void check_aio(long status, const char *body, size_t len)
{
	json_t *data = NULL;
	ax_error err;

	memset(&err, 0, sizeof err);
	if (ax_aio_decode(status, body, len, "no data", &data, &err) < 0) {
		fuzz_check_error(&err);
		if (data)
			abort();
		return;
	}
	if (status < 200 || status > 299 || !data || json_is_null(data))
		abort();
	json_decref(data);
}

static void check_execd(long status, const char *body, size_t len)
{
	json_t *v = NULL;
	ax_error err;

	memset(&err, 0, sizeof err);
	if (ax_execd_decode_error(status, body, len, &err) != -1)
		abort();
	fuzz_check_error(&err);

	memset(&err, 0, sizeof err);
	if (ax_execd_decode_info(body, len, "/home/gem/a b", &v, &err) < 0) {
		fuzz_check_error(&err);
		if (v)
			abort();
	} else if (!json_is_object(v) || !json_is_string(json_object_get(v, "path"))) {
		abort();
	}
	json_decref(v);
	v = NULL;

	memset(&err, 0, sizeof err);
	if (ax_execd_decode_list(body, len, "/home/gem", &v, &err) < 0) {
		fuzz_check_error(&err);
		if (v)
			abort();
	} else if (!json_is_array(v)) {
		abort();
	}
	json_decref(v);
}

/* Stripping leaves no ESC, never grows, and is idempotent. */
static void check_strip(const char *body, size_t len)
{
	char *s = strndup(body, len), *again;
	size_t n;

	if (!s)
		abort();
	n = strlen(s);
	ax_strip_ansi(s);
	if (strchr(s, '\033') || strlen(s) > n)
		abort();
	again = strdup(s);
	ax_strip_ansi(again);
	if (strcmp(again, s) != 0)
		abort();
	free(again);
	free(s);
}

static void check_jupyter(const char *body, size_t len)
{
	json_t *result = json_loadb(body, len, 0, NULL);
	char *out = NULL, *errbuf = NULL;
	size_t out_len = 0, err_len = 0;
	struct ax_jupyter_show s = { 0 };
	ax_error err;
	size_t i;

	if (!result)
		return;
	s.out = open_memstream(&out, &out_len);
	s.err = open_memstream(&errbuf, &err_len);
	if (!s.out || !s.err)
		abort();
	memset(&err, 0, sizeof err);
	/* Memory streams never fail and no image is saved: it must succeed. */
	if (ax_jupyter_show(result, &s, &err) != 0)
		abort();
	fclose(s.out);
	fclose(s.err);
	/* Without colour, a traceback reaches stderr without escapes: only
	 * stream text (the program's own bytes) and ename/evalue may have them. */
	for (i = 0; i < json_array_size(json_object_get(result, "outputs")); i++) {
		const json_t *o = json_array_get(json_object_get(result, "outputs"), i);

		if (strcmp(json_string_value(json_object_get(o, "output_type")) ?: "", "stream") == 0 ||
		    strcmp(json_string_value(json_object_get(o, "output_type")) ?: "", "error") != 0 ||
		    !json_array_size(json_object_get(o, "traceback")))
			goto done;
	}
	if (memchr(errbuf, '\033', err_len))
		abort();
done:
	free(out);
	free(errbuf);
	json_decref(result);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	long status;
	char *body;

	if (size < 1)
		return 0;
	status = fuzz_status(data[0], 200);
	body = fuzz_body(data + 1, size - 1);
	check_aio(status, body, size - 1);
	check_execd(status, body, size - 1);
	check_strip(body, size - 1);
	check_jupyter(body, size - 1);
	free(body);
	return 0;
}
