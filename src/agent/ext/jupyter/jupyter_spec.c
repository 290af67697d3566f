#include "agent/ext/jupyter/jupyter_spec.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/fs.h"

#define MAX_DIRS 24

struct dirs {
	char *v[MAX_DIRS];
	size_t n;
};

static void add_dir(struct dirs *d, const char *base, const char *suffix)
{
	char *p;

	if (!base || !*base || d->n == MAX_DIRS)
		return;
	p = ax_path_join(base, suffix);
	if (p)
		d->v[d->n++] = p;
}

static void dirs_free(struct dirs *d)
{
	while (d->n)
		free(d->v[--d->n]);
}

static void add_home_dir(struct dirs *d, const char *home, const char *sub)
{
	char buf[4096];

	if (home && *home && snprintf(buf, sizeof buf, "%s/%s", home, sub) < (int)sizeof buf)
		add_dir(d, buf, "kernels");
}

/* The kernels directories in priority order. */
static void kernel_dirs(struct dirs *d)
{
	const char *path = getenv("JUPYTER_PATH"), *home = getenv("HOME");
	const char *data = getenv("JUPYTER_DATA_DIR"), *xdg = getenv("XDG_DATA_HOME");
	char *copy, *tok, *save = NULL;

	d->n = 0;
	copy = path ? strdup(path) : NULL;
	for (tok = copy ? strtok_r(copy, ":", &save) : NULL; tok; tok = strtok_r(NULL, ":", &save))
		add_dir(d, tok, "kernels");
	free(copy);
	if (data && *data)
		add_dir(d, data, "kernels");
	else if (xdg && *xdg)
		add_home_dir(d, xdg, "jupyter");
	else
		add_home_dir(d, home, ".local/share/jupyter");
	add_dir(d, "/usr/local/share/jupyter", "kernels");
	add_dir(d, "/usr/share/jupyter", "kernels");
	add_home_dir(d, home, ".ipython");
}

bool jk_spec_name_ok(const char *name)
{
	size_t i;

	if (!name || !*name || strlen(name) > JK_NAME_MAX || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return false;
	for (i = 0; name[i]; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", name[i]))
			return false;
	return true;
}

void jk_strv_free(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

void jk_spec_free(struct jk_spec *spec)
{
	free(spec->dir);
	jk_strv_free(spec->argv);
	jk_strv_free(spec->env);
	memset(spec, 0, sizeof *spec);
}

/* S with each PLACEHOLDER replaced by VALUE; malloc'd. */
static char *replace_all(const char *s, const char *placeholder, const char *value)
{
	size_t plen = strlen(placeholder), vlen = strlen(value), n = 0, out_len;
	const char *p;
	char *out, *w;

	for (p = strstr(s, placeholder); p; p = strstr(p + plen, placeholder))
		n++;
	out_len = strlen(s) + n * vlen - n * plen;
	out = malloc(out_len + 1);
	if (!out)
		return NULL;
	for (w = out; (p = strstr(s, placeholder)); s = p + plen) {
		w = mempcpy(w, s, (size_t)(p - s));
		w = mempcpy(w, value, vlen);
	}
	strcpy(w, s);
	return out;
}

/* VALUE with each ${VAR} replaced by the agent's $VAR; unknown variables
 * stay as written (jupyter_client's rule). NULL on ENOMEM. */
static char *substitute_env(const char *value)
{
	char *out = NULL, name[256];
	size_t len = 0, n;
	FILE *f = open_memstream(&out, &len);
	const char *p = value, *end, *v;

	if (!f)
		return NULL;
	while (*p) {
		v = NULL;
		end = p[0] == '$' && p[1] == '{' ? strchr(p + 2, '}') : NULL;
		n = end ? (size_t)(end - p - 2) : 0;
		if (n && n < sizeof name) {
			memcpy(name, p + 2, n);
			name[n] = '\0';
			v = getenv(name);
		}
		if (v) {
			fputs(v, f);
			p = end + 1;
		} else {
			fputc(*p++, f);
		}
	}
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

static char **string_array(const json_t *a)
{
	size_t i, n = json_array_size(a);
	char **v = calloc(n + 1, sizeof *v);

	for (i = 0; v && i < n; i++) {
		const char *s = json_string_value(json_array_get(a, i));

		v[i] = s ? strdup(s) : NULL;
		if (!v[i]) {
			jk_strv_free(v);
			return NULL;
		}
	}
	return v;
}

static char **env_array(const json_t *env)
{
	size_t n = json_object_size(env), i = 0;
	char **v = calloc(n + 1, sizeof *v);
	const char *k;
	json_t *val;

	json_object_foreach((json_t *)env, k, val) {
		char *sub = json_is_string(val) ? substitute_env(json_string_value(val)) : NULL;

		if (v && sub && *k && !strchr(k, '='))
			v[i] = malloc(strlen(k) + strlen(sub) + 2);
		if (v && v[i])
			sprintf(v[i++], "%s=%s", k, sub);
		free(sub);
	}
	return v;
}

/* Fill SPEC from DIR/kernel.json. 0, or -1 with ERR (500). */
static int load(const char *dir, const char *name, struct jk_spec *spec, struct ag_error *err)
{
	char *file = ax_path_join(dir, "kernel.json");
	json_error_t jerr;
	json_t *doc = file ? json_load_file(file, 0, &jerr) : NULL;
	const json_t *argv = json_object_get(doc, "argv"), *env = json_object_get(doc, "env");
	const char *mode = json_string_value(json_object_get(doc, "interrupt_mode"));
	const char *language = json_string_value(json_object_get(doc, "language"));
	size_t i;
	int rc = -1;

	memset(spec, 0, sizeof *spec);
	if (!doc) {
		ag_fail(err, 500, "kernel %s: %s: %s", name, file ? file : dir, file ? jerr.text : "out of memory");
		goto out;
	}
	for (i = 0; i < json_array_size(argv); i++)
		if (!json_is_string(json_array_get(argv, i)))
			break;
	if (!json_array_size(argv) || i < json_array_size(argv) || (env && !json_is_object(env))) {
		ag_fail(err, 500, "kernel %s: %s: argv must be a list of strings and env an object", name, file);
		goto out;
	}
	snprintf(spec->name, sizeof spec->name, "%s", name);
	spec->dir = strdup(dir);
	spec->argv = string_array(argv);
	spec->env = env_array(env);
	spec->interrupt_message = mode && strcmp(mode, "message") == 0;
	if (language && strlen(language) <= JK_LANG_MAX)
		for (i = 0; language[i]; i++)
			spec->language[i] = (char)tolower((unsigned char)language[i]);
	if (!spec->dir || !spec->argv || !spec->env) {
		jk_spec_free(spec);
		ag_fail(err, 500, "out of memory");
		goto out;
	}
	rc = 0;
out:
	json_decref(doc);
	free(file);
	return rc;
}

/* The entry of KERNELS that is NAME, case-insensitively, into FOUND. */
static bool find_entry(const char *kernels, const char *name, char found[JK_NAME_MAX + 1])
{
	DIR *d = opendir(kernels);
	struct dirent *e;
	bool hit = false;

	if (!d)
		return false;
	while (!hit && (e = readdir(d)))
		if (jk_spec_name_ok(e->d_name) && strcasecmp(e->d_name, name) == 0) {
			snprintf(found, JK_NAME_MAX + 1, "%.*s", JK_NAME_MAX, e->d_name);
			hit = true;
		}
	closedir(d);
	return hit;
}

int jk_spec_find(const char *name, struct jk_spec *spec, struct ag_error *err)
{
	char found[JK_NAME_MAX + 1], *dir;
	struct dirs d;
	size_t i;
	int rc = 1;

	memset(spec, 0, sizeof *spec);
	if (!jk_spec_name_ok(name)) {
		return ag_fail(err, 400, "invalid kernel name: %.100s", name);
	}
	kernel_dirs(&d);
	for (i = 0; i < d.n && rc > 0; i++) {
		if (!find_entry(d.v[i], name, found))
			continue;
		dir = ax_path_join(d.v[i], found);
		rc = dir ? load(dir, found, spec, err) : ag_fail(err, 500, "out of memory");
		free(dir);
	}
	dirs_free(&d);
	if (rc > 0)
		return ag_fail(err, 404, "No such kernel: %s", name);
	return rc;
}

static bool has_kernel_json(const char *kernels, const char *name)
{
	char path[4096];
	FILE *f;

	if (snprintf(path, sizeof path, "%s/%s/kernel.json", kernels, name) >= (int)sizeof path)
		return false;
	f = fopen(path, "r");
	if (f)
		fclose(f);
	return f != NULL;
}

static bool listed(const json_t *names, const char *name)
{
	size_t i;

	for (i = 0; i < json_array_size(names); i++)
		if (strcasecmp(json_string_value(json_array_get(names, i)), name) == 0)
			return true;
	return false;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

json_t *jk_spec_names(void)
{
	json_t *names = json_array(), *sorted = json_array();
	const char **v;
	struct dirent *e;
	struct dirs d;
	size_t i, n;
	DIR *dir;

	kernel_dirs(&d);
	for (i = 0; i < d.n; i++) {
		dir = opendir(d.v[i]);
		while (dir && (e = readdir(dir)))
			if (jk_spec_name_ok(e->d_name) && !listed(names, e->d_name) && has_kernel_json(d.v[i], e->d_name))
				json_array_append_new(names, json_string(e->d_name));
		if (dir)
			closedir(dir);
	}
	dirs_free(&d);
	n = json_array_size(names);
	v = calloc(n + 1, sizeof *v);
	for (i = 0; v && i < n; i++)
		v[i] = json_string_value(json_array_get(names, i));
	if (v)
		qsort(v, n, sizeof *v, by_name);
	for (i = 0; v && i < n; i++)
		json_array_append_new(sorted, json_string(v[i]));
	free(v);
	json_decref(names);
	return sorted;
}

char **jk_spec_argv(const struct jk_spec *spec, const char *connection_file)
{
	size_t n = 0, i;
	char **v, *a;

	while (spec->argv[n])
		n++;
	v = calloc(n + 1, sizeof *v);
	for (i = 0; v && i < n; i++) {
		a = replace_all(spec->argv[i], "{connection_file}", connection_file);
		v[i] = a ? replace_all(a, "{resource_dir}", spec->dir) : NULL;
		free(a);
		if (!v[i]) {
			jk_strv_free(v);
			return NULL;
		}
	}
	return v;
}

/* Try kernel NAME for LANGUAGE: 1 when it is the one (SPEC filled), 0 when not. */
static int speaks(const char *name, const char *language, struct jk_spec *spec)
{
	struct ag_error ignored;

	if (jk_spec_find(name, spec, &ignored) < 0)
		return 0;
	if (strcasecmp(spec->language, language) == 0)
		return 1;
	jk_spec_free(spec);
	return 0;
}

int jk_spec_for_language(const char *language, struct jk_spec *spec, struct ag_error *err)
{
	json_t *names;
	size_t i;
	int hit;

	memset(spec, 0, sizeof *spec);
	if (!jk_spec_name_ok(language) || strlen(language) > JK_LANG_MAX)
		return ag_fail(err, 400, "invalid language: %.100s", language);
	/* python3 is ipykernel's own name; other Python kernels are extras. */
	if (strcasecmp(language, "python") == 0 && speaks("python3", language, spec))
		return 0;
	names = jk_spec_names();
	for (hit = 0, i = 0; !hit && i < json_array_size(names); i++)
		hit = speaks(json_string_value(json_array_get(names, i)), language, spec);
	json_decref(names);
	if (!hit)
		return ag_fail(err, 404, "no Jupyter kernel for language %s is installed in the sandbox", language);
	return 0;
}
