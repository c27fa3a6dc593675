/* findings.h: what in a trace is worth fixing, or makes its numbers doubtful; each with where, what
 * it cost and what to do.
 *
 * The engine behind `gpuanalyze findings` (and the findings section of a report). The rules, by
 * family, with their thresholds (struct gt_findings_options; gpuanalyze(1) repeats them):
 *
 *   records (findings_rules_records.c): what the trace lacks or left out
 *   records-lost       DROPPED records by reason, and META tracing.buffers_refused;
 *   records-filtered   kernel records the recording's kernel filter left out (info);
 *   captures-skipped   shadow captures skipped at their caps (info);
 *   trace-incomplete   a trace that ends early (no END record);
 *   tracing-off        META tracing.off, or a tracing-off PROCESS record;
 *   tracing-collision  META tracing.collision: another CUPTI client took activity buffers;
 *   other-clients-refused  META tracing.other_clients_refused;
 *   copies (findings_rules_copies.c), as nsys's expert rules:
 *   pageable-async     copies issued as asynchronous (CUPTI's async flag) whose host end is
 *                      pageable memory: the driver stages them, so they ran synchronously;
 *   sync-copies        copies without the async flag (cudaMemcpy): the host waited for each; with how
 *                      many were on the critical path (bandwidth.h: the device did nothing else);
 *   sync-memsets       memsets without the async flag;
 *   small-copies       copies too small to reach bandwidth (bandwidth.h);
 *   sync (findings_rules_sync.c):
 *   blocking-syncs     calls that wait for all work of the device: SYNC records of kind context, and
 *                      cudaDeviceSynchronize / cuCtxSynchronize calls without such a record;
 *   gpu_time (findings_rules_gpu_time.c):
 *   idle-gaps          gaps of at least gap_ns between GPU operations (kernels, copies, memsets) of
 *                      one device, inside the span from its first operation to its last;
 *   low-utilization    that span cut into `slices` equal slices; slices where the union of the
 *                      device's GPU work covers less than util_pct percent, adjacent ones joined;
 *   kernels (findings_rules_kernels.c), for kernels launched at least GT_FINDINGS_MIN_LAUNCHES times:
 *   bimodal            kernels with at least bimodal_min launches whose sorted durations have a gap
 *                      x[i+1] / x[i] >= bimodal_ratio that leaves at least bimodal_share of the
 *                      launches on each side (the widest such gap is the split);
 *   first-launch       kernels whose first launch (by start) took at least first_ratio times the
 *                      median of the others: warm-up left in the data;
 *   clocks (findings_rules_clocks.c), from NVML clock samples:
 *   clocks-throttled   throttle reasons decoded (power, thermal, hardware slowdown);
 *   clocks-moved       the SM clock's range across samples taken while busy (not GpuIdle);
 *   clocks-unknown     no samples, or fewer than two taken while busy;
 *   clock-settings     idle and application-clock settings: reported, not blamed.
 *   ceilings (findings_rules_ceilings.c), from hardware counters (ceiling.h), for kernels launched
 *   at least GT_FINDINGS_MIN_LAUNCHES times:
 *   below-ceilings     kernels below GT_FINDINGS_CEIL_PCT percent of both their memory and their
 *                      compute ceiling, the costliest first: latency-bound;
 *
 * Cost, each finding says how it was estimated: summed durations of the operations concerned (the
 * host waited at least that long), summed gap or idle time, the first launch's excess over the
 * median of the others, the slow group's excess over the fast group's median times its launches.
 * Severity: error when records are missing (every number of the trace may be off); warning when
 * the cost is at least warn_pct percent of the trace's GPU span (first GPU operation's start to the
 * last one's end), for throttling, for an SM clock range of at least warn_pct percent of its
 * maximum while busy, for bimodal kernels, and for a first launch whose excess is at least warn_pct
 * percent of that kernel's total time; info otherwise.
 *
 * The rules are rows of one table (findings_table.c: id, function, doc, thresholds with their
 * defaults), which findings.c walks after its one pass over the trace (findings_pass.h holds what
 * the pass keeps). To add a family of rules: write
 * findings_rules_<family>.c with one function per rule, declare them in findings_rules.h, and add
 * a row per rule to the table; then name each id in the list above and in gpuanalyze(1), with its
 * defaults in the words its row gives: test_analyze_findings_rules fails until both do. A family
 * that needs records the pass does not keep yet adds them to findings_pass.h and to findings.c's
 * on_record; an option it reads is a field of struct gt_findings_options, defaulted by its row.
 */
#ifndef GT_FINDINGS_H
#define GT_FINDINGS_H

#include "analyze/engines/bandwidth.h"
#include "traces/gputrace.h"

#include <stddef.h>
#include <stdint.h>

enum gt_severity { GT_SEV_INFO = 0, GT_SEV_WARNING = 1, GT_SEV_ERROR = 2 };
const char *gt_severity_name(int sev); /* "info", "warning", "error" */

/* NVML's clocks-event (throttle) reason bits, as clock samples carry them. */
#define GT_CLK_GPU_IDLE 0x1ull
#define GT_CLK_APP_CLOCKS 0x2ull
#define GT_CLK_SW_POWER_CAP 0x4ull
#define GT_CLK_HW_SLOWDOWN 0x8ull
#define GT_CLK_SYNC_BOOST 0x10ull
#define GT_CLK_SW_THERMAL 0x20ull
#define GT_CLK_HW_THERMAL 0x40ull
#define GT_CLK_HW_POWER_BRAKE 0x80ull
#define GT_CLK_DISPLAY_CLOCKS 0x100ull
/* The reasons that lower clocks below what the GPU would otherwise run (throttling proper). */
#define GT_CLK_THROTTLING                                                                          \
	(GT_CLK_SW_POWER_CAP | GT_CLK_HW_SLOWDOWN | GT_CLK_SW_THERMAL | GT_CLK_HW_THERMAL |         \
	 GT_CLK_HW_POWER_BRAKE)
/* NVML's names of the bits set in mask, comma-separated ("SwPowerCap, HwThermalSlowdown"; bits
 * NVML does not define as "0x..."), into buf. Returns buf. */
char *gt_clock_reasons_text(uint64_t mask, char *buf, size_t len);

struct gt_findings_options {
	uint64_t gap_ns;         /* idle gaps at least this long (default 1 ms) */
	unsigned slices;         /* low utilisation: slices of the GPU span (default 30) */
	double util_pct;         /* ... below this busy percentage (default 50) */
	double first_ratio;      /* first launch >= this x median of the rest (default 2) */
	uint64_t bimodal_min;    /* launches needed for the bimodal test (default 20) */
	double bimodal_ratio;    /* gap ratio (default 1.5) */
	double bimodal_share;    /* each side at least this fraction (default 0.10) */
	double warn_pct;         /* severity threshold, percent (default 5) */
};
/* The defaults, as findings_table.c's rows give them. */
void gt_findings_defaults(struct gt_findings_options *o);
/* The kernel rules judge kernels launched at least this often: fewer leave no rest to compare. */
#define GT_FINDINGS_MIN_LAUNCHES 3
/* below-ceilings: a kernel below this percentage of both its memory and its compute ceiling. */
#define GT_FINDINGS_CEIL_PCT 10

struct gt_finding {
	char id[24];             /* the rule: "sync-copies", ... */
	int severity;
	char *what;              /* one sentence with the numbers */
	int has_offset;
	uint64_t offset_ns;      /* where: from the trace's start */
	char *kernel;            /* where: the kernel's short name (demangled, no namespaces, template
	                          * arguments or parameters), NULL if none */
	char *kernel_name;       /* the same kernel's name as the trace holds it (mangled) */
	int64_t stream;          /* where: stream id, -1 if none */
	char *where;             /* where, in words */
	double cost_ns;          /* NaN when it cannot be estimated */
	char *cost_how;          /* how the cost was estimated */
	char *todo;              /* what to do */
	uint64_t count;          /* occurrences (copies, gaps, kernels, records, ...) */
};

struct findings_pass;

struct gt_findings {
	struct gt_finding *f;    /* by severity (highest first), then cost (largest first) */
	size_t n;
	size_t cap;              /* room in f (grown by doubling: a finding per device, and a trace
	                          * may name any number) */
	size_t by_severity[3];
	/* the trace */
	char *path;
	int complete;
	uint64_t lost_bytes;
	char *synthetic;
	uint64_t origin;         /* trace start, CUPTI ns */
	uint64_t gpu_first, gpu_last; /* the GPU span (all devices); 0 when no GPU work */
	uint64_t kernels, copies, memsets, apis, syncs, clock_samples;
	struct gt_findings_options opt;
	struct findings_pass *state; /* private: the pass between gt_findings_begin and gt_findings_finish */
};

/* Reads path and fills F. 0; a negative GT_ERR_* with the failure held (failure.h); GT_ERR_NOMEM.
 * opt NULL: defaults. */
int gt_findings_run(struct gt_findings *F, const char *path, const struct gt_findings_options *opt);
void gt_findings_release(struct gt_findings *F);
/* The same in steps, for a caller that streams the trace itself and feeds several engines from its
 * one pass (report): gt_findings_begin; gt_findings_record for every record, in file order (a
 * gt_record_fn with F as its context; F must not move meanwhile); gt_findings_finish with the same
 * reader, which returns what gt_findings_run does. bw: NULL, or a bandwidth engine the caller has
 * begun with gt_bw_init and lends, which findings then feeds, ends and finishes itself (the caller
 * does none of that, reads its results after gt_findings_finish, and releases it); the copy
 * flags need it anyway, so a caller that also reports bandwidth gets it for nothing.
 * gt_findings_release frees what there is, a pass left unfinished included. */
int gt_findings_begin(struct gt_findings *F, const char *path, const struct gt_findings_options *opt,
                      struct gt_bandwidth *bw);
int gt_findings_record(void *F, const struct gt_reader *r, const struct gt_event *ev);
int gt_findings_finish(struct gt_findings *F, const struct gt_reader *r);

/* The highest severity among the findings, -1 when there are none. */
int gt_findings_max_severity(const struct gt_findings *F);

#endif
