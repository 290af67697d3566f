#include "agent/ext/jupyter/code_event.h"

#include <string.h>
#include <sys/time.h>

static json_t *stamped(json_t *o)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	if (o)
		json_object_set_new(o, "timestamp",
				    json_integer((json_int_t)tv.tv_sec * 1000 + (json_int_t)tv.tv_usec / 1000));
	return o;
}

json_t *ce_text(const char *type, const char *text)
{
	return stamped(json_pack("{s:s, s:s}", "type", type, "text", text));
}

/* The MIME bundle DATA as the official execd sends it: "text/plain" is
 * "text"; NULL when it holds nothing. */
static json_t *results(const json_t *data)
{
	json_t *out, *v;
	const char *k;

	if (!json_is_object(data) || !json_object_size(data))
		return NULL;
	out = json_object();
	json_object_foreach((json_t *)data, k, v)
		json_object_set(out, strcmp(k, "text/plain") == 0 ? "text" : k, v);
	return out;
}

json_t *ce_from_iopub(const struct jw_msg *m)
{
	const json_t *c = m->content;
	const char *name;
	json_t *r;

	if (strcmp(m->msg_type, "stream") == 0) {
		name = json_string_value(json_object_get(c, "name"));
		if (!name || (strcmp(name, "stdout") != 0 && strcmp(name, "stderr") != 0))
			return NULL;
		return ce_text(name, json_string_value(json_object_get(c, "text")) ?: "");
	}
	if (strcmp(m->msg_type, "execute_input") == 0) {
		if (!json_is_integer(json_object_get(c, "execution_count")))
			return NULL;
		return stamped(json_pack("{s:s, s:O}", "type", "execution_count", "execution_count",
					 json_object_get(c, "execution_count")));
	}
	if (strcmp(m->msg_type, "execute_result") != 0 && strcmp(m->msg_type, "display_data") != 0)
		return NULL;
	r = results(json_object_get(c, "data"));
	return r ? stamped(json_pack("{s:s, s:o}", "type", "result", "results", r)) : NULL;
}

static json_t *error_event(const char *ename, const char *evalue, json_t *traceback)
{
	return stamped(json_pack("{s:s, s:{s:s, s:s, s:o}}", "type", "error", "error", "ename", ename, "evalue",
				 evalue, "traceback", traceback ? traceback : json_array()));
}

json_t *ce_error(const char *ename, const char *evalue)
{
	return error_event(ename, evalue, NULL);
}

json_t *ce_final(const json_t *result, int64_t execution_ms)
{
	const json_t *outputs = json_object_get(result, "outputs"), *o, *last = NULL;
	const char *status = json_string_value(json_object_get(result, "status"));
	size_t i;

	if (status && strcmp(status, "ok") == 0)
		return stamped(json_pack("{s:s, s:I}", "type", "execution_complete", "execution_time",
					 (json_int_t)execution_ms));
	json_array_foreach(outputs, i, o)
		if (json_is_string(json_object_get(o, "output_type")) &&
		    strcmp(json_string_value(json_object_get(o, "output_type")), "error") == 0)
			last = o;
	if (!last)
		return ce_error("ExecutionError", status ? status : "error");
	return error_event(json_string_value(json_object_get(last, "ename")) ?: "Error",
			   json_string_value(json_object_get(last, "evalue")) ?: "",
			   json_is_array(json_object_get(last, "traceback")) ?
				   json_deep_copy(json_object_get(last, "traceback")) : NULL);
}
