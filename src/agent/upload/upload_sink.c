#include "agent/upload/upload_sink.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "lib/fs.h"
#include "agent/upload/upload_writer.h"

static bool is_multipart(struct MHD_Connection *conn)
{
	static const char form[] = "multipart/form-data";
	const char *type = NULL;
	size_t len = 0;

	return MHD_lookup_connection_value_n(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE,
					     strlen(MHD_HTTP_HEADER_CONTENT_TYPE), &type, &len) == MHD_YES &&
	       type && len >= sizeof form - 1 && strncasecmp(type, form, sizeof form - 1) == 0;
}

void *upload_sink_state(struct ag_req *req, size_t size, void (*free_state)(void *state),
			MHD_PostDataIterator on_part, size_t pp_buffer)
{
	struct upload_sink *s = req->state;

	if (s)
		return s;
	s = calloc(1, size);
	if (!s)
		return NULL;
	s->fd = -1;
	req->state = s;
	req->free_state = free_state;
	/* NULL unless the body is multipart/form-data: MHD would also parse
	 * url-encoded forms, which no upload client sends (and whose parse
	 * depends on how the body is chunked; tests/fuzz/fuzz_multipart.c). */
	if (is_multipart(req->conn))
		s->pp = MHD_create_post_processor(req->conn, pp_buffer, on_part, s);
	return s;
}

int upload_sink_feed(struct upload_sink *s, const char *data, size_t len)
{
	return s->pp && MHD_post_process(s->pp, data, len) == MHD_YES ? 0 : -1;
}

int upload_sink_end_form(struct upload_sink *s)
{
	enum MHD_Result rc;

	if (!s->pp)
		return 0;
	rc = MHD_destroy_post_processor(s->pp);
	s->pp = NULL;
	return rc == MHD_YES ? 0 : -1;
}

int upload_sink_write(struct upload_sink *s, const void *data, size_t len)
{
	if (!s->writer && !(s->writer = upload_writer_new(s->fd)))
		return ax_write_all(s->fd, data, len);
	return upload_writer_add(s->writer, data, len);
}

int upload_sink_flush(struct upload_sink *s)
{
	int rc = upload_writer_finish(s->writer);

	s->writer = NULL;
	return rc;
}

void upload_sink_placed(struct upload_sink *s)
{
	free(s->path);
	s->path = NULL;
}

void upload_sink_discard(struct upload_sink *s)
{
	upload_writer_drop(s->writer);
	s->writer = NULL;
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	if (s->path)
		unlink(s->path);
	free(s->path);
	s->path = NULL;
}

void upload_sink_release(struct upload_sink *s)
{
	if (s->pp)
		MHD_destroy_post_processor(s->pp);
	s->pp = NULL;
	upload_sink_discard(s);
}
