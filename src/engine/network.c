/* A sandbox's network as the lifecycle API sees it: the mode a create asks
 * for. */
#include "engine.h"

#include <string.h>

int ax_net_mode_parse(const char *s, ax_net_mode *mode)
{
	ax_net_mode m;

	if (!s || strcmp(s, "isolated") == 0)
		m = AX_NET_ISOLATED;
	else if (strcmp(s, "none") == 0)
		m = AX_NET_NONE;
	else if (strcmp(s, "host") == 0)
		m = AX_NET_HOST;
	else
		return -1;
	if (mode)
		*mode = m;
	return 0;
}

