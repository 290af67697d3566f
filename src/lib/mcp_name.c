#include "lib/mcp_name.h"

#include <string.h>

bool ax_mcp_name_ok(const char *name)
{
	size_t n = strlen(name);

	return n >= 1 && n <= 64 &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == n;
}
