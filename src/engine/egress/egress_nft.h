/* The packet filter of a sandbox whose egress policy denies by default: an
 * nftables table in the sandbox's own network namespace that lets out only
 * loopback traffic (where its resolver listens) and the addresses its
 * allowed names resolved to (libnftables). */
#ifndef ALLOX_EGRESS_NFT_H
#define ALLOX_EGRESS_NFT_H

#include <stdbool.h>

#include "engine/egress/egress_dns.h"
#include "lib/ax_error.h"

struct nft_ctx;

/* A handle on the nftables of the network namespace NETNS_FD (borrowed;
 * the handle's netlink socket stays in that namespace). NULL with ERR. */
struct nft_ctx *ax_nft_open(int netns_fd, ax_error *err);
void ax_nft_close(struct nft_ctx *nft);

/* Install the table (a new namespace's: nothing inside can change it, the
 * sandbox has no CAP_NET_ADMIN there). -1 with ERR. */
int ax_nft_install(struct nft_ctx *nft, ax_error *err);

/* Let the N addresses of ADDRS through; with RESET, only them (a policy
 * change: what was let through for names now denied goes). -1 with ERR. */
int ax_nft_allow(struct nft_ctx *nft, const ax_dns_addr *addrs, int n, bool reset, ax_error *err);

#endif
