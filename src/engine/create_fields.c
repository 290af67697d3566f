/* Which fields of a create request the engine honours. A field it cannot
 * honour is refused with a 400 that names it: ignoring it would leave the
 * client believing in a restriction (a volume, a GPU, an egress rule) that
 * is not there. Values that ask for nothing (secureAccess false, an empty
 * volumes list, credentialProxy disabled, the host's own platform) are
 * honoured trivially and pass. */
#include "engine/engine.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "engine/egress/egress_policy.h"
#include "engine/wire_error.h"

static const char *const known_fields[] = { "image", "snapshotId", "timeout", "resourceLimits", "env", "metadata",
					    "entrypoint", "extensions", "networkPolicy", "platform", "secureAccess",
					    "volumes", "credentialProxy" };
static const char *const known_extensions[] = { AX_NET_EXTENSION, "allox.mcp.servers" };

static bool listed(const char *k, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(k, names[i]) == 0)
			return true;
	return false;
}

/* The spec's name for the engine's machine, NULL for one it has none for. */
static const char *host_arch(void)
{
	struct utsname u;

	if (uname(&u) < 0)
		return NULL;
	if (strcmp(u.machine, "x86_64") == 0)
		return "amd64";
	if (strcmp(u.machine, "aarch64") == 0)
		return "arm64";
	return NULL;
}

static int refuse(ax_error *err, const char *field, const char *why)
{
	return ax_wire_fail(err, "SANDBOX::INVALID_PARAMETER", "%s: %s", field, why);
}

static int check_platform(const json_t *p, ax_error *err)
{
	const char *os = json_string_value(json_object_get(p, "os"));
	const char *arch = json_string_value(json_object_get(p, "arch")), *have = host_arch(), *k;
	json_t *v;

	if (!json_is_object(p))
		return refuse(err, "platform", "must be an object {os, arch}");
	json_object_foreach((json_t *)p, k, v)
		if (strcmp(k, "os") != 0 && strcmp(k, "arch") != 0) {
			char f[96];

			snprintf(f, sizeof f, "platform.%.60s", k);
			return refuse(err, f, "is not supported (os and arch are)");
		}
	if (!os || strcmp(os, "linux") != 0)
		return refuse(err, "platform.os", "the local engine runs linux sandboxes only");
	if (!arch || !have || strcmp(arch, have) != 0) {
		ax_wire_fail(err, "SANDBOX::INVALID_PARAMETER",
			      "platform.arch: the local engine runs %s sandboxes only, not '%s'", have ?: "its own machine's",
			      arch ?: "");
		return -1;
	}
	return 0;
}

int ax_create_fields_check(const json_t *body, ax_net_mode mode, ax_error *err)
{
	const json_t *limits = json_object_get(body, "resourceLimits"), *x;
	const char *k;
	json_t *v, *policy;
	char why[600];

	json_object_foreach((json_t *)body, k, v)
		if (!listed(k, known_fields, sizeof known_fields / sizeof known_fields[0])) {
			ax_wire_fail(err, "SANDBOX::INVALID_PARAMETER",
				      "%.100s: not a create field the local engine knows, so it cannot honour it", k);
			return -1;
		}
	json_object_foreach((json_t *)json_object_get(body, "extensions"), k, v)
		if (!listed(k, known_extensions, sizeof known_extensions / sizeof known_extensions[0])) {
			ax_wire_fail(err, "SANDBOX::INVALID_PARAMETER",
				      "extensions.%.100s: not an extension the local engine knows (it knows %s and "
				      "allox.mcp.servers)", k, AX_NET_EXTENSION);
			return -1;
		}
	json_object_foreach((json_t *)limits, k, v)
		if (!listed(k, (const char *const[]){ "cpu", "memory", "pids", "ephemeral-storage" }, 4)) {
			ax_wire_fail(err, "SANDBOX::INVALID_PARAMETER",
				      "resourceLimits.%.100s: the local engine cannot enforce it (it enforces cpu, memory, "
				      "pids and ephemeral-storage)", k);
			return -1;
		}
	x = json_object_get(body, "platform");
	if (x && !json_is_null(x) && check_platform(x, err) < 0)
		return -1;
	x = json_object_get(body, "secureAccess");
	if (x && !json_is_null(x) && !json_is_false(x))
		return refuse(err, "secureAccess",
			      "not supported by the local engine (endpoints are on the host's loopback; the agent's carry "
			      "their token header anyway)");
	x = json_object_get(body, "credentialProxy");
	if (x && !json_is_null(x) &&
	    !(json_is_object(x) && json_object_size(x) <= 1 &&
	      (json_object_size(x) == 0 || json_is_false(json_object_get(x, "enabled")))))
		return refuse(err, "credentialProxy", "not supported by the local engine (only {\"enabled\": false})");
	x = json_object_get(body, "networkPolicy");
	if (!x)
		return 0;
	policy = ax_policy_normalize(x, why, sizeof why);
	if (!policy) {
		ax_wire_fail(err, "SANDBOX::INVALID_PARAMETER", "%s", why);
		return -1;
	}
	json_decref(policy);
	if (mode != AX_NET_ISOLATED) {
		ax_wire_fail(err, "SANDBOX::INVALID_PARAMETER",
			      "networkPolicy: needs the isolated network (extensions.%s \"isolated\", the default); a "
			      "sandbox on the %s network cannot have its egress filtered",
			      AX_NET_EXTENSION, mode == AX_NET_HOST ? "host's" : "\"none\"");
		return -1;
	}
	return 0;
}
