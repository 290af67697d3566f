/* DNS wire format for the sandbox's resolver: see egress_dns.h. */
#include "engine/egress/egress_dns.h"

#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <arpa/nameser.h>
#include <netinet/in.h>
#include <resolv.h>
#include <sys/socket.h>

#define HEADER_LEN 12

int ax_dns_question(const unsigned char *msg, size_t len, char name[AX_DNS_NAME_MAX], int *qtype)
{
	ns_msg m;
	ns_rr rr;

	if (len < HEADER_LEN || len > 65535 || ns_initparse(msg, (int)len, &m) < 0)
		return -1;
	if (ns_msg_getflag(m, ns_f_qr) || ns_msg_getflag(m, ns_f_opcode) != ns_o_query || ns_msg_count(m, ns_s_qd) != 1 ||
	    ns_parserr(&m, ns_s_qd, 0, &rr) < 0)
		return -1;
	snprintf(name, AX_DNS_NAME_MAX, "%s", ns_rr_name(rr));
	*qtype = ns_rr_type(rr);
	return 0;
}

static void put16(unsigned char *p, unsigned v)
{
	p[0] = (unsigned char)(v >> 8);
	p[1] = (unsigned char)v;
}

size_t ax_dns_reply(const unsigned char *q, size_t qlen, int rcode, const ax_dns_addr *addrs, int n, unsigned ttl,
		    unsigned char *out, size_t outlen)
{
	int skip = dn_skipname(q + HEADER_LEN, q + qlen), count = 0;
	size_t end, at, qtype;

	/* The question: its name, type and class. */
	if (skip < 0 || (size_t)skip + HEADER_LEN + 4 > qlen)
		return 0;
	end = HEADER_LEN + (size_t)skip + 4;
	if (end > outlen)
		return 0;
	memcpy(out, q, end);
	qtype = ((size_t)q[end - 4] << 8) | q[end - 3];
	/* QR, the query's opcode and RD, RA; RCODE. No authority or additional
	 * records (the query's EDNS record is not echoed: plain DNS answers). */
	out[2] = (unsigned char)(0x80 | (q[2] & 0x79));
	out[3] = (unsigned char)(0x80 | (rcode & 0x0f));
	put16(out + 4, 1);
	put16(out + 8, 0);
	put16(out + 10, 0);
	at = end;
	for (int i = 0; i < n; i++) {
		size_t dlen = addrs[i].family == AF_INET ? 4 : 16;

		if ((qtype == ns_t_a && addrs[i].family != AF_INET) || (qtype == ns_t_aaaa && addrs[i].family != AF_INET6) ||
		    (qtype != ns_t_a && qtype != ns_t_aaaa))
			continue;
		if (at + 12 + dlen > outlen)
			break;
		/* The owner is the question's name: a pointer to offset 12. */
		put16(out + at, 0xc000 | HEADER_LEN);
		put16(out + at + 2, (unsigned)qtype);
		put16(out + at + 4, ns_c_in);
		put16(out + at + 6, ttl >> 16);
		put16(out + at + 8, ttl & 0xffff);
		put16(out + at + 10, (unsigned)dlen);
		memcpy(out + at + 12, addrs[i].a, dlen);
		at += 12 + dlen;
		count++;
	}
	put16(out + 6, (unsigned)count);
	return at;
}

int ax_dns_answer_addrs(const unsigned char *msg, size_t len, ax_dns_addr *out, int max)
{
	ns_msg m;
	ns_rr rr;
	int n = 0;

	if (len > 65535 || ns_initparse(msg, (int)len, &m) < 0)
		return -1;
	for (int i = 0; i < ns_msg_count(m, ns_s_an) && n < max; i++) {
		if (ns_parserr(&m, ns_s_an, i, &rr) < 0)
			return -1;
		if (ns_rr_class(rr) != ns_c_in)
			continue;
		if (ns_rr_type(rr) == ns_t_a && ns_rr_rdlen(rr) == 4) {
			out[n].family = AF_INET;
			memcpy(out[n++].a, ns_rr_rdata(rr), 4);
		} else if (ns_rr_type(rr) == ns_t_aaaa && ns_rr_rdlen(rr) == 16) {
			out[n].family = AF_INET6;
			memcpy(out[n++].a, ns_rr_rdata(rr), 16);
		}
	}
	return n;
}
