/* DNS messages for a sandbox's resolver (egress.c): the question of a query,
 * the answers it gets, and the addresses in an upstream answer. Parsing is
 * libc's (libresolv's ns_* functions); an answer here is only ever a header,
 * the query's own question and address records, built by hand. */
#ifndef ALLOX_EGRESS_DNS_H
#define ALLOX_EGRESS_DNS_H

#include <stddef.h>

#define AX_DNS_NAME_MAX 1025

typedef struct ax_dns_addr {
	int family;                /* AF_INET or AF_INET6 */
	unsigned char a[16];
} ax_dns_addr;

/* The single question of query MSG: its name (no trailing dot) and type.
 * 0, or -1 when MSG is no standard query with one question. */
int ax_dns_question(const unsigned char *msg, size_t len, char name[AX_DNS_NAME_MAX], int *qtype);

/* An answer to query Q (checked by ax_dns_question) with RCODE and the
 * addresses of ADDRS that fit the question's type (A: IPv4, AAAA: IPv6;
 * none for other types), each with TTL. Its length in OUT, or 0 when it
 * does not fit. */
size_t ax_dns_reply(const unsigned char *q, size_t qlen, int rcode, const ax_dns_addr *addrs, int n, unsigned ttl,
		    unsigned char *out, size_t outlen);

/* The A and AAAA records of answer MSG's answer section (whatever their
 * owner: a CNAME chain's end counts), up to MAX into OUT. Their number, or
 * -1 when MSG does not parse. */
int ax_dns_answer_addrs(const unsigned char *msg, size_t len, ax_dns_addr *out, int max);

#endif
