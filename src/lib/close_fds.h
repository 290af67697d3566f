/* Closing inherited descriptors before running something else. */
#ifndef ALLOX_CLOSE_FDS_H
#define ALLOX_CLOSE_FDS_H

#include <stddef.h>

/* Close every fd from 3 up but the N in KEEP (which is sorted here; -1 and
 * fds below 3 are ignored). System calls only, no allocation or locks: safe
 * in a child forked from a threaded process. */
void ax_close_fds_except(int *keep, size_t n);

#endif
