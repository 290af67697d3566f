/* "Did you mean" for unknown verbs, options and configuration keys. */
#ifndef ALLOX_SUGGEST_H
#define ALLOX_SUGGEST_H

#include <stddef.h>

/* The closest of CANDIDATES to WORD if it is a near miss (a typo or a
 * unique prefix), else NULL. */
const char *ax_suggest(const char *word, const char *const *candidates, size_t n);

#endif
