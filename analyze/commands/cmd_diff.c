/* cmd_diff.c: `gpuanalyze diff BASE NEW` (or `BASE... -- NEW...`, runs pooled per side): per-kernel
 * A/B comparison with a verdict and an exit status for CI.
 *
 * Options and printing only; diff.c decides. Text and Markdown show a table of the kernels on both
 * sides (the worst verdicts first), the kernels found on one side only, the geometric mean, and a
 * footer that states the rule every verdict followed; the Markdown is meant for a CI system's job
 * summary (GitHub's $GITHUB_STEP_SUMMARY). JSON and CSV carry the same numbers in nanoseconds;
 * JUnit XML has one test case per kernel, SLOWER being a failure.
 */
#include "analyze/commands/cmd_output.h"
#include "analyze/commands/commands.h"
#include "analyze/support/diag.h"
#include "analyze/engines/diff.h"
#include "analyze/output/json_member.h"
#include "analyze/output/junit.h"
#include "analyze/support/options.h"
#include "analyze/output/output.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { F_TEXT, F_MD, F_JSON, F_CSV, F_JUNIT };
static const char *const formats[] = { "text", "md", "json", "csv", "junit", NULL };

#define MEASURED "GPU kernel durations (end - start, CUPTI activity timestamps), per launch"

struct printer {
	int fmt;
	FILE *out;
	struct gt_json *json;
	const struct gt_diff *d;
	int strict;
};

/* The output.h format of the human ones (notes and headings), GT_FMT_JSON for the rest. */
static enum gt_format human(int fmt) { return fmt == F_MD ? GT_FMT_MD : fmt == F_TEXT ? GT_FMT_TEXT : GT_FMT_JSON; }

/* "1.2e-07", "0.031", "< 1e-300" (a p-value that underflows is not 0). */
static const char *pvalue(double p, char *buf, size_t len)
{
	if (isnan(p))
		snprintf(buf, len, "n/a");
	else if (p < 1e-300)
		snprintf(buf, len, "< 1e-300");
	else
		snprintf(buf, len, "%.2g", p);
	return buf;
}

static const char *interval(double lo, double hi, char *buf, size_t len)
{
	if (isnan(lo) || isnan(hi))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "[%.3f, %.3f]", lo, hi);
	return buf;
}

static const char *kernels(size_t n) { return n == 1 ? "kernel" : "kernels"; }

static double median_of(const struct gt_kernel_sample *k) { return k ? k->st.median : NAN; }
static double mad_of(const struct gt_kernel_sample *k) { return k ? k->st.mad : NAN; }

static void columns(const struct printer *p, struct gt_table *t)
{
	int csv = p->fmt == F_CSV;
	if (csv) {
		gt_table_column(t, "kind", "kind", GT_COL_LEFT);
		gt_table_column(t, "side", "side", GT_COL_LEFT);
	}
	const struct gt_column cols[] = {
		{ "verdict", "verdict", GT_COL_LEFT }, { "n_base", "n base", 0 },
		{ "n_new", "n new", 0 }, { "warmup_dropped_base", "", GT_COL_MACHINE },
		{ "warmup_dropped_new", "", GT_COL_MACHINE }, { "median_base_ns", "base median us", 0 },
		{ "median_new_ns", "new median us", 0 }, { "mad_base_ns", "", GT_COL_MACHINE },
		{ "mad_new_ns", "", GT_COL_MACHINE }, { "change", "change", GT_COL_LEFT },
		{ "speedup", "", GT_COL_MACHINE }, { "ci_low", "", GT_COL_MACHINE },
		{ "ci_high", "", GT_COL_MACHINE },
		{ "ci", "old/new 95% CI", GT_COL_HUMAN | GT_COL_LEFT },
		{ "p_value", "", GT_COL_MACHINE }, { "p", "p (MWU)", GT_COL_HUMAN },
		{ "mwu_u", "", GT_COL_MACHINE }, { "mwu_method", "", GT_COL_MACHINE },
		{ "why", "", GT_COL_MACHINE },
		{ "name", "name", GT_COL_LEFT | GT_COL_CODE | GT_COL_MACHINE },
		{ "demangled", "name", GT_COL_LEFT | GT_COL_CODE },
	};
	gt_table_columns(t, GT_COLUMNS(cols));
}

static void duration(struct gt_table *t, double ns) { gt_table_num_as(t, ns, ns / 1e3, 3); }

static void row(const struct printer *p, struct gt_table *t, const struct gt_diff_row *r)
{
	static const char *const side[] = { "both", "base_only", "new_only" };
	char buf[64], ci[64], pv[32];
	if (p->fmt == F_CSV) {
		gt_table_str(t, r->unit ? "split_unit" : "kernel");
		gt_table_str(t, side[r->side]);
	}
	gt_table_str(t, r->side == GT_DIFF_BOTH ? gt_verdict_name(r->verdict) : NULL);
	gt_table_u64(t, r->base ? r->base->n : 0);
	gt_table_u64(t, r->new ? r->new->n : 0);
	gt_table_u64(t, r->base ? r->base->dropped : 0);
	gt_table_u64(t, r->new ? r->new->dropped : 0);
	duration(t, median_of(r->base));
	duration(t, median_of(r->new));
	duration(t, mad_of(r->base));
	duration(t, mad_of(r->new));
	gt_table_str(t, gt_diff_change(r->speedup, buf, sizeof buf));
	gt_table_num(t, r->speedup, 4);
	gt_table_num(t, r->ci.lo, 4);
	gt_table_num(t, r->ci.hi, 4);
	gt_table_str(t, interval(r->ci.lo, r->ci.hi, ci, sizeof ci));
	gt_table_num(t, r->mwu.p, 3);
	gt_table_str(t, pvalue(r->mwu.p, pv, sizeof pv));
	gt_table_num(t, r->mwu.u1, 1);
	gt_table_str(t, r->side == GT_DIFF_BOTH ? gt_mwu_method_name(r->mwu.method) : NULL);
	gt_table_str(t, r->why);
	gt_table_str(t, r->name);
	gt_table_str(t, r->display);
	gt_table_end_row(t);
}

/* The one-sided kernels in text and Markdown: n, median, name. */
static int one_sided_table(const struct printer *p, int side)
{
	const struct gt_diff *d = p->d;
	const struct gt_column cols[] = {
		{ "n", "n", 0 }, { "median", "median us", 0 },
		{ "name", "name", GT_COL_LEFT | GT_COL_CODE },
	};
	enum gt_format tf = p->fmt == F_MD ? GT_FMT_MD : GT_FMT_TEXT;
	struct gt_table *t = gt_table_open(tf, p->out, NULL, GT_COLUMNS(cols));
	if (!t)
		return GT_ERR_NOMEM;
	for (size_t i = 0; i < d->nrows; i++) {
		const struct gt_diff_row *r = &d->rows[i];
		if (r->side != side)
			continue;
		const struct gt_kernel_sample *k = r->base ? r->base : r->new;
		gt_table_u64(t, k->n);
		duration(t, k->st.median);
		gt_table_str(t, r->display);
		gt_table_end_row(t);
	}
	return gt_table_close(t);
}

/* The rows compared on both sides: kernels (unit 0) or split-unit quantities (unit 1). */
static int both_table(const struct printer *p, int unit)
{
	struct gt_table *t = gt_table_new(p->fmt == F_MD ? GT_FMT_MD : GT_FMT_TEXT, p->out, NULL);
	if (!t)
		return GT_ERR_NOMEM;
	columns(p, t);
	for (size_t i = 0; i < p->d->nrows; i++) {
		const struct gt_diff_row *r = &p->d->rows[i];
		if (r->side == GT_DIFF_BOTH && r->unit == unit)
			row(p, t, r);
	}
	return gt_table_close(t);
}

/* The runs pooled on a side, one line each, and what differs between them. */
static void runs_notes(const struct printer *p, const char *role, const struct gt_samples *s,
                       const struct gt_diff_runs *runs)
{
	gt_out_note(p->out, human(p->fmt), "%s: %zu runs pooled (%llu kernel records, %zu %s over all)", role, runs->n,
	            (unsigned long long)s->kernel_records, s->nkernels + s->hidden, kernels(s->nkernels + s->hidden));
	for (size_t i = 0; i < runs->n; i++)
		gt_out_note(p->out, human(p->fmt), "%s run %zu of %zu: %s", role, i + 1, runs->n, runs->paths[i]);
	if (runs->mixed[0])
		gt_out_note(p->out, human(p->fmt), "WARNING: the %s runs differ in gputrace version or device: %s", role,
		            runs->mixed);
}

static void file_notes(const struct printer *p, const char *role, const struct gt_samples *s,
                       const struct gt_diff_runs *runs)
{
	if (runs->n > 1)
		runs_notes(p, role, s, runs);
	else
		gt_out_note(p->out, human(p->fmt), "%s: %s (%llu kernel records, %zu %s)", role, s->path, (unsigned long long)s->kernel_records,
		     s->nkernels + s->hidden, kernels(s->nkernels + s->hidden));
	if (s->synthetic && runs->n > 1)
		gt_out_note(p->out, human(p->fmt), "NOTE: a %s run is SYNTHETIC (META trace.synthetic = \"%s\"): written by a program, "
		            "not recorded on a GPU",
		            role, s->synthetic);
	else
		gt_cmd_note_synthetic(p->out, human(p->fmt), s->path, s->synthetic);
	if (!s->complete && runs->n > 1)
		gt_out_note(p->out, human(p->fmt), "NOTE: a %s run ends early (%llu bytes of incomplete chunks lost): its last records "
		            "are missing",
		            role, (unsigned long long)s->lost_bytes);
	else
		gt_cmd_note_incomplete(p->out, human(p->fmt), s->path, s->complete, s->lost_bytes);
	if (s->bad)
		gt_out_note(p->out, human(p->fmt), "excluded from %s: %llu kernel launches with bad timestamps", role,
		     (unsigned long long)s->bad);
}

static void rules(const struct printer *p)
{
	const struct gt_diff_options *o = &p->d->opt;
	double L = 1 + o->threshold;
	gt_out_note(p->out, human(p->fmt), "speedup = median BASE / median NEW (> 1: NEW is faster); 'change' writes it out, both "
	        "medians are beside it");
	gt_out_note(p->out, human(p->fmt), "old/new 95%% CI: bootstrap percentile interval of the speedup, B = %zu resamples of each "
	        "trace, seed %llu (the same seed gives the same intervals)",
	     o->resamples, (unsigned long long)o->seed);
	gt_out_note(p->out, human(p->fmt), "p (MWU): two-sided Mann-Whitney U test (as scipy.stats.mannwhitneyu: exact without ties "
	        "when a side has <= 8 samples, else normal approximation with tie and continuity "
	        "corrections)");
	gt_out_note(p->out, human(p->fmt), "verdict at threshold %g%%: SLOWER when the whole CI of new/old is above %.4g and p < %g; "
	        "FASTER when the whole CI of old/new is above %.4g and p < %g; SAME when the CI lies "
	        "within [%.4f, %.4g]; UNCLEAR otherwise, or with fewer than %zu samples on a side",
	     o->threshold * 100, L, o->alpha, L, o->alpha, 1 / L, L, o->min_samples);
	gt_out_note(p->out, human(p->fmt), "geometric mean: over the kernels with at least %zu samples on both sides; its CI from "
	        "the same bootstrap replicates; verdict by the same rule without the rank test",
	     o->min_samples);
	gt_out_note(p->out, human(p->fmt), "exit status: 1 when any kernel or split-unit quantity is SLOWER%s, else 0 (2: usage or "
	        "input error)",
	     p->strict ? " or UNCLEAR (--strict)" : "");
}

static void summary_line(const struct printer *p, char *buf, size_t len)
{
	const struct gt_diff *d = p->d;
	int k = snprintf(buf, len, "%zu %s on both sides: %zu SLOWER, %zu UNCLEAR, %zu FASTER, %zu SAME; "
	                           "%zu only in BASE, %zu only in NEW",
	                 d->nboth, kernels(d->nboth), d->count[GT_VERDICT_SLOWER], d->count[GT_VERDICT_UNCLEAR],
	                 d->count[GT_VERDICT_FASTER], d->count[GT_VERDICT_SAME], d->nbase_only, d->nnew_only);
	if (d->units_done && k > 0 && (size_t)k < len)
		snprintf(buf + k, len - (size_t)k, "; split units: %zu SLOWER, %zu UNCLEAR, %zu FASTER, %zu SAME",
		         d->ucount[GT_VERDICT_SLOWER], d->ucount[GT_VERDICT_UNCLEAR], d->ucount[GT_VERDICT_FASTER],
		         d->ucount[GT_VERDICT_SAME]);
}

static int print_human(const struct printer *p)
{
	const struct gt_diff *d = p->d;
	const struct gt_diff_options *o = &d->opt;
	char buf[512], ci[64];
	if (p->fmt == F_MD) {
		size_t slower = d->count[GT_VERDICT_SLOWER], uslower = d->ucount[GT_VERDICT_SLOWER];
		fputs("## gpuanalyze diff: ", p->out);
		if (slower)
			fprintf(p->out, "%zu of %zu %s SLOWER", slower, d->nboth, kernels(d->nboth));
		else
			fprintf(p->out, "no kernel SLOWER (of %zu)", d->nboth);
		if (uslower)
			fprintf(p->out, ", %zu split-unit %s SLOWER", uslower, uslower == 1 ? "quantity" : "quantities");
		fprintf(p->out, " (threshold %g%%)\n\n", o->threshold * 100);
	} else {
		fputs("gpuanalyze diff: BASE -> NEW\n", p->out);
	}
	file_notes(p, "BASE", &d->base, &d->base_runs);
	file_notes(p, "NEW", &d->new, &d->new_runs);
	gt_out_note(p->out, human(p->fmt), "measured: %s", MEASURED);
	if (o->warmup)
		gt_out_note(p->out, human(p->fmt), "warm-up: first %llu launches of each kernel dropped in each trace (%llu in BASE, %llu "
		        "in NEW)",
		     (unsigned long long)o->warmup, (unsigned long long)d->base.warmup_dropped,
		     (unsigned long long)d->new.warmup_dropped);
	else
		gt_out_note(p->out, human(p->fmt), "warm-up: none dropped (--warmup 0)");
	if (o->filter && o->filter->active)
		gt_out_note(p->out, human(p->fmt), "kernels: only those matching --kernel '%s' (%zu in BASE and %zu in NEW left out)",
		     o->filter->pattern, d->base.hidden, d->new.hidden);
	summary_line(p, buf, sizeof buf);
	gt_out_note(p->out, human(p->fmt), "%s", buf);
	if (d->geo_k)
		gt_out_note(p->out, human(p->fmt), "geometric mean over %zu %s: %s (speedup %.4f, old/new 95%% CI %s): %s", d->geo_k,
		     kernels(d->geo_k), gt_diff_change(d->geo_speedup, buf, sizeof buf), d->geo_speedup,
		     interval(d->geo_lo, d->geo_hi, ci, sizeof ci), gt_verdict_name(d->geo_verdict));
	else
		gt_out_note(p->out, human(p->fmt), "geometric mean: n/a (%s)", d->geo_why);

	int rc = 0;
	gt_out_heading(p->out, human(p->fmt), 3, "kernels on both sides (worst verdict first)");
	if (d->nboth)
		rc = both_table(p, 0);
	else
		gt_out_note(p->out, human(p->fmt), "none");
	if (!rc) {
		gt_out_heading(p->out, human(p->fmt), 3, "split units");
		gt_out_note(p->out, human(p->fmt), "%s", d->units_note);
		if (d->units_done && d->nunit_rows) {
			if (p->fmt == F_MD)
				fputc('\n', p->out); /* a table right after a list item would join the item */
			rc = both_table(p, 1);
		}
	}
	/* Why each verdict that is not plain: the reason an UNCLEAR or SLOWER came out so. */
	int any = 0;
	for (size_t i = 0; i < d->nrows && !rc; i++) {
		const struct gt_diff_row *r = &d->rows[i];
		if (r->side != GT_DIFF_BOTH || (r->verdict != GT_VERDICT_SLOWER && r->verdict != GT_VERDICT_UNCLEAR))
			continue;
		if (!any++)
			gt_out_heading(p->out, human(p->fmt), 3, "why");
		gt_out_note(p->out, human(p->fmt), "%s %s: %s", gt_verdict_name(r->verdict), r->display, r->why);
	}
	if (!rc && d->nbase_only) {
		gt_out_heading(p->out, human(p->fmt), 3, "only in BASE (no verdict)");
		rc = one_sided_table(p, GT_DIFF_BASE_ONLY);
	}
	if (!rc && d->nnew_only) {
		gt_out_heading(p->out, human(p->fmt), 3, "only in NEW (no verdict)");
		rc = one_sided_table(p, GT_DIFF_NEW_ONLY);
	}
	gt_out_heading(p->out, human(p->fmt), 3, "how to read this");
	rules(p);
	return rc;
}

static void json_file(struct gt_json *j, const struct gt_samples *s, const struct gt_diff_runs *runs)
{
	gt_json_object_begin(j);
	gt_json_key_str(j, "path", s->path);
	if (runs->n > 1) { /* pooled: the first run's path above, every run's here */
		gt_json_key_u64(j, "runs", runs->n);
		gt_json_key_array(j, "paths");
		for (size_t i = 0; i < runs->n; i++)
			gt_json_str(j, runs->paths[i]);
		gt_json_array_end(j);
		gt_json_key_str(j, "runs_differ", runs->mixed[0] ? runs->mixed : NULL);
	}
	gt_json_key_u64(j, "kernel_records", s->kernel_records);
	gt_json_key_u64(j, "excluded_bad_times", s->bad);
	gt_json_key_u64(j, "warmup_dropped", s->warmup_dropped);
	gt_json_trace_state(j, s->complete, s->lost_bytes, s->synthetic != NULL);
	gt_json_object_end(j);
}

static int print_json(const struct printer *p)
{
	const struct gt_diff *d = p->d;
	const struct gt_diff_options *o = &d->opt;
	struct gt_json *j = p->json;
	char buf[64];
	gt_cmd_json_head(j, "diff");
	gt_json_key_str(j, "measured", MEASURED);
	gt_json_key_str(j, "unit", "ns");
	gt_json_key(j, "base");
	json_file(j, &d->base, &d->base_runs);
	gt_json_key(j, "new");
	json_file(j, &d->new, &d->new_runs);
	gt_json_key_object(j, "options");
	gt_json_key_num(j, "threshold", o->threshold);
	gt_json_key_u64(j, "warmup_per_kernel", o->warmup);
	gt_json_key_u64(j, "seed", o->seed);
	gt_json_key_u64(j, "bootstrap_resamples", o->resamples);
	gt_json_key_num(j, "confidence", GT_BOOT_LEVEL);
	gt_json_key_num(j, "alpha", o->alpha);
	gt_json_key_u64(j, "min_samples", o->min_samples);
	gt_json_key_str(j, "kernel_filter", o->filter && o->filter->active ? o->filter->pattern : NULL);
	gt_json_key_bool(j, "strict", p->strict);
	gt_json_object_end(j);
	gt_json_key(j, "rule");
	gt_json_str(j, "speedup = median base / median new; SLOWER: whole CI of new/old above 1 + threshold "
	               "and Mann-Whitney p < alpha; FASTER: whole CI of old/new above 1 + threshold and p < "
	               "alpha; SAME: CI within [1/(1 + threshold), 1 + threshold]; UNCLEAR: otherwise, or "
	               "fewer than min_samples on a side");
	gt_json_key_object(j, "counts");
	for (int v = 0; v < GT_NVERDICTS; v++)
		gt_json_key_u64(j, gt_verdict_name(v), d->count[v]);
	gt_json_key_u64(j, "base_only", d->nbase_only);
	gt_json_key_u64(j, "new_only", d->nnew_only);
	gt_json_object_end(j);
	gt_json_key_object(j, "split_unit_counts");
	for (int v = 0; v < GT_NVERDICTS; v++)
		gt_json_key_u64(j, gt_verdict_name(v), d->ucount[v]);
	gt_json_object_end(j);
	gt_json_key_object(j, "geomean");
	gt_json_key_u64(j, "kernels", d->geo_k);
	gt_json_key_num(j, "speedup", d->geo_speedup);
	gt_json_key_str(j, "change", gt_diff_change(d->geo_speedup, buf, sizeof buf));
	gt_json_key_num(j, "ci_low", d->geo_lo);
	gt_json_key_num(j, "ci_high", d->geo_hi);
	gt_json_key_str(j, "verdict", gt_verdict_name(d->geo_verdict));
	gt_json_key_str(j, "why", d->geo_why);
	gt_json_object_end(j);
	gt_json_key_u64(j, "exit_status", gt_diff_failed(d, p->strict) ? GT_EXIT_CHECK : GT_EXIT_OK);
	gt_json_key_object(j, "split_units");
	gt_json_key_bool(j, "compared", d->units_done);
	gt_json_key_str(j, "note", d->units_note);
	gt_json_key_str(j, "range", d->unit_range);
	gt_json_key_u64(j, "units_base", d->units_base);
	gt_json_key_u64(j, "units_new", d->units_new);
	gt_json_object_end(j);
	int rc = 0;
	static const char *const keys[] = { "kernels", "base_only", "new_only", "units" };
	for (int k = 0; k < 4 && !rc; k++) {
		gt_json_key(j, keys[k]);
		struct gt_table *t = gt_table_new(GT_FMT_JSON, p->out, j);
		if (!t)
			return GT_ERR_NOMEM;
		columns(p, t);
		for (size_t i = 0; i < d->nrows; i++) {
			const struct gt_diff_row *r = &d->rows[i];
			if (k == 3 ? r->unit : (!r->unit && r->side == k))
				row(p, t, r);
		}
		rc = gt_table_close(t);
	}
	gt_json_object_end(j);
	return rc ? rc : gt_json_finish(j);
}

static int print_csv(const struct printer *p)
{
	struct gt_table *t = gt_table_new(GT_FMT_CSV, p->out, NULL);
	if (!t)
		return GT_ERR_NOMEM;
	columns(p, t);
	for (size_t i = 0; i < p->d->nrows; i++)
		row(p, t, &p->d->rows[i]);
	return gt_table_close(t);
}

static int print_junit(const struct printer *p)
{
	const struct gt_diff *d = p->d;
	const struct gt_diff_options *o = &d->opt;
	struct gt_junit *ju = gt_junit_new("gpuanalyze diff");
	if (!ju)
		return GT_ERR_NOMEM;
	char buf[512], ch[64], ci[64], pv[32], text[1024];
	int rc = gt_junit_property(ju, "base", d->base.path);
	if (!rc)
		rc = gt_junit_property(ju, "new", d->new.path);
	if (!rc && (d->base_runs.n > 1 || d->new_runs.n > 1)) {
		snprintf(buf, sizeof buf, "%zu BASE, %zu NEW", d->base_runs.n, d->new_runs.n);
		rc = gt_junit_property(ju, "runs_pooled", buf);
	}
	snprintf(buf, sizeof buf, "%g%%", o->threshold * 100);
	if (!rc)
		rc = gt_junit_property(ju, "threshold", buf);
	snprintf(buf, sizeof buf, "%llu", (unsigned long long)o->warmup);
	if (!rc)
		rc = gt_junit_property(ju, "warmup", buf);
	snprintf(buf, sizeof buf, "B = %zu, seed %llu", o->resamples, (unsigned long long)o->seed);
	if (!rc)
		rc = gt_junit_property(ju, "bootstrap", buf);
	if (!rc && (d->base.synthetic || d->new.synthetic))
		rc = gt_junit_property(ju, "synthetic", d->base.synthetic ? d->base.path : d->new.path);
	snprintf(buf, sizeof buf, "%s (speedup %.4f, CI %s, %zu kernels): %s",
	         gt_diff_change(d->geo_speedup, ch, sizeof ch), d->geo_speedup,
	         interval(d->geo_lo, d->geo_hi, ci, sizeof ci), d->geo_k, gt_verdict_name(d->geo_verdict));
	if (!rc)
		rc = gt_junit_property(ju, "geomean", buf);
	for (size_t i = 0; i < d->nrows && !rc; i++) {
		const struct gt_diff_row *r = &d->rows[i];
		enum gt_junit_result res = GT_JUNIT_PASS;
		if (r->side != GT_DIFF_BOTH) {
			res = GT_JUNIT_SKIPPED;
			snprintf(buf, sizeof buf, "only in %s: no comparison", r->side == GT_DIFF_BASE_ONLY ? "BASE" : "NEW");
		} else {
			snprintf(buf, sizeof buf, "%s %s: median %.3f us -> %.3f us, old/new 95%% CI %s, p %s",
			         gt_verdict_name(r->verdict), gt_diff_change(r->speedup, ch, sizeof ch),
			         r->base->st.median / 1e3, r->new->st.median / 1e3,
			         interval(r->ci.lo, r->ci.hi, ci, sizeof ci), pvalue(r->mwu.p, pv, sizeof pv));
			if (r->verdict == GT_VERDICT_SLOWER)
				res = GT_JUNIT_FAILURE;
			else if (r->verdict == GT_VERDICT_UNCLEAR)
				res = p->strict ? GT_JUNIT_FAILURE : GT_JUNIT_SKIPPED;
		}
		snprintf(text, sizeof text, "%s\n%s\nn = %zu in BASE, %zu in NEW\nkernel (mangled): %s\n", buf,
		         r->why, r->base ? r->base->n : 0, r->new ? r->new->n : 0, r->name);
		rc = gt_junit_case(ju, r->unit ? "gpuanalyze.diff.units" : "gpuanalyze.diff", r->display, -1, res,
		                   buf, text);
	}
	if (!rc)
		rc = gt_junit_finish(ju, p->out);
	gt_junit_free(ju);
	return rc;
}

/* gt_cmd_printer: the whole output, in p->fmt. */
static int print(FILE *out, struct gt_json *j, void *ctx)
{
	struct printer *p = ctx;
	p->out = out;
	p->json = j;
	return p->fmt == F_JSON ? print_json(p) : p->fmt == F_CSV ? print_csv(p) : p->fmt == F_JUNIT ? print_junit(p)
	                                                                                            : print_human(p);
}

static struct gt_diff_options opt;
static uint64_t seed, resamples, min_samples;
static int fmt, strict;
static struct gt_name_filter filter;

static const struct gt_option options[] = {
	{ .kind = GT_OPT_PERCENT, .long_name = "threshold", .arg = "PCT%", .value = &opt.threshold,
	  .help = "smallest change that counts, with its unit: 5% (the default), 2.5%" },
	GT_OPT_WARMUP(&opt.warmup),
	GT_OPT_KERNEL(&filter),
	GT_OPT_FORMAT_CHOICE(&fmt, formats, "output format (default text; md for a CI job summary, "
	                                    "junit for test reporters)"),
	{ .kind = GT_OPT_UINT, .long_name = "seed", .arg = "N", .value = &seed,
	  .help = "seed of the bootstrap's random numbers (default 1)" },
	{ .kind = GT_OPT_UINT, .long_name = "bootstrap", .arg = "B", .value = &resamples,
	  .help = "bootstrap resamples per kernel (default 2000)" },
	{ .kind = GT_OPT_UINT, .long_name = "min-samples", .arg = "N", .value = &min_samples,
	  .help = "fewer durations than N on a side give UNCLEAR (default 10)" },
	{ .kind = GT_OPT_FLAG, .long_name = "strict", .value = &strict,
	  .help = "exit 1 on UNCLEAR too, not only on SLOWER" },
	{ .kind = GT_OPT_FLAG, .long_name = "no-units", .value = &opt.no_units,
	  .help = "compare kernels only, not NVTX frames (saves a pass of split per trace)" },
	GT_OPT_END_OF_LIST,
};

static void reset(void)
{
	gt_diff_options_default(&opt);
	seed = opt.seed;
	resamples = opt.resamples;
	min_samples = opt.min_samples;
	fmt = F_TEXT;
	strict = 0;
	filter = (struct gt_name_filter){ 0 };
}

static int run(const struct gt_cmd_call *call)
{
	char **files = call->files;
	int nfiles = call->nfiles, dashdash = call->dashdash_at;
	if (resamples < 100 || resamples > 1000000)
		return gt_error("diff: option '--bootstrap' wants 100 to 1000000 resamples, not %llu (see "
		                "'gpuanalyze diff --help')",
		                (unsigned long long)resamples);
	opt.seed = seed;
	opt.resamples = (size_t)resamples;
	opt.min_samples = min_samples > 1 ? (size_t)min_samples : 1;
	opt.filter = &filter;
	/* BASE... -- NEW...: the operands before the first "--" are BASE's runs, the rest NEW's. */
	size_t nbase = 1;
	if (dashdash > 0 && dashdash < nfiles)
		nbase = (size_t)dashdash;
	else if (nfiles != 2)
		return gt_error("diff: %d traces but no '--' between them: write 'diff BASE... -- NEW...' (see "
		                "'gpuanalyze diff --help')",
		                nfiles);
	struct gt_diff d;
	memset(&d, 0, sizeof d);
	int rc = gt_diff_run_pooled(&d, (const char *const *)files, nbase, (const char *const *)files + nbase,
	                            (size_t)nfiles - nbase, &opt);
	if (!rc && d.base_runs.mixed[0])
		gt_warn("diff: the BASE runs differ in gputrace version or device: %s", d.base_runs.mixed);
	if (!rc && d.new_runs.mixed[0])
		gt_warn("diff: the NEW runs differ in gputrace version or device: %s", d.new_runs.mixed);
	if (!rc) {
		struct printer p = { fmt, NULL, NULL, &d, strict };
		rc = gt_cmd_print(call, print, &p);
	}
	if (!rc && gt_diff_failed(&d, strict))
		rc = GT_EXIT_CHECK;
	gt_diff_release(&d);
	return rc;
}

const struct gt_command gt_cmd_diff = {
	"diff", "A/B per kernel: both medians, speedup, CI, rank test, verdict; exit 1 if slower",
	"BASE... [--] NEW...", 2, -1,
	"Compares the GPU kernel durations (end - start, CUPTI activity timestamps) of two traces,\n"
	"kernel by kernel: n on each side, both medians, the speedup old/new written out (\"1.23x\n"
	"faster\"), its 95% bootstrap confidence interval, a Mann-Whitney U p-value, and a verdict:\n"
	"SAME, FASTER, SLOWER or UNCLEAR; per NVTX frame too when both traces mark frames. Exit\n"
	"status 1 when something is SLOWER beyond the threshold. gpuanalyze(1) states the rule.\n"
	"Several runs per side are pooled (each kernel's launches over the side's runs, after each\n"
	"run's warm-up): 'diff BASE1 BASE2 -- NEW1 NEW2', options before '--'; with one run per\n"
	"side, 'diff BASE NEW'.",
	options, reset, run,
};
GT_COMMAND_ENTRY(diff)
