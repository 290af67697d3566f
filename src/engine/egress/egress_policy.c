/* Egress policies: see egress_policy.h. The matching follows OpenSandbox's
 * egress sidecar (first matching rule wins; "*.d" is d's subdomains only),
 * so a policy means the same here as behind a real server. */
#include "engine/egress/egress_policy.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define NAME_MAX_LEN 253

static json_t *fail(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static json_t *fail(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (why && len)
		vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return NULL;
}

/* NAME as a target: lower case, without its trailing dot, into OUT; "" when
 * it is no DNS name (optionally "*."-prefixed). Addresses are refused: the
 * spec's egress MVP takes names only, and an address would bypass DNS. */
static void target_form(const char *name, char out[NAME_MAX_LEN + 2])
{
	size_t n = strlen(name), label = 0, i = 0;
	bool digits_only = true;
	char t[NAME_MAX_LEN + 2];

	out[0] = '\0';
	if (n && name[n - 1] == '.')
		n--;
	if (n == 0 || n > NAME_MAX_LEN)
		return;
	if (n > 2 && name[0] == '*' && name[1] == '.') {
		t[i++] = '*';
		t[i++] = '.';
	}
	for (size_t k = i; k < n; k++) {
		unsigned char c = (unsigned char)name[k];

		if (c == '.') {
			if (label == 0)
				return;
			label = 0;
		} else if (isalnum(c) || c == '-' || c == '_') {
			if (++label > 63)
				return;
			if (!isdigit(c))
				digits_only = false;
		} else {
			return;
		}
		t[i++] = (char)tolower(c);
	}
	if (label == 0 || digits_only)
		return;
	t[i] = '\0';
	memcpy(out, t, i + 1);
}

/* One NetworkRule at POS of an array (for messages) in normal form. */
static json_t *rule_form(const json_t *r, size_t pos, char *why, size_t len)
{
	const char *k, *action, *target;
	char where[48], t[NAME_MAX_LEN + 2];
	json_t *v;

	snprintf(where, sizeof where, "egress[%zu]", pos);
	if (!json_is_object(r))
		return fail(why, len, "%s must be an object with action and target", where);
	json_object_foreach((json_t *)r, k, v)
		if (strcmp(k, "action") != 0 && strcmp(k, "target") != 0) {
			return fail(why, len, "%s.%s is not supported (a rule has action and target only)", where, k);
		}
	action = json_string_value(json_object_get(r, "action"));
	target = json_string_value(json_object_get(r, "target"));
	if (!action || (strcmp(action, "allow") != 0 && strcmp(action, "deny") != 0))
		return fail(why, len, "%s.action must be \"allow\" or \"deny\"", where);
	if (!target)
		return fail(why, len, "%s.target is required: a domain name or *.domain", where);
	target_form(target, t);
	if (!t[0]) {
		return fail(why, len, "%s.target '%.300s' is not a domain name or *.domain (IP and CIDR targets are "
			    "not supported)", where, target);
	}
	return json_pack("{s:s, s:s}", "action", action, "target", t);
}

json_t *ax_policy_rules(const json_t *rules, char *why, size_t why_len)
{
	json_t *out, *r, *one;
	size_t i;

	if (!json_is_array(rules) || json_array_size(rules) == 0)
		return fail(why, why_len, "%s", "the body must be a non-empty array of rules {action, target}");
	out = json_array();
	json_array_foreach(rules, i, r) {
		one = rule_form(r, i, why, why_len);
		if (!one) {
			json_decref(out);
			return NULL;
		}
		json_array_append_new(out, one);
	}
	return out;
}

json_t *ax_policy_normalize(const json_t *given, char *why, size_t why_len)
{
	const json_t *def, *egress;
	const char *k;
	json_t *v, *rules;

	if (!given || json_is_null(given) || (json_is_object(given) && json_object_size(given) == 0))
		return json_pack("{s:s, s:[]}", "defaultAction", "allow", "egress");
	if (!json_is_object(given))
		return fail(why, why_len, "%s", "networkPolicy must be an object");
	json_object_foreach((json_t *)given, k, v)
		if (strcmp(k, "defaultAction") != 0 && strcmp(k, "egress") != 0) {
			return fail(why, why_len, "networkPolicy.%s is not supported (defaultAction and egress are)", k);
		}
	def = json_object_get(given, "defaultAction");
	if (def && !json_is_null(def) &&
	    (!json_is_string(def) || (strcmp(json_string_value(def), "allow") != 0 &&
				       strcmp(json_string_value(def), "deny") != 0)))
		return fail(why, why_len, "%s", "networkPolicy.defaultAction must be \"allow\" or \"deny\"");
	egress = json_object_get(given, "egress");
	if (egress && !json_is_null(egress) && !json_is_array(egress))
		return fail(why, why_len, "%s", "networkPolicy.egress must be an array of rules");
	if (json_array_size(egress)) {
		rules = ax_policy_rules(egress, why, why_len);
		if (!rules) {
			/* Name the create field, not just the rule. */
			char inner[512];

			snprintf(inner, sizeof inner, "%s", why);
			snprintf(why, why_len, "networkPolicy.%s", inner);
			return NULL;
		}
	} else {
		rules = json_array();
	}
	return json_pack("{s:s, s:o}", "defaultAction", json_is_string(def) ? json_string_value(def) : "deny",
			 "egress", rules);
}

/* Whether TARGET (normal form) matches NAME (normal form). */
static bool matches(const char *target, const char *name)
{
	size_t tn, nn;

	if (strncmp(target, "*.", 2) != 0)
		return strcmp(target, name) == 0;
	tn = strlen(target + 1);   /* ".example.com" */
	nn = strlen(name);
	return nn > tn && strcmp(name + nn - tn, target + 1) == 0;
}

bool ax_policy_allows(const json_t *policy, const char *name)
{
	char n[NAME_MAX_LEN + 2];
	size_t len = strlen(name), i;
	json_t *r;

	if (len && name[len - 1] == '.')
		len--;
	if (len > NAME_MAX_LEN)
		return false;
	for (i = 0; i < len; i++)
		n[i] = (char)tolower((unsigned char)name[i]);
	n[len] = '\0';
	json_array_foreach(json_object_get(policy, "egress"), i, r)
		if (matches(json_string_value(json_object_get(r, "target")) ?: "", n))
			return strcmp(json_string_value(json_object_get(r, "action")) ?: "", "allow") == 0;
	return !ax_policy_denies_by_default(policy);
}

static bool has_target(const json_t *rules, const char *target)
{
	size_t i;
	json_t *r;

	json_array_foreach(rules, i, r)
		if (strcmp(json_string_value(json_object_get(r, "target")) ?: "", target) == 0)
			return true;
	return false;
}

json_t *ax_policy_patch(const json_t *policy, const json_t *rules)
{
	json_t *out = json_array(), *r;
	size_t i;

	json_array_foreach(rules, i, r)
		if (!has_target(out, json_string_value(json_object_get(r, "target"))))
			json_array_append(out, r);
	json_array_foreach(json_object_get(policy, "egress"), i, r)
		if (!has_target(rules, json_string_value(json_object_get(r, "target"))))
			json_array_append(out, r);
	return json_pack("{s:O, s:o}", "defaultAction", json_object_get(policy, "defaultAction"), "egress", out);
}

json_t *ax_policy_delete(const json_t *policy, const json_t *targets, char *why, size_t why_len)
{
	json_t *gone = json_array(), *out, *t, *r;
	char form[NAME_MAX_LEN + 2];
	size_t i;

	if (!json_is_array(targets) || json_array_size(targets) == 0) {
		json_decref(gone);
		return fail(why, why_len, "%s", "the body must be a non-empty array of targets");
	}
	json_array_foreach(targets, i, t) {
		if (!json_is_string(t)) {
			json_decref(gone);
			return fail(why, why_len, "targets[%zu] is not a string", i);
		}
		target_form(json_string_value(t), form);
		json_array_append_new(gone, json_pack("{s:s}", "target", form[0] ? form : json_string_value(t)));
	}
	out = json_array();
	json_array_foreach(json_object_get(policy, "egress"), i, r)
		if (!has_target(gone, json_string_value(json_object_get(r, "target"))))
			json_array_append(out, r);
	json_decref(gone);
	return json_pack("{s:O, s:o}", "defaultAction", json_object_get(policy, "defaultAction"), "egress", out);
}

bool ax_policy_denies_by_default(const json_t *policy)
{
	return strcmp(json_string_value(json_object_get(policy, "defaultAction")) ?: "deny", "allow") != 0;
}

const char *ax_policy_mode(const json_t *policy)
{
	return ax_policy_denies_by_default(policy) ? "deny_all" : "allow_all";
}
