/* The client side of aio mcp without a sandbox: how a CallToolResult is
 * shown and its images saved (mcp_show.c), and the profile's
 * [mcp.servers.<name>] tables turned into the create request's extensions
 * (mcp_config.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/conf.h"
#include "lib/fs.h"
#include "cmd/mcp_config.h"
#include "lib/output/output_mcp.h"
#include "lib/toml.h"

/* A 1x1 PNG. */
#define PNG_B64 "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

static char *shown(const char *result_json, const json_t *saved)
{
	json_t *r = json_loads(result_json, 0, NULL);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ax_error err;

	assert_non_null(r);
	assert_int_equal(ax_mcp_show(f, r, saved, &err), 0);
	fclose(f);
	json_decref(r);
	return buf;
}

static void test_show_text_image_other_and_structured(void **state)
{
	char *out;

	(void)state;
	out = shown("{\"content\":[{\"type\":\"text\",\"text\":\"first\"},"
		    "{\"type\":\"image\",\"data\":\"" PNG_B64 "\",\"mimeType\":\"image/png\"},"
		    "{\"type\":\"text\",\"text\":\"ends in a newline\\n\"},"
		    "{\"type\":\"resource_link\",\"uri\":\"demo://x\",\"name\":\"x\"}],"
		    "\"structuredContent\":{\"a\":1}}",
		    NULL);
	assert_string_equal(out, "first\n[image/png, 70 bytes]\nends in a newline\n"
				 "{\"type\":\"resource_link\",\"uri\":\"demo://x\",\"name\":\"x\"}\n{\n  \"a\": 1\n}\n");
	free(out);
}

/* A hostile server's image data "=" (or "==") showed as 18446744073709551615 bytes. */
static void test_show_short_bad_base64(void **state)
{
	char *out;

	(void)state;
	out = shown("{\"content\":[{\"type\":\"image\",\"data\":\"=\",\"mimeType\":\"image/png\"},"
		    "{\"type\":\"audio\",\"data\":\"==\",\"mimeType\":\"audio/wav\"}]}",
		    NULL);
	assert_string_equal(out, "[image/png, 0 bytes]\n[audio/wav, 0 bytes]\n");
	free(out);
	/* Content items that are not objects were "cannot write output" (fuzz_mcp). */
	out = shown("{\"content\":[6, \"x\", null]}", NULL);
	assert_string_equal(out, "6\n\"x\"\nnull\n");
	free(out);
}

static void test_show_saved_paths(void **state)
{
	json_t *saved = json_pack("[s]", "/tmp/x/tool_1.png");
	char *out;

	(void)state;
	out = shown("{\"content\":[{\"type\":\"image\",\"data\":\"" PNG_B64 "\",\"mimeType\":\"image/png\"}]}", saved);
	assert_string_equal(out, "[image/png saved to /tmp/x/tool_1.png]\n");
	free(out);
	json_decref(saved);
}

static void test_show_nothing(void **state)
{
	char *out;

	(void)state;
	out = shown("{\"content\":[]}", NULL);
	assert_string_equal(out, "");
	free(out);
}

static void test_is_error(void **state)
{
	json_t *a = json_loads("{\"content\":[],\"isError\":true}", 0, NULL);
	json_t *b = json_loads("{\"content\":[],\"is_error\":true}", 0, NULL);
	json_t *c = json_loads("{\"content\":[]}", 0, NULL);

	(void)state;
	assert_true(ax_mcp_is_error(a));
	assert_true(ax_mcp_is_error(b));
	assert_false(ax_mcp_is_error(c));
	json_decref(a);
	json_decref(b);
	json_decref(c);
}

static void test_save_images(void **state)
{
	char dir[] = "/tmp/test_mcp_cli.XXXXXX", *path, *data = NULL;
	json_t *r = json_loads("{\"content\":[{\"type\":\"text\",\"text\":\"t\"},"
			       "{\"type\":\"image\",\"data\":\"" PNG_B64 "\",\"mimeType\":\"image/png\"},"
			       "{\"type\":\"image\",\"data\":\"" PNG_B64 "\",\"mimeType\":\"image/jpeg\"}]}",
			       0, NULL);
	json_t *saved = json_array();
	size_t len = 0;
	ax_error err;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(ax_mcp_save_images(r, "get tiny/image", dir, saved, &err), 0);
	assert_int_equal(json_array_size(saved), 2);
	/* The tool's name is made safe for a file name. */
	path = ax_path_join(dir, "get_tiny_image_1.png");
	assert_string_equal(json_string_value(json_array_get(saved, 0)), path);
	assert_int_equal(ax_read_file(path, &data, &len, &err), 0);
	assert_int_equal(len, 70);
	assert_memory_equal(data, "\x89PNG", 4);
	unlink(path);
	free(path);
	free(data);
	path = ax_path_join(dir, "get_tiny_image_2.jpg");
	assert_string_equal(json_string_value(json_array_get(saved, 1)), path);
	unlink(path);
	free(path);
	rmdir(dir);
	json_decref(r);
	json_decref(saved);
}

static void test_save_images_not_base64(void **state)
{
	json_t *r = json_loads("{\"content\":[{\"type\":\"image\",\"data\":\"!!!\",\"mimeType\":\"image/png\"}]}", 0, NULL);
	json_t *saved = json_array();
	ax_error err;

	(void)state;
	assert_int_equal(ax_mcp_save_images(r, "t", "/tmp", saved, &err), -1);
	assert_non_null(strstr(err.message, "not base64"));
	json_decref(r);
	json_decref(saved);
}

/* The request's extensions for config TOML, or NULL with ERR. */
static json_t *extensions_for(const char *toml, ax_error *err)
{
	ax_config cfg;
	json_t *req = json_object(), *ext;

	memset(&cfg, 0, sizeof cfg);
	assert_int_equal(toml_parse(toml, strlen(toml), &cfg.file, err), 0);
	if (ax_mcp_add_extension(&cfg, req, err) < 0) {
		json_decref(req);
		json_decref(cfg.file);
		return NULL;
	}
	ext = json_incref(json_object_get(req, "extensions"));
	json_decref(req);
	json_decref(cfg.file);
	return ext;
}

static void test_extension_carries_the_servers(void **state)
{
	ax_error err;
	json_t *ext = extensions_for("[connection]\ndomain = \"x\"\n\n"
				     "[mcp.servers.fs]\ncommand = [\"node\", \"/srv/fs.js\", \"/home/gem\"]\n"
				     "env = { A = \"1\" }\ncwd = \"/home/gem\"\n\n"
				     "[mcp.servers.other]\ncommand = [\"python3\", \"-m\", \"srv\"]\n",
				     &err);
	json_t *servers, *expect;

	(void)state;
	assert_non_null(ext);
	assert_int_equal(json_object_size(ext), 1);
	servers = json_loads(json_string_value(json_object_get(ext, AX_MCP_EXTENSION)), 0, NULL);
	expect = json_loads("{\"fs\":{\"command\":[\"node\",\"/srv/fs.js\",\"/home/gem\"],\"env\":{\"A\":\"1\"},"
			    "\"cwd\":\"/home/gem\"},\"other\":{\"command\":[\"python3\",\"-m\",\"srv\"]}}",
			    0, NULL);
	assert_true(json_equal(servers, expect));
	json_decref(servers);
	json_decref(expect);
	json_decref(ext);
}

static void test_no_servers_no_extension(void **state)
{
	ax_error err;

	(void)state;
	assert_null(extensions_for("[connection]\ndomain = \"x\"\n", &err));
	assert_null(extensions_for("[mcp]\n", &err));
}

static void expect_config_error(const char *toml, const char *message)
{
	ax_config cfg;
	json_t *req = json_object();
	ax_error err;

	memset(&cfg, 0, sizeof cfg);
	assert_int_equal(toml_parse(toml, strlen(toml), &cfg.file, &err), 0);
	assert_int_equal(ax_mcp_add_extension(&cfg, req, &err), -1);
	assert_int_equal(err.exit_code, AX_EXIT_FAILURE);
	assert_string_equal(err.message, message);
	assert_null(json_object_get(req, "extensions"));
	json_decref(req);
	json_decref(cfg.file);
}

static void test_malformed_servers(void **state)
{
	(void)state;
	expect_config_error("[mcp.servers.a]\ncommand = \"node\"\n",
			    "Invalid config: mcp.servers.a: command must be a non-empty array of strings");
	expect_config_error("[mcp.servers.a]\ncommand = []\n",
			    "Invalid config: mcp.servers.a: command must be a non-empty array of strings");
	expect_config_error("[mcp.servers.a]\ncommand = [\"x\", 1]\n",
			    "Invalid config: mcp.servers.a: command must be a non-empty array of strings");
	expect_config_error("[mcp.servers.a]\ncommand = [\"x\"]\nenv = { A = 1 }\n",
			    "Invalid config: mcp.servers.a: env must be a table of strings");
	expect_config_error("[mcp.servers.a]\ncommand = [\"x\"]\ncwd = 3\n",
			    "Invalid config: mcp.servers.a: cwd must be a string");
	expect_config_error("[mcp.servers.a]\ncommand = [\"x\"]\nargs = [\"y\"]\n",
			    "Invalid config: mcp.servers.a: unknown key (use command, env and cwd)");
	expect_config_error("[mcp.servers.sandbox]\ncommand = [\"x\"]\n",
			    "Invalid config: mcp.servers.sandbox: the name of a built-in server");
	expect_config_error("[mcp.servers.\"a b\"]\ncommand = [\"x\"]\n",
			    "Invalid config: mcp.servers.a b: a server name is 1 to 64 of A-Z a-z 0-9 _ . -");
	expect_config_error("[mcp]\nservers = 1\n", "Invalid config: mcp.servers must be tables [mcp.servers.<name>]");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_show_text_image_other_and_structured),
		cmocka_unit_test(test_show_saved_paths),
		cmocka_unit_test(test_show_short_bad_base64),
		cmocka_unit_test(test_show_nothing),
		cmocka_unit_test(test_is_error),
		cmocka_unit_test(test_save_images),
		cmocka_unit_test(test_save_images_not_base64),
		cmocka_unit_test(test_extension_carries_the_servers),
		cmocka_unit_test(test_no_servers_no_extension),
		cmocka_unit_test(test_malformed_servers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
