/* Detaching other sandboxes' disks from a setup process's mount namespace
 * (disk.h). It runs in the setup child, which shares a threaded engine's
 * memory: system calls and plain loops only, no allocation, no stdio. */
#include "engine/runtime/disk.h"

#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

/* Field K (0-based, space-separated) of LINE[0..LEN), or NULL. */
static const char *field(const char *line, size_t len, int k, size_t *flen)
{
	size_t i = 0;

	for (int f = 0; i < len; f++) {
		size_t start = i;

		while (i < len && line[i] != ' ')
			i++;
		if (f == k) {
			*flen = i - start;
			return line + start;
		}
		if (i < len)
			i++;
	}
	return NULL;
}

static bool octal(const char *p)
{
	return p[0] >= '0' && p[0] <= '3' && p[1] >= '0' && p[1] <= '7' && p[2] >= '0' && p[2] <= '7';
}

bool ax_disk_mountinfo_line(const char *line, size_t len, char *mnt, size_t mnt_len)
{
	static const char sep[] = " - ";
	const char *mp, *rest = NULL, *fstype, *source, *leaf;
	size_t mp_len, fs_len, src_len, o = 0;

	/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [TAG...] - FSTYPE SOURCE SUPEROPTIONS */
	mp = field(line, len, 4, &mp_len);
	if (!mp)
		return false;
	for (size_t i = (size_t)(mp - line) + mp_len; i + sizeof sep - 1 <= len; i++)
		if (memcmp(line + i, sep, sizeof sep - 1) == 0) {
			rest = line + i + sizeof sep - 1;
			break;
		}
	if (!rest)
		return false;
	fstype = field(rest, len - (size_t)(rest - line), 0, &fs_len);
	source = field(rest, len - (size_t)(rest - line), 1, &src_len);
	if (!fstype || !source || fs_len != 4 || memcmp(fstype, "ext4", 4) != 0 || src_len < 9 ||
	    memcmp(source, "/dev/loop", 9) != 0)
		return false;
	/* The kernel writes space, tab, newline and backslash as \ooo. */
	for (size_t i = 0; i < mp_len; i++) {
		char c = mp[i];

		if (c == '\\' && i + 3 < mp_len && octal(mp + i + 1)) {
			c = (char)(((mp[i + 1] - '0') << 6) | ((mp[i + 2] - '0') << 3) | (mp[i + 3] - '0'));
			i += 3;
		}
		if (o + 1 >= mnt_len)
			return false;
		mnt[o++] = c;
	}
	mnt[o] = '\0';
	leaf = strrchr(mnt, '/');
	return leaf && strcmp(leaf + 1, AX_DISK_DIR) == 0;
}

/* One pass over mountinfo; the number of disks detached. */
static int detach_pass(char *buf, size_t len)
{
	char mnt[4096];
	size_t used = 0;
	int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC), n = 0;
	ssize_t got;

	if (fd < 0)
		return 0;
	while ((got = read(fd, buf + used, len - used)) > 0) {
		size_t end = used + (size_t)got, start = 0;

		for (size_t i = 0; i < end; i++) {
			if (buf[i] != '\n')
				continue;
			if (ax_disk_mountinfo_line(buf + start, i - start, mnt, sizeof mnt) &&
			    umount2(mnt, MNT_DETACH | UMOUNT_NOFOLLOW) == 0)
				n++;
			start = i + 1;
		}
		/* Keep the partial last line; a line longer than BUF is skipped. */
		used = start < end ? end - start : 0;
		if (used == len)
			used = 0;
		else
			memmove(buf, buf + start, used);
	}
	close(fd);
	return n;
}

void ax_disk_detach_others(char *buf, size_t len)
{
	/* Unmounting changes the file being read, which may skip a line: read
	 * it again until a pass finds nothing (bounded). */
	for (int pass = 0; pass < 4 && detach_pass(buf, len) > 0; pass++)
		;
}
