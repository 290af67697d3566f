/* Resolving a host volume's directory below its allowed prefix. */
#include "engine/host_path.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine/wire_error.h"

int ax_path_clean(const char *p, int absolute)
{
	if (!p || (absolute != (p[0] == '/')))
		return 0;
	if (absolute && strcmp(p, "/") == 0)
		return 1;
	for (const char *s = absolute ? p + 1 : p;;) {
		size_t n = strcspn(s, "/");

		if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
			return 0;
		if (!s[n])
			return 1;
		s += n + 1;
	}
}

/* The part of PATH below PREFIX ("" when equal), or NULL when not below. */
static const char *below(const char *prefix, const char *path)
{
	size_t n = strlen(prefix);

	if (strcmp(prefix, "/") == 0)
		return path + 1;
	if (strncmp(path, prefix, n) != 0 || (path[n] && path[n] != '/'))
		return NULL;
	return path[n] ? path + n + 1 : path + n;
}

int ax_host_path_open(const char *const *prefixes, const char *path, const char *sub, ax_error *err)
{
	struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
				.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS };
	const char *rest = NULL, *prefix = NULL;
	char rel[4096];
	int dir, fd, e;

	if (!ax_path_clean(path, 1))
		return ax_wire_fail(err, "SANDBOX::INVALID_PARAMETER",
				    "volumes: host.path '%s' must be absolute, without '.' or '..' components", path ?: "");
	if (sub && *sub && !ax_path_clean(sub, 0))
		return ax_wire_fail(err, "SANDBOX::INVALID_PARAMETER",
				    "volumes: subPath '%s' must be relative, without '.' or '..' components", sub);
	for (size_t i = 0; prefixes && prefixes[i] && !rest; i++) {
		rest = below(prefixes[i], path);
		prefix = prefixes[i];
	}
	if (!rest)
		return ax_wire_fail(err, "SANDBOX::INVALID_PARAMETER",
				    "volumes: host.path '%s' is not below a prefix the engine allows "
				    "(allox-engine --allow-host-volumes PREFIX)", path);
	snprintf(rel, sizeof rel, "%s%s%s", *rest ? rest : ".", sub && *sub ? "/" : "", sub && *sub ? sub : "");
	dir = open(prefix, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return ax_wire_fail(err, "SANDBOX::INVALID_PARAMETER", "volumes: allowed prefix %s: %s", prefix,
				    strerror(errno));
	fd = (int)syscall(SYS_openat2, dir, rel, &how, sizeof how);
	e = errno;
	close(dir);
	if (fd < 0)
		return ax_wire_fail(err, "SANDBOX::INVALID_PARAMETER", "volumes: host path %s%s%s: %s", path,
				    sub && *sub ? "/" : "", sub && *sub ? sub : "",
				    e == EXDEV ? "leads out of its allowed prefix" : strerror(e));
	return fd;
}
