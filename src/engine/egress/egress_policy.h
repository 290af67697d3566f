/* A sandbox's egress policy (the lifecycle spec's NetworkPolicy, the
 * egress API's /policy body): checking it, applying it to a name, and the
 * egress API's changes to it. Pure functions on JSON: no engine state. */
#ifndef ALLOX_EGRESS_POLICY_H
#define ALLOX_EGRESS_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

/* A policy as checked and normalized: {"defaultAction": "allow"|"deny",
 * "egress": [{"action", "target"}...]}, targets in lower case without a
 * trailing dot. */

/* Check GIVEN (a create's networkPolicy: an object or null) and return its
 * normal form; NULL with WHY (naming the field at fault) when it cannot be
 * honoured. null and {} allow everything, as the spec says; otherwise an
 * absent defaultAction is "deny". */
json_t *ax_policy_normalize(const json_t *given, char *why, size_t why_len);

/* Check RULES, an egress API body: an array of at least one NetworkRule.
 * Their normal form (an array), or NULL with WHY. */
json_t *ax_policy_rules(const json_t *rules, char *why, size_t why_len);

/* Whether POLICY lets the sandbox reach NAME (a DNS name, any case, with or
 * without its trailing dot): the first rule whose target matches decides,
 * else the default. "*.example.com" matches names below example.com, not
 * example.com itself. */
bool ax_policy_allows(const json_t *policy, const char *name);

/* PATCH /policy: RULES (normal form) first, the first of a target winning,
 * then POLICY's rules for other targets. A new policy. */
json_t *ax_policy_patch(const json_t *policy, const json_t *rules);

/* DELETE /policy: POLICY without the rules for TARGETS (an array of
 * strings; unknown ones are ignored). A new policy, or NULL with WHY when
 * TARGETS is not a non-empty array of strings. */
json_t *ax_policy_delete(const json_t *policy, const json_t *targets, char *why, size_t why_len);

/* The egress API's derived mode: "deny_all" or "allow_all" (the default). */
const char *ax_policy_mode(const json_t *policy);

/* Whether the default is to deny (only allowed names' addresses are reachable). */
bool ax_policy_denies_by_default(const json_t *policy);

#endif
