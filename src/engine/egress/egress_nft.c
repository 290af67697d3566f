/* See egress_nft.h. The filter sits on the output hook of the sandbox's own
 * namespace, so it sees every packet the sandbox sends before the user-mode
 * stack does, whatever the protocol; the host's own tables are untouched.
 * No element expires: an address stays reachable while the policy that
 * allowed its name holds (a timeout would cut long transfers, and a
 * connection-tracking rule would keep revoked names' connections alive). */
#include "engine/egress/egress_nft.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <nftables/libnftables.h>

#include "engine/runtime/netns_call.h"

#define TABLE "inet allox_egress"

static const char ruleset[] =
	"table " TABLE " {\n"
	"  set allow4 { type ipv4_addr; }\n"
	"  set allow6 { type ipv6_addr; }\n"
	"  chain out {\n"
	"    type filter hook output priority filter; policy drop;\n"
	"    oifname \"lo\" accept\n"
	"    ip daddr @allow4 accept\n"
	"    ip6 daddr @allow6 accept\n"
	/* Refused at once rather than left to time out. */
	"    meta l4proto tcp reject with tcp reset\n"
	"    reject with icmpx admin-prohibited\n"
	"  }\n"
	"}\n";

static int make_ctx(void *arg)
{
	struct nft_ctx **out = arg;

	/* The context opens its netlink socket here, in the sandbox's namespace. */
	*out = nft_ctx_new(NFT_CTX_DEFAULT);
	return *out ? 0 : -1;
}

struct nft_ctx *ax_nft_open(int netns_fd, ax_error *err)
{
	struct nft_ctx *nft = NULL;

	if (ax_netns_call(netns_fd, make_ctx, &nft) < 0 || !nft) {
		ax_fail(err, AX_CODE_RUNTIME, "cannot open the sandbox's nftables (libnftables)");
		return NULL;
	}
	nft_ctx_buffer_output(nft);
	nft_ctx_buffer_error(nft);
	return nft;
}

void ax_nft_close(struct nft_ctx *nft)
{
	if (nft)
		nft_ctx_free(nft);
}

static int run(struct nft_ctx *nft, const char *cmd, ax_error *err)
{
	const char *msg;
	size_t n;

	if (nft_run_cmd_from_buffer(nft, cmd) == 0)
		return 0;
	msg = nft_ctx_get_error_buffer(nft) ?: "";
	n = strcspn(msg, "\n");
	return ax_fail(err, AX_CODE_RUNTIME, "nftables: %.*s", (int)n, msg[0] ? msg : "failed");
}

int ax_nft_install(struct nft_ctx *nft, ax_error *err)
{
	return run(nft, ruleset, err);
}

/* "add element ... allowF { a, b }" for the addresses of FAMILY in ADDRS, appended at *LEN. */
static void add_family(char *cmd, size_t cap, size_t *len, const ax_dns_addr *addrs, int n, int family)
{
	char addr[INET6_ADDRSTRLEN];
	bool first = true;

	for (int i = 0; i < n; i++) {
		if (addrs[i].family != family || !inet_ntop(family, addrs[i].a, addr, sizeof addr))
			continue;
		*len += (size_t)snprintf(cmd + *len, cap - *len, "%s%s",
					 first ? (family == AF_INET ? "add element " TABLE " allow4 { "
								    : "add element " TABLE " allow6 { ")
					       : ", ",
					 addr);
		first = false;
	}
	if (!first)
		*len += (size_t)snprintf(cmd + *len, cap - *len, " }\n");
}

int ax_nft_allow(struct nft_ctx *nft, const ax_dns_addr *addrs, int n, bool reset, ax_error *err)
{
	/* One transaction: a reset never shows a moment with the sets empty. */
	size_t cap = 160 + (size_t)n * (INET6_ADDRSTRLEN + 2), len = 0;
	char *cmd = malloc(cap);
	int rc;

	if (!cmd)
		return ax_fail(err, AX_CODE_NOMEM, "out of memory");
	cmd[0] = '\0';
	if (reset)
		len += (size_t)snprintf(cmd, cap, "flush set " TABLE " allow4\nflush set " TABLE " allow6\n");
	add_family(cmd, cap, &len, addrs, n, AF_INET);
	add_family(cmd, cap, &len, addrs, n, AF_INET6);
	rc = len ? run(nft, cmd, err) : 0;
	free(cmd);
	return rc;
}
