#include "agent/execd/execd_perm.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/execd/execd_fileinfo.h"
#include "agent/execd/execd_http.h"
#include "agent/core/ident.h"

/* A numeric id: decimal digits only, below 4294967295 ((uid_t)-1 means
 * "leave as is" to chown), so "-1" or "4294967296" cannot wrap to an id. */
static int parse_number(const char *s, unsigned long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return errno || *end || *v >= UINT32_MAX ? -1 : 0;
}

/* A name, or a number for ids without one. */
static int lookup_user(const char *name, uid_t *uid)
{
	struct passwd pw, *found = NULL;
	char buf[1024];
	unsigned long v;

	if (getpwnam_r(name, &pw, buf, sizeof buf, &found) == 0 && found) {
		*uid = found->pw_uid;
		return 0;
	}
	if (parse_number(name, &v) < 0)
		return -1;
	*uid = (uid_t)v;
	return 0;
}

static int lookup_group(const char *name, gid_t *gid)
{
	struct group gr, *found = NULL;
	char buf[1024];
	unsigned long v;

	if (getgrnam_r(name, &gr, buf, sizeof buf, &found) == 0 && found) {
		*gid = found->gr_gid;
		return 0;
	}
	if (parse_number(name, &v) < 0)
		return -1;
	*gid = (gid_t)v;
	return 0;
}

/* An id the sandbox does not map would fail chown with a bare EINVAL, and
 * only after a directory was made or an upload written: refuse it up front,
 * as an unknown name is. */
static int check_mapped(const struct ag_perm *p, char *msg, size_t size)
{
	char why[256];

	if (p->uid != (uid_t)-1 && ag_id_unmapped(p->uid, false, why, sizeof why))
		return ag_msg_fail(msg, size, "owner: %s", why);
	if (p->gid != (gid_t)-1 && ag_id_unmapped(p->gid, true, why, sizeof why))
		return ag_msg_fail(msg, size, "group: %s", why);
	return 0;
}

int ag_perm_parse(json_t *o, struct ag_perm *p, char *msg, size_t size)
{
	json_t *mode, *owner, *group;

	p->mode = -1;
	p->uid = (uid_t)-1;
	p->gid = (gid_t)-1;
	if (!o || json_is_null(o))
		return 0;
	if (!json_is_object(o))
		return ag_msg_fail(msg, size, "permission must be an object");
	mode = json_object_get(o, "mode");
	owner = json_object_get(o, "owner");
	group = json_object_get(o, "group");
	if (mode && !json_is_null(mode)) {
		if (!json_is_integer(mode))
			return ag_msg_fail(msg, size, "mode must be an integer such as 644");
		if (json_integer_value(mode) != 0) {
			p->mode = ag_mode_from_digits(json_integer_value(mode));
			if (p->mode < 0)
				return ag_msg_fail(msg, size, "invalid mode %lld: its digits must be octal, e.g. 644",
					    (long long)json_integer_value(mode));
		}
	}
	if (owner && !json_is_null(owner) && (!json_is_string(owner) || *json_string_value(owner))) {
		if (!json_is_string(owner) || lookup_user(json_string_value(owner), &p->uid) < 0)
			return ag_msg_fail(msg, size, "unknown user %s", json_is_string(owner) ? json_string_value(owner) : "?");
	}
	if (group && !json_is_null(group) && (!json_is_string(group) || *json_string_value(group))) {
		if (!json_is_string(group) || lookup_group(json_string_value(group), &p->gid) < 0)
			return ag_msg_fail(msg, size, "unknown group %s", json_is_string(group) ? json_string_value(group) : "?");
	}
	return check_mapped(p, msg, size);
}

int ag_perm_apply(const char *path, int fd, const struct ag_perm *p)
{
	if (p->mode >= 0 && (fd >= 0 ? fchmod(fd, (mode_t)p->mode) : chmod(path, (mode_t)p->mode)) < 0)
		return -1;
	if (p->uid == (uid_t)-1 && p->gid == (gid_t)-1)
		return 0;
	return fd >= 0 ? fchown(fd, p->uid, p->gid) : chown(path, p->uid, p->gid);
}
