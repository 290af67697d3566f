/* The egress policy of sandboxes created with one: a
 * resolver per sandbox that answers only names the policy allows, and, when
 * it denies by default, a packet filter in the sandbox's namespace that lets
 * through only the addresses those names resolved to (egress_nft.h).
 *
 * The resolver's sockets are the engine's, made in the sandbox's network
 * namespace on 127.0.0.1:53 (UDP and TCP), which the sandbox's resolv.conf
 * names; its thread asks upstream (egress_upstream.h) from the engine's own
 * namespace. Nothing inside can change either: the sandbox has no
 * CAP_NET_ADMIN in its namespace, and its policy changes only through the
 * engine (the egress API, egress_api.c). */
#ifndef ALLOX_EGRESS_H
#define ALLOX_EGRESS_H

#include <stdbool.h>
#include <jansson.h>

#include "lib/ax_error.h"

/* The egress API's port (the spec's server URL; the official SDKs ask the
 * lifecycle API for this port's endpoint for every sandbox). */
#define AX_EGRESS_PORT 18080

typedef struct ax_egresses ax_egresses;

/* HOSTS_FILE: answers for names before the host's resolvers (NULL: none). */
ax_egresses *ax_egresses_new(const char *hosts_file);
/* Stop every resolver (the engine's exit; the filters stay with their
 * sandboxes, which then resolve nothing until the next engine). */
void ax_egresses_free(ax_egresses *set);

/* Start sandbox ID's resolver in the network namespace NETNS_FD (borrowed),
 * enforcing POLICY (normal form, copied); FRESH: a new namespace, whose
 * filter is installed now (before anything runs in it), else one adopted
 * by a restarted engine, whose filter is in place. -1 with ERR. */
int ax_egress_start(ax_egresses *set, const char *id, int netns_fd, const json_t *policy, bool fresh,
		    ax_error *err);

/* Enforce POLICY for sandbox ID from now on: names it denies are no longer
 * answered and the addresses only they resolved to are let through no
 * more. 0; -1 with ERR (also when ID has no resolver running). */
int ax_egress_set_policy(ax_egresses *set, const char *id, const json_t *policy, ax_error *err);

/* Stop sandbox ID's resolver (its deletion or end); no-op when none runs. */
void ax_egress_stop(ax_egresses *set, const char *id);

#endif
