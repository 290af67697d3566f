#include "agent/execd/execd_rmtree.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/fs.h"

/* Empty directory DIR: collect a batch of names, close it, remove them,
 * repeat. Holding no descriptor while recursing keeps deep trees within
 * the descriptor limit. */
static int empty_dir(const char *dir)
{
	for (;;) {
		char *names[64];
		size_t n = 0, i;
		struct dirent *e;
		DIR *d = opendir(dir);
		int rc = 0;

		if (!d)
			return errno == ENOENT ? 0 : -1;
		while (n < sizeof names / sizeof *names && (e = readdir(d))) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			names[n] = ax_path_join(dir, e->d_name);
			if (!names[n]) {
				rc = -1;
				errno = ENOMEM;
				break;
			}
			n++;
		}
		closedir(d);
		for (i = 0; i < n; i++) {
			if (rc == 0 && ag_rmtree(names[i]) < 0)
				rc = -1;
			free(names[i]);
		}
		if (rc < 0 || n == 0)
			return rc;
	}
}

int ag_rmtree(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path) < 0 && errno != ENOENT ? -1 : 0;
	if (empty_dir(path) < 0)
		return -1;
	return rmdir(path) < 0 && errno != ENOENT ? -1 : 0;
}
