/* What the route handlers read from a request: its JSON body and its query
 * parameters. Each fails with the answer (400) already in RESP. */
#ifndef ALLOX_ENGINE_REQUEST_H
#define ALLOX_ENGINE_REQUEST_H

#include <stdbool.h>

#include "engine/engine.h"
#include "engine/sandbox.h"

/* The body as a JSON object; without one, {} unless REQUIRED. NULL with RESP. */
json_t *ax_parse_body(const ax_req *req, ax_resp *resp, bool required);
/* Query parameter NAME as an integer from MIN to MAX, DEF when absent. */
int ax_int_param(const ax_req *req, const char *name, long def, long min, long max, long *out, ax_resp *resp);
/* page and pageSize. */
int ax_page_param(const ax_req *req, ax_page *page, ax_resp *resp);
/* The first value of query parameter NAME, or NULL. */
const char *ax_query(const ax_req *req, const char *name);

#endif
