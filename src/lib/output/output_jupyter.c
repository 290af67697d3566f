#include "lib/output/output_jupyter.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base64.h"
#include "lib/fs.h"

void ax_strip_ansi(char *s)
{
	char *w = s;

	while (*s) {
		if (s[0] == '\033' && s[1] == '[') {
			/* CSI: parameters and intermediates, then one final byte. */
			for (s += 2; *s && !(*s >= 0x40 && *s <= 0x7e); s++)
				;
			if (*s)
				s++;
		} else if (s[0] == '\033' && !s[1]) {
			/* A lone ESC at the end would start a sequence in whatever
			 * the terminal prints next. */
			s++;
		} else if (s[0] == '\033') {
			/* ESC, intermediates (0x20-0x2f), one final byte: ESC ( B and the like. */
			for (s++; *s >= 0x20 && *s <= 0x2f; s++)
				;
			if (*s)
				s++;
		} else {
			*w++ = *s++;
		}
	}
	*w = '\0';
}

static const char *png_of(const json_t *output)
{
	return json_string_value(json_object_get(json_object_get(output, "data"), "image/png"));
}

/* Write output INDEX's PNG into the image directory; its path goes to S->saved. */
static int save_png(const json_t *result, size_t index, const char *b64, struct ax_jupyter_show *s, ax_error *err)
{
	const json_t *count = json_object_get(result, "execution_count");
	char name[64], *path;
	unsigned char *png;
	size_t len = 0;
	int rc;

	if (json_is_integer(count))
		snprintf(name, sizeof name, "output_%lld_%zu.png", (long long)json_integer_value(count), index);
	else
		snprintf(name, sizeof name, "output_%zu.png", index);
	if (ax_base64_decode(b64, strlen(b64), &png, &len) < 0)
		return ax_fail(err, AX_CODE_JUPYTER, "output %zu: image/png is not base64", index);
	path = ax_path_join(s->image_dir, name);
	rc = path && ax_mkdir_p(s->image_dir, 0755, err) == 0 ? ax_write_file_replace(path, png, len, 0644, err) : -1;
	if (!path)
		ax_fail(err, AX_CODE_NOMEM, "out of memory");
	if (rc == 0)
		json_array_append_new(s->saved, json_string(path));
	free(path);
	free(png);
	return rc;
}

int ax_jupyter_save_images(const json_t *result, struct ax_jupyter_show *s, ax_error *err)
{
	const json_t *outputs = json_object_get(result, "outputs");
	const char *b64;
	size_t i;

	for (i = 0; s->image_dir && i < json_array_size(outputs); i++)
		if ((b64 = png_of(json_array_get(outputs, i))) && save_png(result, i, b64, s, err) < 0)
			return -1;
	return 0;
}

static int put(FILE *f, const char *text, bool newline)
{
	size_t n = strlen(text);

	if (fputs(text, f) == EOF)
		return -1;
	if (newline && (n == 0 || text[n - 1] != '\n') && fputc('\n', f) == EOF)
		return -1;
	return fflush(f);
}

/* text/plain as a string or, as nbformat allows, a list of lines. */
static char *plain_text(const json_t *data)
{
	const json_t *plain = json_object_get(data, "text/plain");
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f;

	if (json_is_string(plain))
		return strdup(json_string_value(plain));
	if (!json_is_array(plain) || !(f = open_memstream(&buf, &len)))
		return NULL;
	for (i = 0; i < json_array_size(plain); i++)
		fputs(json_string_value(json_array_get(plain, i)) ?: "", f);
	fclose(f);
	return buf;
}

static int show_error(const json_t *o, struct ax_jupyter_show *s)
{
	const json_t *tb = json_object_get(o, "traceback");
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f;
	int rc;

	if (!json_array_size(tb)) {
		fprintf(s->err, "%s: %s\n", json_string_value(json_object_get(o, "ename")) ?: "Error",
			json_string_value(json_object_get(o, "evalue")) ?: "");
		return fflush(s->err);
	}
	f = open_memstream(&buf, &len);
	if (!f)
		return -1;
	for (i = 0; i < json_array_size(tb); i++)
		fprintf(f, "%s%s", i ? "\n" : "", json_string_value(json_array_get(tb, i)) ?: "");
	fclose(f);
	if (!s->color)
		ax_strip_ansi(buf);
	rc = put(s->err, buf, true);
	free(buf);
	return rc;
}

static int show_one(const json_t *result, size_t index, struct ax_jupyter_show *s, ax_error *err)
{
	const json_t *o = json_array_get(json_object_get(result, "outputs"), index);
	const char *type = json_string_value(json_object_get(o, "output_type")) ?: "";
	const char *name = json_string_value(json_object_get(o, "name"));
	const char *b64 = png_of(o);
	char *text;
	int rc;

	if (strcmp(type, "stream") == 0)
		return put(name && strcmp(name, "stderr") == 0 ? s->err : s->out,
			   json_string_value(json_object_get(o, "text")) ?: "", false);
	if (strcmp(type, "error") == 0)
		return show_error(o, s);
	if (b64 && s->image_dir) {
		if (save_png(result, index, b64, s, err) < 0)
			return -2;
		fprintf(s->out, "[image/png saved to %s]\n", json_string_value(json_array_get(s->saved,
											  json_array_size(s->saved) - 1)));
		return fflush(s->out);
	}
	text = plain_text(json_object_get(o, "data"));
	rc = text ? put(s->out, text, true) : 0;
	free(text);
	return rc;
}

int ax_jupyter_show(const json_t *result, struct ax_jupyter_show *s, ax_error *err)
{
	size_t i, n = json_array_size(json_object_get(result, "outputs"));
	int rc;

	for (i = 0; i < n; i++) {
		rc = show_one(result, i, s, err);
		if (rc == -2)
			return -1;
		if (rc != 0)
			return ax_fail(err, AX_CODE_IO, "cannot write output: %s", strerror(errno ? errno : EIO));
	}
	return 0;
}
