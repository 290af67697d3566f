/* Lexical path arithmetic: no file system access except ax_path_abs's getcwd. */
#ifndef ALLOX_PATH_H
#define ALLOX_PATH_H

#include <stdbool.h>

/* Lexical normalisation as POSIX paths: "//a/./b/../c/" -> "/a/c", "" -> ".".
 * ".." at the top of an absolute path stays at "/"; malloc'd. */
char *ax_path_norm(const char *p);
/* Absolute and normalised, against the current directory; malloc'd. */
char *ax_path_abs(const char *p);
/* Is CHILD strictly inside ROOT? Both normalised. */
bool ax_path_inside(const char *root, const char *child);
/* ROOT + "/" + REL, without doubling the slash of "/"; malloc'd. */
char *ax_path_join_rel(const char *root, const char *rel);

#endif
