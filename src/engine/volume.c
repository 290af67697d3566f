/* Volumes: checking a create's, preparing named ones, opening them for the
 * runtime, removing those made for a sandbox that is gone. */
#include "engine/volume.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/host_path.h"
#include "engine/wire_error.h"
#include "lib/fs.h"

#define MAX_VOLUMES AX_VOLUMES_MAX

static bool dns_label(const char *s, size_t max)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n > max || s[0] == '-' || s[n - 1] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return false;
	return true;
}

/* Mount points the sandbox's own file system needs for itself. */
static bool reserved(const char *path)
{
	static const char *const taken[] = { "/proc", "/dev", "/sys", "/.allox" };

	if (strcmp(path, "/") == 0)
		return true;
	for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++) {
		size_t n = strlen(taken[i]);

		if (strncmp(path, taken[i], n) == 0 && (!path[n] || path[n] == '/'))
			return true;
	}
	return false;
}

static int refuse(ax_error *err, size_t i, const char *field, const char *why)
{
	return ax_wire_fail(err, "SANDBOX::INVALID_PARAMETER", "volumes[%zu]%s%s: %s", i, *field ? "." : "", field, why);
}

static int check_pvc(const json_t *pvc, size_t i, ax_error *err)
{
	const char *k;
	json_t *x;

	if (!json_is_object(pvc) || !dns_label(json_string_value(json_object_get(pvc, "claimName")), 253))
		return refuse(err, i, "pvc.claimName", "required, a DNS label (a-z, 0-9 and '-')");
	json_object_foreach((json_t *)pvc, k, x) {
		char f[96];

		snprintf(f, sizeof f, "pvc.%.60s", k);
		if (strcmp(k, "claimName") == 0)
			continue;
		if (strcmp(k, "createIfNotExists") == 0 || strcmp(k, "deleteOnSandboxTermination") == 0) {
			if (!json_is_boolean(x))
				return refuse(err, i, f, "must be true or false");
		} else if (strcmp(k, "storageClass") == 0 || strcmp(k, "storage") == 0 || strcmp(k, "accessModes") == 0) {
			if (!json_is_null(x))
				return refuse(err, i, f,
					      "the local engine cannot honour it (its named volumes are directories "
					      "without a size or class, shared by every sandbox that mounts them)");
		} else {
			return refuse(err, i, f, "not a pvc field the local engine knows");
		}
	}
	return 0;
}

/* The owner of directory FD, which a host volume maps to the sandbox's root. */
static int owner_of(int fd, uid_t *uid)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -1;
	*uid = st.st_uid;
	return 0;
}

static int check_host(const ax_engine *e, const json_t *v, size_t i, ax_error *err)
{
	const json_t *host = json_object_get(v, "host");
	const char *k, *path = json_string_value(json_object_get(host, "path"));
	json_t *x;
	uid_t owner;
	int fd;

	if (!json_is_object(host) || !path)
		return refuse(err, i, "host.path", "required");
	json_object_foreach((json_t *)host, k, x)
		if (strcmp(k, "path") != 0)
			return refuse(err, i, "host", "only path is a host field");
	if (!e->host_prefixes || !e->host_prefixes[0])
		return refuse(err, i, "host",
			      "host volumes are off: the engine allows them only below prefixes given with "
			      "allox-engine --allow-host-volumes PREFIX");
	fd = ax_host_path_open((const char *const *)e->host_prefixes, path,
			       json_string_value(json_object_get(v, "subPath")), err);
	if (fd < 0)
		return -1;
	/* Writing as host root would let the sandbox leave setuid-root files
	 * behind for host users: a writable host volume needs an owner. */
	if (owner_of(fd, &owner) < 0 || (owner == 0 && !json_is_true(json_object_get(v, "readOnly")))) {
		close(fd);
		return refuse(err, i, "host.path",
			      "a writable host volume must be a directory not owned by root (the sandbox writes "
			      "there as its owner); chown it or set readOnly");
	}
	close(fd);
	return 0;
}

static int check_one(const ax_engine *e, const json_t *v, size_t i, const json_t *seen, ax_error *err)
{
	const char *mount = json_string_value(json_object_get(v, "mountPath")), *k;
	const json_t *sub = json_object_get(v, "subPath"), *ro = json_object_get(v, "readOnly");
	int backends = 0;
	json_t *x;

	if (!json_is_object(v))
		return refuse(err, i, "", "must be an object");
	json_object_foreach((json_t *)v, k, x) {
		if (strcmp(k, "ossfs") == 0)
			return refuse(err, i, "ossfs", "not supported by the local engine (host and pvc are)");
		if (strcmp(k, "host") == 0 || strcmp(k, "pvc") == 0)
			backends++;
		else if (strcmp(k, "name") != 0 && strcmp(k, "mountPath") != 0 && strcmp(k, "readOnly") != 0 &&
			 strcmp(k, "subPath") != 0)
			return refuse(err, i, k, "not a volume field the local engine knows");
	}
	if (!dns_label(json_string_value(json_object_get(v, "name")), 63))
		return refuse(err, i, "name", "required, a DNS label of at most 63 characters");
	if (backends != 1)
		return refuse(err, i, "", "needs exactly one backend: host or pvc");
	if (!mount || !ax_path_clean(mount, 1) || reserved(mount))
		return refuse(err, i, "mountPath",
			      "must be an absolute path without '.' or '..', not / and not below /proc, /dev, /sys or "
			      "/.allox");
	if (json_object_get(seen, mount))
		return refuse(err, i, "mountPath", "another volume is mounted there");
	if (ro && !json_is_boolean(ro))
		return refuse(err, i, "readOnly", "must be true or false");
	if (sub && (!json_is_string(sub) || (json_string_length(sub) && !ax_path_clean(json_string_value(sub), 0))))
		return refuse(err, i, "subPath", "must be a relative path without '.' or '..'");
	if (json_object_get(v, "pvc"))
		return check_pvc(json_object_get(v, "pvc"), i, err);
	return check_host(e, v, i, err);
}

int ax_volumes_check(const ax_engine *e, const json_t *volumes, ax_error *err)
{
	json_t *seen, *v;
	size_t i;
	int rc = 0;

	if (!volumes || json_is_null(volumes))
		return 0;
	if (!json_is_array(volumes))
		return ax_wire_fail(err, "SANDBOX::INVALID_PARAMETER", "volumes: must be an array");
	if (json_array_size(volumes) > MAX_VOLUMES)
		return ax_wire_fail(err, "SANDBOX::INVALID_PARAMETER", "volumes: at most %d", MAX_VOLUMES);
	seen = json_object();
	json_array_foreach(volumes, i, v) {
		rc = check_one(e, v, i, seen, err);
		if (rc < 0)
			break;
		json_object_set_new(seen, json_string_value(json_object_get(v, "mountPath")), json_true());
	}
	json_decref(seen);
	return rc;
}

static char *volume_dir(const ax_engine *e, const char *name)
{
	return ax_path_join(e->volumes_dir, name);
}

/* Remove the named volumes listed in MADE (their names). */
static void remove_made(ax_engine *e, const json_t *made)
{
	ax_error err;
	json_t *name;
	size_t i;

	json_array_foreach(made, i, name) {
		char *dir = volume_dir(e, json_string_value(name));

		if (dir && ax_rt_remove_state(dir, &err) < 0)
			ax_engine_log(e, "cannot remove volume %s: %s", json_string_value(name), err.message);
		free(dir);
	}
}

/* Make named volume PVC's directory if missing and allowed; 1 made, 0 was there. */
static int make_named(ax_engine *e, const json_t *pvc, ax_error *err)
{
	const char *name = json_string_value(json_object_get(pvc, "claimName"));
	char *dir = volume_dir(e, name);
	struct stat st;
	ax_error why;
	int rc;

	if (!dir)
		return ax_wire_fail(err, "GENERAL::UNKNOWN_ERROR", "out of memory");
	if (lstat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		rc = 0;
	else if (json_is_false(json_object_get(pvc, "createIfNotExists")))
		rc = ax_wire_fail(err, "VOLUME::NOT_FOUND",
				  "volume %s does not exist (and createIfNotExists is false)", name);
	else if (ax_mkdir_p(e->volumes_dir, 0700, &why) < 0)
		rc = ax_wire_fail(err, "SANDBOX::PROVISIONING_ERROR", "cannot create volume %s: %s", name, why.message);
	else if (mkdir(dir, 0755) < 0)
		rc = ax_wire_fail(err, "SANDBOX::PROVISIONING_ERROR", "cannot create volume %s: %s", name, strerror(errno));
	else
		rc = 1;
	free(dir);
	return rc;
}

int ax_volumes_prepare(ax_engine *e, json_t *rec, ax_error *err)
{
	json_t *v, *made = json_array();
	size_t i;

	json_array_foreach(json_object_get(rec, "volumes"), i, v) {
		const json_t *pvc = json_object_get(v, "pvc");
		int rc = pvc ? make_named(e, pvc, err) : 0;

		if (rc < 0) {
			remove_made(e, made);
			json_decref(made);
			return -1;
		}
		if (rc == 1)
			json_array_append(made, json_object_get(pvc, "claimName"));
	}
	json_object_set_new(rec, "volumesMade", made);
	return 0;
}

/* Open volume V for the runtime (into OUT, fd -1 on failure). */
static int open_one(const ax_engine *e, const json_t *v, ax_rt_volume *out, ax_error *err)
{
	const json_t *pvc = json_object_get(v, "pvc");
	const char *sub = json_string_value(json_object_get(v, "subPath"));
	uid_t owner = 0;

	out->path = json_string_value(json_object_get(v, "mountPath"));
	out->read_only = json_is_true(json_object_get(v, "readOnly"));
	if (pvc) {
		char *dir = volume_dir(e, json_string_value(json_object_get(pvc, "claimName")));
		const char *prefixes[] = { dir, NULL };

		/* Below the volume's own directory, which sandboxes write: its
		 * symlinks must not lead out (ax_host_path_open). Its files keep
		 * the sandbox's own uids, unshifted, for every sandbox to share. */
		out->fd = dir ? ax_host_path_open(prefixes, dir, sub, err) : -1;
		free(dir);
		out->owner_from = 0;
		out->count = AX_RT_IDS;
		return out->fd < 0 ? -1 : 0;
	}
	out->fd = ax_host_path_open((const char *const *)e->host_prefixes,
				    json_string_value(json_object_get(json_object_get(v, "host"), "path")), sub, err);
	if (out->fd < 0)
		return -1;
	/* Its owner is the sandbox's root there, and nobody else is mapped: the
	 * sandbox writes as that owner and never as another host user. */
	if (owner_of(out->fd, &owner) < 0 || (owner == 0 && !out->read_only))
		return ax_wire_fail(err, "SANDBOX::INVALID_PARAMETER", "volumes: host path %s is owned by root",
				    out->path);
	out->owner_from = (unsigned)owner;
	out->count = 1;
	return 0;
}

int ax_volumes_open(const ax_engine *e, const json_t *rec, ax_rt_volume **out, size_t *n, ax_error *err)
{
	const json_t *volumes = json_object_get(rec, "volumes");
	size_t count = json_array_size(volumes);
	ax_rt_volume *v;

	*out = NULL;
	*n = 0;
	if (!count)
		return 0;
	v = calloc(count, sizeof *v);
	if (!v)
		return ax_wire_fail(err, "GENERAL::UNKNOWN_ERROR", "out of memory");
	for (size_t i = 0; i < count; i++) {
		if (open_one(e, json_array_get(volumes, i), &v[i], err) < 0) {
			ax_volumes_close(v, i + 1);
			return -1;
		}
	}
	*out = v;
	*n = count;
	return 0;
}

void ax_volumes_close(ax_rt_volume *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		if (v[i].fd >= 0)
			close(v[i].fd);
	free(v);
}

/* Whether a sandbox other than REC mounts named volume NAME. */
static bool used_elsewhere(const ax_engine *e, const json_t *rec, const char *name)
{
	const char *id;
	json_t *other, *v;
	size_t i;

	json_object_foreach(e->sandboxes, id, other) {
		if (other == rec)
			continue;
		json_array_foreach(json_object_get(other, "volumes"), i, v)
			if (strcmp(json_string_value(json_object_get(json_object_get(v, "pvc"), "claimName")) ?: "", name) == 0)
				return true;
	}
	return false;
}

void ax_volumes_release(ax_engine *e, const json_t *rec)
{
	json_t *gone = json_array(), *v;
	const json_t *made = json_object_get(rec, "volumesMade");
	size_t i, j;

	json_array_foreach(json_object_get(rec, "volumes"), i, v) {
		const json_t *pvc = json_object_get(v, "pvc");
		const char *name = json_string_value(json_object_get(pvc, "claimName"));
		json_t *m;

		if (!name || !json_is_true(json_object_get(pvc, "deleteOnSandboxTermination")))
			continue;
		json_array_foreach(made, j, m)
			if (strcmp(json_string_value(m) ?: "", name) == 0 && !used_elsewhere(e, rec, name))
				json_array_append_new(gone, json_string(name));
	}
	remove_made(e, gone);
	json_decref(gone);
}

/* The sandboxes that mount named volume NAME (lock held). */
static json_t *users(const ax_engine *e, const char *name)
{
	json_t *ids = json_array(), *rec, *v;
	const char *id;
	size_t i;

	json_object_foreach(e->sandboxes, id, rec)
		json_array_foreach(json_object_get(rec, "volumes"), i, v)
			if (strcmp(json_string_value(json_object_get(json_object_get(v, "pvc"), "claimName")) ?: "", name) == 0) {
				json_array_append_new(ids, json_string(id));
				break;
			}
	return ids;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(json_string_value(json_object_get(*(json_t *const *)a, "name")),
		      json_string_value(json_object_get(*(json_t *const *)b, "name")));
}

json_t *ax_volume_list(ax_engine *e, ax_error *err)
{
	DIR *d = opendir(e->volumes_dir);
	json_t *items = json_array(), **sorted;
	struct dirent *de;
	size_t n;

	if (!d && errno != ENOENT) {
		json_decref(items);
		ax_wire_fail(err, "GENERAL::UNKNOWN_ERROR", "cannot read %s: %s", e->volumes_dir, strerror(errno));
		return NULL;
	}
	pthread_mutex_lock(&e->lock);
	while (d && (de = readdir(d)))
		if (de->d_type == DT_DIR && dns_label(de->d_name, 253))
			json_array_append_new(items, json_pack("{s:s, s:o}", "name", de->d_name, "usedBy", users(e, de->d_name)));
	pthread_mutex_unlock(&e->lock);
	if (d)
		closedir(d);
	n = json_array_size(items);
	sorted = calloc(n + 1, sizeof(json_t *));
	for (size_t i = 0; sorted && i < n; i++)
		sorted[i] = json_incref(json_array_get(items, i));
	if (sorted) {
		qsort(sorted, n, sizeof(json_t *), by_name);
		json_array_clear(items);
		for (size_t i = 0; i < n; i++)
			json_array_append_new(items, sorted[i]);
		free(sorted);
	}
	return json_pack("{s:o}", "items", items);
}

int ax_volume_delete(ax_engine *e, const char *name, ax_error *err)
{
	char *dir;
	json_t *ids;
	struct stat st;
	ax_error why;
	int rc = 0;

	if (!dns_label(name, 253))
		return ax_wire_fail(err, "VOLUME::NOT_FOUND", "volume %s not found", name);
	dir = volume_dir(e, name);
	if (!dir)
		return ax_wire_fail(err, "GENERAL::UNKNOWN_ERROR", "out of memory");
	pthread_mutex_lock(&e->lock);
	ids = users(e, name);
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		rc = ax_wire_fail(err, "VOLUME::NOT_FOUND", "volume %s not found", name);
	else if (json_array_size(ids))
		rc = ax_wire_fail(err, "VOLUME::IN_USE", "volume %s is mounted by sandbox %s", name,
				  json_string_value(json_array_get(ids, 0)));
	else if (ax_rt_remove_state(dir, &why) < 0)
		rc = ax_wire_fail(err, "GENERAL::UNKNOWN_ERROR", "cannot remove volume %s: %s", name, why.message);
	else
		ax_engine_log(e, "removed volume %s", name);
	pthread_mutex_unlock(&e->lock);
	json_decref(ids);
	free(dir);
	return rc;
}
