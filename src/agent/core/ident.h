/* Other users inside the sandbox: who a command runs as (execd's uid/gid
 * fields of POST /command), looked up before fork, and which ids the
 * sandbox's user namespace maps at all, so a request for an id it does not
 * map gets an answer that says so rather than a bare EINVAL. */
#ifndef ALLOX_AGENT_IDENT_H
#define ALLOX_AGENT_IDENT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "lib/ax_error.h"
#include "agent/core/proc_spawn.h"

/* Resolve UID (and GID, NULL when the request has none) as the official
 * execd does (components/execd/pkg/runtime/command.go, buildCredential):
 * the group is GID, else the user's primary group, else 0 for a uid
 * without a passwd entry; the supplementary groups are the user's (from
 * the group database), or just the group for a uid without an entry.
 * Fails, with a message that names the id, when the sandbox does not map
 * the uid, the group or a supplementary group. Free with ag_ident_free. */
int ag_ident_lookup(uid_t uid, const gid_t *gid, struct ag_ident *id, ax_error *err);
void ag_ident_free(struct ag_ident *id);

/* When ID (a uid, or a gid when GROUP) is outside the agent's user
 * namespace's map, write "uid 70000 is not mapped in this sandbox (uids
 * 0-65535)" to BUF and return 1; else (or when the map cannot be read)
 * return 0. */
int ag_id_unmapped(unsigned long id, bool group, char *buf, size_t size);

#endif
