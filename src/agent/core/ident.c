#include "agent/core/ident.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for a map's ranges in a message; the kernel allows 340 lines, a
 * sandbox has one. */
#define RANGES_TEXT 160
/* getgrouplist's answer is bounded by what setgroups accepts. */
#define GROUPS_MAX 65536
#define PW_BUF_MAX (1 << 20)

/* Is ID inside /proc/self/uid_map (gid_map when GROUP)? 1 yes, 0 no, -1 the
 * map cannot be read (the kernel's own answer then has to do). The map's
 * ranges, as "0-65535", go to RANGES. */
static int id_mapped(unsigned long id, bool group, char *ranges, size_t size)
{
	FILE *f = fopen(group ? "/proc/self/gid_map" : "/proc/self/uid_map", "re");
	unsigned long inside, outside, count;
	size_t len = 0;
	int found = 0;

	if (!f)
		return -1;
	snprintf(ranges, size, "none");
	while (fscanf(f, "%lu %lu %lu", &inside, &outside, &count) == 3) {
		if (id >= inside && id - inside < count)
			found = 1;
		if (count && len < size)
			len += (size_t)snprintf(ranges + len, size - len, "%s%lu-%lu", len ? ", " : "", inside,
						inside + count - 1);
	}
	fclose(f);
	return found;
}

int ag_id_unmapped(unsigned long id, bool group, char *buf, size_t size)
{
	const char *kind = group ? "gid" : "uid";
	char ranges[RANGES_TEXT];

	if (id_mapped(id, group, ranges, sizeof ranges) != 0)
		return 0;
	snprintf(buf, size, "%s %lu is not mapped in this sandbox (%ss %s)", kind, id, kind, ranges);
	return 1;
}

/* UID's passwd entry in *PW (its strings in the malloc'd *BUF), or NULL
 * when it has none. A failed lookup counts as none, as in the official
 * execd. */
static struct passwd *find_user(uid_t uid, struct passwd *pw, char **buf)
{
	struct passwd *found = NULL;
	size_t size = 1024;
	int e;

	for (;;) {
		char *nb = realloc(*buf, size);

		if (!nb)
			return NULL;
		*buf = nb;
		e = getpwuid_r(uid, pw, *buf, size, &found);
		if (e != ERANGE || size >= PW_BUF_MAX)
			return e ? NULL : found;
		size *= 2;
	}
}

/* The groups the group database gives PW (its primary group included), as
 * initgroups would set them. -1 when they cannot be had. */
static int user_groups(const struct passwd *pw, struct ag_ident *id)
{
	int n = 32;

	for (;;) {
		gid_t *g = realloc(id->groups, (size_t)n * sizeof *g);
		int want = n;

		if (!g)
			return -1;
		id->groups = g;
		if (getgrouplist(pw->pw_name, pw->pw_gid, g, &want) >= 0) {
			id->ngroups = (size_t)want;
			return 0;
		}
		/* glibc says how many there are; grow at least twofold anyway. */
		n = want > n ? want : 2 * n;
		if (n > GROUPS_MAX)
			return -1;
	}
}

static int only_group(struct ag_ident *id)
{
	gid_t *g = realloc(id->groups, sizeof *g);

	if (!g)
		return -1;
	g[0] = id->gid;
	id->groups = g;
	id->ngroups = 1;
	return 0;
}

/* Every id the command would take must be mapped, or the kernel refuses
 * it with a bare EINVAL in the child. */
static int check_mapped(const struct ag_ident *id, ax_error *err)
{
	char msg[256];
	size_t i;

	if (ag_id_unmapped(id->uid, false, msg, sizeof msg) || ag_id_unmapped(id->gid, true, msg, sizeof msg))
		return ax_fail(err, AX_CODE_IDENT, "%s", msg);
	for (i = 0; i < id->ngroups; i++)
		if (ag_id_unmapped(id->groups[i], true, msg, sizeof msg))
			return ax_fail(err, AX_CODE_IDENT, "uid %u's supplementary group: %s",
				       (unsigned)id->uid, msg);
	return 0;
}

int ag_ident_lookup(uid_t uid, const gid_t *gid, struct ag_ident *id, ax_error *err)
{
	struct passwd pw, *found;
	char *buf = NULL;
	int rc;

	memset(id, 0, sizeof *id);
	id->uid = uid;
	found = find_user(uid, &pw, &buf);
	id->gid = gid ? *gid : found ? found->pw_gid : 0;
	rc = found ? user_groups(found, id) : -1;
	if (rc < 0)
		rc = only_group(id);
	free(buf);
	if (rc < 0) {
		ag_ident_free(id);
		return ax_fail(err, AX_CODE_NOMEM, "out of memory");
	}
	if (check_mapped(id, err) < 0) {
		ag_ident_free(id);
		return -1;
	}
	return 0;
}

void ag_ident_free(struct ag_ident *id)
{
	free(id->groups);
	id->groups = NULL;
	id->ngroups = 0;
}
