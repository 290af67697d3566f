/* The seccomp filter of every local sandbox: Docker's default profile turned
 * inside out. Docker allows a list and denies the rest; a sandbox here runs
 * whatever an image brings, so everything is allowed but the calls Docker
 * denies to a container without extra capabilities that matter here (mounts,
 * keys, modules, clocks, new user namespaces, ...), which fail with EPERM as
 * under Docker. The kernel checks capabilities too, but against the sandbox's
 * own user namespace, where its root holds them: the filter is what keeps
 * that root from mounting and unmounting (and so from uncovering masked
 * paths), and it keeps code that needs no capability at all (bpf, perf,
 * io_uring, userfaultfd) away from the kernel's riskiest interfaces. ptrace and process_vm_readv/writev stay allowed, as
 * under Docker since Linux 4.8 (the filter sees a call again after a tracer
 * changed it, so tracing cannot get around it).
 *
 * Only the native ABI is allowed: an x32 or i386 (int $0x80) system call
 * kills the process. A denylist compares numbers, and those ABIs number
 * their calls differently; the i386 socketcall(2) multiplexer hides
 * socket()'s arguments in memory, and calls newer than libseccomp (such as
 * open_tree_attr) can be named only natively. Killing the other ABIs closes
 * all of that at once, as systemd's SystemCallArchitectures=native does, at
 * the price of 32-bit x86 binaries, which cannot run in a sandbox (nor run
 * under gVisor).
 *
 * The program is exported as raw struct sock_filter[] for bubblewrap, which
 * sets no_new_privs itself before PR_SET_SECCOMP (libseccomp's NNP attribute
 * only matters to seccomp_load(), which we never call). */
#include "engine/runtime/seccomp_filter.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <unistd.h>

/* open_tree_attr (Linux 6.15) is open_tree() plus mount_setattr() on the
 * copy, and newer than libseccomp 2.5. Calls added since Linux 5.1 share one
 * number on x86_64, arm64 and the other unified tables. */
#ifdef __SNR_open_tree_attr
#define NR_OPEN_TREE_ATTR SCMP_SYS(open_tree_attr)
#elif defined(__x86_64__) || defined(__aarch64__)
#define NR_OPEN_TREE_ATTR 467
#endif

/* Denied outright. */
static const int deny[] = {
	/* Mounts, by either API: no tmpfs, proc, cgroup or bind mount inside,
	 * even for the root of a nested user namespace, and no detached copy
	 * of a mount (cloned without its submounts, a tree shows what the
	 * sandbox's masks cover). */
	SCMP_SYS(mount), SCMP_SYS(umount2), SCMP_SYS(pivot_root),
	SCMP_SYS(fsopen), SCMP_SYS(fsconfig), SCMP_SYS(fsmount), SCMP_SYS(fspick),
	SCMP_SYS(move_mount), SCMP_SYS(open_tree), SCMP_SYS(mount_setattr),
#ifdef NR_OPEN_TREE_ATTR
	NR_OPEN_TREE_ATTR,
#endif
	/* Joining another namespace is never needed inside. */
	SCMP_SYS(setns),
	/* Keyrings are not namespaced: keys would be shared with the host. */
	SCMP_SYS(keyctl), SCMP_SYS(add_key), SCMP_SYS(request_key),
	/* Open to every user (or nearly) and the source of many kernel
	 * exploits; Docker denies io_uring since 25.0, and libuv and others
	 * fall back to threads on EPERM. */
	SCMP_SYS(bpf), SCMP_SYS(perf_event_open), SCMP_SYS(userfaultfd),
	SCMP_SYS(io_uring_setup), SCMP_SYS(io_uring_enter), SCMP_SYS(io_uring_register),
	/* The host's kernel. */
	SCMP_SYS(init_module), SCMP_SYS(finit_module), SCMP_SYS(delete_module),
	SCMP_SYS(kexec_load), SCMP_SYS(kexec_file_load), SCMP_SYS(reboot),
	/* The host's clocks. adjtimex and clock_adjtime only read with modes 0,
	 * but the modes are in memory, out of the filter's sight. */
	SCMP_SYS(clock_settime), SCMP_SYS(clock_adjtime), SCMP_SYS(settimeofday), SCMP_SYS(adjtimex),
	/* Host-wide state. */
	SCMP_SYS(swapon), SCMP_SYS(swapoff), SCMP_SYS(acct), SCMP_SYS(quotactl), SCMP_SYS(quotactl_fd),
	SCMP_SYS(lookup_dcookie), SCMP_SYS(nfsservctl),
	/* Opens a file by handle, outside any bind mount ("shocker"). */
	SCMP_SYS(open_by_handle_at),
	/* I/O ports. */
	SCMP_SYS(iopl), SCMP_SYS(ioperm),
	/* i386's stime, vm86, vm86old, umount and clock_*64 need no rule: that
	 * ABI is killed. */
};

/* Socket families whose sockets reach past the network namespace (vsock
 * talks to the hypervisor's host) or into the kernel's crypto code (AF_ALG),
 * denied as by Docker; and AF_PACKET, whose raw frames would reach the
 * user-mode stack past the namespace's routes (netns.c), so a sandbox could
 * make it connect where those routes forbid. */
static const int deny_family[] = { AF_VSOCK, AF_ALG, AF_PACKET };

/* The personality(2) flags Docker allows (besides PER_LINUX, 0, and the
 * 0xffffffff query): no ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC, MMAP_PAGE_ZERO
 * and the like. */
#define PERSONA_FREE_BITS ((uint64_t)(PER_LINUX32 | UNAME26))

static int add_rule(scmp_filter_ctx ctx, uint32_t action, int nr, unsigned int n,
		    const struct scmp_arg_cmp *cmp, ax_error *err)
{
	int rc = seccomp_rule_add_array(ctx, action, nr, n, cmp);
	char *name;

	if (rc == 0)
		return 0;
	name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
	ax_fail(err, AX_CODE_RUNTIME, "seccomp: cannot add the rule for %s (%d): %s",
		name ? name : "system call", nr, strerror(-rc));
	free(name);
	return -1;
}

/* personality(2) as under Docker. The kernel takes the low 32 bits, which
 * must be PERSONA_FREE_BITS or fewer, or the query. A rule may compare an
 * argument only once, so the values outside that set are covered by masked
 * compares of the low 32 bits, in two families. With bit 0 set, a value that
 * is not the query has a lowest clear bit b in 1..31 (31 rules: bits 0..b-1
 * set, bit b clear). With bit 0 clear, a value outside the set has some other
 * bit set that is not a free one (29 rules). Only personality() calls run
 * these compares. */
static int add_personality_rules(scmp_filter_ctx ctx, uint32_t action, ax_error *err)
{
	for (unsigned int b = 1; b < 32; b++) {
		uint64_t mask = ((uint64_t)2 << b) - 1, ones = ((uint64_t)1 << b) - 1;
		struct scmp_arg_cmp low_clear = SCMP_A0(SCMP_CMP_MASKED_EQ, mask, ones);

		if (add_rule(ctx, action, SCMP_SYS(personality), 1, &low_clear, err) < 0)
			return -1;
	}
	for (unsigned int b = 1; b < 32; b++) {
		uint64_t bit = (uint64_t)1 << b;
		struct scmp_arg_cmp other_set = SCMP_A0(SCMP_CMP_MASKED_EQ, bit | 1, bit);

		if (bit & PERSONA_FREE_BITS)
			continue;
		if (add_rule(ctx, action, SCMP_SYS(personality), 1, &other_set, err) < 0)
			return -1;
	}
	return 0;
}

static int add_rules(scmp_filter_ctx ctx, bool allow_nesting, ax_error *err)
{
	const uint32_t eperm = SCMP_ACT_ERRNO(EPERM);

	for (size_t i = 0; i < sizeof deny / sizeof deny[0]; i++)
		if (add_rule(ctx, eperm, deny[i], 0, NULL, err) < 0)
			return -1;
	for (size_t i = 0; i < sizeof deny_family / sizeof deny_family[0]; i++) {
		/* The family is an int: high bits must not hide it. */
		struct scmp_arg_cmp family = SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffu, (uint64_t)deny_family[i]);

		if (add_rule(ctx, eperm, SCMP_SYS(socket), 1, &family, err) < 0)
			return -1;
	}
	if (add_personality_rules(ctx, eperm, err) < 0)
		return -1;
	if (!allow_nesting) {
		/* clone's flags are its first argument on x86 (not on s390). */
		struct scmp_arg_cmp newuser = SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER);

		if (add_rule(ctx, eperm, SCMP_SYS(unshare), 1, &newuser, err) < 0 ||
		    add_rule(ctx, eperm, SCMP_SYS(clone), 1, &newuser, err) < 0)
			return -1;
		/* clone3's flags are in memory, out of the filter's sight. ENOSYS,
		 * as under Docker and crun, makes glibc fall back to clone(). With
		 * nesting there is nothing to look for, and clone3 stays. */
		if (add_rule(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0, NULL, err) < 0)
			return -1;
	}
	return 0;
}

static int export_sealed(scmp_filter_ctx ctx, ax_error *err)
{
	int fd = memfd_create("allox-seccomp", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	int rc;

	if (fd < 0)
		return ax_fail(err, AX_CODE_RUNTIME, "seccomp: cannot create a memfd: %s", strerror(errno));
	rc = seccomp_export_bpf(ctx, fd);
	if (rc < 0) {
		ax_fail(err, AX_CODE_RUNTIME, "seccomp: cannot export the filter: %s", strerror(-rc));
		close(fd);
		return -1;
	}
	/* Sealed, the program is the one built here for as long as the fd
	 * lives, whoever else holds it. */
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) < 0 ||
	    lseek(fd, 0, SEEK_SET) != 0) {
		ax_fail(err, AX_CODE_RUNTIME, "seccomp: cannot seal the filter: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int ax_seccomp_filter_fd(bool allow_nesting, ax_error *err)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int fd = -1;
	int rc;

	if (!ctx)
		return ax_fail(err, AX_CODE_RUNTIME, "seccomp: cannot create a filter");
	/* libseccomp offers KILL_PROCESS only when it saw the kernel's
	 * seccomp() answer (not under valgrind, say). KILL_THREAD stops the
	 * call just as well; the process's other threads live on. */
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (rc == -EINVAL)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_THREAD);
	if (rc < 0)
		ax_fail(err, AX_CODE_RUNTIME, "seccomp: cannot set the other ABIs' action: %s", strerror(-rc));
	else if (add_rules(ctx, allow_nesting, err) == 0)
		fd = export_sealed(ctx, err);
	seccomp_release(ctx);
	return fd;
}
