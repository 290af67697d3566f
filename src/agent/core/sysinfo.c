#include "agent/core/sysinfo.h"

#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#define DEFAULT_HOME "/home/gem"
#define DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

/* What "utils" advertises when present on PATH; consecutive rows share a category. */
static const struct tool {
	const char *category, *name, *description;
} tools[] = {
	{ "Shell", "bash", "GNU Bourne-Again shell" },
	{ "Shell", "sh", "POSIX shell" },
	{ "Network", "curl", "Transfer data from or to a URL" },
	{ "Network", "wget", "Download files over HTTP, HTTPS and FTP" },
	{ "Version control", "git", "Distributed version control" },
	{ "Text processing", "jq", "Command-line JSON processor" },
	{ "Text processing", "grep", "Search text with regular expressions" },
	{ "Text processing", "sed", "Stream editor" },
	{ "Text processing", "awk", "Pattern scanning and processing language" },
	{ "Search", "find", "Search for files in a directory hierarchy" },
	{ "Search", "rg", "ripgrep: fast recursive search" },
	{ "Archives", "tar", "Tape archiver" },
	{ "Archives", "zip", "Package and compress files" },
	{ "Archives", "unzip", "Extract zip archives" },
	{ "Build", "gcc", "GNU C compiler" },
	{ "Build", "make", "Build automation" },
	{ "Python", "pip3", "Python package installer" },
	{ "Python", "uv", "Python package and project manager" },
	{ "Node.js", "npm", "Node.js package manager" },
	{ "Editors", "vim", "Vi IMproved text editor" },
	{ "Editors", "nano", "Small text editor" },
	{ "Database", "sqlite3", "SQLite command-line shell" },
};

static char *passwd_home(void)
{
	struct passwd pw, *found = NULL;
	char buf[4096];

	if (getpwuid_r(geteuid(), &pw, buf, sizeof buf, &found) == 0 && found && found->pw_dir &&
	    found->pw_dir[0] == '/')
		return strdup(found->pw_dir);
	return NULL;
}

char *ag_sysinfo_home(void)
{
	const char *home = getenv("HOME");
	char *pw;

	if (home && home[0] == '/')
		return strdup(home);
	pw = passwd_home();
	return pw ? pw : strdup(DEFAULT_HOME);
}

char *ag_sysinfo_workspace(void)
{
	const char *ws = getenv("WORKSPACE");

	if (ws && ws[0] == '/')
		return strdup(ws);
	return ag_sysinfo_home();
}

static json_t *user_name(void)
{
	struct passwd pw, *found = NULL;
	char buf[4096], uid[32];
	const char *env = getenv("USER");

	if (getpwuid_r(geteuid(), &pw, buf, sizeof buf, &found) == 0 && found)
		return json_string(found->pw_name);
	if (env && *env)
		return json_string(env);
	snprintf(uid, sizeof uid, "%u", (unsigned)geteuid());
	return json_string(uid);
}

/* VALUE of KEY=VALUE in an os-release file, unquoted. Malloc'd or NULL. */
static char *os_release(const char *key)
{
	static const char *const files[] = { "/etc/os-release", "/usr/lib/os-release" };
	size_t klen = strlen(key), i;
	char line[512];

	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		FILE *f = fopen(files[i], "re");
		char *value = NULL;

		if (!f)
			continue;
		while (!value && fgets(line, sizeof line, f)) {
			char *v = line + klen + 1;
			size_t n;

			if (strncmp(line, key, klen) != 0 || line[klen] != '=')
				continue;
			n = strcspn(v, "\n");
			v[n] = '\0';
			if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
				v[n - 1] = '\0';
				v++;
			}
			value = strdup(v);
		}
		fclose(f);
		return value;
	}
	return NULL;
}

static char *timezone_name(void)
{
	const char *tz = getenv("TZ");
	char link[PATH_MAX], line[128];
	const char *z;
	ssize_t n;
	FILE *f;

	if (tz && *tz) {
		if (*tz == ':')
			tz++;
		z = strstr(tz, "zoneinfo/");
		return strdup(z ? z + strlen("zoneinfo/") : tz);
	}
	f = fopen("/etc/timezone", "re");
	if (f) {
		char *got = fgets(line, sizeof line, f);

		fclose(f);
		if (got) {
			line[strcspn(line, "\n")] = '\0';
			if (line[0])
				return strdup(line);
		}
	}
	n = readlink("/etc/localtime", link, sizeof link - 1);
	if (n > 0) {
		link[n] = '\0';
		z = strstr(link, "zoneinfo/");
		if (z)
			return strdup(z + strlen("zoneinfo/"));
	}
	return strdup("UTC");
}

static void scan_listening(const char *path, unsigned char *seen)
{
	FILE *f = fopen(path, "re");
	char line[512];

	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		unsigned port, state;

		/* "  0: 0100007F:1F90 00000000:0000 0A ..." — 0A is TCP_LISTEN. */
		if (sscanf(line, " %*u: %*[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%*x %x", &port, &state) == 2 &&
		    state == 0x0A && port < 65536)
			seen[port / 8] |= (unsigned char)(1u << (port % 8));
	}
	fclose(f);
}

static json_t *occupied_ports(void)
{
	unsigned char *seen = calloc(65536 / 8, 1);
	json_t *ports = json_array();
	unsigned p;

	if (!seen)
		return ports;
	scan_listening("/proc/net/tcp", seen);
	scan_listening("/proc/net/tcp6", seen);
	for (p = 0; p < 65536; p++)
		if (seen[p / 8] & (1u << (p % 8))) {
			char s[8];

			snprintf(s, sizeof s, "%u", p);
			json_array_append_new(ports, json_string(s));
		}
	free(seen);
	return ports;
}

static json_t *system_env(void)
{
	json_t *o = json_object();
	struct utsname u;
	char *name = os_release("NAME"), *version = os_release("VERSION_ID");
	char *home = ag_sysinfo_home(), *ws = ag_sysinfo_workspace(), *tz = timezone_name();

	if (uname(&u) < 0)
		memset(&u, 0, sizeof u);
	json_object_set_new(o, "os", json_string(name ? name : u.sysname));
	json_object_set_new(o, "os_version", json_string(version ? version : u.release));
	json_object_set_new(o, "arch", json_string(u.machine));
	json_object_set_new(o, "user", user_name());
	json_object_set_new(o, "home_dir", json_string(home ? home : DEFAULT_HOME));
	json_object_set_new(o, "workspace", ws ? json_string(ws) : json_null());
	json_object_set_new(o, "timezone", json_string(tz ? tz : "UTC"));
	json_object_set_new(o, "occupied_ports", occupied_ports());
	free(name);
	free(version);
	free(home);
	free(ws);
	free(tz);
	return o;
}

/* NAME's full path on $PATH, like the shell finds it. Malloc'd or NULL. */
static char *which(const char *name)
{
	const char *path = getenv("PATH");
	const char *p, *end;
	char buf[PATH_MAX];

	if (!path || !*path)
		path = DEFAULT_PATH;
	for (p = path; ; p = end + 1) {
		struct stat st;
		size_t n;

		end = strchr(p, ':');
		n = end ? (size_t)(end - p) : strlen(p);
		if (n && snprintf(buf, sizeof buf, "%.*s/%s", (int)n, p, name) < (int)sizeof buf &&
		    stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
			return strdup(buf);
		if (!end)
			return NULL;
	}
}

/* ToolSpec rows for the first of NAMES found, grouping names that resolve to
 * the same binary as aliases. PREFIX turns "python3.11" into ver "3.11". */
static json_t *runtimes(const char *const *names, const char *prefix)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; names[i]; i++) {
		char *found = which(names[i]);
		char *real = found ? realpath(found, NULL) : NULL;
		const char *base;
		json_t *spec = NULL;
		size_t j;

		free(found);
		if (!real)
			continue;
		json_array_foreach(list, j, spec) {
			if (strcmp(json_string_value(json_object_get(spec, "bin")), real) == 0)
				break;
		}
		if (j < json_array_size(list)) {
			json_array_append_new(json_object_get(spec, "alias"), json_string(names[i]));
			free(real);
			continue;
		}
		base = strrchr(real, '/') + 1;
		spec = json_object();
		if (strncmp(base, prefix, strlen(prefix)) == 0 && base[strlen(prefix)] >= '0' &&
		    base[strlen(prefix)] <= '9' && strspn(base + strlen(prefix), "0123456789.") == strlen(base + strlen(prefix)))
			json_object_set_new(spec, "ver", json_string(base + strlen(prefix)));
		else
			json_object_set_new(spec, "ver", json_null());
		json_object_set_new(spec, "bin", json_string(real));
		json_object_set_new(spec, "alias", json_pack("[s]", names[i]));
		json_array_append_new(list, spec);
		free(real);
	}
	return list;
}

static json_t *runtime_env(void)
{
	static const char *const python[] = { "python3", "python", NULL };
	static const char *const node[] = { "node", "nodejs", NULL };

	return json_pack("{s:o, s:o}", "python", runtimes(python, "python"),
			 "nodejs", runtimes(node, "node"));
}

static json_t *utils(void)
{
	json_t *list = json_array(), *group = NULL;
	const char *category = NULL;
	size_t i;

	for (i = 0; i < sizeof tools / sizeof tools[0]; i++) {
		char *found = which(tools[i].name);

		if (!found)
			continue;
		free(found);
		if (!category || strcmp(category, tools[i].category) != 0) {
			category = tools[i].category;
			group = json_array();
			json_array_append_new(list, json_pack("{s:s, s:o}", "category", category, "tools", group));
		}
		json_array_append_new(group, json_pack("{s:s, s:s}", "name", tools[i].name,
						       "description", tools[i].description));
	}
	return list;
}

json_t *ag_sysinfo_detail(void)
{
	return json_pack("{s:o, s:o, s:o}", "system", system_env(), "runtime", runtime_env(),
			 "utils", utils());
}

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static void runtime_line(FILE *out, const char *label, const json_t *list)
{
	const json_t *spec;
	size_t i;

	json_array_foreach(list, i, spec) {
		const char *ver = json_string_value(json_object_get(spec, "ver"));

		fprintf(out, "- %s%s%s: %s\n", label, ver ? " " : "", ver ? ver : "", str(spec, "bin"));
	}
}

char *ag_sysinfo_text(const json_t *detail, const char *version, const char *sandbox_id)
{
	const json_t *sys = json_object_get(detail, "system");
	const json_t *rt = json_object_get(detail, "runtime");
	const json_t *cat, *tool;
	char host[256] = "", *text = NULL;
	size_t size = 0, i, j;
	struct utsname u;
	FILE *out = open_memstream(&text, &size);
	int first = 1;

	if (!out)
		return NULL;
	if (gethostname(host, sizeof host - 1) < 0)
		host[0] = '\0';
	if (uname(&u) < 0)
		memset(&u, 0, sizeof u);
	fprintf(out, "System Environment (allox-agent %s):\n", version);
	fprintf(out, "- %s %s (%s), kernel %s %s\n", str(sys, "os"), str(sys, "os_version"),
		str(sys, "arch"), u.sysname, u.release);
	fprintf(out, "- Hostname: %s\n", host);
	fprintf(out, "- User: %s\n", str(sys, "user"));
	fprintf(out, "- Home directory: %s\n", str(sys, "home_dir"));
	fprintf(out, "- Workspace: %s\n", str(sys, "workspace"));
	fprintf(out, "- Timezone: %s\n", str(sys, "timezone"));
	fprintf(out, "- Sandbox: %s\n", sandbox_id);
	runtime_line(out, "Python", json_object_get(rt, "python"));
	runtime_line(out, "Node.js", json_object_get(rt, "nodejs"));
	fprintf(out, "- Tools:");
	json_array_foreach(json_object_get(detail, "utils"), i, cat) {
		json_array_foreach(json_object_get(cat, "tools"), j, tool) {
			fprintf(out, "%s %s", first ? "" : ",", str(tool, "name"));
			first = 0;
		}
	}
	fprintf(out, "\n");
	if (fclose(out) != 0) {
		free(text);
		return NULL;
	}
	return text;
}
