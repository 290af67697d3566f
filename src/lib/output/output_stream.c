/*
 * Results and streams (output.h): which format shows what, decided here so
 * that no handler has to know the format it is rendered in.
 */
#include "lib/output.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lib/output/output_jupyter.h"
#include "lib/output/output_mcp.h"

/* Programs read one document at the end; people watch output arrive. */
static bool is_document(ax_format f)
{
	return f == AX_FMT_JSON || f == AX_FMT_YAML;
}

int ax_render_result(FILE *out, const ax_result *res, const ax_render_opts *opts, ax_error *err)
{
	switch (res->kind) {
	case AX_RESULT_DATA:
		return ax_render(out, !is_document(opts->format) && res->human ? res->human : res->data, &res->view,
				 opts, err);
	case AX_RESULT_STREAM:
		if (is_document(opts->format))
			return ax_render(out, res->data, &res->view, opts, err);
		break;
	case AX_RESULT_TEXT:
		if (fprintf(out, "%s\n", res->text) < 0)
			return ax_fail(err, AX_CODE_IO, "cannot write output: %s", strerror(errno));
		break;
	case AX_RESULT_NONE:
		break;
	}
	return 0;
}

void ax_stream_init(ax_stream *s, FILE *out, FILE *err, const ax_render_opts *opts)
{
	memset(s, 0, sizeof *s);
	s->out = out;
	s->err = err;
	s->opts = *opts;
}

void ax_stream_free(ax_stream *s)
{
	for (int i = 0; i < 2; i++) {
		if (s->keep[i])
			fclose(s->keep[i]);
		free(s->kept[i]);
		s->keep[i] = NULL;
		s->kept[i] = NULL;
	}
}

bool ax_stream_live(const ax_stream *s)
{
	return !is_document(s->opts.format);
}

static FILE *live_file(const ax_stream *s, ax_stream_fd fd)
{
	return fd == AX_STREAM_ERR ? s->err : s->out;
}

int ax_stream_write(ax_stream *s, ax_stream_fd fd, const char *buf, size_t len)
{
	FILE *f;

	if (ax_stream_live(s)) {
		f = live_file(s, fd);
		errno = 0;
		if ((len && fwrite(buf, 1, len, f) != len) || fflush(f) != 0) {
			if (!errno)
				errno = EIO;
			return -1;
		}
		return 0;
	}
	if (!s->keep[fd] && !(s->keep[fd] = open_memstream(&s->kept[fd], &s->kept_len[fd])))
		return -1;
	if (len && fwrite(buf, 1, len, s->keep[fd]) != len) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

int ax_stream_printf(ax_stream *s, ax_stream_fd fd, const char *fmt, ...)
{
	FILE *f = live_file(s, fd);
	va_list ap;
	int n;

	if (!ax_stream_live(s))
		return 0;
	errno = 0;
	va_start(ap, fmt);
	n = vfprintf(f, fmt, ap);
	va_end(ap);
	if (n < 0 || fflush(f) != 0) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}

json_t *ax_stream_kept(ax_stream *s, ax_stream_fd fd)
{
	if (!s->keep[fd])
		return json_string("");
	if (fflush(s->keep[fd]) != 0)
		return NULL;
	return json_stringn(s->kept[fd] ? s->kept[fd] : "", s->kept_len[fd]);
}

int ax_stream_failed(const ax_stream *s, int status, ax_error *err)
{
	if (ax_stream_live(s))
		return -1;
	ax_error_clear(err);
	return status;
}

int ax_stream_jupyter(ax_stream *s, json_t *result, const char *image_dir, ax_error *err)
{
	struct ax_jupyter_show show = { s->out, s->err, s->opts.color_err, image_dir, json_array() };
	int rc;

	if (!show.saved)
		return ax_fail(err, AX_CODE_NOMEM, "out of memory");
	if (ax_stream_live(s)) {
		rc = ax_jupyter_show(result, &show, err);
	} else {
		rc = ax_jupyter_save_images(result, &show, err);
		if (rc == 0 && image_dir)
			json_object_set(result, "saved_images", show.saved);
	}
	json_decref(show.saved);
	return rc;
}

int ax_stream_mcp(ax_stream *s, const json_t *result, const json_t *saved, ax_error *err)
{
	return ax_stream_live(s) ? ax_mcp_show(s->out, result, saved, err) : 0;
}
