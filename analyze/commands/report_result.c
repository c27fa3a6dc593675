/* report_result.c: the report's sections Result (the top kernels, end to end per unit of work,
 * copy bandwidth, findings, with the figures' links), Compared with the baseline and
 * Limitations, into its document (report_doc.h). Our words as they are; the trace's names through
 * gt_doc_prose, code spans and the tables' cells, escaped there.
 */
#include "analyze/commands/report_doc.h"
#include "analyze/commands/ceiling_doc.h"

#include "analyze/output/escape.h"
#include "analyze/output/output.h"
#include "analyze/support/load.h"
#include "traces/gputrace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* A figure, its file named by a link whose target is percent-encoded (escape.h): the -o name the
 * user chose may hold a space or a ')', which would end a raw link's target. */
static void figure_link(struct gt_doc *d, const char *alt, const char *target)
{
	char *t = gt_esc_dup(gt_esc_link, target);
	gt_doc_words(d, "\n![%s](%s)\n", alt, t ? t : "");
	free(t);
}

/* The top kernels' statistics, in us (total in ms) and their share of all kernel time. */
static int kernels_table(struct gt_doc *d, const struct gt_report *x)
{
	const struct gt_column cols[] = {
		{ "kernel", "kernel", GT_COL_LEFT | GT_COL_CODE }, { "n", "n", 0 },
		{ "median", "median us", 0 }, { "mad", "MAD us", 0 }, { "p90", "p90 us", 0 },
		{ "p99", "p99 us", 0 }, { "total", "total ms", 0 }, { "share", "share %", 0 },
	};
	struct gt_table *t = gt_doc_table(d, NULL, GT_COLUMNS(cols));
	if (!t)
		return GT_ERR_NOMEM;
	double all = 0;
	for (size_t i = 0; i < x->p.ks.nkernels; i++)
		all += x->p.ks.kernels[i].st.total;
	for (size_t i = 0; i < x->ntop; i++) {
		const struct gt_kernel_sample *k = x->top[i];
		gt_table_str(t, x->names[i]);
		gt_table_u64(t, k->n);
		gt_table_num(t, k->st.median / 1e3, 3);
		gt_table_num(t, k->st.mad / 1e3, 3);
		gt_table_num(t, k->st.p90 / 1e3, 3);
		gt_table_num(t, k->st.p99 / 1e3, 3);
		gt_table_num(t, k->st.total / 1e6, 3);
		gt_table_num(t, all > 0 ? 100 * k->st.total / all : NAN, 1);
		gt_table_end_row(t);
	}
	return gt_table_close(t);
}

/* Per unit of work: wall, kernel and idle time, and each other quantity that occurred. */
static int split_table(struct gt_doc *d, const struct gt_report *x)
{
	const struct gt_split *s = &x->split;
	const struct gt_column cols[] = {
		{ "what", "per unit", GT_COL_LEFT }, { "median", "median", 0 }, { "mad", "MAD", 0 },
		{ "p90", "p90", 0 }, { "p99", "p99", 0 },
	};
	struct gt_table *t = gt_doc_table(d, NULL, GT_COLUMNS(cols));
	if (!t)
		return GT_ERR_NOMEM;
	char b[4][32];
	for (int m = 0; m < GT_M_COUNT; m++) {
		const struct gt_stats *st = &s->st[m];
		if (!st->n || (m != GT_M_WALL && m != GT_M_KERNEL && m != GT_M_IDLE && !(st->total > 0)))
			continue;
		gt_table_str(t, gt_split_metric_title((enum gt_split_metric)m));
		gt_table_str(t, gt_report_dur(st->median, b[0], sizeof b[0]));
		gt_table_str(t, gt_report_dur(st->mad, b[1], sizeof b[1]));
		gt_table_str(t, gt_report_dur(st->p90, b[2], sizeof b[2]));
		gt_table_str(t, gt_report_dur(st->p99, b[3], sizeof b[3]));
		gt_table_end_row(t);
	}
	return gt_table_close(t);
}

/* The copy groups' rates against the peaks (bandwidth.h). */
static int bandwidth_table(struct gt_doc *d, const struct gt_report *x)
{
	const struct gt_bandwidth *b = &x->bw;
	const struct gt_column cols[] = {
		{ "copy", "copy", GT_COL_LEFT }, { "memory", "memory", GT_COL_LEFT },
		{ "size", "size", GT_COL_LEFT }, { "count", "count", 0 },
		{ "median", "median GB/s", 0 }, { "theory", "% of theoretical peak", 0 },
		{ "measured", "% of measured peak", 0 },
	};
	struct gt_table *t = gt_doc_table(d, NULL, GT_COLUMNS(cols));
	if (!t)
		return GT_ERR_NOMEM;
	/* The groups that took the most time first, at most ten. */
	size_t n = b->ngroups, *ord = malloc((n ? n : 1) * sizeof *ord);
	if (!ord) {
		gt_table_free(t);
		return GT_ERR_NOMEM;
	}
	for (size_t i = 0; i < n; i++)
		ord[i] = i;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && b->groups[ord[j]].time_ns > b->groups[ord[j - 1]].time_ns; j--) {
			size_t tmp = ord[j];
			ord[j] = ord[j - 1];
			ord[j - 1] = tmp;
		}
	for (size_t i = 0; i < n && i < 10; i++) {
		const struct gt_bw_group *g = &b->groups[ord[i]];
		gt_table_str(t, gt_copy_kind_name(g->copy_kind));
		gt_table_str(t, g->memory);
		gt_table_str(t, gt_bw_bucket_name(g->bucket));
		gt_table_u64(t, g->count);
		gt_table_num(t, g->median, 2);
		gt_table_num(t, g->pct_theory, 1);
		gt_table_num(t, g->pct_measured, 1);
		gt_table_end_row(t);
	}
	free(ord);
	int rc = gt_table_close(t);
	if (n > 10)
		gt_doc_words(d, "\n(%zu more groups: gpuanalyze bandwidth lists them all)\n", n - 10);
	return rc;
}

/* The findings of severity warning and error, one line each; those of severity info counted. */
static void findings(struct gt_doc *d, const struct gt_report *x)
{
	const struct gt_findings *F = &x->fd;
	char c[32];
	size_t infos = 0;
	for (size_t i = 0; i < F->n; i++) {
		const struct gt_finding *f = &F->f[i];
		if (f->severity == GT_SEV_INFO) {
			infos++;
			continue;
		}
		gt_doc_words(d, "- **%s** %s: ", gt_severity_name(f->severity), f->id);
		gt_doc_prose(d, f->what);
		size_t wl = f->what ? strlen(f->what) : 0;
		if (wl && f->what[wl - 1] != '.')
			gt_doc_words(d, ".");
		if (f->where) {
			gt_doc_words(d, " Where: ");
			gt_doc_prose(d, f->where);
			gt_doc_words(d, ".");
		}
		if (!isnan(f->cost_ns)) {
			gt_doc_words(d, " Cost: %s (", gt_report_dur(f->cost_ns, c, sizeof c));
			gt_doc_prose(d, f->cost_how);
			gt_doc_words(d, ").");
		}
		if (f->todo) {
			gt_doc_words(d, " To do: ");
			gt_doc_prose(d, f->todo);
		}
		gt_doc_words(d, "\n");
	}
	if (!F->n)
		gt_doc_words(d, "- None: no rule of gpuanalyze findings fired\n");
	else if (infos == F->n)
		gt_doc_words(d, "- No warning or error; %zu %s of severity info (gpuanalyze findings lists them)\n", infos,
		    infos == 1 ? "finding" : "findings");
	else if (infos)
		gt_doc_words(d, "- %zu more of severity info: gpuanalyze findings lists them\n", infos);
}

/* The kernels against the measured ceilings, from the trace's hardware counters (ceiling.h). */
static void ceiling_section(struct gt_doc *d, const struct gt_report *x, const struct gt_report_figures *f)
{
	const struct gt_ceil_analysis *c = &x->ceil;
	gt_doc_heading(d, 3, "Against the ceiling");
	gt_doc_words(d, "From the trace's hardware counters (%llu sampled, %llu per launch; gpuanalyze ceiling "
	                "defines each figure): DRAM bytes and FLOPs per launch, achieved rates against the ceilings "
	                "gputrace peak measured%s, and the bound. Sampled counters: %s. The %s.\n\n",
	             (unsigned long long)c->metric_samples, (unsigned long long)c->launch_metrics,
	             c->peaks_file && !c->peaks_missing && !c->peaks_error[0] ? "" : " (none found: the theoretical "
	             "peaks stand in)", GT_CEILING_RULE_SAMPLES, GT_CEILING_RULE_BOUND);
	gt_ceiling_doc_table(d, c, "ceiling", x->o->top);
	if (f->roofline[0])
		figure_link(d, "Roofline: the kernels against the memory and compute ceilings (measured, else theoretical)", f->roofline);
	else if (f->roofline_note[0])
		gt_doc_words(d, "\n%s\n", f->roofline_note);
}

void gt_report_doc_result(struct gt_doc *d, const struct gt_report *x, const struct gt_report_figures *f)
{
	char b1[32], b2[32], b3[32], b4[32];
	gt_doc_heading(d, 2, "Result");
	if (x->ntop) {
		const struct gt_kernel_sample *k = x->top[0];
		gt_doc_words(d, "- Kernel with the most GPU time: ");
		gt_report_doc_code(d, x->names[0]);
		gt_doc_words(d, ", median %s (MAD %s, p90 %s, p99 %s; n = %zu)\n",
		             gt_report_dur(k->st.median, b1, sizeof b1), gt_report_dur(k->st.mad, b2, sizeof b2),
		             gt_report_dur(k->st.p90, b3, sizeof b3), gt_report_dur(k->st.p99, b4, sizeof b4), k->n);
	} else {
		gt_doc_words(d, "- No kernel launch counted\n");
	}
	if (x->have_split && x->split.nunits) {
		const struct gt_split *s = &x->split;
		gt_doc_words(d, "- End to end per ");
		gt_report_doc_units(d, s);
		gt_doc_words(d, ": median %s, of which GPU kernels %s, GPU idle %s (medians over %zu units)\n",
		             gt_report_dur(s->st[GT_M_WALL].median, b1, sizeof b1),
		             gt_report_dur(s->st[GT_M_KERNEL].median, b2, sizeof b2),
		             gt_report_dur(s->st[GT_M_IDLE].median, b3, sizeof b3), s->nunits);
	}
	gt_doc_heading(d, 3, "Kernels");
	if (x->ntop) {
		gt_doc_words(d, "Top %zu of %zu %s by total GPU time (long names without their parameter lists):\n\n",
		             x->ntop, x->nkernels, x->nkernels == 1 ? "kernel" : "kernels");
		kernels_table(d, x);
		if (f->kernels[0])
			figure_link(d, "GPU durations per launch of the top kernels", f->kernels);
	} else {
		gt_doc_words(d, "- None\n");
	}
	gt_doc_heading(d, 3, "End to end");
	if (x->have_split && x->split.nunits) {
		gt_doc_words(d, "Per ");
		gt_report_doc_units(d, &x->split);
		gt_doc_words(d, " (gpuanalyze split defines each quantity; kernel and copy times are unions, so "
		                "concurrent work counts once):\n\n");
		split_table(d, x);
		if (f->split[0]) {
			figure_link(d, "Each unit's wall time: GPU kernels, other GPU work, GPU idle", f->split);
			gt_doc_words(d, "\nIn the figure each bar is one unit's wall time: GPU kernels (the union of kernel "
			                "intervals), other GPU work (copies and memsets while no kernel ran) and GPU idle.\n");
		}
	} else {
		gt_doc_words(d, "- Not available: the trace has no unit of work to split\n");
	}
	gt_doc_heading(d, 3, "Copy bandwidth");
	if (x->have_bw && x->bw.ngroups) {
		gt_doc_words(d, "Bytes / duration per copy, decimal GB/s, bytes counted once; median per group against the "
		                "device's theoretical peak%s:\n\n",
		    x->bw.peaks_file && !x->bw.peaks_missing ? " and the measured one (gputrace peak)"
		                                             : " (no measured peak was found: gputrace peak stores one)");
		bandwidth_table(d, x);
	} else {
		gt_doc_words(d, "- No copies with a rate\n");
	}
	if (x->have_ceil && gt_ceiling_has_metrics(&x->ceil))
		ceiling_section(d, x, f);
	gt_doc_heading(d, 3, "Findings");
	if (x->have_fd)
		findings(d, x);
	if (f->note[0])
		gt_doc_words(d, "\n%s\n", f->note);
}

/* Nothing without a baseline; no speedup stated when correctness failed. */
void gt_report_doc_compared(struct gt_doc *d, const struct gt_report *x)
{
	if (!x->o->baseline)
		return;
	char b1[32], b2[32], ch[64];
	gt_doc_heading(d, 2, "Compared with the baseline");
	gt_doc_words(d, "- Baseline: ");
	gt_report_doc_code(d, x->o->baseline);
	gt_doc_words(d, "\n");
	if (x->correctness == 0) {
		gt_doc_words(d, "- Not compared: correctness FAILED (see Correctness). A fast wrong answer is not a speedup, "
		                "so none is stated.\n");
		return;
	}
	const struct gt_diff *df = &x->diff;
	if (x->correctness < 0)
		gt_doc_words(d, "- Correctness not checked: what follows compares speed only\n");
	gt_doc_words(d, "- %zu kernels on both sides: %zu SLOWER, %zu UNCLEAR, %zu FASTER, %zu SAME; %zu only in the "
	                "baseline, %zu only in this trace\n",
	    df->nboth, df->count[GT_VERDICT_SLOWER], df->count[GT_VERDICT_UNCLEAR], df->count[GT_VERDICT_FASTER],
	    df->count[GT_VERDICT_SAME], df->nbase_only, df->nnew_only);
	if (df->geo_k)
		gt_doc_words(d, "- Geometric mean over %zu kernels: %s (speedup old/new %.4f, 95%% CI [%.3f, %.3f]): %s\n",
		    df->geo_k, gt_diff_change(df->geo_speedup, ch, sizeof ch), df->geo_speedup, df->geo_lo, df->geo_hi,
		    gt_verdict_name(df->geo_verdict));
	gt_doc_words(d, "- Rule: speedup = median baseline / median this trace; SLOWER when the whole 95%% bootstrap CI of "
	                "new/old is above %.4g and Mann-Whitney p < %g, FASTER likewise for old/new, SAME when the CI "
	                "lies within [%.4f, %.4g]; UNCLEAR otherwise or with fewer than %zu launches (gpuanalyze diff)\n",
	    1 + df->opt.threshold, df->opt.alpha, 1 / (1 + df->opt.threshold), 1 + df->opt.threshold, df->opt.min_samples);
	gt_doc_words(d, "\n");
	const struct gt_column cols[] = {
		{ "verdict", "verdict", GT_COL_LEFT },
		{ "kernel", "kernel", GT_COL_LEFT | GT_COL_CODE }, { "nb", "n base", 0 },
		{ "nn", "n new", 0 }, { "mb", "base median", 0 }, { "mn", "new median", 0 },
		{ "change", "change", GT_COL_LEFT }, { "ci", "old/new 95% CI", GT_COL_LEFT },
	};
	struct gt_table *t = gt_doc_table(d, NULL, GT_COLUMNS(cols));
	if (!t)
		return;
	size_t shown = 0;
	for (size_t i = 0; i < df->nrows && shown < x->o->top + 6; i++) {
		const struct gt_diff_row *r = &df->rows[i];
		if (r->side != GT_DIFF_BOTH)
			continue;
		char ci[64];
		if (isnan(r->ci.lo))
			snprintf(ci, sizeof ci, "n/a");
		else
			snprintf(ci, sizeof ci, "[%.3f, %.3f]", r->ci.lo, r->ci.hi);
		char *nm = gt_report_label(r->name, r->display);
		gt_table_str(t, gt_verdict_name(r->verdict));
		gt_table_str(t, nm ? nm : r->display);
		free(nm);
		gt_table_u64(t, r->base->n);
		gt_table_u64(t, r->new->n);
		gt_table_str(t, gt_report_dur(r->base->st.median, b1, sizeof b1));
		gt_table_str(t, gt_report_dur(r->new->st.median, b2, sizeof b2));
		gt_table_str(t, gt_diff_change(r->speedup, ch, sizeof ch));
		gt_table_str(t, ci);
		gt_table_end_row(t);
		shown++;
	}
	gt_table_close(t);
	size_t both = df->nboth + df->nunit_rows;
	if (shown < both)
		gt_doc_words(d, "\n(%zu more rows: gpuanalyze diff lists them all)\n", both - shown);
}

void gt_report_doc_limitations(struct gt_doc *d, const struct gt_report *x)
{
	gt_doc_heading(d, 2, "Limitations");
	gt_doc_words(d, "- One recording: the run-to-run spread between separate runs is not measured here (record "
	                "several runs and compare them with gpuanalyze diff)\n");
	if (gt_load_synthetic(x->r))
		gt_doc_words(d, "- The trace is synthetic: no number in it was measured on a GPU\n");
	struct gt_tail t;
	gt_reader_tail(x->r, &t);
	if (x->p.dropped || x->p.uncounted || !t.complete)
		gt_doc_words(d, "- Records are missing (%llu dropped%s%s): counts and totals are lower bounds\n",
		    (unsigned long long)x->p.dropped, x->p.uncounted ? ", more of unknown number" : "",
		    t.complete ? "" : ", the trace ends early");
	if (!x->p.nclock)
		gt_doc_words(d, "- Clock state unknown (not sampled): a clock that moved during the run would move these "
		                "numbers unseen\n");
	else if (x->p.throttled || x->p.sm_max > x->p.sm_min)
		gt_doc_words(d, "- Clocks moved during the run (SM %u to %u MHz%s): durations measured at different clocks are "
		                "mixed\n",
		    x->p.sm_min, x->p.sm_max, x->p.throttled ? ", with throttling" : "");
	if (x->correctness < 0)
		gt_doc_words(d, "- Correctness not checked: the timings say nothing about whether the results are right\n");
	size_t few = 0;
	for (size_t i = 0; i < x->ntop; i++)
		few += x->top[i]->n < 10;
	if (few)
		gt_doc_words(d, "- %zu of the top kernels have fewer than 10 launches counted: their medians and "
		                "percentiles are rough\n",
		    few);
	if (!x->o->warmup)
		gt_doc_words(d, "- No warm-up dropped: first launches (module load, cold caches, clock ramp) are in the "
		                "statistics\n");
	gt_doc_words(d, "- Timed under tracing: GPU durations are the GPU's own timestamps, but host-side API times and "
	                "gaps include the recorder's cost per call\n");
	if (x->have_bw && x->bw.ngroups)
		gt_doc_words(d, "- Bandwidth percentages are of theoretical peaks%s\n",
		    x->bw.peaks_file && !x->bw.peaks_missing ? " and of the stored measured peak" : " only");
	gt_doc_words(d, "- Compiler, flags and problem sizes inside the program are not in the trace beyond the launch "
	                "configurations and copy sizes above\n");
}
