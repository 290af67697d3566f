/* A failure inside the agent on its way to a reply, the agent's counterpart
 * of ax_error.h: every subsystem (Jupyter, the browser, MCP) fills the same
 * value, so one reply helper answers for all of them (route.h). */
#ifndef ALLOX_AGENT_ERROR_H
#define ALLOX_AGENT_ERROR_H

struct ag_error {
	unsigned status;    /* HTTP status to answer with (0: 500) */
	int code;           /* a protocol's own code where it has one (JSON-RPC for /mcp), else 0 */
	char message[512];
};

/* Fill ERR (CODE 0); returns -1, for `return ag_fail(...)`. */
int ag_fail(struct ag_error *err, unsigned status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* ag_fail with a protocol code. */
int ag_fail_code(struct ag_error *err, unsigned status, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
