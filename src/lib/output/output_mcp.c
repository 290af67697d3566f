#include "lib/output/output_mcp.h"

#include <stdlib.h>
#include <string.h>

#include "lib/base64.h"
#include "lib/fs.h"

bool ax_mcp_is_error(const json_t *result)
{
	return json_is_true(json_object_get(result, "isError")) || json_is_true(json_object_get(result, "is_error"));
}

static const json_t *structured(const json_t *result)
{
	const json_t *s = json_object_get(result, "structuredContent");

	return s ? s : json_object_get(result, "structured_content");
}

static const char *mime_of(const json_t *item)
{
	const char *m = json_string_value(json_object_get(item, "mimeType"));

	return m ? m : json_string_value(json_object_get(item, "mime_type"));
}

static bool is_binary(const json_t *item)
{
	const char *type = json_string_value(json_object_get(item, "type")) ?: "";

	return (strcmp(type, "image") == 0 || strcmp(type, "audio") == 0) && json_is_string(json_object_get(item, "data"));
}

/* "png" of "image/png"; "bin" when there is nothing usable. */
static void extension(const char *mime, char *ext, size_t size)
{
	const char *slash = mime ? strchr(mime, '/') : NULL;
	size_t i, n = 0;

	if (slash)
		for (i = 1; slash[i] && n + 1 < size; i++)
			if ((slash[i] >= 'a' && slash[i] <= 'z') || (slash[i] >= '0' && slash[i] <= '9'))
				ext[n++] = slash[i];
	ext[n] = '\0';
	if (!n)
		snprintf(ext, size, "bin");
	else if (strcmp(ext, "jpeg") == 0)
		snprintf(ext, size, "jpg");
	else if (strcmp(ext, "svgxml") == 0)
		snprintf(ext, size, "svg");
}

/* TOOL with anything but [A-Za-z0-9_.-] turned into '_'. */
static void safe_name(const char *tool, char *out, size_t size)
{
	size_t i;

	for (i = 0; tool[i] && i + 1 < size; i++)
		out[i] = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-", tool[i]) ? tool[i] : '_';
	out[i] = '\0';
}

int ax_mcp_save_images(const json_t *result, const char *tool, const char *dir, json_t *saved, ax_error *err)
{
	const json_t *item;
	size_t i, n = 0;
	char base[128];

	safe_name(tool, base, sizeof base);
	json_array_foreach(json_object_get(result, "content"), i, item) {
		char name[192], ext[16], *path;
		unsigned char *bytes;
		size_t len = 0;
		int rc;

		if (!is_binary(item))
			continue;
		if (ax_base64_decode(json_string_value(json_object_get(item, "data")),
				     json_string_length(json_object_get(item, "data")), &bytes, &len) < 0)
			return ax_fail(err, AX_CODE_MCP, "content %zu: the data is not base64", i);
		extension(mime_of(item), ext, sizeof ext);
		snprintf(name, sizeof name, "%s_%zu.%s", base, ++n, ext);
		path = ax_path_join(dir, name);
		rc = path && ax_mkdir_p(dir, 0755, err) == 0 ? ax_write_file_replace(path, bytes, len, 0644, err) : -1;
		if (!path)
			ax_fail(err, AX_CODE_NOMEM, "out of memory");
		if (rc == 0)
			json_array_append_new(saved, json_string(path));
		free(path);
		free(bytes);
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int put(FILE *out, const char *s, bool *at_line_start)
{
	size_t n = strlen(s);

	if (n && fwrite(s, 1, n, out) != n)
		return -1;
	if (n)
		*at_line_start = s[n - 1] == '\n';
	return 0;
}

/* Each item on its own line(s). */
static int line(FILE *out, const char *s, bool *at_line_start)
{
	if (put(out, s, at_line_start) < 0)
		return -1;
	return *at_line_start ? 0 : put(out, "\n", at_line_start);
}

int ax_mcp_show(FILE *out, const json_t *result, const json_t *saved, ax_error *err)
{
	const json_t *item, *sc = structured(result);
	bool start = true;
	size_t i, binary = 0;
	int rc = 0;

	json_array_foreach(json_object_get(result, "content"), i, item) {
		const char *type = json_string_value(json_object_get(item, "type")) ?: "";
		char buf[512];

		if (strcmp(type, "text") == 0 && json_is_string(json_object_get(item, "text"))) {
			rc = line(out, json_string_value(json_object_get(item, "text")), &start);
		} else if (is_binary(item)) {
			const char *path = json_string_value(json_array_get(saved, binary++));
			const char *data = json_string_value(json_object_get(item, "data"));
			size_t b64 = strlen(data);
			size_t pad = (size_t)(b64 >= 1 && data[b64 - 1] == '=') + (size_t)(b64 >= 2 && data[b64 - 2] == '=');
			/* A server's data need not be valid base64: never below 0 ("=" was 2^64 - 1 bytes). */
			size_t bytes = b64 / 4 * 3 > pad ? b64 / 4 * 3 - pad : 0;

			if (path)
				snprintf(buf, sizeof buf, "[%s saved to %s]", mime_of(item) ?: type, path);
			else
				snprintf(buf, sizeof buf, "[%s, %zu bytes]", mime_of(item) ?: type, bytes);
			rc = line(out, buf, &start);
		} else {
			/* ENCODE_ANY: a server may list a bare number or string (found by fuzz_mcp). */
			char *compact = json_dumps(item, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);

			rc = compact ? line(out, compact, &start) : -1;
			free(compact);
		}
		if (rc < 0)
			break;
	}
	if (rc == 0 && json_is_object(sc)) {
		char *pretty = json_dumps(sc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

		rc = pretty ? line(out, pretty, &start) : -1;
		free(pretty);
	}
	if (rc < 0 || fflush(out) != 0)
		return ax_fail(err, AX_CODE_IO, "cannot write output");
	return 0;
}
