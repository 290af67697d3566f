/*
 * The lifecycle client's decoding of server answers, apart from HTTP so that
 * it can be fuzzed (tests/fuzz/fuzz_lifecycle.c): a hostile or broken server
 * gets a one-line error, never a crash or a half-built object.
 */
#ifndef ALLOX_LIFECYCLE_DECODE_H
#define ALLOX_LIFECYCLE_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "lib/ax_error.h"

/* The answer to METHOD PATH: STATUS must be EXPECT, else ERR is the server's
 * error as one line ("Sandbox error [CODE]: message"). With OUT, a non-empty
 * BODY (LEN bytes, need not be NUL-terminated) must be JSON: *OUT gets it
 * (NULL for an empty body). 0 or -1. */
int ax_lc_decode_answer(const char *method, const char *path, long expect, long status, const char *body,
			size_t len, json_t **out, ax_error *err);

/* One page of GET COLLECTION: its items appended to ALL, *MORE whether to ask
 * for page PAGE + 1 (hasNextPage, bounded by totalPages when it is given, 0
 * included, never after an empty page). -1 with ERR when DOC has no items array. */
int ax_lc_decode_page(const json_t *doc, const char *collection, int page, json_t *all, bool *more, ax_error *err);

/* The endpoint answer DOC for PORT: *URL "http://<endpoint>" (malloc'd) and
 * *HEADERS (if non-NULL) an object of headers to send. 0 or -1 with ERR. */
int ax_lc_decode_endpoint(const json_t *doc, int port, char **url, json_t **headers, ax_error *err);

/* A sandbox object as the CLI shows it: always an object with "id" (a
 * string or null), "state" (a string, "Unknown" when missing), "image" (the
 * image URI, "checkpoint:<id>" for a restored sandbox, or null),
 * "expires_at" (string or null) and "created_at" (a string). */
json_t *ax_lc_sandbox_object(const json_t *sbx);

/* A snapshot object as the CLI shows it: always an object with "id",
 * "sandbox_id", "name", "state", "reason", "message" and "created_at", each
 * the server's value or null. */
json_t *ax_lc_snapshot_object(const json_t *snap);

#endif
