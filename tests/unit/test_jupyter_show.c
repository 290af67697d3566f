/* What `aio jupyter run` prints and saves for an execution result. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/fs.h"
#include "lib/output/output_jupyter.h"

/* A 1x1 PNG, base64 with the newline ipykernel appends. */
#define PNG_B64 "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==\n"

struct capture {
	char *out, *err;
	size_t out_len, err_len;
	struct ax_jupyter_show show;
};

static void capture_start(struct capture *c, bool color, const char *image_dir)
{
	memset(c, 0, sizeof *c);
	c->show.out = open_memstream(&c->out, &c->out_len);
	c->show.err = open_memstream(&c->err, &c->err_len);
	c->show.color = color;
	c->show.image_dir = image_dir;
	c->show.saved = json_array();
}

static void capture_end(struct capture *c)
{
	fclose(c->show.out);
	fclose(c->show.err);
}

static void capture_free(struct capture *c)
{
	free(c->out);
	free(c->err);
	json_decref(c->show.saved);
}

/* Show R into C (started with COLOR and IMAGE_DIR); ax_jupyter_show's result. */
static int show(struct capture *c, const json_t *r, bool color, const char *image_dir)
{
	ax_error err;
	int rc;

	capture_start(c, color, image_dir);
	rc = ax_jupyter_show(r, &c->show, &err);
	capture_end(c);
	return rc;
}

static json_t *result_with(json_t *outputs)
{
	return json_pack("{s:s, s:i, s:o}", "status", "ok", "execution_count", 7, "outputs", outputs);
}

static void test_strip_ansi(void **state)
{
	char s[] = "\033[0;31mZeroDivisionError\033[0m: x\033[1;32m!\033[39m\033(B end";

	(void)state;
	ax_strip_ansi(s);
	assert_string_equal(s, "ZeroDivisionError: x! end");
}

/* Found by fuzz_runtime: a lone ESC at the end stayed and would start a
 * sequence in what the terminal printed next. */
static void test_strip_ansi_trailing_esc(void **state)
{
	char s[] = "Traceback\033", t[] = "\033", u[] = "a\033\033";

	(void)state;
	ax_strip_ansi(s);
	ax_strip_ansi(t);
	ax_strip_ansi(u);
	assert_string_equal(s, "Traceback");
	assert_string_equal(t, "");
	assert_null(strchr(u, '\033'));
}

static void test_show_streams_results_errors(void **state)
{
	json_t *r = result_with(json_pack(
		"[{s:s, s:s, s:s}, {s:s, s:s, s:s}, {s:s, s:{s:[s, s]}}, {s:s, s:{s:s}}, {s:s, s:s, s:s, s:[s, s]}]",
		"output_type", "stream", "name", "stdout", "text", "out\n",
		"output_type", "stream", "name", "stderr", "text", "warn\n",
		"output_type", "execute_result", "data", "text/plain", "line 1\n", "line 2",
		"output_type", "display_data", "data", "text/plain", "<Figure>",
		"output_type", "error", "ename", "ZeroDivisionError", "evalue", "division by zero", "traceback",
		"\033[0;31m----\033[0m", "\033[0;31mZeroDivisionError\033[0m: division by zero"));
	struct capture c;

	(void)state;
	assert_int_equal(show(&c, r, false, NULL), 0);
	assert_string_equal(c.out, "out\nline 1\nline 2\n<Figure>\n");
	assert_string_equal(c.err, "warn\n----\nZeroDivisionError: division by zero\n");
	capture_free(&c);

	/* On a terminal the traceback keeps its colour. */
	assert_int_equal(show(&c, r, true, NULL), 0);
	assert_non_null(strstr(c.err, "\033[0;31mZeroDivisionError\033[0m"));
	capture_free(&c);
	json_decref(r);
}

static void test_error_without_traceback(void **state)
{
	json_t *r = result_with(json_pack("[{s:s, s:s, s:s, s:[]}]", "output_type", "error", "ename", "DeadKernelError",
					  "evalue", "gone", "traceback"));
	struct capture c;

	(void)state;
	assert_int_equal(show(&c, r, false, NULL), 0);
	assert_string_equal(c.err, "DeadKernelError: gone\n");
	capture_free(&c);
	json_decref(r);
}

static void test_save_images(void **state)
{
	char dir[] = "/tmp/allox-test-show.XXXXXX", *sub, *png = NULL, want[256];
	json_t *r = result_with(json_pack("[{s:s, s:s, s:s}, {s:s, s:{s:s, s:s}}]", "output_type", "stream", "name",
					  "stdout", "text", "plot:\n", "output_type", "display_data", "data",
					  "image/png", PNG_B64, "text/plain", "<Image>"));
	struct capture c;
	ax_error err;
	size_t len = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	sub = ax_path_join(dir, "new/images");
	assert_int_equal(show(&c, r, false, sub), 0);
	/* The file is named where the image would show; missing directories are made. */
	snprintf(want, sizeof want, "plot:\n[image/png saved to %s/output_7_1.png]\n", sub);
	assert_string_equal(c.out, want);
	assert_int_equal(json_array_size(c.show.saved), 1);
	assert_int_equal(ax_read_file(json_string_value(json_array_get(c.show.saved, 0)), &png, &len, &err), 0);
	assert_int_equal(len, 70);
	assert_memory_equal(png, "\x89PNG\r\n\x1a\n", 8);
	free(png);
	unlink(json_string_value(json_array_get(c.show.saved, 0)));
	capture_free(&c);

	/* Not base64: an error, nothing written. */
	json_object_set_new(json_object_get(json_array_get(json_object_get(r, "outputs"), 1), "data"), "image/png",
			    json_string("@@not base64@@"));
	capture_start(&c, false, sub);
	assert_int_equal(ax_jupyter_save_images(r, &c.show, &err), -1);
	assert_non_null(strstr(err.message, "not base64"));
	capture_end(&c);
	capture_free(&c);
	rmdir(sub);
	*strrchr(sub, '/') = '\0';
	rmdir(sub);
	rmdir(dir);
	free(sub);
	json_decref(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strip_ansi),
		cmocka_unit_test(test_strip_ansi_trailing_esc),
		cmocka_unit_test(test_show_streams_results_errors),
		cmocka_unit_test(test_error_without_traceback),
		cmocka_unit_test(test_save_images),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
