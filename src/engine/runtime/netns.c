/* A sandbox's network namespace: its loopback and routes, set up by the
 * setup child as host root before bwrap runs, and its user-mode stack.
 *
 * slirp4netns, not veth + NAT: NAT needs forwarding and nftables rules in
 * the host's namespace (host-wide state the engine would have to own and
 * clean up), while a user-mode stack is a process of the sandbox's own
 * unprivileged host uid that opens ordinary sockets. slirp4netns rather
 * than pasta: on this kind of machine pasta's start costs ~70 ms of CPU and
 * 17 MB (it faults in large static tables), slirp4netns's ~10 ms and 3 MB,
 * and a sandbox start is ~15 ms. Neither filters destinations, so what must
 * stay unreachable is a route in the sandbox's namespace, which nothing
 * inside can change (no CAP_NET_ADMIN) or bypass (AF_PACKET is denied by
 * the seccomp filter). */
#include "engine/runtime/netns.h"

#include "lib/close_fds.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

/* RTM_NEWROUTE: DST/PREFIX answers "prohibited" (EACCES) to whoever sends there. */
static void prohibit_route(ax_net_route *r, const char *dst, unsigned char prefix)
{
	struct nlmsghdr *nh = (struct nlmsghdr *)r->msg;
	struct rtmsg *rt = NLMSG_DATA(nh);
	struct rtattr *a;
	struct in_addr addr;

	memset(r, 0, sizeof *r);
	inet_pton(AF_INET, dst, &addr);
	nh->nlmsg_type = RTM_NEWROUTE;
	nh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL;
	nh->nlmsg_len = NLMSG_LENGTH(sizeof *rt);
	rt->rtm_family = AF_INET;
	rt->rtm_dst_len = prefix;
	rt->rtm_table = RT_TABLE_MAIN;
	rt->rtm_protocol = RTPROT_STATIC;
	rt->rtm_scope = RT_SCOPE_UNIVERSE;
	rt->rtm_type = RTN_PROHIBIT;
	a = (struct rtattr *)((char *)nh + NLMSG_ALIGN(nh->nlmsg_len));
	a->rta_type = RTA_DST;
	a->rta_len = RTA_LENGTH(sizeof addr);
	memcpy(RTA_DATA(a), &addr, sizeof addr);
	nh->nlmsg_len = NLMSG_ALIGN(nh->nlmsg_len) + RTA_ALIGN(a->rta_len);
	r->len = nh->nlmsg_len;
}

int ax_net_prepare(ax_net_mode mode, ax_net *n, ax_strv *argv)
{
	prohibit_route(&n->routes[0], "169.254.0.0", 16);
	n->argv = NULL;
	if (mode != AX_NET_ISOLATED)
		return 0;
	ax_strv_add(argv, AX_RT_SLIRP);
	/* Configure the interface (10.0.2.100/24, gateway 10.0.2.2, DNS
	 * forwarder 10.0.2.3); the gateway does not lead to the host's
	 * loopback; the stack runs under its own seccomp filter. 65520 is the
	 * largest MTU slirp4netns takes: fewer, larger packets to copy. */
	ax_strv_add(argv, "--configure");
	ax_strv_add(argv, "--mtu=65520");
	ax_strv_add(argv, "--disable-host-loopback");
	ax_strv_add(argv, "--enable-seccomp");
	if (n->own_dns)
		ax_strv_add(argv, "--disable-dns");
	ax_strv_add(argv, "--netns-type=path");
	ax_strv_addf(argv, "--userns-path=/proc/self/fd/%d", n->userns_fd);
	if (n->ready_w > 2)
		ax_strv_addf(argv, "--ready-fd=%d", n->ready_w);
	ax_strv_addf(argv, "/proc/self/fd/%d", n->netns_fd);
	ax_strv_add(argv, "eth0");
	if (argv->oom)
		return -1;
	n->argv = argv->v;
	return 0;
}


/* The stack's process: raw system calls only (it is a copy of a process
 * that shares the engine's memory, whose other threads may hold locks). */
static __attribute__((noreturn)) void stack_main(const ax_net *n, pid_t parent)
{
	static char *const no_env[] = { NULL };

	if (syscall(SYS_setgroups, 0, NULL) < 0 || syscall(SYS_setresgid, n->uid_base, n->uid_base, n->uid_base) < 0 ||
	    syscall(SYS_setresuid, n->uid_base, n->uid_base, n->uid_base) < 0)
		_exit(126);
	/* After the identity change, which would clear it: the stack ends when
	 * the setup process (then bwrap's monitor, alive as long as the
	 * sandbox) does, whoever ends it, and even if the engine is gone. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(126);
	if (dup2(n->null_fd, 0) < 0 || dup2(n->null_fd, 1) < 0 || dup2(n->null_fd, 2) < 0)
		_exit(126);
	/* Everything else goes now, not at exec: the setup's status pipe, which
	 * the engine reads to its end, and our copy of the start signal's write
	 * end among them. */
	{
		int keep[4] = { n->netns_fd, n->userns_fd, n->go_r, n->ready_w > 2 ? n->ready_w : n->go_r };

		ax_close_fds_except(keep, 4);
	}
	/* Wait until the sandbox's PID 1 runs: on two cores the stack's start
	 * (~10 ms of CPU) would otherwise compete with the sandbox's own, which
	 * a create waits for, and nothing can use the network before then. */
	{
		char c;

		while (read(n->go_r, &c, 1) < 0 && errno == EINTR)
			;
		close(n->go_r);
	}
	if (fcntl(n->netns_fd, F_SETFD, 0) < 0 || fcntl(n->userns_fd, F_SETFD, 0) < 0 ||
	    (n->ready_w > 2 && fcntl(n->ready_w, F_SETFD, 0) < 0))
		_exit(126);
	execve(n->argv[0], n->argv, no_env);
	_exit(127);
}

pid_t ax_net_launch(const ax_net *n)
{
	pid_t parent = (pid_t)syscall(SYS_getpid);
	long pid;

	/* A fork, not a clone sharing memory: the stack runs on after the setup
	 * process has exec'd bwrap, and its stack must stay its own. */
	pid = syscall(SYS_clone, (unsigned long)SIGCHLD, 0UL, NULL, NULL, 0UL);
	if (pid == 0)
		stack_main(n, parent);
	return (pid_t)pid;
}

static int loopback_up(void)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = -1, e;

	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof ifr);
	memcpy(ifr.ifr_name, "lo", 3);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP;
		rc = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	e = errno;
	close(fd);
	errno = e;
	return rc;
}

/* Send R and read its acknowledgement (an NLMSG_ERROR whose error is 0). */
static int add_route(int fd, const ax_net_route *r)
{
	union {
		struct nlmsghdr nh;
		unsigned char buf[512];
	} ack;
	ssize_t got;

	if (send(fd, r->msg, r->len, 0) != (ssize_t)r->len)
		return -1;
	do
		got = recv(fd, ack.buf, sizeof ack.buf, 0);
	while (got < 0 && errno == EINTR);
	if (got < (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr)) || ack.nh.nlmsg_type != NLMSG_ERROR) {
		errno = EPROTO;
		return -1;
	}
	if (((struct nlmsgerr *)NLMSG_DATA(&ack.nh))->error) {
		errno = -((struct nlmsgerr *)NLMSG_DATA(&ack.nh))->error;
		return -1;
	}
	return 0;
}

int ax_net_enter(const ax_net *n)
{
	int fd, e, rc = 0;

	if (setns(n->netns_fd, CLONE_NEWNET) < 0 || loopback_up() < 0)
		return -1;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -1;
	for (size_t i = 0; i < AX_NET_ROUTES && rc == 0; i++)
		rc = add_route(fd, &n->routes[i]);
	e = errno;
	close(fd);
	errno = e;
	return rc;
}
