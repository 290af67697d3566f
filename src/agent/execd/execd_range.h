/* The HTTP Range header of a download, the way the official execd reads it. */
#ifndef ALLOX_AGENT_EXECD_RANGE_H
#define ALLOX_AGENT_EXECD_RANGE_H

#include <stdint.h>

/* Parse "bytes=..." against a file of SIZE bytes: 1 with the first
 * satisfiable range in *START and *LEN, 0 if no range is satisfiable, -1 if
 * the header is malformed. */
int ag_range_parse(const char *header, uint64_t size, uint64_t *start, uint64_t *len);

#endif
