/* How `aio mcp call` shows a CallToolResult: text content as is, images
 * saved under a directory (or summarised), other content as compact JSON,
 * then structuredContent as pretty JSON. */
#ifndef ALLOX_OUTPUT_MCP_H
#define ALLOX_OUTPUT_MCP_H

#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>

#include "lib/ax_error.h"

/* Is RESULT an error result (isError, or is_error as snake-case bridges say)? */
bool ax_mcp_is_error(const json_t *result);

/* Save RESULT's image (and audio) content under DIR as <TOOL>_<n>.<ext>;
 * the paths go to SAVED (an array). 0 or -1 with ERR. */
int ax_mcp_save_images(const json_t *result, const char *tool, const char *dir, json_t *saved, ax_error *err);

/* Write RESULT in raw form to OUT; SAVED (may be NULL) holds the paths
 * ax_mcp_save_images wrote, in content order. */
int ax_mcp_show(FILE *out, const json_t *result, const json_t *saved, ax_error *err);

#endif
