#include "lib/splice_copy.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#define PIPE_BYTES (1 << 20)

void ax_splice_copy(int in, int out)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) == 0) {
		/* A bigger pipe moves more per call; the default 64 KiB still works. */
		fcntl(p[1], F_SETPIPE_SZ, PIPE_BYTES);
		for (;;) {
			ssize_t n = splice(in, NULL, p[1], NULL, PIPE_BYTES, SPLICE_F_MOVE);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			while (n > 0) {
				ssize_t m = splice(p[0], NULL, out, NULL, (size_t)n, SPLICE_F_MOVE);

				if (m < 0 && errno == EINTR)
					continue;
				if (m <= 0)
					goto done;
				n -= m;
			}
		}
done:
		close(p[0]);
		close(p[1]);
	}
	shutdown(out, SHUT_WR);
}

typedef struct relay_way {
	int in, out;
} relay_way;

static void *relay_main(void *arg)
{
	relay_way *w = arg;

	ax_splice_copy(w->in, w->out);
	return NULL;
}

void ax_splice_relay(int a, int b)
{
	relay_way there = { a, b }, back = { b, a };
	pthread_t t;

	if (pthread_create(&t, NULL, relay_main, &back) == 0) {
		ax_splice_copy(there.in, there.out);
		pthread_join(t, NULL);
	}
}
