/* ax_seccomp_filter_fd: the filter every local sandbox runs under.
 *
 * Each case forks a child that reads nothing but the program bwrap would read
 * from the fd, applies it as bwrap does (PR_SET_NO_NEW_PRIVS, then
 * PR_SET_SECCOMP), makes one call and exits with its errno. A denial only
 * counts when the same call without the filter does not fail with the same
 * errno (run as root, the calls' arguments make the kernel answer EFAULT,
 * EINVAL or EBADF, and change nothing). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/runtime/seccomp_filter.h"

#ifndef __X32_SYSCALL_BIT
#define __X32_SYSCALL_BIT 0x40000000L
#endif
#define NR_OPEN_TREE_ATTR 467
#define I386_GETPID 20
#define I386_MOUNT 21
#define X86_64_MOUNT 165
#define X86_64_GETPID 39

/* The child's exit status for "died of signal S" and "could not apply". */
#define KILLED(s) (1000 + (s))
#define NOT_APPLIED 255

static struct sock_fprog plain, nesting;

/* Valgrind answers the calls it does not know (x32 ones, int $0x80, clone3,
 * seccomp() itself) with ENOSYS without asking the kernel, whose answers
 * these tests are about; under it, only the fd is checked. */
static void kernel_only(void)
{
	const char *preload = getenv("LD_PRELOAD");

	if (preload && strstr(preload, "vgpreload"))
		skip();
}

/* What bwrap does with the fd: read() it whole from where it stands. */
static void read_program(bool allow_nesting, struct sock_fprog *prog)
{
	ax_error err = { 0 };
	int fd = ax_seccomp_filter_fd(allow_nesting, &err);
	char *buf = NULL;
	size_t len = 0, cap = 0;
	ssize_t n;

	assert_true(fd >= 0);
	do {
		if (len == cap) {
			char *bigger;

			cap = cap ? cap * 2 : 4096;
			bigger = realloc(buf, cap);
			assert_non_null(bigger);
			buf = bigger;
		}
		n = read(fd, buf + len, cap - len);
		assert_true(n >= 0);
		len += (size_t)n;
	} while (n > 0);
	close(fd);
	assert_true(len > 0 && len % sizeof(struct sock_filter) == 0);
	assert_true(len / sizeof(struct sock_filter) <= BPF_MAXINSNS);
	prog->len = (unsigned short)(len / sizeof(struct sock_filter));
	prog->filter = (struct sock_filter *)buf;
}

static int setup(void **state)
{
	(void)state;
	read_program(false, &plain);
	read_program(true, &nesting);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(plain.filter);
	free(nesting.filter);
	return 0;
}

/* One call in a child under PROG (none when NULL): its errno, 0 for success,
 * or KILLED(signal). */
typedef struct call {
	const char *name;
	long nr;
	long a[6];
} call;

static int call_errno(const call *c)
{
	errno = 0;
	if (syscall(c->nr, c->a[0], c->a[1], c->a[2], c->a[3], c->a[4], c->a[5]) < 0)
		return errno;
	return 0;
}

static int run(const struct sock_fprog *prog, int (*fn)(const void *), const void *arg)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0) {
		/* cmocka catches these to report a crashed test; in the child
		 * that would run the rest of the suite. */
		static const int crash[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGSYS };

		for (size_t i = 0; i < sizeof crash / sizeof crash[0]; i++)
			signal(crash[i], SIG_DFL);
		if (prog && (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
			     prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, prog) < 0))
			_exit(NOT_APPLIED);
		_exit(fn(arg));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		return KILLED(WTERMSIG(status));
	assert_true(WIFEXITED(status));
	assert_int_not_equal(WEXITSTATUS(status), NOT_APPLIED);
	return WEXITSTATUS(status);
}

static int call_fn(const void *arg)
{
	return call_errno(arg);
}

static int run_call(const struct sock_fprog *prog, const call *c)
{
	return run(prog, call_fn, c);
}

/* C fails with WANT under PROG; false (with a note) when it fails so
 * without the filter too, and the case proves nothing. */
static bool expect_call(const struct sock_fprog *prog, const call *c, int want)
{
	int base = run_call(NULL, c), got = run_call(prog, c);

	if (base == want) {
		print_message("  %s: %s without the filter too, not checked\n", c->name, strerror(want));
		return false;
	}
	if (got != want)
		fail_msg("%s: want %s, got %d (%s); without the filter %d", c->name, strerror(want), got,
			 got < 1000 ? strerror(got) : "signal", base);
	return true;
}

static const call denied[] = {
	{ "mount", SYS_mount, { 0 } },
	{ "umount2", SYS_umount2, { 0 } },
	{ "pivot_root", SYS_pivot_root, { 0 } },
	{ "fsopen", SYS_fsopen, { 0 } },
	{ "fsconfig", SYS_fsconfig, { -1 } },
	{ "fsmount", SYS_fsmount, { -1 } },
	{ "fspick", SYS_fspick, { -1 } },
	{ "move_mount", SYS_move_mount, { -1, 0, -1 } },
	{ "open_tree", SYS_open_tree, { -1 } },
	{ "open_tree_attr", NR_OPEN_TREE_ATTR, { -1 } },
	{ "mount_setattr", SYS_mount_setattr, { -1 } },
	{ "setns", SYS_setns, { -1 } },
	{ "keyctl", SYS_keyctl, { -1 } },
	{ "add_key", SYS_add_key, { 0 } },
	{ "request_key", SYS_request_key, { 0 } },
	{ "bpf", SYS_bpf, { -1 } },
	{ "perf_event_open", SYS_perf_event_open, { 0, 0, -1, -1 } },
	{ "userfaultfd", SYS_userfaultfd, { -1 } },
	{ "io_uring_setup", SYS_io_uring_setup, { 0 } },
	{ "io_uring_enter", SYS_io_uring_enter, { -1 } },
	{ "io_uring_register", SYS_io_uring_register, { -1 } },
	{ "init_module", SYS_init_module, { 0 } },
	{ "finit_module", SYS_finit_module, { -1 } },
	{ "delete_module", SYS_delete_module, { 0 } },
	/* More segments than the kernel takes: nothing is unloaded. */
	{ "kexec_load", SYS_kexec_load, { 0, 1000 } },
	{ "kexec_file_load", SYS_kexec_file_load, { -1, -1, 0, 0, 0x8000 } },
	/* Magic numbers that do not match. */
	{ "reboot", SYS_reboot, { 0 } },
	{ "clock_settime", SYS_clock_settime, { CLOCK_REALTIME, 0 } },
	{ "clock_adjtime", SYS_clock_adjtime, { CLOCK_REALTIME, 0 } },
	/* Neither time nor zone: a no-op. */
	{ "settimeofday", SYS_settimeofday, { 0, 0 } },
	{ "adjtimex", SYS_adjtimex, { 0 } },
	{ "swapon", SYS_swapon, { 0 } },
	{ "swapoff", SYS_swapoff, { 0 } },
	/* A bad name, not NULL, which would stop accounting. */
	{ "acct", SYS_acct, { 1 } },
	{ "quotactl", SYS_quotactl, { 0 } },
	{ "quotactl_fd", SYS_quotactl_fd, { -1 } },
	{ "lookup_dcookie", SYS_lookup_dcookie, { 0 } },
	{ "nfsservctl", SYS_nfsservctl, { 0 } },
	{ "open_by_handle_at", SYS_open_by_handle_at, { -1 } },
	{ "iopl", SYS_iopl, { 4 } },
	{ "ioperm", SYS_ioperm, { 0x10000, 1, 0 } },
	{ "socket AF_VSOCK", SYS_socket, { AF_VSOCK, SOCK_STREAM } },
	{ "socket AF_ALG", SYS_socket, { AF_ALG, SOCK_SEQPACKET } },
	{ "socket AF_PACKET", SYS_socket, { AF_PACKET, SOCK_RAW } },
	/* The kernel reads an int: the high half must not hide the family. */
	{ "socket AF_VSOCK | 1 << 32", SYS_socket, { AF_VSOCK | (1L << 32), SOCK_STREAM } },
	/* Docker's personality rule. */
	{ "personality ADDR_NO_RANDOMIZE", SYS_personality, { ADDR_NO_RANDOMIZE } },
	{ "personality READ_IMPLIES_EXEC", SYS_personality, { READ_IMPLIES_EXEC } },
	{ "personality PER_LINUX32 | ADDR_NO_RANDOMIZE", SYS_personality, { PER_LINUX32 | ADDR_NO_RANDOMIZE } },
	{ "personality 1 << 32 | ADDR_NO_RANDOMIZE", SYS_personality, { (1L << 32) | ADDR_NO_RANDOMIZE } },
};

static void check_denied(const struct sock_fprog *prog)
{
	size_t checked = 0;

	for (size_t i = 0; i < sizeof denied / sizeof denied[0]; i++)
		checked += expect_call(prog, &denied[i], EPERM);
	/* Most must have been checked, as root anyway. */
	if (geteuid() == 0)
		assert_true(checked >= sizeof denied / sizeof denied[0] - 4);
}

static void test_denied(void **state)
{
	(void)state;
	kernel_only();
	check_denied(&plain);
}

/* Nesting allows user namespaces, nothing else. */
static void test_denied_with_nesting(void **state)
{
	(void)state;
	kernel_only();
	check_denied(&nesting);
}

static void test_fd(void **state)
{
	ax_error err = { 0 };
	int fd = ax_seccomp_filter_fd(false, &err);
	struct stat st;
	char c = 0;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(fcntl(fd, F_GETFD), FD_CLOEXEC);
	assert_int_equal(fcntl(fd, F_GET_SEALS), F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL);
	assert_int_equal(lseek(fd, 0, SEEK_CUR), 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, (off_t)plain.len * (off_t)sizeof(struct sock_filter));
	assert_int_equal(pwrite(fd, &c, 1, 0), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(ftruncate(fd, 0), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(fcntl(fd, F_ADD_SEALS, 0), -1);
	close(fd);
	/* The same program whenever it is asked for. */
	fd = ax_seccomp_filter_fd(false, &err);
	assert_true(fd >= 0);
	{
		char *again = malloc(st.st_size);

		assert_non_null(again);
		assert_int_equal(read(fd, again, st.st_size), st.st_size);
		assert_memory_equal(again, plain.filter, st.st_size);
		free(again);
	}
	close(fd);
}

static int clone_newuser(const void *arg)
{
	long pid;

	(void)arg;
	errno = 0;
	pid = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return errno;
	return waitpid((pid_t)pid, NULL, 0) == pid ? 0 : 100;
}

static const call unshare_user = { "unshare(CLONE_NEWUSER)", SYS_unshare, { CLONE_NEWUSER } };
static const call unshare_user_ns = { "unshare(CLONE_NEWUSER | CLONE_NEWNS)", SYS_unshare,
				      { CLONE_NEWUSER | CLONE_NEWNS } };
/* A size below the first version's: EINVAL from the kernel, nothing made. */
static const call clone3_call = { "clone3", SYS_clone3, { 0, 0 } };

static void test_no_user_namespaces(void **state)
{
	int base;

	(void)state;
	kernel_only();
	assert_true(expect_call(&plain, &unshare_user, EPERM));
	assert_true(expect_call(&plain, &unshare_user_ns, EPERM));
	base = run(NULL, clone_newuser, NULL);
	assert_int_not_equal(base, EPERM);
	assert_int_equal(run(&plain, clone_newuser, NULL), EPERM);
	assert_true(expect_call(&plain, &clone3_call, ENOSYS));
}

/* With nesting the calls get what they get without the filter (success, as root). */
static void test_user_namespaces_with_nesting(void **state)
{
	(void)state;
	kernel_only();
	assert_int_equal(run_call(&nesting, &unshare_user), run_call(NULL, &unshare_user));
	assert_int_equal(run_call(&nesting, &unshare_user_ns), run_call(NULL, &unshare_user_ns));
	assert_int_equal(run(&nesting, clone_newuser, NULL), run(NULL, clone_newuser, NULL));
	assert_int_equal(run_call(&nesting, &clone3_call), run_call(NULL, &clone3_call));
	assert_int_not_equal(run_call(&nesting, &clone3_call), ENOSYS);
	if (geteuid() == 0)
		assert_int_equal(run_call(&nesting, &unshare_user), 0);
}

#if defined(__x86_64__)
/* An i386 system call from this 64-bit process, as malware would make it. */
static long int80(long nr, long a, long b, long c)
{
	long r = nr;

	__asm__ volatile("int $0x80" : "+a"(r) : "b"(a), "c"(b), "d"(c) : "memory", "r8", "r9", "r10", "r11");
	return r;
}

static int i386_call(const void *arg)
{
	long r = int80(*(const long *)arg, 0, 0, 0);

	return r < 0 && r > -4096 ? (int)-r : 0;
}
#endif

/* Other ABIs number calls differently; the filter kills them. */
static void test_other_abis_killed(void **state)
{
	static const call x32_mount = { "x32 mount", __X32_SYSCALL_BIT | X86_64_MOUNT, { 0 } };
	static const call x32_getpid = { "x32 getpid", __X32_SYSCALL_BIT | X86_64_GETPID, { 0 } };

	(void)state;
	kernel_only();
	assert_true(run_call(NULL, &x32_mount) < 1000);
	assert_int_equal(run_call(&plain, &x32_mount), KILLED(SIGSYS));
	assert_int_equal(run_call(&plain, &x32_getpid), KILLED(SIGSYS));
	assert_int_equal(run_call(&nesting, &x32_mount), KILLED(SIGSYS));
#if defined(__x86_64__)
	{
		static const long getpid_nr = I386_GETPID, mount_nr = I386_MOUNT;

		/* Kernels without IA32 emulation (or with it off) fault on int $0x80;
		 * test_program_other_abis checks the program there. */
		if (run(NULL, i386_call, &getpid_nr) != 0) {
			print_message("  int $0x80 does not work here: i386 checked in the program only\n");
			return;
		}
		assert_int_not_equal(run(NULL, i386_call, &mount_nr), KILLED(SIGSYS));
		assert_int_equal(run(&plain, i386_call, &mount_nr), KILLED(SIGSYS));
		assert_int_equal(run(&plain, i386_call, &getpid_nr), KILLED(SIGSYS));
		assert_int_equal(run(&nesting, i386_call, &mount_nr), KILLED(SIGSYS));
	}
#endif
}

/* The program run by a classic BPF interpreter, as the kernel would for the
 * call D describes: for ABIs this kernel cannot run, and for more argument
 * values than children can try. */
static uint32_t bpf_run(const struct sock_fprog *prog, const struct seccomp_data *d)
{
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = { 0 };

	for (size_t pc = 0; pc < prog->len; pc++) {
		const struct sock_filter *f = &prog->filter[pc];
		uint32_t src = BPF_SRC(f->code) == BPF_X ? x : f->k;

		switch (f->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (f->k % 4 || f->k + 4 > sizeof *d)
				fail_msg("load at %u", f->k);
			memcpy(&a, (const char *)d + f->k, 4);
			continue;
		case BPF_LD | BPF_IMM:
			a = f->k;
			continue;
		case BPF_LDX | BPF_IMM:
			x = f->k;
			continue;
		case BPF_LD | BPF_MEM:
		case BPF_LDX | BPF_MEM:
		case BPF_ST:
		case BPF_STX:
			if (f->k >= BPF_MEMWORDS)
				fail_msg("scratch word %u", f->k);
			if (f->code == (BPF_LD | BPF_MEM))
				a = mem[f->k];
			else if (f->code == (BPF_LDX | BPF_MEM))
				x = mem[f->k];
			else
				mem[f->k] = f->code == BPF_ST ? a : x;
			continue;
		case BPF_MISC | BPF_TAX:
			x = a;
			continue;
		case BPF_MISC | BPF_TXA:
			a = x;
			continue;
		case BPF_RET | BPF_K:
			return f->k;
		case BPF_RET | BPF_A:
			return a;
		case BPF_JMP | BPF_JA:
			pc += f->k;
			continue;
		default:
			break;
		}
		if (BPF_CLASS(f->code) == BPF_ALU) {
			switch (BPF_OP(f->code)) {
			case BPF_AND: a &= src; continue;
			case BPF_OR: a |= src; continue;
			case BPF_ADD: a += src; continue;
			case BPF_SUB: a -= src; continue;
			default: break;
			}
		} else if (BPF_CLASS(f->code) == BPF_JMP) {
			bool taken = false;

			switch (BPF_OP(f->code)) {
			case BPF_JEQ: taken = a == src; break;
			case BPF_JGT: taken = a > src; break;
			case BPF_JGE: taken = a >= src; break;
			case BPF_JSET: taken = (a & src) != 0; break;
			default: fail_msg("jump %#x", f->code);
			}
			pc += taken ? f->jt : f->jf;
			continue;
		}
		fail_msg("instruction %#x", f->code);
	}
	fail_msg("the program ran off its end");
	return 0;
}

static uint32_t verdict(const struct sock_fprog *prog, uint32_t arch, int nr, uint64_t arg0)
{
	struct seccomp_data d = { .nr = nr, .arch = arch, .args = { arg0 } };

	return bpf_run(prog, &d);
}

static void test_program_other_abis(void **state)
{
	(void)state;
	kernel_only();
	/* The interpreter agrees with the kernel on native calls. */
	assert_int_equal(verdict(&plain, AUDIT_ARCH_X86_64, X86_64_MOUNT, 0), SECCOMP_RET_ERRNO | EPERM);
	assert_int_equal(verdict(&plain, AUDIT_ARCH_X86_64, X86_64_GETPID, 0), SECCOMP_RET_ALLOW);
	assert_int_equal(verdict(&plain, AUDIT_ARCH_X86_64, SYS_clone3, 0), SECCOMP_RET_ERRNO | ENOSYS);
	assert_int_equal(verdict(&nesting, AUDIT_ARCH_X86_64, SYS_clone3, 0), SECCOMP_RET_ALLOW);
	for (int i = 0; i < 2; i++) {
		const struct sock_fprog *p = i ? &nesting : &plain;

		assert_int_equal(verdict(p, AUDIT_ARCH_I386, I386_MOUNT, 0), SECCOMP_RET_KILL_PROCESS);
		assert_int_equal(verdict(p, AUDIT_ARCH_I386, I386_GETPID, 0), SECCOMP_RET_KILL_PROCESS);
		assert_int_equal(verdict(p, AUDIT_ARCH_X86_64, __X32_SYSCALL_BIT | X86_64_MOUNT, 0),
				 SECCOMP_RET_KILL_PROCESS);
		assert_int_equal(verdict(p, AUDIT_ARCH_X86_64, __X32_SYSCALL_BIT | X86_64_GETPID, 0),
				 SECCOMP_RET_KILL_PROCESS);
		assert_int_equal(verdict(p, AUDIT_ARCH_AARCH64, X86_64_GETPID, 0), SECCOMP_RET_KILL_PROCESS);
	}
}

/* Docker's rule: the kernel's 32 bits are 0, 8, 0x20000, 0x20008 or the
 * 0xffffffff query. */
static bool persona_allowed(uint64_t v)
{
	uint32_t low = (uint32_t)v;

	return (low & ~(uint32_t)(PER_LINUX32 | UNAME26)) == 0 || low == 0xffffffffu;
}

static void check_persona(uint64_t v)
{
	uint32_t want = persona_allowed(v) ? SECCOMP_RET_ALLOW : SECCOMP_RET_ERRNO | EPERM;

	for (int high = 0; high < 3; high++) {
		uint64_t with_high = v | (high == 0 ? 0 : high == 1 ? (uint64_t)1 << 32 : ~(uint64_t)0 << 32);
		uint32_t got = verdict(&plain, AUDIT_ARCH_X86_64, SYS_personality, with_high);

		if (got != want)
			fail_msg("personality(%#llx): %#x, want %#x", (unsigned long long)with_high, got, want);
	}
}

static void test_program_personality(void **state)
{
	uint32_t seed = 12345;

	(void)state;
	kernel_only();
	check_persona(0);
	check_persona(0xffffffffu);
	for (int i = 0; i < 32; i++) {
		check_persona((uint64_t)1 << i);
		check_persona(0xffffffffu ^ (1u << i));
		for (int j = 0; j < 32; j++) {
			check_persona(((uint64_t)1 << i) | ((uint64_t)1 << j));
			check_persona(0xffffffffu ^ (1u << i) ^ (1u << j));
			check_persona(((uint64_t)1 << i) | PER_LINUX32 | UNAME26);
		}
	}
	for (int i = 0; i < 100000; i++) {
		seed = seed * 1103515245u + 12345u;
		check_persona(seed);
	}
}

static const call persona_query = { "personality(0xffffffff)", SYS_personality, { 0xffffffffL } };
static const call persona_linux32 = { "personality(PER_LINUX32)", SYS_personality, { PER_LINUX32 } };
static const call persona_uname26 = { "personality(PER_LINUX32 | UNAME26)", SYS_personality,
				      { PER_LINUX32 | UNAME26 } };
static const call unshare_mnt = { "unshare(CLONE_NEWNS)", SYS_unshare, { CLONE_NEWNS } };
static const call inet_socket = { "socket(AF_INET)", SYS_socket, { AF_INET, SOCK_STREAM } };
static const call unix_socket = { "socket(AF_UNIX)", SYS_socket, { AF_UNIX, SOCK_STREAM } };

static int exec_true(const void *arg)
{
	pid_t pid, spawned;
	char *const argv[] = { "/bin/true", NULL };
	int status;

	(void)arg;
	pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return 101;
	/* posix_spawn: clone3 or clone with CLONE_VM | CLONE_VFORK. */
	if (posix_spawn(&spawned, argv[0], NULL, NULL, argv, environ) != 0)
		return 102;
	if (waitpid(spawned, &status, 0) != spawned || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return 103;
	return 0;
}

static void *thread_main(void *arg)
{
	return arg;
}

/* pthread_create tries clone3 first; ENOSYS must send glibc to clone. */
static int start_thread(const void *arg)
{
	pthread_t t;
	void *ret = NULL;
	int rc;

	(void)arg;
	rc = pthread_create(&t, NULL, thread_main, &rc);
	if (rc != 0)
		return rc;
	if (pthread_join(t, &ret) != 0 || ret != &rc)
		return 104;
	return 0;
}

static int file_io(const void *arg)
{
	char path[] = "/tmp/allox-seccomp-XXXXXX", buf[6] = { 0 };
	int fd = mkstemp(path);

	(void)arg;
	if (fd < 0)
		return errno;
	unlink(path);
	if (write(fd, "hello", 5) != 5 || pread(fd, buf, 5, 0) != 5 || strcmp(buf, "hello") != 0)
		return 105;
	return close(fd) == 0 ? 0 : errno;
}

static void check_ordinary(const struct sock_fprog *prog)
{
	static const call *const calls[] = { &persona_query, &persona_linux32, &persona_uname26, &unshare_mnt,
					     &inet_socket, &unix_socket };

	assert_int_equal(run(prog, exec_true, NULL), 0);
	assert_int_equal(run(prog, start_thread, NULL), 0);
	assert_int_equal(run(prog, file_io, NULL), 0);
	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
		int base = run_call(NULL, calls[i]), got = run_call(prog, calls[i]);

		if (got != base)
			fail_msg("%s: %d under the filter, %d without", calls[i]->name, got, base);
	}
}

static void test_ordinary_work(void **state)
{
	(void)state;
	kernel_only();
	check_ordinary(&plain);
}

static void test_ordinary_work_with_nesting(void **state)
{
	(void)state;
	kernel_only();
	check_ordinary(&nesting);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fd),
		cmocka_unit_test(test_denied),
		cmocka_unit_test(test_denied_with_nesting),
		cmocka_unit_test(test_no_user_namespaces),
		cmocka_unit_test(test_user_namespaces_with_nesting),
		cmocka_unit_test(test_other_abis_killed),
		cmocka_unit_test(test_program_other_abis),
		cmocka_unit_test(test_program_personality),
		cmocka_unit_test(test_ordinary_work),
		cmocka_unit_test(test_ordinary_work_with_nesting),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
