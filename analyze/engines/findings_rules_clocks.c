/* findings_rules_clocks.c: the clocks family, from NVML's clock samples: throttling (its reasons
 * decoded), an SM clock that moved while the GPU was busy, clocks held by a setting, and a clock
 * state the samples cannot tell. Durations scale with the clock, so each makes a comparison of
 * runs doubtful rather than costing time of its own.
 */
#include "analyze/engines/findings_rules.h"
#include "analyze/engines/findings_text.h"

#include <math.h>

/* Per device, samples with a throttling reason. */
int gt_fd_clocks_throttled(struct findings_pass *p, const struct gt_reader *r, const struct findings_rule *rule)
{
	struct gt_findings *F = p->F;
	(void)r;
	for (size_t i = 0; i < p->nclk; i++) {
		const struct clk *k = &p->clk[i];
		char reasons[512], t[64];
		if (k->throttle_n) {
			gt_clock_reasons_text(k->throttle_reasons, reasons, sizeof reasons);
			if (gt_fd_add(F, rule, GT_SEV_WARNING,
			              gt_fd_fmt("device %u was throttled in %llu of %llu clock samples: %s; SM clock %u..%u MHz",
			                        k->device, (unsigned long long)k->throttle_n, (unsigned long long)k->n, reasons,
			                        k->sm_min, k->sm_max),
			              gt_fd_fmt("first %s", gt_fd_at(k->first_throttle, F->origin, t, sizeof t)), NAN,
			              gt_fd_fmt("not estimated: durations measured while throttled are longer than the "
			                        "kernel's own"),
			              gt_fd_fmt("Check cooling and power limits (nvidia-smi -q -d PERFORMANCE,POWER), lock "
			                        "clocks below the throttling point for benchmarks (nvidia-smi -lgc), and compare "
			                        "only runs under the same clock state")))
				return GT_ERR_NOMEM;
			gt_fd_set_where(gt_fd_last(F), k->first_throttle, F->origin, -1);
			gt_fd_last(F)->count = k->throttle_n;
		}
	}
	return 0;
}

/* Per device, the SM clock's range over samples taken while busy. */
int gt_fd_clocks_moved(struct findings_pass *p, const struct gt_reader *r, const struct findings_rule *rule)
{
	struct gt_findings *F = p->F;
	(void)r;
	for (size_t i = 0; i < p->nclk; i++) {
		const struct clk *k = &p->clk[i];
		char t[64];
		if (k->busy_n >= 2 && k->busy_max > k->busy_min) {
			double range = 100.0 * (k->busy_max - k->busy_min) / k->busy_max;
			char t2[64];
			uint64_t lo = k->busy_min_ts;
			if (gt_fd_add(F, rule, range >= F->opt.warn_pct ? GT_SEV_WARNING : GT_SEV_INFO,
			              gt_fd_fmt("device %u's SM clock moved while busy: %u..%u MHz (%.1f%% of the maximum) over "
			                        "%llu samples not flagged GpuIdle",
			                        k->device, k->busy_min, k->busy_max, range, (unsigned long long)k->busy_n),
			              gt_fd_fmt("lowest %s, highest %s", gt_fd_at(lo, F->origin, t, sizeof t),
			                        gt_fd_at(k->busy_max_ts, F->origin, t2, sizeof t2)),
			              NAN, gt_fd_fmt("not estimated: kernel durations scale with the clock"),
			              gt_fd_fmt("Lock the SM clock for benchmarks (nvidia-smi -lgc) and warm the GPU up before "
			                        "timing, so that runs compare")))
				return GT_ERR_NOMEM;
			gt_fd_set_where(gt_fd_last(F), lo, F->origin, -1);
			gt_fd_last(F)->count = k->busy_n;
		}
	}
	return 0;
}

/* No clock samples at all, or per device too few taken while busy to tell whether clocks moved. */
int gt_fd_clocks_unknown(struct findings_pass *p, const struct gt_reader *r, const struct findings_rule *rule)
{
	struct gt_findings *F = p->F;
	(void)r;
	if (!p->nclk) {
		return gt_fd_add(F, rule, GT_SEV_INFO,
		                 gt_fd_fmt("no clock samples in the trace: the GPU's clocks and throttling during the run "
		                           "are unknown"),
		                 gt_fd_fmt("the whole trace"), NAN, gt_fd_fmt("not a cost: a gap in the evidence"),
		                 gt_fd_fmt("Record with NVML sampling on (GPUTRACE_SAMPLE_MS, default 200) to know whether "
		                           "clocks moved; lock them for benchmarks (nvidia-smi -lgc)"));
	}
	for (size_t i = 0; i < p->nclk; i++) {
		const struct clk *k = &p->clk[i];
		if (k->busy_n < 2 && !k->throttle_n) {
			if (gt_fd_add(F, rule, GT_SEV_INFO,
			              gt_fd_fmt("device %u: %llu clock %s, %llu taken while busy (not GpuIdle): too few to tell "
			                        "whether the clocks moved during the run; SM clock %u..%u MHz",
			                        k->device, (unsigned long long)k->n, gt_fd_pl(k->n, "sample", "samples"),
			                        (unsigned long long)k->busy_n, k->sm_min, k->sm_max),
			              gt_fd_fmt("the whole trace"), NAN, gt_fd_fmt("not a cost: a gap in the evidence"),
			              gt_fd_fmt("Sample more often (GPUTRACE_SAMPLE_MS) or run longer to see the clock state; "
			                        "lock clocks for benchmarks (nvidia-smi -lgc)")))
				return GT_ERR_NOMEM;
			gt_fd_last(F)->count = k->n;
		}
	}
	return 0;
}

/* Per device, reasons that held the clocks by a setting rather than throttling them. */
int gt_fd_clock_settings(struct findings_pass *p, const struct gt_reader *r, const struct findings_rule *rule)
{
	struct gt_findings *F = p->F;
	(void)r;
	for (size_t i = 0; i < p->nclk; i++) {
		const struct clk *k = &p->clk[i];
		char reasons[512];
		uint64_t benign = k->reasons & ~GT_CLK_THROTTLING & ~GT_CLK_GPU_IDLE;
		if (benign) {
			gt_clock_reasons_text(benign, reasons, sizeof reasons);
			if (gt_fd_add(F, rule, GT_SEV_INFO,
			              gt_fd_fmt("device %u's clocks were held by a setting, not throttled: %s", k->device, reasons),
			              gt_fd_fmt("the whole trace"), NAN, gt_fd_fmt("not a cost"),
			              gt_fd_fmt("Nothing to fix; say so in the report (clocks locked or limited by a setting)")))
				return GT_ERR_NOMEM;
		}
	}
	return 0;
}
