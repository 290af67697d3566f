/* ax_image_size: PNG signature + IHDR, JPEG start-of-frame walk. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lib/imgsize.h"

/* A PNG header: signature, IHDR length 13, "IHDR", width 1280, height 1024. */
static const unsigned char png[] = {
	0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R',
	0, 0, 0x05, 0x00, 0, 0, 0x04, 0x00, 8, 2, 0, 0, 0,
};

/* SOI, APP0 (JFIF), DHT (C4: not a frame), fill bytes, SOF2 640x480. */
static const unsigned char jpeg[] = {
	0xff, 0xd8,
	0xff, 0xe0, 0x00, 0x10, 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0,
	0xff, 0xc4, 0x00, 0x04, 0x00, 0x00,
	0xff, 0xff,
	0xff, 0xc2, 0x00, 0x11, 0x08, 0x01, 0xe0, 0x02, 0x80, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03,
	0x11, 0x01,
};

static void test_png(void **state)
{
	const char *format = NULL;
	int w = 0, h = 0;

	(void)state;
	assert_int_equal(ax_image_size(png, sizeof png, &format, &w, &h), 0);
	assert_string_equal(format, "png");
	assert_int_equal(w, 1280);
	assert_int_equal(h, 1024);
}

static void test_png_damaged(void **state)
{
	unsigned char b[sizeof png];
	const char *format;
	int w, h;

	(void)state;
	/* Cut short, wrong signature, first chunk not IHDR, zero width. */
	assert_int_equal(ax_image_size(png, 20, &format, &w, &h), -1);
	memcpy(b, png, sizeof b);
	b[1] = 'Q';
	assert_int_equal(ax_image_size(b, sizeof b, &format, &w, &h), -1);
	memcpy(b, png, sizeof b);
	b[12] = 'X';
	assert_int_equal(ax_image_size(b, sizeof b, &format, &w, &h), -1);
	memcpy(b, png, sizeof b);
	b[18] = b[19] = 0;
	assert_int_equal(ax_image_size(b, sizeof b, &format, &w, &h), -1);
}

static void test_jpeg(void **state)
{
	const char *format = NULL;
	int w = 0, h = 0;

	(void)state;
	assert_int_equal(ax_image_size(jpeg, sizeof jpeg, &format, &w, &h), 0);
	assert_string_equal(format, "jpeg");
	assert_int_equal(w, 640);
	assert_int_equal(h, 480);
}

static void test_jpeg_damaged(void **state)
{
	unsigned char b[sizeof jpeg];
	const char *format;
	int w, h;

	(void)state;
	/* No frame before the data ends; a segment length running past the end;
	 * a byte where a marker should be; start of scan before any frame. */
	assert_int_equal(ax_image_size(jpeg, 30, &format, &w, &h), -1);
	memcpy(b, jpeg, sizeof b);
	b[5] = 0xff;
	assert_int_equal(ax_image_size(b, sizeof b, &format, &w, &h), -1);
	memcpy(b, jpeg, sizeof b);
	b[20] = 0x00;
	assert_int_equal(ax_image_size(b, sizeof b, &format, &w, &h), -1);
	memcpy(b, jpeg, sizeof b);
	b[21] = 0xda;
	assert_int_equal(ax_image_size(b, sizeof b, &format, &w, &h), -1);
}

static void test_neither(void **state)
{
	const char *format;
	int w, h;

	(void)state;
	assert_int_equal(ax_image_size((const unsigned char *)"{\"success\":false}", 17, &format, &w, &h), -1);
	assert_int_equal(ax_image_size((const unsigned char *)"", 0, &format, &w, &h), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_png),
		cmocka_unit_test(test_png_damaged),
		cmocka_unit_test(test_jpeg),
		cmocka_unit_test(test_jpeg_damaged),
		cmocka_unit_test(test_neither),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
