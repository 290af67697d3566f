/* The sandbox's resource use for GET /metrics and GET /metrics/watch.
 *
 * From the sandbox's own cgroup when it is visible inside (a cgroup
 * namespace makes it the root of /sys/fs/cgroup: v1 cpuacct/cpu/memory or
 * v2 files), else from /proc: the agent is PID 1 of the sandbox's PID
 * namespace, so the processes /proc lists are the sandbox's, and their
 * CPU time (children's included, as the agent reaps every orphan) and
 * resident memory are what the sandbox uses. Disk is the file system at /
 * (the sandbox's writable layer). The limits, when no cgroup is visible,
 * are those the engine passed at start. */
#ifndef ALLOX_AGENT_EXECD_METRICS_H
#define ALLOX_AGENT_EXECD_METRICS_H

#include <jansson.h>
#include <stdint.h>

#include "agent/core/route.h"

/* CPU time used so far and when it was read, for a usage percentage. */
struct ag_cpu_sample {
	int64_t cpu_ns;
	int64_t mono_ns;
};

void ag_cpu_sample_take(struct ag_cpu_sample *s);

/* The Metrics object (cpu_count, cpu_used_pct, mem_total_mib, mem_used_mib,
 * timestamp, plus our disk_total_mib and disk_used_mib), the CPU usage over
 * the time since PREV. Limits the cgroup does not show come from CTX (the
 * engine's --memory-max and --cpu-max). */
json_t *ag_metrics_json(const struct ag_ctx *ctx, const struct ag_cpu_sample *prev, const struct ag_cpu_sample *now);

enum MHD_Result ag_execd_metrics(struct ag_req *req);
enum MHD_Result ag_execd_metrics_watch(struct ag_req *req);

#endif
