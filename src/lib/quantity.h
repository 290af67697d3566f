/*
 * Resource limits as OpenSandbox's resourceLimits carries them: strings in
 * the style of Kubernetes quantities. One grammar for the CLI (--cpu,
 * --memory, --pids, --disk and the defaults.* keys) and the local engine
 * (resourceLimits of POST /sandboxes, its --default-* options), so both
 * accept and refuse the same values with the same words.
 *
 *   cpu                 CPUs: "2", "0.5", "2.5" (at most 3 decimals) or
 *                       millicores "500m"; from 10m to 4096
 *   memory              bytes: "536870912", or with a suffix Ki Mi Gi Ti
 *                       (powers of 1024) or k K M G T (powers of 1000);
 *                       "1.5Gi" too (rounded up to a byte); at least 32Mi
 *   pids                processes (threads count too): "1024"; 16 to 4194304
 *   ephemeral-storage   a size as memory; at least 1Mi
 */
#ifndef ALLOX_QUANTITY_H
#define ALLOX_QUANTITY_H

typedef enum ax_limit_kind {
	AX_LIMIT_CPU,       /* parsed to millicores */
	AX_LIMIT_MEMORY,    /* bytes */
	AX_LIMIT_PIDS,      /* a count */
	AX_LIMIT_DISK,      /* bytes */
	AX_LIMIT_N
} ax_limit_kind;

/* The resourceLimits key of KIND: "cpu", "memory", "pids", "ephemeral-storage". */
const char *ax_limit_key(ax_limit_kind kind);

/* Parse TEXT as KIND into *OUT (> 0). Returns 0, or -1 with *WHY set to a
 * static phrase for a message such as "invalid value 'X' for --cpu: WHY":
 * what is expected, or the range. */
int ax_limit_parse(ax_limit_kind kind, const char *text, long long *out, const char **why);

/* A size alone, as memory and ephemeral-storage take it, without their
 * range: "512Mi", "1.5Gi", "100M", "1000000" -> bytes (a fraction rounds up
 * to a whole byte, as Kubernetes does); -1: unreadable; -2: over 1Pi. */
long long ax_quantity_bytes(const char *s);

#endif
