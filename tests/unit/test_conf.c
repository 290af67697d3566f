#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/conf.h"
#include "lib/fs.h"
#include "lib/toml.h"

static char path[256];

static int setup(void **state)
{
	char tmpl[] = "/tmp/allox-conf-XXXXXX";

	(void)state;
	if (!mkdtemp(tmpl))
		return -1;
	snprintf(path, sizeof path, "%s/config.toml", tmpl);
	unsetenv("ALLOX_DOMAIN");
	unsetenv("OPEN_SANDBOX_DOMAIN");
	unsetenv("ALLOX_API_KEY");
	unsetenv("OPEN_SANDBOX_API_KEY");
	unsetenv("ALLOX_PROTOCOL");
	unsetenv("ALLOX_REQUEST_TIMEOUT");
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf \"$(dirname '%s')\"", path);
	return system(cmd) == 0 ? 0 : -1;
}

static void write_config(const char *text)
{
	ax_error err;

	assert_int_equal(ax_write_file_atomic(path, text, strlen(text), 0600, &err), 0);
}

static const char *source(const ax_config *c, const char *name)
{
	return json_string_value(json_object_get(c->sources, name));
}

static void test_defaults(void **state)
{
	ax_config c;
	ax_error err;
	const ax_conf_key *k;
	size_t n = 0;

	(void)state;
	assert_int_equal(ax_config_load(&c, path, NULL, &err), 0);
	assert_false(c.file_exists);
	for (k = ax_conf_keys(); k->key; k++)
		n++;
	assert_int_equal(n, 23);
	assert_int_equal(json_object_size(c.resolved), 23);
	assert_null(ax_config_string(&c, "domain"));
	assert_string_equal(ax_config_string(&c, "protocol"), "http");
	assert_int_equal(ax_config_int(&c, "request_timeout"), 30);
	assert_false(ax_config_bool(&c, "skip_health_check"));
	assert_true(ax_config_bool(&c, "color"));
	assert_int_equal(json_array_size(ax_config_value(&c, "checkpoint_operations")), 5);
	assert_string_equal(ax_config_string(&c, "ready_timeout"), "30s");
	assert_string_equal(ax_config_string(&c, "default_cpu"), "1");
	assert_string_equal(ax_config_string(&c, "default_memory"), "2Gi");
	assert_true(json_is_null(ax_config_value(&c, "default_pids")));
	assert_true(json_is_null(ax_config_value(&c, "default_disk")));
	assert_string_equal(source(&c, "domain"), "default");
	ax_config_free(&c);
}

static void test_file_values_and_types(void **state)
{
	ax_config c;
	ax_error err;

	(void)state;
	write_config("[connection]\ndomain = \"localhost:8080\"\n[defaults]\nentrypoint = \"/bin/sh\"\n"
		     "skip_health_check = true\n[log]\nlevel = \"debug\"\n");
	assert_int_equal(ax_config_load(&c, path, NULL, &err), 0);
	assert_string_equal(ax_config_string(&c, "domain"), "localhost:8080");
	assert_string_equal(source(&c, "domain"), "file");
	assert_true(ax_config_bool(&c, "skip_health_check"));
	/* A bare string entrypoint is a one-element list. */
	assert_int_equal(json_array_size(ax_config_value(&c, "default_entrypoint")), 1);
	ax_config_free(&c);

	write_config("[checkpoint]\nenabled = \"false\"\n");
	assert_int_equal(ax_config_load(&c, path, NULL, &err), -1);
	assert_int_equal(err.exit_code, AX_EXIT_FAILURE);
	assert_non_null(strstr(err.message, "checkpoint.enabled: expected a boolean"));
	ax_config_free(&c);

	write_config("[defaults]\nready_timeout = \"soon\"\n");
	assert_int_equal(ax_config_load(&c, path, NULL, &err), -1);
	assert_non_null(strstr(err.message, "defaults.ready_timeout: Invalid duration 'soon'"));
	ax_config_free(&c);

	/* Limits from the file: numbers become the strings resourceLimits carries. */
	write_config("[defaults]\ncpu = 0.5\nmemory = 1073741824\npids = 64\ndisk = \"\"\n");
	assert_int_equal(ax_config_load(&c, path, NULL, &err), 0);
	assert_string_equal(ax_config_string(&c, "default_cpu"), "500m");
	assert_string_equal(ax_config_string(&c, "default_memory"), "1073741824");
	assert_int_equal(ax_config_int(&c, "default_pids"), 64);
	assert_string_equal(ax_config_string(&c, "default_disk"), "");
	ax_config_free(&c);

	write_config("[defaults]\ncpu = 2\npids = \"\"\n");
	assert_int_equal(ax_config_load(&c, path, NULL, &err), 0);
	assert_string_equal(ax_config_string(&c, "default_cpu"), "2");
	assert_string_equal(ax_config_string(&c, "default_pids"), "");
	ax_config_free(&c);

	write_config("[defaults]\nmemory = \"lots\"\n");
	assert_int_equal(ax_config_load(&c, path, NULL, &err), -1);
	assert_non_null(strstr(err.message, "defaults.memory: expected a size such as 512Mi, 2Gi or 100M"));
	ax_config_free(&c);

	write_config("[defaults]\ncpu = true\n");
	assert_int_equal(ax_config_load(&c, path, NULL, &err), -1);
	assert_non_null(strstr(err.message, "defaults.cpu: expected a number of CPUs"));
	ax_config_free(&c);

	write_config("[defaults]\npids = 8\n");
	assert_int_equal(ax_config_load(&c, path, NULL, &err), -1);
	ax_config_free(&c);

	write_config("[defaults]\naio_port = 70000\n");
	assert_int_equal(ax_config_load(&c, path, NULL, &err), -1);
	assert_non_null(strstr(err.message, "from 1 to 65535"));
	ax_config_free(&c);
}

static void test_syntax_error_position(void **state)
{
	ax_config c;
	ax_error err;
	char expect[300];

	(void)state;
	write_config("[connection]\ndomain = \n");
	assert_int_equal(ax_config_load(&c, path, NULL, &err), -1);
	snprintf(expect, sizeof expect, "%s:2:", path);
	assert_int_equal(strncmp(err.message, expect, strlen(expect)), 0);
	assert_int_equal(err.exit_code, AX_EXIT_FAILURE);
	ax_config_free(&c);
}

static void test_precedence(void **state)
{
	ax_config c;
	ax_error err;
	ax_config_flags flags = { .use_server_proxy = -1 };

	(void)state;
	write_config("[connection]\ndomain = \"file:1\"\napi_key = \"filekey\"\n");
	setenv("OPEN_SANDBOX_DOMAIN", "osb:2", 1);
	assert_int_equal(ax_config_load(&c, path, &flags, &err), 0);
	assert_string_equal(ax_config_string(&c, "domain"), "osb:2");
	assert_string_equal(source(&c, "domain"), "env:OPEN_SANDBOX_DOMAIN");
	ax_config_free(&c);

	setenv("ALLOX_DOMAIN", "allox:3", 1);
	assert_int_equal(ax_config_load(&c, path, &flags, &err), 0);
	assert_string_equal(ax_config_string(&c, "domain"), "allox:3");
	ax_config_free(&c);

	flags.domain = "flag:4";
	flags.no_color = true;
	assert_int_equal(ax_config_load(&c, path, &flags, &err), 0);
	assert_string_equal(ax_config_string(&c, "domain"), "flag:4");
	assert_string_equal(source(&c, "domain"), "flag");
	assert_false(ax_config_bool(&c, "color"));
	assert_string_equal(ax_config_string(&c, "api_key"), "filekey");
	ax_config_free(&c);

	/* Empty variables count as unset. */
	flags.domain = NULL;
	setenv("ALLOX_DOMAIN", "", 1);
	assert_int_equal(ax_config_load(&c, path, &flags, &err), 0);
	assert_string_equal(ax_config_string(&c, "domain"), "osb:2");
	ax_config_free(&c);

	setenv("ALLOX_PROTOCOL", "ftp", 1);
	assert_int_equal(ax_config_load(&c, path, &flags, &err), -1);
	assert_int_equal(err.exit_code, AX_EXIT_USAGE);
	assert_non_null(strstr(err.message, "ALLOX_PROTOCOL"));
	ax_config_free(&c);
	unsetenv("ALLOX_PROTOCOL");
	unsetenv("ALLOX_DOMAIN");
	unsetenv("OPEN_SANDBOX_DOMAIN");
}

static void test_value_from_text(void **state)
{
	ax_error err;
	json_t *v;

	(void)state;
	v = ax_conf_value_from_text(ax_conf_find("checkpoint.enabled"), "yes", &err);
	assert_true(json_is_true(v));
	json_decref(v);
	v = ax_conf_value_from_text(ax_conf_find("checkpoint.enabled"), "Off", &err);
	assert_true(json_is_false(v));
	json_decref(v);
	assert_null(ax_conf_value_from_text(ax_conf_find("checkpoint.enabled"), "maybe", &err));
	assert_int_equal(err.exit_code, AX_EXIT_USAGE);
	v = ax_conf_value_from_text(ax_conf_find("defaults.aio_port"), "8081", &err);
	assert_int_equal(json_integer_value(v), 8081);
	json_decref(v);
	assert_null(ax_conf_value_from_text(ax_conf_find("defaults.aio_port"), "80x", &err));
	assert_null(ax_conf_value_from_text(ax_conf_find("defaults.aio_port"), "0", &err));
	v = ax_conf_value_from_text(ax_conf_find("checkpoint.operations"), " run, aio.exec ,", &err);
	assert_int_equal(json_array_size(v), 2);
	assert_string_equal(json_string_value(json_array_get(v, 1)), "aio.exec");
	json_decref(v);
	v = ax_conf_value_from_text(ax_conf_find("defaults.entrypoint"), "[\"/bin/sh\", \"-c\", \"a,b\"]", &err);
	assert_int_equal(json_array_size(v), 3);
	assert_string_equal(json_string_value(json_array_get(v, 2)), "a,b");
	json_decref(v);
	assert_null(ax_conf_value_from_text(ax_conf_find("defaults.entrypoint"), "[1, 2]", &err));
	/* Limits: quantity.h's grammar and ranges; "" sends none. */
	v = ax_conf_value_from_text(ax_conf_find("defaults.cpu"), "500m", &err);
	assert_string_equal(json_string_value(v), "500m");
	json_decref(v);
	v = ax_conf_value_from_text(ax_conf_find("defaults.cpu"), "", &err);
	assert_string_equal(json_string_value(v), "");
	json_decref(v);
	assert_null(ax_conf_value_from_text(ax_conf_find("defaults.cpu"), "fast", &err));
	assert_int_equal(err.exit_code, AX_EXIT_USAGE);
	assert_string_equal(err.message,
			    "Invalid value 'fast' for defaults.cpu: expected a number of CPUs such as 1, 0.5 or 500m");
	v = ax_conf_value_from_text(ax_conf_find("defaults.memory"), "1.5Gi", &err);
	assert_string_equal(json_string_value(v), "1.5Gi");
	json_decref(v);
	assert_null(ax_conf_value_from_text(ax_conf_find("defaults.memory"), "12", &err));
	assert_string_equal(err.message, "Invalid value '12' for defaults.memory: must be at least 32Mi");
	assert_null(ax_conf_value_from_text(ax_conf_find("defaults.disk"), "1Q", &err));
	v = ax_conf_value_from_text(ax_conf_find("defaults.pids"), "64", &err);
	assert_int_equal(json_integer_value(v), 64);
	json_decref(v);
	v = ax_conf_value_from_text(ax_conf_find("defaults.pids"), "", &err);
	assert_string_equal(json_string_value(v), "");
	json_decref(v);
	assert_null(ax_conf_value_from_text(ax_conf_find("defaults.pids"), "8", &err));
	v = ax_conf_value_from_text(ax_conf_find("defaults.ready_timeout"), "180s", &err);
	assert_string_equal(json_string_value(v), "180s");
	json_decref(v);
	assert_null(ax_conf_value_from_text(ax_conf_find("defaults.ready_timeout"), "none", &err));
	v = ax_conf_value_from_text(ax_conf_find("defaults.timeout"), "none", &err);
	assert_string_equal(json_string_value(v), "none");
	json_decref(v);
	assert_null(ax_conf_value_from_text(ax_conf_find("connection.protocol"), "gopher", &err));
}

static void test_template_parses_to_defaults(void **state)
{
	char *t = ax_config_template();
	json_t *doc = NULL;
	ax_error err;
	const ax_conf_key *k;

	(void)state;
	assert_non_null(t);
	assert_int_equal(toml_parse(t, strlen(t), &doc, &err), 0);
	/* Every key is mentioned, and it parses to no values at all. */
	for (k = ax_conf_keys(); k->key; k++)
		assert_non_null(strstr(t, strchr(k->key, '.') + 1));
	assert_non_null(strstr(t, "flags > ALLOX_* environment variables"));
	assert_int_equal(json_object_size(json_object_get(doc, "connection")), 0);
	json_decref(doc);
	free(t);
}

static void test_paths_and_mask(void **state)
{
	char *p = NULL, *m;
	ax_error err;

	(void)state;
	assert_int_equal(ax_config_path("/h", NULL, NULL, &p, &err), 0);
	assert_string_equal(p, "/h/config.toml");
	free(p);
	assert_int_equal(ax_config_path("/h", "dev", NULL, &p, &err), 0);
	assert_string_equal(p, "/h/dev.toml");
	free(p);
	assert_int_equal(ax_config_path("/h", "dev", "/x/y.toml", &p, &err), 0);
	assert_string_equal(p, "/x/y.toml");
	free(p);
	assert_int_equal(ax_config_path("/h", "../etc", NULL, &p, &err), -1);
	assert_int_equal(err.exit_code, AX_EXIT_USAGE);
	m = ax_mask_secret("supersecret1234");
	assert_string_equal(m, "****1234");
	free(m);
	m = ax_mask_secret("abc");
	assert_string_equal(m, "****");
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_defaults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_values_and_types, setup, teardown),
		cmocka_unit_test_setup_teardown(test_syntax_error_position, setup, teardown),
		cmocka_unit_test_setup_teardown(test_precedence, setup, teardown),
		cmocka_unit_test(test_value_from_text),
		cmocka_unit_test(test_template_parses_to_defaults),
		cmocka_unit_test(test_paths_and_mask),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
