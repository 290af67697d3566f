/* host_path.c: a host volume's directory never resolves out of its allowed
 * prefix, whatever '..' or symlinks the request or the tree hold. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "engine/host_path.h"

static char base[64], prefix[128], outside[128];

static int setup(void **state)
{
	char p[256];

	(void)state;
	snprintf(base, sizeof base, "/tmp/allox-host-path.XXXXXX");
	if (!mkdtemp(base))
		return -1;
	snprintf(prefix, sizeof prefix, "%s/allowed", base);
	snprintf(outside, sizeof outside, "%s/secret", base);
	mkdir(prefix, 0755);
	mkdir(outside, 0755);
	snprintf(p, sizeof p, "%s/dir", prefix);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/dir/sub", prefix);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/abs", prefix);
	if (symlink(outside, p) < 0)
		return -1;
	snprintf(p, sizeof p, "%s/rel", prefix);
	if (symlink("../secret", p) < 0)
		return -1;
	snprintf(p, sizeof p, "%s/within", prefix);
	if (symlink("dir/sub", p) < 0)
		return -1;
	snprintf(p, sizeof p, "%s-sibling", prefix);
	mkdir(p, 0755);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
	return system(cmd) == 0 ? 0 : -1;
}

/* The status of opening PATH/SUB: 0 opened, -1 refused. */
static int try_open(const char *path, const char *sub)
{
	const char *prefixes[] = { prefix, NULL };
	ax_error err;
	int fd = ax_host_path_open(prefixes, path, sub, &err);

	if (fd >= 0)
		close(fd);
	return fd >= 0 ? 0 : -1;
}

static void inside_prefix(void **state)
{
	char p[256];

	(void)state;
	assert_int_equal(try_open(prefix, NULL), 0);
	snprintf(p, sizeof p, "%s/dir", prefix);
	assert_int_equal(try_open(p, "sub"), 0);
	/* A symlink that stays below the prefix is followed. */
	snprintf(p, sizeof p, "%s/within", prefix);
	assert_int_equal(try_open(p, NULL), 0);
}

static void escapes_refused(void **state)
{
	char p[256];

	(void)state;
	assert_int_equal(try_open(outside, NULL), -1);
	snprintf(p, sizeof p, "%s/../secret", prefix);
	assert_int_equal(try_open(p, NULL), -1);
	assert_int_equal(try_open(prefix, "../secret"), -1);
	assert_int_equal(try_open(prefix, "dir/../../secret"), -1);
	assert_int_equal(try_open(prefix, "/etc"), -1);
	snprintf(p, sizeof p, "%s/abs", prefix);
	assert_int_equal(try_open(p, NULL), -1);
	snprintf(p, sizeof p, "%s/rel", prefix);
	assert_int_equal(try_open(p, NULL), -1);
	assert_int_equal(try_open(prefix, "abs"), -1);
	assert_int_equal(try_open(prefix, "rel"), -1);
	/* A name that merely starts like the prefix is not below it. */
	snprintf(p, sizeof p, "%s-sibling", prefix);
	assert_int_equal(try_open(p, NULL), -1);
	assert_int_equal(try_open("relative/path", NULL), -1);
	snprintf(p, sizeof p, "%s//dir", prefix);
	assert_int_equal(try_open(p, NULL), -1);
}

static void clean_paths(void **state)
{
	(void)state;
	assert_true(ax_path_clean("/", 1));
	assert_true(ax_path_clean("/a/b", 1));
	assert_false(ax_path_clean("/a/", 1));
	assert_false(ax_path_clean("/a/./b", 1));
	assert_false(ax_path_clean("/a/../b", 1));
	assert_false(ax_path_clean("a/b", 1));
	assert_true(ax_path_clean("a/b", 0));
	assert_false(ax_path_clean("/a", 0));
	assert_false(ax_path_clean("..", 0));
	assert_true(ax_path_clean("..a", 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(inside_prefix),
		cmocka_unit_test(escapes_refused),
		cmocka_unit_test(clean_paths),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
