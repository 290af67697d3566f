/* Every endpoint the agent serves. The first row whose method and path match
 * wins, so list exact paths before a prefix that covers them. */
#include "agent/core/route.h"
#include "agent/aio/routes_aio.h"
#include "agent/core/routes_basic.h"
#include "agent/execd/routes_execd.h"
#include "agent/core/routes_ext.h"

const struct ag_route ag_routes[] = {
	{ "GET", "/ping", AG_EXACT, ag_get_ping, AG_BODY_NONE, 0, NULL },
	{ "GET", "/v1/sandbox", AG_EXACT, ag_get_sandbox, AG_BODY_NONE, 0, NULL },
	{ "GET", "/v1/shell/sessions", AG_EXACT, ag_get_shell_sessions, AG_BODY_NONE, 0, NULL },
	AG_EXECD_ROUTES
	AG_AIO_ROUTES
	AG_EXT_ROUTES
	{ NULL, NULL, AG_EXACT, NULL, AG_BODY_NONE, 0, NULL },
};
