#include "lib/close_fds.h"

#include <sys/syscall.h>
#include <unistd.h>

void ax_close_fds_except(int *keep, size_t n)
{
	unsigned from = 3;

	/* Insertion sort: qsort may allocate. */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
			int t = keep[j];

			keep[j] = keep[j - 1];
			keep[j - 1] = t;
		}
	for (size_t i = 0; i < n; i++) {
		if (keep[i] < (int)from)
			continue;
		if ((unsigned)keep[i] > from)
			syscall(SYS_close_range, from, (unsigned)keep[i] - 1, 0U);
		from = (unsigned)keep[i] + 1;
	}
	syscall(SYS_close_range, from, ~0U, 0U);
}
