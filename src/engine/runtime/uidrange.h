/* Host uid ranges for sandboxes, claimed host-wide (uidrange.c). */
#ifndef ALLOX_UIDRANGE_H
#define ALLOX_UIDRANGE_H

#include <stdbool.h>

#include "lib/ax_error.h"

#define AX_UIDRANGE_SIZE 65536u
/* Defaults of allox-engine --uid-base and --uid-ranges: host uids
 * 0x40000000-0x4fffffff, far above login users and /etc/subuid's usual
 * 100000.. ranges; uids stay below 2^31 for tools that keep them signed. */
#define AX_UIDRANGE_FIRST 0x40000000u
#define AX_UIDRANGE_COUNT 4096u
#define AX_UIDRANGE_DIR "/run/allox/uid-ranges"

typedef struct ax_uidrange {
	const char *dir;     /* claims directory, shared by every engine of the host */
	unsigned first;      /* base of the first range */
	unsigned count;      /* ranges of AX_UIDRANGE_SIZE from first */
} ax_uidrange;

/* Claim the lowest free range for OWNER (an absolute path that exists as
 * long as the claim holds: the sandbox's state directory), or find the one
 * it holds already; its first uid in *BASE. */
int ax_uidrange_claim(const ax_uidrange *r, const char *owner, unsigned *base, ax_error *err);
/* Give BASE back if OWNER still holds it. */
void ax_uidrange_release(const ax_uidrange *r, const char *owner, unsigned base);

#endif
