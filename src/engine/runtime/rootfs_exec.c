/* What the runtime puts under /.allox (a small read-only tmpfs) and how PID 1
 * is run. argv[0] is a host binary (the agent, e.g. under /work), usually
 * somewhere the sandbox can't see: bind it read-only at /.allox/bin/<name>.
 * In a foreign root (rootfs image) the host's dynamic loader and its library
 * directory come along and the binary runs through the loader, so it works
 * whatever libc the image has; --library-path (not LD_LIBRARY_PATH) keeps the
 * image's own programs on the image's libraries. */
#include "engine/runtime/runtime_internal.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/runtime/disk.h"
#include "lib/fs.h"

/* 1 and the PT_INTERP path in OUT for a dynamic ELF64 binary, else 0. */
static int elf_interp(const char *path, char *out, size_t len)
{
	Elf64_Ehdr eh;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int found = 0;

	if (fd < 0)
		return 0;
	if (pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize >= sizeof(Elf64_Phdr)) {
		for (unsigned i = 0; i < eh.e_phnum && !found; i++) {
			Elf64_Phdr ph;
			off_t at = (off_t)(eh.e_phoff + (Elf64_Off)i * eh.e_phentsize);

			if (pread(fd, &ph, sizeof ph, at) != (ssize_t)sizeof ph)
				break;
			if (ph.p_type != PT_INTERP || ph.p_filesz < 2 || ph.p_filesz >= len)
				continue;
			if (pread(fd, out, ph.p_filesz, (off_t)ph.p_offset) == (ssize_t)ph.p_filesz) {
				out[ph.p_filesz] = '\0';
				found = out[0] == '/';
			}
		}
	}
	close(fd);
	return found;
}

static int bind_loader(const char *exe, const char *allox, ax_rootfs *rf, ax_error *err)
{
	char interp[PATH_MAX], ld[PATH_MAX], libdir[PATH_MAX], dst[PATH_MAX * 2];
	char *slash;

	if (!elf_interp(exe, interp, sizeof interp))
		return 0;
	if (!realpath(interp, ld))
		return ax_fail(err, AX_CODE_RUNTIME, "loader %s of %s: %s", interp, exe, strerror(errno));
	snprintf(libdir, sizeof libdir, "%s", ld);
	slash = strrchr(libdir, '/');
	if (slash && slash != libdir)
		*slash = '\0';
	snprintf(dst, sizeof dst, "%s/ld.so", allox);
	ax_plan_add(&rf->mounts, AX_OP_MKFILE, NULL, dst, NULL);
	ax_plan_add(&rf->mounts, AX_OP_BIND_RO, ld, dst, NULL);
	snprintf(dst, sizeof dst, "%s/lib", allox);
	ax_plan_add(&rf->mounts, AX_OP_MKDIR, NULL, dst, NULL);
	ax_plan_add(&rf->mounts, AX_OP_BIND_RO, libdir, dst, NULL);
	ax_strv_add(&rf->exec, "/.allox/ld.so");
	ax_strv_add(&rf->exec, "--library-path");
	ax_strv_add(&rf->exec, "/.allox/lib");
	return 0;
}

/* The binary's companion module <name>-ext.so beside it (the agent's
 * extension module, src/agent/ext/ext.h), if there is one: bind it read-only
 * beside the binary in /.allox/bin, where the binary dlopen()s it. */
static void bind_ext_module(const char *exe, const char *name, const char *allox, ax_rootfs *rf)
{
	char module[PATH_MAX], dst[PATH_MAX * 2];
	const char *slash = strrchr(exe, '/');
	struct stat st;
	int n;

	n = snprintf(module, sizeof module, "%.*s/%s-ext.so", (int)(slash - exe), exe, name);
	if (n < 0 || (size_t)n >= sizeof module || stat(module, &st) < 0 || !S_ISREG(st.st_mode))
		return;
	snprintf(dst, sizeof dst, "%s/bin/%s-ext.so", allox, name);
	ax_plan_add(&rf->mounts, AX_OP_MKFILE, NULL, dst, NULL);
	ax_plan_add(&rf->mounts, AX_OP_BIND_RO, module, dst, NULL);
}

int ax_agent_plan(const ax_rt_spec *spec, bool foreign_root, ax_rootfs *rf, ax_error *err)
{
	const char *arg0 = spec->argv[0], *name = strrchr(arg0, '/');
	char exe[PATH_MAX], allox[PATH_MAX + 16], dst[PATH_MAX * 2], opts[96];
	struct stat st;

	if (arg0[0] != '/' || !name || !name[1])
		return ax_fail(err, AX_CODE_USAGE, "argv[0] must be an absolute host path: %s", arg0);
	name++;
	if (!realpath(arg0, exe) || stat(exe, &st) < 0)
		return ax_fail(err, AX_CODE_RUNTIME, "cannot run %s: %s", arg0, strerror(errno));
	if (!S_ISREG(st.st_mode) || access(exe, X_OK) < 0)
		return ax_fail(err, AX_CODE_RUNTIME, "cannot run %s: not an executable file", arg0);
	snprintf(allox, sizeof allox, "%s/.allox", rf->merged);
	snprintf(opts, sizeof opts, "mode=0755,uid=%u,gid=%u,size=64k,nr_inodes=64", rf->uid_base, rf->uid_base);
	ax_plan_add(&rf->mounts, AX_OP_TMPFS, NULL, allox, opts);
	snprintf(dst, sizeof dst, "%s/bin", allox);
	ax_plan_add(&rf->mounts, AX_OP_MKDIR, NULL, dst, NULL);
	snprintf(dst, sizeof dst, "%s/bin/%s", allox, name);
	ax_plan_add(&rf->mounts, AX_OP_MKFILE, NULL, dst, NULL);
	ax_plan_add(&rf->mounts, AX_OP_BIND_RO, exe, dst, NULL);
	bind_ext_module(exe, name, allox, rf);
	if (foreign_root && bind_loader(exe, allox, rf, err) < 0)
		return -1;
	ax_strv_addf(&rf->exec, "/.allox/bin/%s", name);
	return 0;
}

/* Lexically normalise an absolute path (".", "..", "//"). */
static void normalize(char *p)
{
	char out[PATH_MAX];
	size_t o = 0;
	const char *s = p;

	while (*s) {
		size_t n;

		while (*s == '/')
			s++;
		n = strcspn(s, "/");
		if (n == 0)
			break;
		if (n == 2 && s[0] == '.' && s[1] == '.') {
			while (o > 0 && out[--o] != '/')
				;
		} else if (!(n == 1 && s[0] == '.') && o + n + 2 < sizeof out) {
			out[o++] = '/';
			memcpy(out + o, s, n);
			o += n;
		}
		s += n;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	memcpy(p, out, o + 1);
}

/* PATH lies under a top-level name the host image shows as on the host. */
static bool exposed(const ax_host_layout *hl, const char *path)
{
	size_t n = strcspn(path + 1, "/");

	for (int i = 0; i < AX_EXPOSED_N; i++)
		if (hl->kind[i] != '-' && strlen(ax_exposed_dirs[i]) == n && strncmp(path + 1, ax_exposed_dirs[i], n) == 0)
			return true;
	return false;
}

/* REL (below the overlay whose upper directory is <SD>/AX_DISK_UPPER/<TOP>)
 * becomes, in this sandbox's fresh upper layer, a symlink to
 * /.allox/resolv.conf, a read-only bind of the host file SRC. */
static int link_and_bind(const char *sd, const char *top, const char *rel, unsigned uid_base, const char *src,
			 ax_rootfs *rf, ax_error *err)
{
	char upper[PATH_MAX * 2], dst[PATH_MAX + 32];
	size_t base;

	base = (size_t)snprintf(upper, sizeof upper, "%s/" AX_DISK_UPPER "/%s/", sd, top);
	snprintf(upper + base, sizeof upper - base, "%s", rel);
	if (ax_mkdir_parent(upper, 0755, err) < 0)
		return -1;
	if (symlink("/.allox/resolv.conf", upper) < 0 && errno != EEXIST)
		return ax_fail(err, AX_CODE_RUNTIME, "cannot create %s: %s", upper, strerror(errno));
	/* What we made in the fresh upper layer belongs to the sandbox's root,
	 * or its /run would be an unwritable stranger's directory inside. */
	for (char *slash = strchr(upper + base, '/'); slash; slash = strchr(slash + 1, '/')) {
		char c = *slash;

		*slash = '\0';
		if (lchown(upper, uid_base, uid_base) < 0) {
			*slash = c;
			return ax_fail(err, AX_CODE_RUNTIME, "cannot set up %s: %s", upper, strerror(errno));
		}
		*slash = c;
	}
	if (lchown(upper, uid_base, uid_base) < 0)
		return ax_fail(err, AX_CODE_RUNTIME, "cannot set up %s: %s", upper, strerror(errno));
	snprintf(dst, sizeof dst, "%s/.allox/resolv.conf", rf->merged);
	ax_plan_add(&rf->mounts, AX_OP_MKFILE, NULL, dst, NULL);
	ax_plan_add(&rf->mounts, AX_OP_BIND_RO, src, dst, NULL);
	return 0;
}

int ax_resolv_own_plan(const char *sd, const ax_host_layout *hl, unsigned uid_base, const char *src, ax_rootfs *rf,
		       ax_error *err)
{
	/* A host image's /etc is an overlay of its own. */
	if (hl && exposed(hl, "/etc"))
		return link_and_bind(sd, "etc", "resolv.conf", uid_base, src, rf, err);
	return link_and_bind(sd, "top", "etc/resolv.conf", uid_base, src, rf, err);
}

/* DNS for host sandboxes. Where /etc/resolv.conf is a symlink into /run
 * (systemd-resolved, NetworkManager), the chain would dangle in the
 * sandbox's empty /run. The first hop that leaves the exposed directories
 * becomes, in this sandbox's layer, a symlink to /.allox/resolv.conf: a
 * read-only bind of the host's file (in-place rewrites show through; a file
 * replaced by rename is seen at the next start, as with Docker's copy).
 * Nothing else of /run is exposed. */
int ax_resolv_plan(const char *sd, const ax_host_layout *hl, unsigned uid_base, ax_rootfs *rf, ax_error *err)
{
	char path[PATH_MAX] = "/etc/resolv.conf", link[PATH_MAX], real[PATH_MAX];
	struct stat st;
	int hop;

	for (hop = 0; hop < 8 && exposed(hl, path); hop++) {
		ssize_t n = readlink(path, link, sizeof link - 1);
		char *slash;

		if (n <= 0)
			return 0;   /* a plain file, or nothing: the overlay shows it as is */
		link[n] = '\0';
		if (link[0] != '/') {
			slash = strrchr(path, '/');
			slash[1] = '\0';
			if (strlen(path) + strlen(link) >= sizeof path)
				return 0;
			strcat(path, link);
		} else {
			snprintf(path, sizeof path, "%s", link);
		}
		normalize(path);
	}
	if (hop == 8 || exposed(hl, path) || !realpath("/etc/resolv.conf", real) || stat(real, &st) < 0 ||
	    !S_ISREG(st.st_mode))
		return 0;
	return link_and_bind(sd, "top", path + 1, uid_base, real, rf, err);
}
