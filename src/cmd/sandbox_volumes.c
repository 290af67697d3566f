/* See sandbox_volumes.h. */
#include "cmd/sandbox_volumes.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool volume_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 253 || s[0] == '-' || s[n - 1] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return false;
	return true;
}

/* SPEC as the I-th volume of a create request, or NULL with ERR. */
static json_t *volume(const char *spec, size_t i, ax_error *err)
{
	char *copy = strdup(spec), *dst, *mode, name[16], host[PATH_MAX];
	json_t *v = NULL;

	if (!copy) {
		ax_fail(err, AX_CODE_NOMEM, "out of memory");
		return NULL;
	}
	dst = strchr(copy, ':');
	mode = dst ? strchr(dst + 1, ':') : NULL;
	if (dst)
		*dst++ = '\0';
	if (mode)
		*mode++ = '\0';
	if (!dst || !*copy || dst[0] != '/' || (mode && strcmp(mode, "ro") != 0 && strcmp(mode, "rw") != 0)) {
		ax_fail(err, AX_CODE_USAGE,
			"--volume %s: expected HOST_DIR:/PATH[:ro] or NAME:/PATH[:ro] (PATH absolute in the sandbox)", spec);
		free(copy);
		return NULL;
	}
	snprintf(name, sizeof name, "v%zu", i);
	v = json_pack("{s:s, s:s, s:b}", "name", name, "mountPath", dst, "readOnly", mode && strcmp(mode, "ro") == 0);
	if (copy[0] == '/' || copy[0] == '.') {
		/* The server resolves the path itself, below its allowed prefixes. */
		if (!realpath(copy, host)) {
			ax_fail(err, AX_CODE_USAGE, "--volume %s: no directory %s here", spec, copy);
			json_decref(v);
			v = NULL;
		} else {
			json_object_set_new(v, "host", json_pack("{s:s}", "path", host));
		}
	} else if (volume_name(copy)) {
		json_object_set_new(v, "pvc", json_pack("{s:s}", "claimName", copy));
	} else {
		ax_fail(err, AX_CODE_USAGE,
			"--volume %s: a named volume's name is lowercase letters, digits and '-' (a host directory starts "
			"with / or .)", spec);
		json_decref(v);
		v = NULL;
	}
	free(copy);
	return v;
}

int ax_sandbox_volumes_request(const ax_args *args, json_t *req, ax_error *err)
{
	const json_t *specs = ax_arg_json(args, "volume"), *s;
	json_t *volumes;
	size_t i;

	if (!json_array_size(specs))
		return 0;
	volumes = json_array();
	json_array_foreach(specs, i, s) {
		json_t *v = volume(json_string_value(s), i, err);

		if (!v) {
			json_decref(volumes);
			return -1;
		}
		json_array_append_new(volumes, v);
	}
	json_object_set_new(req, "volumes", volumes);
	return 0;
}
