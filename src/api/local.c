/* Starting the embedded engine on demand, so `allox-cli sandbox create` just works. */
#include "config.h"

#include "api/lifecycle.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/fs.h"
#include "lib/timeutil.h"

extern char **environ;

char *ax_local_socket_path(const char *home)
{
	char *p;

	if (asprintf(&p, "%s/run/engine.sock", home) < 0)
		return NULL;
	return p;
}

/* A connection to the engine's socket at PATH, or -1. */
static int local_connect(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd;

	if (!path || strlen(path) >= sizeof addr.sun_path)
		return -1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path);
	if (connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

bool ax_local_socket_answers(const char *path)
{
	int fd = local_connect(path);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* The connection that proved the engine answers carries the first request:
 * a probe of its own cost the engine an accept and a thread per command. */
static int keep_connection(int fd, int *conn)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	*conn = fd;
	return 0;
}

/* The engine beside this binary (build tree, or the same bin/ when installed), else PATH. */
static char *find_engine(void)
{
	const char *env = getenv("ALLOX_ENGINE");
	char self[PATH_MAX];
	ssize_t n;

	if (env && *env)
		return strdup(env);
	n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		char *slash, *p;

		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			if (asprintf(&p, "%s/allox-engine", self) >= 0) {
				if (access(p, X_OK) == 0)
					return p;
				free(p);
			}
		}
	}
	return strdup("allox-engine");
}

int ax_local_engine_ensure(const char *home, bool verbose, int *conn, ax_error *err)
{
	char *sock = ax_local_socket_path(home), *engine = NULL;
	int64_t start;
	pid_t pid;
	int status, rc, fd;

	*conn = -1;
	if (!sock)
		return ax_fail(err, AX_CODE_NOMEM, "out of memory");
	if (strlen(sock) >= sizeof ((struct sockaddr_un *)0)->sun_path) {
		rc = ax_fail(err, AX_CODE_ENGINE, "ALLOX_HOME is too long for a unix socket path: %s", sock);
		free(sock);
		return rc;
	}
	fd = local_connect(sock);
	if (fd >= 0) {
		free(sock);
		return keep_connection(fd, conn);
	}
	engine = find_engine();
	if (!engine) {
		free(sock);
		return ax_fail(err, AX_CODE_NOMEM, "out of memory");
	}
	{
		/* The engine daemonises itself and exits once it listens (or another one already does). */
		char *argv[] = { engine, "--home", (char *)home, NULL };

		if (verbose)
			fprintf(stderr, "[verbose] starting the local engine: %s --home %s\n", engine, home);
		rc = posix_spawnp(&pid, engine, NULL, NULL, argv, environ);
	}
	if (rc != 0) {
		ax_fail(err, AX_CODE_ENGINE, "cannot start the local engine %s: %s", engine, strerror(rc));
		ax_error_hint(err, "Set ALLOX_ENGINE to the allox-engine binary, or connection.domain to a server.");
		goto out;
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	start = ax_mono_ms();
	rc = -1;
	for (;;) {
		fd = local_connect(sock);
		if (fd >= 0) {
			rc = keep_connection(fd, conn);
			break;
		}
		if (ax_mono_ms() - start >= 10000) {
			ax_fail(err, AX_CODE_ENGINE, "the local engine did not start (exit status %d)",
				WIFEXITED(status) ? WEXITSTATUS(status) : -1);
			ax_error_hint(err, "See %s/engine.log.", home);
			break;
		}
		usleep(5000);
	}
out:
	free(engine);
	free(sock);
	return rc;
}
