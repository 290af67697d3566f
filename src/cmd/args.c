/* What handlers read of their arguments: given, else defaulted by the table. */
#include "cmd/command.h"

bool ax_arg_given(const ax_args *a, const char *name)
{
	return json_object_get(a->opts, name) || json_object_get(a->pos, name);
}

const json_t *ax_arg_json(const ax_args *a, const char *name)
{
	const json_t *v = json_object_get(a->opts, name);

	if (!v)
		v = json_object_get(a->pos, name);
	return v ? v : json_object_get(a->defaults, name);
}

const char *ax_arg_string(const ax_args *a, const char *name)
{
	return json_string_value(ax_arg_json(a, name));
}

bool ax_arg_flag(const ax_args *a, const char *name)
{
	return json_is_true(ax_arg_json(a, name));
}
