/* sandbox create --allow-domain / --deny-domain as the lifecycle API's
 * networkPolicy, and sandbox get's view of a sandbox's policy. */
#ifndef ALLOX_CMD_SANDBOX_POLICY_H
#define ALLOX_CMD_SANDBOX_POLICY_H

#include <jansson.h>

#include "cmd/command.h"
#include "lib/ax_error.h"

/* Add networkPolicy to create request REQ when ARGS name domains. 0, or -1
 * with ERR (a usage error: an empty domain, or domains with a network
 * that has no egress to filter). */
int ax_sandbox_policy_request(const ax_args *args, json_t *req, ax_error *err);

/* egress_default and egress_rules in DATA (sandbox get's fields) from
 * sandbox SANDBOX's networkPolicy, when the server reports one. */
void ax_sandbox_policy_show(const json_t *sandbox, json_t *data);

#endif
