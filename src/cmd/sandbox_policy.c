/* See sandbox_policy.h. */
#include "cmd/sandbox_policy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rules for the domains of repeatable option NAME, appended to RULES. */
static int add_rules(const ax_args *args, const char *name, const char *action, json_t *rules, ax_error *err)
{
	const json_t *list = ax_arg_json(args, name), *d;
	size_t i;

	json_array_foreach(list, i, d) {
		if (!json_string_length(d))
			return ax_fail(err, AX_CODE_USAGE, "--%s needs a domain name, such as pypi.org or "
				       "*.example.com", name);
		json_array_append_new(rules, json_pack("{s:s, s:O}", "action", action, "target", d));
	}
	return 0;
}

int ax_sandbox_policy_request(const ax_args *args, json_t *req, ax_error *err)
{
	const char *network = ax_arg_string(args, "network");
	size_t allows = json_array_size(ax_arg_json(args, "allow-domain"));
	json_t *rules;

	if (!allows && !json_array_size(ax_arg_json(args, "deny-domain")))
		return 0;
	if (network && strcmp(network, "isolated") != 0)
		return ax_fail(err, AX_CODE_USAGE,
			       "--allow-domain and --deny-domain filter an isolated network's egress, not --network %s",
			       network);
	/* Denials first: --deny-domain carves exceptions out of an allowed
	 * wildcard (the first matching rule wins). */
	rules = json_array();
	if (add_rules(args, "deny-domain", "deny", rules, err) < 0 ||
	    add_rules(args, "allow-domain", "allow", rules, err) < 0) {
		json_decref(rules);
		return -1;
	}
	json_object_set_new(req, "networkPolicy", json_pack("{s:s, s:o}", "defaultAction", allows ? "deny" : "allow",
							    "egress", rules));
	return 0;
}

void ax_sandbox_policy_show(const json_t *sandbox, json_t *data)
{
	const json_t *policy = json_object_get(sandbox, "networkPolicy"), *r;
	const char *def = json_string_value(json_object_get(policy, "defaultAction"));
	char *line = NULL;
	size_t len = 0, i;
	FILE *f;

	if (!json_is_object(policy))
		return;
	json_object_set_new(data, "egress_default", json_string(def ? def : "deny"));
	f = open_memstream(&line, &len);
	if (!f)
		return;
	/* In the order they apply: the first that matches decides. */
	json_array_foreach(json_object_get(policy, "egress"), i, r)
		fprintf(f, "%s%s %s", i ? ", " : "", json_string_value(json_object_get(r, "action")) ?: "?",
			json_string_value(json_object_get(r, "target")) ?: "?");
	if (fclose(f) == 0)
		json_object_set_new(data, "egress_rules", json_string(line));
	free(line);
}
