/* A sandbox's writable layer on an ext4 image of its own (disk.h).
 *
 * Why an image: this host's file system has no project quota to turn on
 * while mounted, and a size-limited tmpfs would hold the layer in memory,
 * charged to the sandbox's memory limit. mke2fs takes 30-250 ms, more than
 * a whole create, so it runs once per size: each sandbox gets a sparse copy
 * of that template (about 200 KiB of data whatever the size, with no
 * journal and no resize inode; a sandbox's layer does not survive the
 * machine anyway). */
#include "engine/runtime/disk.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/fs.h"
#include "engine/runtime/tool.h"

#define LOOP_CONTROL "/dev/loop-control"

static const char *mke2fs_path(void)
{
	static const char *const paths[] = { "/usr/sbin/mke2fs", "/sbin/mke2fs" };

	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
		if (access(paths[i], X_OK) == 0)
			return paths[i];
	return NULL;
}

/* <DIR>/disk-<BYTES>.img, made when missing. Concurrent makers each write
 * their own temporary file and the last rename wins. */
static int template_get(const char *dir, long long bytes, char *path, size_t len, ax_error *err)
{
	char tmp[PATH_MAX + 64];
	const char *mke2fs;
	int fd;

	snprintf(path, len, "%s/disk-%lld.img", dir, bytes);
	if (access(path, F_OK) == 0)
		return 0;
	mke2fs = mke2fs_path();
	if (!mke2fs)
		return ax_fail(err, AX_CODE_RUNTIME,
			       "mke2fs is not installed (e2fsprogs): it makes the file system that bounds a sandbox's disk");
	if (ax_mkdir_p(dir, 0700, err) < 0)
		return -1;
	snprintf(tmp, sizeof tmp, "%s/.disk-%lld.XXXXXX", dir, bytes);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return ax_fail(err, AX_CODE_IO, "cannot create %s: %s", tmp, strerror(errno));
	if (ftruncate(fd, bytes) < 0) {
		int e = errno;

		close(fd);
		unlink(tmp);
		return ax_fail(err, AX_CODE_IO, "cannot make a %lld-byte disk image in %s: %s", bytes, dir,
			       strerror(e));
	}
	close(fd);
	{
		/* No journal (a layer does not outlive the machine), no resize
		 * inode (the size is fixed): the template's data stays ~200 KiB. */
		char *const argv[] = { (char *)"mke2fs", (char *)"-q", (char *)"-F", (char *)"-t", (char *)"ext4",
				       (char *)"-O", (char *)"^has_journal,^resize_inode", (char *)"-m", (char *)"0",
				       (char *)"-b", (char *)"4096", (char *)"-i", (char *)"16384", (char *)"-I",
				       (char *)"256", (char *)"-E", (char *)"lazy_itable_init=1,nodiscard",
				       (char *)"-L", (char *)"allox-layer", tmp, NULL };

		if (ax_tool_run(mke2fs, argv, "making the disk's file system", err) < 0) {
			unlink(tmp);
			return -1;
		}
	}
	if (rename(tmp, path) < 0) {
		int e = errno;

		unlink(tmp);
		return ax_fail(err, AX_CODE_IO, "cannot create %s: %s", path, strerror(e));
	}
	return 0;
}

/* Copy the data extents of TEMPLATE into a new sparse file IMAGE. */
static int copy_sparse(const char *template, const char *image, ax_error *err)
{
	int in = open(template, O_RDONLY | O_CLOEXEC), out = -1, e = 0;
	struct stat st;
	off_t off = 0;

	if (in < 0 || fstat(in, &st) < 0) {
		e = errno;
		goto out;
	}
	out = open(image, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0 || ftruncate(out, st.st_size) < 0) {
		e = errno;
		goto out;
	}
	for (;;) {
		off_t data = lseek(in, off, SEEK_DATA), hole;

		if (data < 0) {
			e = errno == ENXIO ? 0 : errno;
			break;
		}
		hole = lseek(in, data, SEEK_HOLE);
		if (hole < 0) {
			e = errno;
			break;
		}
		for (off_t from = data, to = data; from < hole;) {
			ssize_t n = copy_file_range(in, &from, out, &to, (size_t)(hole - from), 0);

			if (n <= 0) {
				e = n < 0 ? errno : EIO;
				break;
			}
		}
		if (e)
			break;
		off = hole;
	}
out:
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) < 0 && !e)
		e = errno;
	if (e) {
		if (out >= 0)
			unlink(image);
		return ax_fail(err, AX_CODE_IO, "cannot copy %s to %s: %s", template, image, strerror(e));
	}
	return 0;
}

/* A free loop device backed by IMAGE_FD that detaches itself when its last
 * user (the mount) is gone; its fd, its path in DEV. */
static int loop_attach(int image_fd, char *dev, size_t len, ax_error *err)
{
	int ctl = open(LOOP_CONTROL, O_RDWR | O_CLOEXEC);

	if (ctl < 0) {
		ax_fail(err, AX_CODE_RUNTIME, "cannot open %s (loop devices bound a sandbox's disk): %s",
			LOOP_CONTROL, strerror(errno));
		ax_error_hint(err, "without loop devices, start allox-engine with --default-disk none and create "
			      "sandboxes without a disk size");
		return -1;
	}
	/* Another process may take the free device between the two calls. */
	for (int tries = 0; tries < 32; tries++) {
		struct loop_config cfg;
		int n = ioctl(ctl, LOOP_CTL_GET_FREE), fd;

		if (n < 0)
			break;
		snprintf(dev, len, "/dev/loop%d", n);
		fd = open(dev, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		memset(&cfg, 0, sizeof cfg);
		cfg.fd = (unsigned)image_fd;
		cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR;
		if (ioctl(fd, LOOP_CONFIGURE, &cfg) == 0) {
			close(ctl);
			return fd;
		}
		close(fd);
		if (errno != EBUSY)
			break;
	}
	{
		int e = errno;

		close(ctl);
		return ax_fail(err, AX_CODE_RUNTIME, "cannot set up a loop device for the sandbox's disk: %s",
			       strerror(e));
	}
}

static int mount_image(const char *image, const char *dir, ax_error *err)
{
	char dev[32];
	int img = open(image, O_RDWR | O_CLOEXEC | O_NOFOLLOW), loop;

	if (img < 0)
		return ax_fail(err, AX_CODE_IO, "cannot open %s: %s", image, strerror(errno));
	loop = loop_attach(img, dev, sizeof dev, err);
	close(img);
	if (loop < 0)
		return -1;
	/* discard: what the sandbox deletes is given back to the host (the
	 * loop device punches holes in the image). */
	if (mount(dev, dir, "ext4", MS_NOSUID | MS_NODEV | MS_NOATIME, "noinit_itable,discard") < 0) {
		int e = errno;

		close(loop);
		return ax_fail(err, AX_CODE_RUNTIME, "cannot mount the sandbox's disk %s on %s: %s", dev, dir,
			       strerror(e));
	}
	close(loop);
	return 0;
}

/* DIR is a mount point below PARENT. */
static bool mounted(const char *parent, const char *dir)
{
	struct stat p, d;

	return stat(parent, &p) == 0 && stat(dir, &d) == 0 && p.st_dev != d.st_dev;
}

int ax_disk_setup(const char *state_dir, const char *template_dir, long long bytes, ax_error *err)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], template[PATH_MAX + 64];

	snprintf(dir, sizeof dir, "%s/%s", state_dir, AX_DISK_DIR);
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return ax_fail(err, AX_CODE_RUNTIME, "cannot create %s: %s", dir, strerror(errno));
	if (bytes > 0 && !mounted(state_dir, dir)) {
		snprintf(path, sizeof path, "%s/%s", state_dir, AX_DISK_IMAGE);
		/* A sandbox started again keeps what it wrote. */
		if (access(path, F_OK) < 0 &&
		    (template_get(template_dir, bytes, template, sizeof template, err) < 0 ||
		     copy_sparse(template, path, err) < 0))
			return -1;
		if (mount_image(path, dir, err) < 0)
			return -1;
		/* The file system's root is mke2fs's: root's, 0755, with a lost+found. */
		if (chmod(dir, 0700) < 0)
			return ax_fail(err, AX_CODE_RUNTIME, "cannot set up %s: %s", dir, strerror(errno));
		snprintf(path, sizeof path, "%s/lost+found", dir);
		rmdir(path);
	}
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof path, "%s/%s", state_dir, i ? AX_DISK_WORK : AX_DISK_UPPER);
		if (mkdir(path, 0700) < 0 && errno != EEXIST)
			return ax_fail(err, AX_CODE_RUNTIME, "cannot create %s: %s", path, strerror(errno));
	}
	return 0;
}

int ax_disk_release(const char *state_dir, ax_error *err)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof dir, "%s/%s", state_dir, AX_DISK_DIR);
	/* Lazily: a capture may still be reading it; the loop device goes
	 * with the last user. EINVAL: no disk mounted there. */
	if (umount2(dir, MNT_DETACH | UMOUNT_NOFOLLOW) < 0 && errno != EINVAL && errno != ENOENT)
		return ax_fail(err, AX_CODE_RUNTIME, "cannot unmount %s: %s", dir, strerror(errno));
	return 0;
}

char *ax_disk_upper(const char *state_dir)
{
	char *path = ax_path_join(state_dir, AX_DISK_UPPER);
	struct stat st;

	if (path && lstat(path, &st) < 0 && errno == ENOENT) {
		free(path);
		path = ax_path_join(state_dir, "layer");
	}
	return path;
}
