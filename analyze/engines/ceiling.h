/* ceiling.h: each kernel's achieved memory and compute rates from hardware counters, against the
 * ceilings `gputrace peak` measured, and the bound that follows.
 *
 * The engine behind `gpuanalyze ceiling` (and report's roofline, diff's per-launch counters).
 * Counters mean what metric_roles.h's table says; their sources, per kernel and role:
 *   replay   LAUNCH_METRIC records (gputrace replay --metrics): exact per launch. Per launch = the
 *            records' sum / their count; rate = their sum / their launches' summed duration.
 *   samples  METRIC_SAMPLE records (GPUTRACE_METRICS): device-wide, shared out by apportion.h's
 *            rule; rate = the kernel's amount / its covered time; per launch = rate x its mean
 *            duration; coverage = covered time / total time (the least over the sampled metrics).
 * A role with replay values for the kernel uses those alone. A percentage metric is a mean over
 * time. Records with bad times, or a value that is NaN, infinite or negative, are left out and
 * counted; a metric no row names is counted and used for nothing.
 *
 * Figures (NaN: not measured):
 *   DRAM bytes     dram_read_bytes + dram_write_bytes (both needed); GB/s = bytes per ns;
 *   % of memory    GB/s over the largest measured device-memory ceiling of the kernel's device
 *                  (dram_read, dram_copy, dram_triad; the probe counts bytes read plus written),
 *                  and beside it over the theoretical peak (gt_device_peak_mem_bw);
 *   FLOPs          fp32 + fp64 + tensor flops, those measured, when all three are or those
 *                  measured count something (a replay has tensor flops only); GFLOP/s per ns;
 *   % of compute   the sum over the measured kinds of GFLOP/s over that kind's measured ceiling
 *                  (fp32_fma, fp64_fma; for tensor the highest of fp16/bf16_mma and fp16/bf16_gemm,
 *                  gt_peaks_tensor_kind): the share of the time the kernel's
 *                  work would keep each unit busy at its ceiling. Without FLOP counts: the busiest
 *                  of the FMA, FP64 and tensor pipes' activity percentages; without those, the SM
 *                  throughput percentage. compute_vs says which. Beside it, from FLOP counts
 *                  only, the same sum over the theoretical peaks (gt_ceiling_theory).
 *   % of L2        L2 GB/s (lts__t_bytes: the bytes every unit moved through L2, reads and
 *                  writes) over the measured l2_read ceiling (a read-only working set inside L2);
 *                  an approximation of how busy L2 is, which writes can take past 100; NaN
 *                  without that ceiling (there is no theoretical L2 figure).
 *   intensity      FLOPs / DRAM bytes.
 *   bound          M = % of memory: the higher of DRAM's (measured ceiling, else theoretical) and
 *                  L2's, so that a kernel L2 keeps busy is not called latency-bound; C = % of compute
 *                  (measured ceilings or the counters' own percentages, else theoretical):
 *                  the larger decides when it is at least GT_CEIL_BOUND_PCT (memory on a tie);
 *                  when both are known and below it, latency (neither unit kept busy); when one is
 *                  unknown and the other below it, undecided; neither known: not measured.
 */
#ifndef GT_CEILING_H
#define GT_CEILING_H

#include "traces/gputrace.h"
#include "analyze/blocks/metric_roles.h"
#include "analyze/blocks/peaks.h"

#include <stddef.h>
#include <stdint.h>

#define GT_CEIL_BOUND_PCT 60.0

enum gt_ceil_bound {
	GT_BOUND_NOT_MEASURED = 0,
	GT_BOUND_MEMORY,
	GT_BOUND_COMPUTE,
	GT_BOUND_LATENCY,
	GT_BOUND_UNDECIDED,
};
const char *gt_ceil_bound_name(int bound); /* "not measured", "memory", ... */
/* The rule above, on percentages (NaN: unknown). */
int gt_ceil_bound_of(double mem_pct, double compute_pct);

enum gt_ceil_source { GT_CEIL_SRC_NONE = 0, GT_CEIL_SRC_REPLAY = 1, GT_CEIL_SRC_SAMPLES = 2 };
const char *gt_ceil_source_name(int source); /* "none", "replay", "samples", "replay+samples" */

struct gt_ceil_device {
	uint32_t device_id;      /* in the trace where it was first seen */
	char name[128];
	char uuid[48];           /* "" unknown */
	int known;               /* a DEVICE record described it */
	double theory[GT_CEIL_NKINDS]; /* gt_ceiling_theory of each kind (memory: theory[GT_CEIL_DRAM_READ]);
	                                * 0: unknown */
	struct gt_peaks peaks;   /* measured; nothing when no file was read */
	int mem_kind;            /* the measured memory ceiling used (enum gt_ceiling_kind), -1 none */
	double mem_gbps;         /* its value, NaN none */
	double l2_gbps;          /* the measured l2_read ceiling, NaN none */
};

struct gt_ceil_kernel {
	char *name;              /* as the trace names it (mangled) */
	uint64_t launches;
	double time_ns;          /* summed duration */
	size_t device;           /* index in devices; SIZE_MAX: none known */
	int source;              /* GT_CEIL_SRC_* bits */
	double coverage;         /* samples: covered / total, 0..1; NaN when not sampled */
	double solo_share;       /* samples: time alone on its device / total; NaN when not sampled */
	double per_launch[GT_ROLE_COUNT]; /* role's amount per launch (a percentage: its mean) */
	double rate[GT_ROLE_COUNT];       /* per ns (bytes/ns = GB/s, flops/ns = GFLOP/s); pct: mean */
	double dram_bytes, dram_gbps, mem_pct, mem_pct_theory;
	double l2_bytes, l2_gbps, l2_pct;
	double flops, gflops, compute_pct, compute_pct_theory;
	char compute_vs[64];     /* the ceilings or counters compute_pct is of; "" none */
	double intensity;        /* FLOP per DRAM byte */
	int bound;
};

/* The percentages the bound is decided on (NaN: none known): memory, the higher of DRAM's (measured,
 * else theoretical) and L2's; compute, the measured one, else the theoretical. */
double gt_ceil_mem_pct(const struct gt_ceil_kernel *k);
double gt_ceil_compute_pct(const struct gt_ceil_kernel *k);

struct ceil_state;

struct gt_ceil_analysis {
	const char *peaks_path;  /* input: NULL the default place */
	struct gt_ceil_kernel *kernels; /* by total time, longest first */
	size_t nkernels;
	struct gt_ceil_device *devices;
	size_t ndevices;
	uint64_t metric_samples, launch_metrics; /* records read */
	uint64_t samples_left_out, launches_left_out; /* bad times, value not finite or negative */
	uint64_t unknown_metric;  /* records of metrics no row names */
	uint64_t kernels_bad;     /* kernel records with bad times */
	double sampled[GT_METRIC_ROLE_MAX_ROWS], concurrent[GT_METRIC_ROLE_MAX_ROWS],
	       idle[GT_METRIC_ROLE_MAX_ROWS]; /* per role-table row: counts read, left out */
	int row_seen[GT_METRIC_ROLE_MAX_ROWS];         /* rows with samples (1), launch values (2) */
	char *peaks_file;
	char peaks_error[256];
	int peaks_missing;
	char *path;               /* the first trace */
	int ntraces;
	int complete;             /* every trace */
	uint64_t lost_bytes;
	char *synthetic;
	struct ceil_state *state;
};

/* Reads every trace (kernels by name across them) and fills c. 0; a negative GT_ERR_* with the
 * failure held (failure.h); GT_ERR_NOMEM. */
int gt_ceiling_run(struct gt_ceil_analysis *c, char *const *paths, int n, const char *peaks_path);
/* The same with the default peaks file, for a command whose own pass over the traces already said
 * what their ends hold (report, diff): no second warning about a trace that ends early. */
int gt_ceiling_run_again(struct gt_ceil_analysis *c, char *const *paths, int n);
void gt_ceiling_release(struct gt_ceil_analysis *c);
/* 1 when any counter record was read. */
static inline int gt_ceiling_has_metrics(const struct gt_ceil_analysis *c)
{
	return c->metric_samples + c->launch_metrics > 0;
}
/* The kernel named name (mangled), or NULL; a linear search, for tests and single look-ups. */
const struct gt_ceil_kernel *gt_ceiling_find(const struct gt_ceil_analysis *c, const char *name);

#endif
