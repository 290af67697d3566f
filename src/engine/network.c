/* A sandbox's network as the lifecycle API sees it: the mode a create asks
 * for, and the endpoints of its ports. */
#include "engine/engine.h"
#include "engine/sandbox.h"
#include "engine/wire_error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/egress/egress.h"
#include "engine/runtime/forward.h"

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

/* The ports the agent serves itself, behind its token (execd's and AIO's). */
#define EXECD_PORT 44772
#define AIO_PORT 8080

/* Checked after the open: the pid cannot have been reused. */
int ax_netns_of(const json_t *rec)
{
	const json_t *rt = json_object_get(rec, "runtime");
	ax_rt_handle h;
	char path[64];
	int fd;

	memset(&h, 0, sizeof h);
	h.init_pid = (pid_t)json_integer_value(json_object_get(rt, "initPid"));
	h.init_start = (unsigned long long)json_integer_value(json_object_get(rt, "initStart"));
	if (!ax_rt_alive(&h))
		return -1;
	snprintf(path, sizeof path, "/proc/%d/ns/net", (int)h.init_pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && !ax_rt_alive(&h)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* An endpoint of port PORT of running sandbox REC (lock held). */
static json_t *endpoint(ax_engine *e, json_t *rec, long port, ax_error *err)
{
	const json_t *rt = json_object_get(rec, "runtime");
	const char *id = json_string_value(json_object_get(rec, "id")) ?: "";
	/* Sandboxes started before there were modes share the host's network. */
	const char *mode_s = json_string_value(json_object_get(rec, "network")) ?: "host";
	ax_net_mode mode = AX_NET_HOST;
	char ep[64];
	ax_error why;
	int ns, rc, host_port = 0;

	/* The egress API: for every sandbox (the official SDKs ask for it at
	 * each create), served by the engine, not by anything inside. */
	if (port == AX_EGRESS_PORT)
		return ax_egress_endpoint(e, rec, err);
	/* execd and the AIO runtime are both served by the agent, behind its
	 * token, on the socket the engine made for it on the host's loopback. */
	if (port == EXECD_PORT || port == AIO_PORT) {
		snprintf(ep, sizeof ep, "127.0.0.1:%lld", (long long)json_integer_value(json_object_get(rt, "agentPort")));
		return json_pack("{s:s, s:{s:O}}", "endpoint", ep, "headers", "X-EXECD-ACCESS-TOKEN",
				 json_object_get(rt, "token"));
	}
	ax_net_mode_parse(mode_s, &mode);
	ns = ax_netns_of(rec);
	if (ns < 0) {
		ax_wire_fail(err, "SANDBOX::NOT_RUNNING", "sandbox %s is not running", id);
		return NULL;
	}
	if (mode == AX_NET_HOST) {
		/* Its ports are the host's already: only say whether one listens. */
		rc = ax_fwd_listening(ns, (int)port, &why);
		host_port = (int)port;
	} else {
		if (!e->forwards)
			e->forwards = ax_fwds_new();
		rc = e->forwards ? ax_fwd_get(e->forwards, id, ns, (int)port, &host_port, &why)
				 : ax_fail(&why, AX_CODE_NOMEM, "out of memory");
		rc = rc == 0 ? 1 : why.code == AX_CODE_NOT_LISTENING ? 0 : -1;
	}
	close(ns);
	if (rc < 0) {
		ax_wire_fail(err, "SANDBOX::RUNTIME_ERROR", "cannot make an endpoint for port %ld: %s", port, why.message);
		return NULL;
	}
	/* The spec's endpoint is for a service listening in the sandbox: an
	 * address for nothing could lead a client to an unrelated server. */
	if (rc == 0) {
		ax_wire_fail(err, "SANDBOX::PORT_NOT_LISTENING",
			     "nothing listens on port %ld in sandbox %s: start the server first", port, id);
		return NULL;
	}
	snprintf(ep, sizeof ep, "127.0.0.1:%d", host_port);
	return json_pack("{s:s}", "endpoint", ep);
}

int ax_port_parse(const char *s, long *port, ax_error *err)
{
	char *end;

	errno = 0;
	*port = strtol(s, &end, 10);
	if (errno || end == s || *end || *port < 1 || *port > 65535)
		return ax_wire_fail(err, "SANDBOX::INVALID_PARAMETER", "port must be an integer from 1 to 65535");
	return 0;
}

json_t *ax_sandbox_endpoint(ax_engine *e, const char *id, const char *port_s, ax_error *err)
{
	json_t *rec, *out = NULL;
	long port;

	pthread_mutex_lock(&e->lock);
	if (ax_sandbox_find(e, id, err) && ax_port_parse(port_s, &port, err) == 0) {
		/* The agent's port and token are known once it started. */
		rec = ax_sandbox_settled(e, id);
		if (rec)
			out = endpoint(e, rec, port, err);
		else
			ax_wire_fail(err, "SANDBOX::NOT_FOUND", "sandbox %s not found", id);
	}
	pthread_mutex_unlock(&e->lock);
	return out;
}

void ax_endpoints_drop(ax_engine *e, const char *id)
{
	ax_fwd_drop(e->forwards, id);
}
