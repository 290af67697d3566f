/* Where a sandbox's resolver gets its answers for allowed names: a hosts
 * file given to the engine (ALLOX_ENGINE_HOSTS_FILE: tests, and operators
 * who pin names), else the host's resolvers (/etc/resolv.conf), asked by
 * libresolv from the engine's own network namespace. */
#ifndef ALLOX_EGRESS_UPSTREAM_H
#define ALLOX_EGRESS_UPSTREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "engine/egress/egress_dns.h"

/* The addresses hosts(5) file PATH gives NAME (no trailing dot, any case),
 * up to MAX: their number (0: the file names NAME without a usable
 * address), or -1 when it does not name it or cannot be read. */
int ax_hosts_lookup(const char *path, const char *name, ax_dns_addr *out, int max);

/* Send query Q to the host's resolvers and put the answer in ANS: its
 * length, or -1 when none answered. TCP: over TCP (a client that came by
 * TCP); otherwise UDP, whose truncated answers are passed on as such so the
 * client asks again by TCP. */
ssize_t ax_upstream_query(const unsigned char *q, size_t qlen, bool tcp, unsigned char *ans, size_t anslen);

#endif
