/* disk_detach.c: which lines of /proc/self/mountinfo are sandbox disks that
 * a setup process detaches from its copy of the host's mounts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "engine/runtime/disk.h"

static bool disk(const char *line, char *mnt, size_t len)
{
	return ax_disk_mountinfo_line(line, strlen(line), mnt, len);
}

static void test_sandbox_disk(void **state)
{
	char mnt[256];

	(void)state;
	assert_true(disk("213 193 7:0 / /var/lib/allox/engine/sandboxes/59f6/writable rw,nosuid,nodev,noatime "
			 "- ext4 /dev/loop0 rw,discard,noinit_itable", mnt, sizeof mnt));
	assert_string_equal(mnt, "/var/lib/allox/engine/sandboxes/59f6/writable");
	/* Optional fields (propagation tags) come before the separator. */
	assert_true(disk("30 26 7:12 / /s/x/writable rw shared:5 master:2 - ext4 /dev/loop12 rw", mnt, sizeof mnt));
	assert_string_equal(mnt, "/s/x/writable");
}

static void test_escapes(void **state)
{
	char mnt[256];

	(void)state;
	/* The kernel writes a space in a path as \040, a backslash as \134. */
	assert_true(disk("1 2 7:1 / /home/a\\040b/c\\134d/writable rw - ext4 /dev/loop1 rw", mnt, sizeof mnt));
	assert_string_equal(mnt, "/home/a b/c\\d/writable");
}

static void test_other_mounts(void **state)
{
	char mnt[256];

	(void)state;
	assert_false(disk("26 1 254:0 / / rw,relatime - ext4 /dev/vda rw", mnt, sizeof mnt));
	/* ext4 on a loop device, but not a sandbox's disk. */
	assert_false(disk("40 26 7:3 / /mnt/images rw - ext4 /dev/loop3 rw", mnt, sizeof mnt));
	assert_false(disk("40 26 7:3 / /mnt/notwritable rw - ext4 /dev/loop3 rw", mnt, sizeof mnt));
	/* A directory named writable that is not an ext4 on a loop device. */
	assert_false(disk("41 26 0:50 / /s/x/writable rw - tmpfs tmpfs rw", mnt, sizeof mnt));
	assert_false(disk("42 26 254:0 / /s/x/writable rw - ext4 /dev/vda rw", mnt, sizeof mnt));
	assert_false(disk("43 26 254:0 / /s/x/writable rw - ext4x /dev/loop1 rw", mnt, sizeof mnt));
}

static void test_malformed(void **state)
{
	char mnt[8];

	(void)state;
	assert_false(disk("", mnt, sizeof mnt));
	assert_false(disk("1 2 3", mnt, sizeof mnt));
	assert_false(disk("1 2 7:1 / /s/writable rw ext4 /dev/loop1 rw", mnt, sizeof mnt));
	assert_false(disk("1 2 7:1 / /s/writable rw -", mnt, sizeof mnt));
	/* A path longer than the buffer is not cut to something else. */
	assert_false(disk("1 2 7:1 / /long/path/writable rw - ext4 /dev/loop1 rw", mnt, sizeof mnt));
	/* An escape cut short is kept as it is. */
	{
		char big[64];

		assert_false(disk("1 2 7:1 / /s/a\\04 rw - ext4 /dev/loop1 rw", big, sizeof big));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sandbox_disk),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_other_mounts),
		cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
