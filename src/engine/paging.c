/* Listings a page at a time, newest first (sandboxes and snapshots). */
#include "engine/sandbox.h"

#include <stdlib.h>
#include <string.h>

#include "engine/wire_error.h"

int ax_newest_first(const void *a, const void *b)
{
	const char *ca = json_string_value(json_object_get(*(json_t *const *)a, "createdAt"));
	const char *cb = json_string_value(json_object_get(*(json_t *const *)b, "createdAt"));
	int c = strcmp(cb ?: "", ca ?: "");

	return c ? c : strcmp(json_string_value(json_object_get(*(json_t *const *)a, "id")),
			      json_string_value(json_object_get(*(json_t *const *)b, "id")));
}

json_t **ax_select_begin(const json_t *records, ax_error *err)
{
	json_t **sel = calloc(json_object_size(records) + 1, sizeof(json_t *));

	if (!sel)
		ax_wire_fail(err, "GENERAL::UNKNOWN_ERROR", "out of memory");
	return sel;
}

json_t *ax_page_json(json_t **sel, size_t n, const ax_page *page, json_t *(*show)(void *arg, const json_t *rec),
		     void *arg)
{
	long total = (long)n, size = page->size, pages = (total + size - 1) / size;
	json_t *items = json_array();

	qsort(sel, n, sizeof(json_t *), ax_newest_first);
	for (long i = (page->page - 1) * size; i < total && i < page->page * size; i++)
		json_array_append_new(items, show(arg, sel[i]));
	return json_pack("{s:o, s:{s:i, s:i, s:i, s:i, s:b}}", "items", items, "pagination", "page", (int)page->page,
			 "pageSize", (int)size, "totalItems", (int)total, "totalPages", (int)pages, "hasNextPage",
			 page->page < pages);
}
