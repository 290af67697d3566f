/* untrusted.c: how the engine reads files a sandbox controls. Each test
 * builds a small tree in a temporary directory, as a sandbox could make it
 * in its writable layer, with host files beside it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "engine/runtime/untrusted.h"

static char base[64];   /* the temporary directory */
static char layer[96];  /* base/layer: the root the engine reads below */

static void put(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", base, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void in_base(char *out, size_t len, const char *rel)
{
	snprintf(out, len, "%s/%s", base, rel);
}

static int setup(void **state)
{
	char path[256];

	(void)state;
	snprintf(base, sizeof base, "/tmp/allox-untrusted.XXXXXX");
	if (!mkdtemp(base))
		return -1;
	snprintf(layer, sizeof layer, "%s/layer", base);
	in_base(path, sizeof path, "layer");
	mkdir(path, 0700);
	in_base(path, sizeof path, "layer/run");
	mkdir(path, 0755);
	put("host-secret", "{\"state\":\"failed\",\"error\":\"host\"}");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
	return system(cmd) == 0 ? 0 : -1;
}

/* read REL below the layer: the return code, the text in *DATA. */
static int rd(const char *rel, size_t max, char **data)
{
	int root = ax_untrusted_root(layer), rc;
	ax_error err;
	size_t len;

	assert_true(root >= 0);
	rc = ax_untrusted_read(root, rel, max, data, &len, &err);
	if (rc == 0)
		assert_int_equal(len, strlen(*data));
	else
		assert_null(*data);
	close(root);
	return rc;
}

static void test_regular(void **state)
{
	char *data = NULL;

	(void)state;
	put("layer/run/status.json", "{\"state\":\"running\"}");
	assert_int_equal(rd("run/status.json", 64, &data), 0);
	assert_string_equal(data, "{\"state\":\"running\"}");
	free(data);
	assert_int_equal(rd("run/missing.json", 64, &data), 1);
	assert_int_equal(ax_untrusted_type(layer, "run"), S_IFDIR);
	assert_int_equal(ax_untrusted_type(layer, "run/status.json"), S_IFREG);
	assert_int_equal(ax_untrusted_type(layer, "run/missing.json"), 0);
}

static void test_symlinks_refused(void **state)
{
	char path[256], target[256];
	char *data = NULL;

	(void)state;
	/* The last component, absolute and relative, and one on the way. */
	in_base(path, sizeof path, "layer/run/abs");
	in_base(target, sizeof target, "host-secret");
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(rd("run/abs", 4096, &data), -1);
	in_base(path, sizeof path, "layer/run/rel");
	assert_int_equal(symlink("../../host-secret", path), 0);
	assert_int_equal(rd("run/rel", 4096, &data), -1);
	in_base(path, sizeof path, "layer/dir");
	assert_int_equal(symlink(base, path), 0);
	assert_int_equal(rd("dir/host-secret", 4096, &data), -1);
	assert_int_equal(ax_untrusted_type(layer, "dir"), S_IFLNK);
	assert_int_equal(ax_untrusted_type(layer, "dir/host-secret"), 0);
	/* ".." stays below the root: the host file is not found there. */
	assert_int_equal(rd("../host-secret", 4096, &data), 1);
	assert_int_equal(rd("/host-secret", 4096, &data), 1);
}

static void test_special_files_refused(void **state)
{
	char path[256];
	char *data = NULL;

	(void)state;
	/* A FIFO nobody writes to: refused at once, not waited on. */
	in_base(path, sizeof path, "layer/run/fifo");
	assert_int_equal(mkfifo(path, 0644), 0);
	assert_int_equal(rd("run/fifo", 4096, &data), -1);
	assert_int_equal(ax_untrusted_type(layer, "run/fifo"), S_IFIFO);
	assert_int_equal(rd("run", 4096, &data), -1);
}

static void test_size_cap(void **state)
{
	char *data = NULL, big[129];

	(void)state;
	memset(big, 'x', 128);
	big[128] = '\0';
	put("layer/run/big", big);
	assert_int_equal(rd("run/big", 127, &data), -1);
	assert_int_equal(rd("run/big", 128, &data), 0);
	assert_int_equal(strlen(data), 128);
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_regular, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlinks_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_special_files_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_size_cap, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
