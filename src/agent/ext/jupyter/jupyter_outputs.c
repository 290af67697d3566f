#include "agent/ext/jupyter/jupyter_outputs.h"

#include <string.h>

void jo_init(struct jo_outputs *o)
{
	memset(o, 0, sizeof *o);
	o->list = json_array();
	o->display_ids = json_array();
}

void jo_free(struct jo_outputs *o)
{
	json_decref(o->list);
	json_decref(o->display_ids);
	memset(o, 0, sizeof *o);
}

/* A JupyterOutput of TYPE with every other key null. */
static json_t *output(const char *type)
{
	static const char *const keys[] = { "name", "text", "data", "metadata", "execution_count",
					    "ename", "evalue", "traceback" };
	json_t *out = json_object();
	size_t i;

	json_object_set_new(out, "output_type", json_string(type));
	for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
		json_object_set_new(out, keys[i], json_null());
	return out;
}

static void set_copy(json_t *out, const char *key, const json_t *content, const char *from)
{
	json_t *v = json_object_get(content, from);

	if (v)
		json_object_set_new(out, key, json_deep_copy(v));
}

/* Roughly how much of the budget V takes: its strings' lengths. */
static size_t weight(const json_t *v)
{
	const char *k;
	json_t *x;
	size_t i, n = 0;

	if (json_is_string(v))
		return json_string_length(v);
	if (json_is_object(v))
		json_object_foreach((json_t *)v, k, x)
			n += strlen(k) + weight(x);
	else if (json_is_array(v))
		for (i = 0; i < json_array_size(v); i++)
			n += weight(json_array_get(v, i));
	return n + 1;
}

static bool within_budget(struct jo_outputs *o, size_t n)
{
	if (o->truncated || n > JO_MAX_BYTES - o->bytes) {
		o->truncated = true;
		return false;
	}
	o->bytes += n;
	return true;
}

static void clear_now(struct jo_outputs *o)
{
	json_array_clear(o->list);
	json_array_clear(o->display_ids);
	o->clear_pending = false;
}

static void append(struct jo_outputs *o, json_t *out, const char *display_id)
{
	if (o->clear_pending)
		clear_now(o);
	json_array_append_new(o->list, out);
	json_array_append_new(o->display_ids, display_id ? json_string(display_id) : json_null());
}

/* Consecutive chunks of one stream make one output, as in a notebook. */
static void take_stream(struct jo_outputs *o, const json_t *content)
{
	const char *name = json_string_value(json_object_get(content, "name"));
	const char *text = json_string_value(json_object_get(content, "text"));
	json_t *last = json_array_get(o->list, json_array_size(o->list) - 1), *out;
	const char *last_name = json_string_value(json_object_get(last, "name"));

	if (!name || !text || !within_budget(o, strlen(text)))
		return;
	if (!o->clear_pending && last && strcmp(json_string_value(json_object_get(last, "output_type")), "stream") == 0 &&
	    last_name && strcmp(last_name, name) == 0) {
		json_object_set_new(last, "text", json_sprintf("%s%s", json_string_value(json_object_get(last, "text")),
							       text));
		return;
	}
	out = output("stream");
	json_object_set_new(out, "name", json_string(name));
	json_object_set_new(out, "text", json_string(text));
	append(o, out, NULL);
}

static const char *display_id_of(const json_t *content)
{
	return json_string_value(json_object_get(json_object_get(content, "transient"), "display_id"));
}

static void take_display(struct jo_outputs *o, const char *type, const json_t *content)
{
	json_t *out;

	if (!within_budget(o, weight(json_object_get(content, "data"))))
		return;
	out = output(type);
	set_copy(out, "data", content, "data");
	set_copy(out, "metadata", content, "metadata");
	if (strcmp(type, "execute_result") == 0)
		set_copy(out, "execution_count", content, "execution_count");
	append(o, out, display_id_of(content));
}

/* Every earlier output with the same display_id shows the new data. */
static void take_update(struct jo_outputs *o, const json_t *content)
{
	const char *id = display_id_of(content);
	size_t i;

	if (!id || !within_budget(o, weight(json_object_get(content, "data"))))
		return;
	for (i = 0; i < json_array_size(o->display_ids); i++) {
		const char *have = json_string_value(json_array_get(o->display_ids, i));
		json_t *out = json_array_get(o->list, i);

		if (have && strcmp(have, id) == 0) {
			set_copy(out, "data", content, "data");
			set_copy(out, "metadata", content, "metadata");
		}
	}
}

static void take_error(struct jo_outputs *o, const json_t *content)
{
	json_t *out = output("error");

	set_copy(out, "ename", content, "ename");
	set_copy(out, "evalue", content, "evalue");
	set_copy(out, "traceback", content, "traceback");
	append(o, out, NULL);
}

void jo_take(struct jo_outputs *o, const struct jw_msg *m)
{
	const char *t = m->msg_type;

	if (strcmp(t, "stream") == 0)
		take_stream(o, m->content);
	else if (strcmp(t, "execute_result") == 0 || strcmp(t, "display_data") == 0)
		take_display(o, t, m->content);
	else if (strcmp(t, "update_display_data") == 0)
		take_update(o, m->content);
	else if (strcmp(t, "error") == 0)
		take_error(o, m->content);
	else if (strcmp(t, "clear_output") == 0 && json_is_true(json_object_get(m->content, "wait")))
		o->clear_pending = true;
	else if (strcmp(t, "clear_output") == 0)
		clear_now(o);
}

void jo_add_error(struct jo_outputs *o, const char *ename, const char *evalue)
{
	json_t *out = output("error");

	json_object_set_new(out, "ename", json_string(ename));
	json_object_set_new(out, "evalue", json_string(evalue));
	json_object_set_new(out, "traceback", json_pack("[o]", json_sprintf("%s: %s", ename, evalue)));
	o->clear_pending = false;
	append(o, out, NULL);
}

json_t *jo_result(struct jo_outputs *o)
{
	json_t *note;

	if (o->truncated) {
		note = output("stream");
		json_object_set_new(note, "name", json_string("stderr"));
		json_object_set_new(note, "text", json_sprintf("[allox-agent: outputs beyond %zu MiB were dropped]\n",
							       JO_MAX_BYTES >> 20));
		json_array_append_new(o->list, note);
		json_array_append_new(o->display_ids, json_null());
		o->truncated = false;
	}
	return json_incref(o->list);
}
