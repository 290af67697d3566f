/*
 * YAML format through libyaml's emitter, so escaping and indentation rules
 * are libyaml's; this file only decides which scalars need quotes.
 */
#include "lib/output/output_internal.h"

#include <limits.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

static int yaml_write(void *data, unsigned char *buf, size_t size)
{
	ax_out *c = data;

	axo_put_n(c, (const char *)buf, size);
	return !c->werr;
}

/*
 * libyaml only checks whether a plain scalar is syntactically possible; it
 * does not know that "true" or "0755" would read back as something other
 * than a string. Quote anything a YAML 1.1 or 1.2 reader might resolve to
 * null, bool, number or timestamp: generous on purpose, as quotes are harmless.
 */
static bool plain_is_ambiguous(const char *s, size_t n)
{
	static const char *const words[] = {
		"~", "null", "true", "false", "yes", "no", "on", "off", "y", "n",
		".inf", "+.inf", "-.inf", ".nan", "<<", "=",
	};

	if (n == 0)
		return true;
	if (s[0] >= '0' && s[0] <= '9')
		return true;
	if (n > 1 && strchr("+-.", s[0]) && ((s[1] >= '0' && s[1] <= '9') || s[1] == '.'))
		return true;
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strlen(words[i]) == n && strncasecmp(s, words[i], n) == 0)
			return true;
	return false;
}

static int emit_scalar(yaml_emitter_t *e, const char *s, size_t n, yaml_scalar_style_t style)
{
	yaml_event_t ev;

	if (n > INT_MAX ||
	    !yaml_scalar_event_initialize(&ev, NULL, NULL, (const yaml_char_t *)s, (int)n,
					  1, 1, style))
		return 0;
	return yaml_emitter_emit(e, &ev);
}

static int emit_string(yaml_emitter_t *e, const char *s, size_t n)
{
	yaml_scalar_style_t style = YAML_ANY_SCALAR_STYLE;

	/* Literal blocks keep multi-line text readable; libyaml falls back to
	 * double quotes where a block cannot represent the text exactly. */
	if (memchr(s, '\n', n))
		style = YAML_LITERAL_SCALAR_STYLE;
	else if (plain_is_ambiguous(s, n))
		style = YAML_SINGLE_QUOTED_SCALAR_STYLE;
	return emit_scalar(e, s, n, style);
}

static int emit_node(yaml_emitter_t *e, const json_t *v)
{
	yaml_event_t ev;
	char buf[64];
	const char *k;
	json_t *x;
	size_t i;

	switch (json_typeof(v)) {
	case JSON_OBJECT:
		if (!yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE) ||
		    !yaml_emitter_emit(e, &ev))
			return 0;
		json_object_foreach((json_t *)v, k, x)
			if (!emit_string(e, k, strlen(k)) || !emit_node(e, x))
				return 0;
		return yaml_mapping_end_event_initialize(&ev) && yaml_emitter_emit(e, &ev);
	case JSON_ARRAY:
		if (!yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE) ||
		    !yaml_emitter_emit(e, &ev))
			return 0;
		json_array_foreach(v, i, x)
			if (!emit_node(e, x))
				return 0;
		return yaml_sequence_end_event_initialize(&ev) && yaml_emitter_emit(e, &ev);
	case JSON_STRING:
		return emit_string(e, json_string_value(v), json_string_length(v));
	case JSON_INTEGER:
		snprintf(buf, sizeof buf, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		break;
	case JSON_REAL:
		axo_fmt_real(json_real_value(v), buf, sizeof buf);
		break;
	case JSON_TRUE:
		return emit_scalar(e, "true", 4, YAML_PLAIN_SCALAR_STYLE);
	case JSON_FALSE:
		return emit_scalar(e, "false", 5, YAML_PLAIN_SCALAR_STYLE);
	default:
		return emit_scalar(e, "null", 4, YAML_PLAIN_SCALAR_STYLE);
	}
	return emit_scalar(e, buf, strlen(buf), YAML_PLAIN_SCALAR_STYLE);
}

int axo_render_yaml(ax_out *c, const json_t *data, ax_error *err)
{
	yaml_emitter_t e;
	yaml_event_t ev;
	int ok;

	if (!yaml_emitter_initialize(&e)) {
		c->oom = true;
		return 0;
	}
	yaml_emitter_set_output(&e, yaml_write, c);
	yaml_emitter_set_unicode(&e, 1);
	yaml_emitter_set_indent(&e, 2);
	yaml_emitter_set_width(&e, -1);  /* no folding: lines stay copy-pasteable */

	ok = yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) &&
	     yaml_emitter_emit(&e, &ev) &&
	     yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) &&
	     yaml_emitter_emit(&e, &ev) &&
	     emit_node(&e, data) &&
	     yaml_document_end_event_initialize(&ev, 1) &&
	     yaml_emitter_emit(&e, &ev) &&
	     yaml_stream_end_event_initialize(&ev) &&
	     yaml_emitter_emit(&e, &ev);
	if (!ok && !c->werr)
		ax_fail(err, AX_CODE_YAML, "cannot emit YAML: %s",
			e.problem ? e.problem : "data is not valid UTF-8, or out of memory");
	yaml_emitter_delete(&e);
	return ok || c->werr ? 0 : -1;
}

