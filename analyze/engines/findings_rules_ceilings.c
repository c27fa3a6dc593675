/* findings_rules_ceilings.c: the ceilings family: kernels that cost the most time while keeping
 * neither the memory system nor the compute units busy.
 *
 * Read only when the trace holds hardware counters (GPUTRACE_METRICS samples, or a replay's
 * per-launch values): the findings pass counts them, and this rule then reads the trace once more
 * through the ceiling engine (ceiling.h), so that `findings` and `gpuanalyze ceiling` cannot
 * disagree on a kernel's percentages. A trace without counters costs nothing more.
 */
#include "analyze/engines/ceiling.h"
#include "analyze/engines/findings_rules.h"
#include "analyze/engines/findings_text.h"
#include "analyze/support/kname.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Both percentages known (measured, else theoretical), and both below the threshold: far from
 * either ceiling. */
static int below_both(const struct gt_ceil_kernel *k, double pct)
{
	double mem = gt_ceil_mem_pct(k), comp = gt_ceil_compute_pct(k);
	return isfinite(mem) && isfinite(comp) && mem < pct && comp < pct;
}

static int add_finding(struct findings_pass *p, const struct findings_rule *rule, const struct gt_ceil_analysis *c,
                       const size_t *hit, size_t n, double cost)
{
	struct gt_findings *F = p->F;
	char list[2048] = "";
	size_t used = 0;
	for (size_t i = 0; i < n && i < 5 && used < sizeof list; i++) {
		const struct gt_ceil_kernel *k = &c->kernels[hit[i]];
		char *s = gt_kernel_short_name(k->name);
		int comp_theory = !isfinite(k->compute_pct);
		used += (size_t)snprintf(list + used, sizeof list - used,
		                         "%s%s: %.3f ms over %llu launches, %.1f%% of memory%s, %.1f%% of compute (%s)",
		                         i ? "; " : "", s ? s : "?", k->time_ns / 1e6, (unsigned long long)k->launches,
		                         gt_ceil_mem_pct(k), isfinite(k->mem_pct) ? "" : " (theoretical)",
		                         gt_ceil_compute_pct(k), comp_theory ? "theoretical peaks"
		                         : k->compute_vs[0] ? k->compute_vs : "measured ceilings");
		free(s);
	}
	char span[64];
	char *top = gt_kernel_short_name(c->kernels[hit[0]].name);
	int rc = gt_fd_add(F, rule, gt_fd_sev_by_cost(F, cost),
	                   gt_fd_fmt("%zu %s below %g%% of both the memory and the compute ceiling took %s: %s%s",
	                             n, gt_fd_pl(n, "kernel", "kernels"), (double)GT_FINDINGS_CEIL_PCT,
	                             gt_fd_pct_of_span(F, cost, span, sizeof span), list, n > 5 ? "; ..." : ""),
	                   gt_fd_fmt("kernel %s", top ? top : "?"), cost,
	                   gt_fd_fmt("the summed GPU time of those kernels (gpuanalyze ceiling gives each one's figures)"),
	                   gt_fd_fmt("Neither DRAM, L2 (where its ceiling was measured) nor the arithmetic units are "
	                             "kept busy: latency-bound. Look at the launch size against the SMs (too few "
	                             "blocks or warps), dependent memory accesses, synchronisation inside the kernel, "
	                             "and small launches that could be fused or batched"));
	if (rc) {
		free(top);
		return rc;
	}
	gt_fd_last(F)->kernel = top;
	gt_fd_last(F)->count = n;
	if (!(gt_fd_last(F)->kernel_name = strdup(c->kernels[hit[0]].name)))
		return GT_ERR_NOMEM;
	return 0;
}

int gt_fd_below_ceilings(struct findings_pass *p, const struct gt_reader *r, const struct findings_rule *rule)
{
	(void)r;
	if (!p->metric_records)
		return 0;
	struct gt_ceil_analysis c;
	memset(&c, 0, sizeof c);
	char *paths[1] = { p->F->path };
	int rc = gt_ceiling_run_again(&c, paths, 1);
	size_t *hit = rc ? NULL : malloc((c.nkernels ? c.nkernels : 1) * sizeof *hit);
	if (!rc && !hit)
		rc = GT_ERR_NOMEM;
	size_t n = 0;
	double cost = 0;
	/* The engine lists kernels by total time, longest first: the costliest come first. */
	for (size_t i = 0; !rc && i < c.nkernels; i++) {
		if (c.kernels[i].launches < GT_FINDINGS_MIN_LAUNCHES || !below_both(&c.kernels[i], GT_FINDINGS_CEIL_PCT))
			continue;
		hit[n++] = i;
		cost += c.kernels[i].time_ns;
	}
	if (!rc && n)
		rc = add_finding(p, rule, &c, hit, n, cost);
	free(hit);
	gt_ceiling_release(&c);
	return rc;
}
