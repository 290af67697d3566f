/* The extension module's side of ext.h: the one exported object. Built with
 * -fvisibility=hidden, so nothing else leaks into the agent's namespace. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/ext/browser/browser.h"
#include "agent/ext/browser/cdp_relay.h"
#include "agent/ext/ext.h"
#include "agent/ext/ext_mhd.h"
#include "agent/ext/jupyter/jupyter.h"
#include "agent/ext/mcp/mcp.h"
#include "agent/ext/browser/routes_browser.h"
#include "agent/ext/jupyter/routes_code.h"
#include "agent/ext/jupyter/routes_jupyter.h"
#include "agent/ext/mcp/routes_mcp.h"

static const struct ag_route ext_routes[] = {
	AG_JUPYTER_ROUTES
	AG_CODE_ROUTES
	AG_BROWSER_ROUTES
	AG_MCP_ROUTES
	{ NULL, NULL, AG_EXACT, NULL, AG_BODY_NONE, 0, NULL },
};

static void ext_stop(struct ag_ctx *ctx)
{
	ag_jupyter_free(ctx->jupyter);
	ag_mcp_free(ctx->mcp);          /* before the browser its tools drive */
	ag_relay_stop(ctx->cdp_relay);  /* before the browser it leads to */
	ctx->cdp_relay = NULL;
	ag_browser_free(ctx->browser);
	ctx->jupyter = NULL;
	ctx->mcp = NULL;
	ctx->browser = NULL;
}

static int ext_start(struct ag_ctx *ctx, const struct ag_ext_config *conf, char *msg, size_t msg_size)
{
	ag_ext_mhd_use(conf->mhd);
	ctx->jupyter = ag_jupyter_new();
	/* Cheap: Chromium starts on the first browser request. */
	ctx->browser = ctx->jupyter ? ag_browser_new(ctx->reaper) : NULL;
	/* One Chromium: the hub's browser tools drive the routes' browser. */
	ctx->mcp = ctx->browser ? ag_mcp_new(ctx, ctx->browser, conf->mcp_servers) : NULL;
	if (!ctx->mcp) {
		ext_stop(ctx);
		snprintf(msg, msg_size, "out of memory setting up Jupyter, the browser and the MCP hub");
		return -1;
	}
	ag_jupyter_set_reaper(ctx->jupyter, ctx->reaper);
	/* Chromium listens in the sandbox's own network: the host reaches it
	 * through the relay, whose address cdp_url then carries. */
	if (conf->cdp_listen_fd >= 0) {
		ctx->cdp_relay = ag_relay_start(conf->cdp_listen_fd, ctx->browser, ctx->token, ctx->token_len);
		ag_browser_set_cdp_base(ctx->browser, ag_relay_base(ctx->cdp_relay));
	}
	if (!conf->mcp_bridge)
		ag_mcp_set_bridge(ctx->mcp, false);
	if (conf->mcp_test_caps)
		ag_mcp_set_test_capabilities(ctx->mcp, conf->mcp_test_caps);
	return 0;
}

static char *ext_code_contexts(struct ag_ctx *ctx, const char *language)
{
	json_t *list = ag_jupyter_contexts(ctx->jupyter, language);
	char *text = list ? json_dumps(list, JSON_COMPACT) : NULL;

	json_decref(list);
	return text;
}

__attribute__((visibility("default"))) extern const struct ag_ext_api ag_ext_api_v1;

const struct ag_ext_api ag_ext_api_v1 = {
	.abi = AG_EXT_ABI,
	.ctx_size = sizeof(struct ag_ctx),
	.req_size = sizeof(struct ag_req),
	.start = ext_start,
	.stop = ext_stop,
	.code_contexts = ext_code_contexts,
	.routes = ext_routes,
};
