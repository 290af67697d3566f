/* Reaching a sandbox's runtime (execd on 44772, the AIO API on defaults.aio_port). */
#ifndef ALLOX_RUNTIME_CLIENT_H
#define ALLOX_RUNTIME_CLIENT_H

#include "lib/http.h"
#include "api/lifecycle.h"

#define AX_EXECD_PORT 44772

/* Look up the endpoint of PORT for sandbox ID and open an ax_http on
 * "http://<endpoint>" that sends the endpoint's headers (the access token)
 * with every request. TIMEOUT_S applies to plain requests; 0 = none. */
int ax_runtime_connect(ax_lifecycle *lc, const char *id, int port, long timeout_s, ax_http *out, ax_error *err);

/* ERR is a transport failure talking to sandbox ID's runtime: when the
 * lifecycle says the sandbox is not running (its agent died, it expired...),
 * replace ERR with that, in one line ("sandbox ID is Terminated: why").
 * Anything else leaves ERR as it is. */
void ax_runtime_explain(ax_lifecycle *lc, const char *id, ax_error *err);

#endif
