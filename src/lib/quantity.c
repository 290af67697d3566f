#include "lib/quantity.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define MIB (1024LL * 1024)
#define MAX_BYTES (1LL << 50)        /* 1Pi */
#define MIN_MEMORY (32 * MIB)
#define MIN_DISK MIB
#define MIN_MILLICPU 10LL            /* a CFS quota of 1 ms per 100 ms period, the kernel's minimum */
#define MAX_MILLICPU (4096LL * 1000)
#define MIN_PIDS 16LL
#define MAX_PIDS 4194304LL           /* PID_MAX_LIMIT */
#define DIGITS_CAP (1LL << 60)       /* digits beyond this only say "too large" */

static const char *const keys[AX_LIMIT_N] = { "cpu", "memory", "pids", "ephemeral-storage" };

const char *ax_limit_key(ax_limit_kind kind)
{
	return kind >= 0 && kind < AX_LIMIT_N ? keys[kind] : "?";
}

/* Decimal digits at *P into *V (saturating at DIGITS_CAP); how many were read. */
static size_t digits(const char **p, long long *v)
{
	size_t n = 0;

	*v = 0;
	while (**p >= '0' && **p <= '9') {
		/* Checked before the multiplication: 999999999999999999 * 10 overflows. */
		*v = *v < DIGITS_CAP / 10 ? *v * 10 + (**p - '0') : DIGITS_CAP;
		(*p)++;
		n++;
	}
	return n;
}

long long ax_quantity_bytes(const char *s)
{
	static const struct {
		const char *suffix;
		long long mult;
	} units[] = {
		{ "Ki", 1024LL }, { "Mi", MIB }, { "Gi", 1024 * MIB }, { "Ti", 1024 * 1024 * MIB },
		{ "k", 1000LL }, { "K", 1000LL }, { "M", 1000000LL }, { "G", 1000000000LL },
		{ "T", 1000000000000LL }, { "", 1 },
	};
	const char *p = s;
	long long n, frac = 0, scale = 1;
	size_t nf = 0;

	if (!s || !digits(&p, &n))
		return -1;
	if (*p == '.') {
		p++;
		nf = digits(&p, &frac);
		if (nf == 0 || nf > 9)
			return -1;
		while (nf--)
			scale *= 10;
	}
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		long long m = units[i].mult;

		if (strcmp(p, units[i].suffix) != 0)
			continue;
		if (n > MAX_BYTES / m)
			return -2;
		/* frac / scale of M, rounded up; M <= 2^40 and frac < 10^9 would
		 * overflow together, so split M. */
		n = n * m + (m / scale) * frac + ((m % scale) * frac + scale - 1) / scale;
		return n > MAX_BYTES ? -2 : n;
	}
	return -1;
}

/* "2", "0.5", ".25", "500m" -> millicores; -1: unreadable; -2: too large. */
static long long cpu_value(const char *s)
{
	const char *p = s;
	long long whole = 0, frac = 0;
	size_t nw, nf = 0;

	if (!s)
		return -1;
	nw = digits(&p, &whole);
	if (nw && strcmp(p, "m") == 0)
		return whole > MAX_MILLICPU ? -2 : whole;
	if (*p == '.') {
		p++;
		nf = digits(&p, &frac);
		if (nf == 0 || nf > 3)
			return -1;
		while (nf++ < 3)
			frac *= 10;
	}
	if (*p || p == s)
		return -1;
	return whole > MAX_MILLICPU / 1000 ? -2 : whole * 1000 + frac;
}

int ax_limit_parse(ax_limit_kind kind, const char *text, long long *out, const char **why)
{
	long long v = -1;
	const char *p = text;

	*out = 0;
	switch (kind) {
	case AX_LIMIT_CPU:
		v = cpu_value(text);
		if (v == -1) {
			*why = "expected a number of CPUs such as 1, 0.5 or 500m";
			return -1;
		}
		if (v < MIN_MILLICPU || v > MAX_MILLICPU) {
			*why = "must be from 10m to 4096 CPUs";
			return -1;
		}
		break;
	case AX_LIMIT_MEMORY:
	case AX_LIMIT_DISK:
		v = ax_quantity_bytes(text);
		if (v == -1) {
			*why = "expected a size such as 512Mi, 2Gi or 100M";
			return -1;
		}
		if (v == -2) {
			*why = "must be at most 1Pi";
			return -1;
		}
		if (kind == AX_LIMIT_MEMORY && v < MIN_MEMORY) {
			*why = "must be at least 32Mi";
			return -1;
		}
		if (kind == AX_LIMIT_DISK && v < MIN_DISK) {
			*why = "must be at least 1Mi";
			return -1;
		}
		break;
	case AX_LIMIT_PIDS:
		if (!text || !digits(&p, &v) || *p) {
			*why = "expected a whole number of processes such as 1024";
			return -1;
		}
		if (v < MIN_PIDS || v > MAX_PIDS) {
			*why = "must be from 16 to 4194304";
			return -1;
		}
		break;
	default:
		*why = "unknown limit";
		return -1;
	}
	*out = v;
	return 0;
}
