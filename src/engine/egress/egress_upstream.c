/* See egress_upstream.h. */
#include "engine/egress/egress_upstream.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <arpa/inet.h>
#include <arpa/nameser.h>
#include <netinet/in.h>
#include <resolv.h>
#include <sys/socket.h>

int ax_hosts_lookup(const char *path, const char *name, ax_dns_addr *out, int max)
{
	FILE *f = fopen(path, "re");
	char line[1024];
	size_t nlen = strlen(name);
	int n = 0;
	bool named = false;

	if (!f)
		return -1;
	if (nlen && name[nlen - 1] == '.')
		nlen--;
	while (fgets(line, sizeof line, f)) {
		char *save = NULL, *addr, *tok;
		ax_dns_addr a;

		line[strcspn(line, "#\n")] = '\0';
		addr = strtok_r(line, " \t", &save);
		if (!addr)
			continue;
		memset(&a, 0, sizeof a);
		if (inet_pton(AF_INET, addr, a.a) == 1)
			a.family = AF_INET;
		else if (inet_pton(AF_INET6, addr, a.a) == 1)
			a.family = AF_INET6;
		while ((tok = strtok_r(NULL, " \t", &save))) {
			if (strlen(tok) != nlen || strncasecmp(tok, name, nlen) != 0)
				continue;
			named = true;
			if (a.family && n < max)
				out[n++] = a;
			break;
		}
	}
	fclose(f);
	return named ? n : -1;
}

ssize_t ax_upstream_query(const unsigned char *q, size_t qlen, bool tcp, unsigned char *ans, size_t anslen)
{
	struct __res_state rs;
	int n;

	/* Per call: /etc/resolv.conf is read afresh, as by any new process, and
	 * no state is shared between the sandboxes' resolver threads. */
	memset(&rs, 0, sizeof rs);
	if (res_ninit(&rs) < 0)
		return -1;
	rs.options |= tcp ? RES_USEVC : RES_IGNTC;
	n = res_nsend(&rs, q, (int)qlen, ans, (int)(anslen > 65535 ? 65535 : anslen));
	res_nclose(&rs);
	return n;
}
