/* "Did you mean": the closest of some words to a mistyped one. */
#include "lib/suggest.h"

#include <string.h>

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t prev[65], cur[65];

	if (la > 64 || lb > 64)
		return (size_t)-1;
	for (j = 0; j <= lb; j++)
		prev[j] = j;
	for (i = 1; i <= la; i++) {
		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;

			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, (lb + 1) * sizeof prev[0]);
	}
	return prev[lb];
}

const char *ax_suggest(const char *word, const char *const *candidates, size_t n)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1, i, limit = strlen(word) / 3 + 1;

	if (limit > 2)
		limit = 2;
	for (i = 0; i < n; i++) {
		size_t d = edit_distance(word, candidates[i]);

		/* A unique prefix is as good a hint as a typo. */
		if (strlen(word) >= 2 && strncmp(candidates[i], word, strlen(word)) == 0)
			d = 1;
		if (d < best_d) {
			best_d = d;
			best = candidates[i];
		}
	}
	return best_d <= limit ? best : NULL;
}
