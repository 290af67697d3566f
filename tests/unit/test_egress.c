/* Egress policies (egress_policy.c), the resolver's DNS messages
 * (egress_dns.c) and its hosts file (egress_upstream.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <arpa/nameser.h>
#include <resolv.h>
#include <sys/socket.h>

#include "engine/egress/egress_dns.h"
#include "engine/egress/egress_policy.h"
#include "engine/egress/egress_upstream.h"

static json_t *policy(const char *text)
{
	json_t *given = json_loads(text, 0, NULL), *p;
	char why[256];

	p = ax_policy_normalize(given, why, sizeof why);
	json_decref(given);
	if (!p)
		fail_msg("%s: %s", text, why);
	return p;
}

static void refused(const char *text, const char *needle)
{
	json_t *given = json_loads(text, 0, NULL);
	char why[256] = "";

	assert_null(ax_policy_normalize(given, why, sizeof why));
	if (!strstr(why, needle))
		fail_msg("%s: '%s' lacks '%s'", text, why, needle);
	json_decref(given);
}

static void test_defaults(void **state)
{
	json_t *p;

	(void)state;
	/* null and {} allow everything; an absent defaultAction denies. */
	p = ax_policy_normalize(json_null(), NULL, 0);
	assert_string_equal(ax_policy_mode(p), "allow_all");
	assert_true(ax_policy_allows(p, "anything.example"));
	json_decref(p);
	p = policy("{}");
	assert_true(ax_policy_allows(p, "x.y"));
	json_decref(p);
	p = policy("{\"egress\": [{\"action\": \"allow\", \"target\": \"Pypi.ORG.\"}]}");
	assert_string_equal(ax_policy_mode(p), "deny_all");
	assert_true(ax_policy_allows(p, "pypi.org"));
	assert_true(ax_policy_allows(p, "PYPI.org."));
	assert_false(ax_policy_allows(p, "files.pypi.org"));
	assert_false(ax_policy_allows(p, "example.com"));
	json_decref(p);
}

static void test_wildcards_and_order(void **state)
{
	json_t *p;

	(void)state;
	p = policy("{\"defaultAction\": \"deny\", \"egress\": ["
		   "{\"action\": \"deny\", \"target\": \"bad.example.com\"},"
		   "{\"action\": \"allow\", \"target\": \"*.example.com\"}]}");
	assert_true(ax_policy_allows(p, "a.example.com"));
	assert_true(ax_policy_allows(p, "a.b.example.com"));
	assert_false(ax_policy_allows(p, "example.com"));        /* the wildcard is subdomains only */
	assert_false(ax_policy_allows(p, "bad.example.com"));    /* the first match wins */
	assert_false(ax_policy_allows(p, "xexample.com"));
	json_decref(p);
	p = policy("{\"defaultAction\": \"allow\", \"egress\": [{\"action\": \"deny\", \"target\": \"*.ads.test\"}]}");
	assert_false(ax_policy_allows(p, "x.ads.test"));
	assert_true(ax_policy_allows(p, "ads.test"));
	assert_true(ax_policy_allows(p, "other.test"));
	json_decref(p);
}

static void test_refused(void **state)
{
	(void)state;
	refused("[]", "networkPolicy must be an object");
	refused("{\"mode\": \"x\"}", "networkPolicy.mode");
	refused("{\"defaultAction\": \"block\"}", "networkPolicy.defaultAction");
	refused("{\"egress\": {}}", "networkPolicy.egress");
	refused("{\"egress\": [{\"action\": \"allow\"}]}", "networkPolicy.egress[0].target");
	refused("{\"egress\": [{\"action\": \"allow\", \"target\": \"a.b\", \"ports\": [443]}]}",
		"networkPolicy.egress[0].ports");
	refused("{\"egress\": [{\"action\": \"maybe\", \"target\": \"a.b\"}]}", "egress[0].action");
	refused("{\"egress\": [{\"action\": \"allow\", \"target\": \"10.0.0.1\"}]}", "IP and CIDR");
	refused("{\"egress\": [{\"action\": \"allow\", \"target\": \"10.0.0.0/8\"}]}", "IP and CIDR");
	refused("{\"egress\": [{\"action\": \"allow\", \"target\": \"*\"}]}", "egress[0].target");
	refused("{\"egress\": [{\"action\": \"allow\", \"target\": \"a..b\"}]}", "egress[0].target");
}

static void test_patch_and_delete(void **state)
{
	json_t *p = policy("{\"defaultAction\": \"deny\", \"egress\": ["
			   "{\"action\": \"allow\", \"target\": \"a.test\"},"
			   "{\"action\": \"allow\", \"target\": \"b.test\"}]}");
	json_t *body = json_loads("[{\"action\": \"deny\", \"target\": \"A.test\"},"
				  "{\"action\": \"allow\", \"target\": \"a.test\"},"
				  "{\"action\": \"allow\", \"target\": \"c.test\"}]", 0, NULL);
	json_t *rules, *next, *gone, *targets;
	char why[256];

	(void)state;
	rules = ax_policy_rules(body, why, sizeof why);
	assert_non_null(rules);
	next = ax_policy_patch(p, rules);
	/* Incoming first (the first of a target wins), then the rest. */
	assert_int_equal(json_array_size(json_object_get(next, "egress")), 3);
	assert_false(ax_policy_allows(next, "a.test"));
	assert_true(ax_policy_allows(next, "b.test"));
	assert_true(ax_policy_allows(next, "c.test"));
	assert_string_equal(json_string_value(json_object_get(next, "defaultAction")), "deny");
	targets = json_loads("[\"a.test\", \"nothing.test\"]", 0, NULL);
	gone = ax_policy_delete(next, targets, why, sizeof why);
	assert_non_null(gone);
	assert_int_equal(json_array_size(json_object_get(gone, "egress")), 2);
	assert_false(ax_policy_allows(gone, "a.test"));   /* back to the default */
	json_decref(targets);
	targets = json_loads("[]", 0, NULL);
	assert_null(ax_policy_delete(next, targets, why, sizeof why));
	json_decref(targets);
	json_decref(body);
	body = json_loads("[]", 0, NULL);
	assert_null(ax_policy_rules(body, why, sizeof why));
	json_decref(body);
	json_decref(gone);
	json_decref(next);
	json_decref(rules);
	json_decref(p);
}

static void test_dns_messages(void **state)
{
	unsigned char q[512], ans[512];
	char name[AX_DNS_NAME_MAX];
	ax_dns_addr addrs[3], back[4];
	int qlen, qtype;
	size_t alen;

	(void)state;
	qlen = res_mkquery(ns_o_query, "Allowed.Test", ns_c_in, ns_t_a, NULL, 0, NULL, q, sizeof q);
	assert_true(qlen > 0);
	assert_int_equal(ax_dns_question(q, (size_t)qlen, name, &qtype), 0);
	assert_string_equal(name, "Allowed.Test");
	assert_int_equal(qtype, ns_t_a);
	memset(addrs, 0, sizeof addrs);
	addrs[0].family = AF_INET;
	inet_pton(AF_INET, "10.1.2.3", addrs[0].a);
	addrs[1].family = AF_INET6;
	inet_pton(AF_INET6, "fd00::1", addrs[1].a);
	addrs[2].family = AF_INET;
	inet_pton(AF_INET, "10.1.2.4", addrs[2].a);
	alen = ax_dns_reply(q, (size_t)qlen, ns_r_noerror, addrs, 3, 60, ans, sizeof ans);
	assert_true(alen > (size_t)qlen);
	/* The A question gets the two IPv4 addresses, with the query's id. */
	assert_int_equal(ax_dns_answer_addrs(ans, alen, back, 4), 2);
	assert_memory_equal(back[1].a, addrs[2].a, 4);
	assert_memory_equal(ans, q, 2);
	assert_true(ans[2] & 0x80);
	/* A refusal: NXDOMAIN, no answers. */
	alen = ax_dns_reply(q, (size_t)qlen, ns_r_nxdomain, NULL, 0, 0, ans, sizeof ans);
	assert_int_equal(ans[3] & 0x0f, ns_r_nxdomain);
	assert_int_equal(ax_dns_answer_addrs(ans, alen, back, 4), 0);
	/* Not a query: an answer, or garbage. */
	assert_int_equal(ax_dns_question(ans, alen, name, &qtype), -1);
	assert_int_equal(ax_dns_question(q, 5, name, &qtype), -1);
	/* Too small a buffer: nothing. */
	assert_int_equal(ax_dns_reply(q, (size_t)qlen, 0, addrs, 3, 60, ans, 10), 0);
}

static void test_hosts_file(void **state)
{
	char path[] = "/tmp/test_egress_hostsXXXXXX";
	int fd = mkstemp(path);
	ax_dns_addr a[4];
	FILE *f;

	(void)state;
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs("# a comment\n10.9.0.1 one.test One.Alias # trailing\nfd00::2 one.test\n10.9.0.3\tthree.test\n", f);
	fclose(f);
	assert_int_equal(ax_hosts_lookup(path, "one.test", a, 4), 2);
	assert_int_equal(a[0].family, AF_INET);
	assert_int_equal(a[1].family, AF_INET6);
	assert_int_equal(ax_hosts_lookup(path, "one.alias.", a, 4), 1);
	assert_int_equal(ax_hosts_lookup(path, "THREE.test", a, 4), 1);
	assert_int_equal(ax_hosts_lookup(path, "four.test", a, 4), -1);
	assert_int_equal(ax_hosts_lookup("/nonexistent/hosts", "one.test", a, 4), -1);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_wildcards_and_order),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_patch_and_delete),
		cmocka_unit_test(test_dns_messages),
		cmocka_unit_test(test_hosts_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
