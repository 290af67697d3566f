/* Applying a Permission object ({owner?, group?, mode}) to a path, shared
 * by /files/permissions, /directories and /files/upload. */
#ifndef ALLOX_AGENT_EXECD_PERM_H
#define ALLOX_AGENT_EXECD_PERM_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct ag_perm {
	int mode;               /* permission bits, -1: leave as is (mode 0 or absent) */
	uid_t uid;              /* (uid_t)-1: leave as is */
	gid_t gid;
};

/* Parse O (NULL: nothing to change). 0, or -1 with a message in MSG. */
int ag_perm_parse(json_t *o, struct ag_perm *p, char *msg, size_t size);

/* chmod and chown PATH (or FD when >= 0) as P says. 0, or -1 with errno. */
int ag_perm_apply(const char *path, int fd, const struct ag_perm *p);

#endif
