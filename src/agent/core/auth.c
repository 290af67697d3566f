#include "agent/core/auth.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

/* The engine writes the token and closes its end at once; a writer that never
 * does is a bug we report instead of hanging the sandbox's start. */
#define TOKEN_READ_TIMEOUT_MS 5000

static int read_some(int fd, char *buf, size_t cap, size_t *used, ax_error *err)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = poll(&p, 1, TOKEN_READ_TIMEOUT_MS);
		ssize_t n;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return ax_fail(err, AX_CODE_USAGE, "--token-fd %d: %s", fd, strerror(errno));
		if (r == 0)
			return ax_fail(err, AX_CODE_USAGE,
				       "--token-fd %d: no token within %d s", fd, TOKEN_READ_TIMEOUT_MS / 1000);
		n = read(fd, buf + *used, cap - *used);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return ax_fail(err, AX_CODE_USAGE, "--token-fd %d: %s", fd, strerror(errno));
		*used += (size_t)n;
		return n == 0 ? 1 : 0;
	}
}

int ag_token_read(int fd, char buf[AG_TOKEN_MAX + 1], ax_error *err)
{
	/* Room for the token, "\r\n" and one byte more to detect an overlong one. */
	char raw[AG_TOKEN_MAX + 3] = "";
	size_t used = 0, len, i;
	int rc = 0;

	while (used < sizeof raw && !memchr(raw, '\n', used)) {
		rc = read_some(fd, raw, sizeof raw, &used, err);
		if (rc != 0)
			break;
	}
	close(fd);
	if (rc < 0)
		return -1;
	len = used;
	if (memchr(raw, '\n', used))
		len = (size_t)((char *)memchr(raw, '\n', used) - raw);
	if (len < used && len + 1 != used)
		return ax_fail(err, AX_CODE_USAGE, "--token-fd %d: more than one line", fd);
	if (len && raw[len - 1] == '\r')
		len--;
	if (len == 0)
		return ax_fail(err, AX_CODE_USAGE, "--token-fd %d: empty token", fd);
	if (len > AG_TOKEN_MAX)
		return ax_fail(err, AX_CODE_USAGE, "--token-fd %d: token longer than %d bytes",
			       fd, AG_TOKEN_MAX);
	/* HTTP trims header whitespace, so a token with spaces or control bytes
	 * could never be presented back: refuse it rather than lock everyone out. */
	for (i = 0; i < len; i++)
		if (raw[i] < 0x21 || raw[i] > 0x7e)
			return ax_fail(err, AX_CODE_USAGE,
				       "--token-fd %d: token must be printable ASCII without spaces", fd);
	memcpy(buf, raw, len);
	buf[len] = '\0';
	return 0;
}
