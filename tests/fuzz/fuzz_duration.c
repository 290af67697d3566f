/*
 * libFuzzer target for durations ("30s", "5m", "1h30m", "none"...): make fuzz.
 * A parse succeeds with a non-negative count of seconds or fails with one
 * line of message; the nullable form agrees with the plain one wherever the
 * input is not one of its "no limit" words.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/duration.h"

static void check_message(const ax_error *err)
{
	if (!err->message[0] || strchr(err->message, '\n') || err->exit_code == 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	long long secs = -1, nsecs = -1;
	bool none = false;
	ax_error err, nerr;
	int rc, nrc;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	rc = ax_duration_parse(s, &secs, &err);
	if (rc == 0 && secs < 0)
		abort();
	if (rc != 0)
		check_message(&err);
	nrc = ax_duration_parse_nullable(s, &nsecs, &none, &nerr);
	if (nrc != 0)
		check_message(&nerr);
	if (nrc == 0 && !none && (rc != 0 || nsecs != secs))
		abort();
	free(s);
	return 0;
}
