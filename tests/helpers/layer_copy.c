/* layer_copy: the engine's checkpoint copy from the shell (tests/cli/layer_copy.sh).
 *
 *   layer_copy SRC DST          ax_layer_copy: in process, cp -a when too deep
 *   layer_copy --tree SRC DST   ax_layer_copy_tree alone, no flags (exit 3: out of fds)
 *
 * Prints the size on disk the copy reported, in bytes. */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/runtime/layer_copy.h"

int main(int argc, char **argv)
{
	bool tree = argc == 4 && strcmp(argv[1], "--tree") == 0;
	long long bytes = -1;
	ax_error err;
	int rc;

	if (argc != 3 && !tree) {
		fprintf(stderr, "usage: layer_copy [--tree] SRC DST\n");
		return 2;
	}
	ax_error_clear(&err);
	rc = tree ? ax_layer_copy_tree(argv[2], argv[3], 0, &bytes, &err) : ax_layer_copy(argv[1], argv[2], &bytes, &err);
	if (rc != 0)
		fprintf(stderr, "layer_copy: %s\n", err.message);
	else
		printf("%lld\n", bytes);
	return rc == AX_COPY_OUT_OF_FDS ? 3 : rc < 0 ? 1 : 0;
}
