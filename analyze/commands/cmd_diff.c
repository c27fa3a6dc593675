/* cmd_diff.c: `gpuanalyze diff BASE NEW` (or `BASE... -- NEW...`, runs pooled per side): per-kernel
 * A/B comparison with a verdict and an exit status for CI.
 *
 * Options and the document only; diff.c decides. Text and Markdown show a table of the kernels on
 * both sides (the worst verdicts first), the kernels found on one side only, the geometric mean,
 * and a footer that states the rule every verdict followed; the Markdown is meant for a CI system's
 * job summary (GitHub's $GITHUB_STEP_SUMMARY). JSON and CSV carry the same numbers in nanoseconds;
 * JUnit XML has one test case per kernel, SLOWER being a failure.
 */
#include "analyze/commands/cmd_output.h"
#include "analyze/commands/diff_counters.h"
#include "analyze/commands/commands.h"
#include "analyze/support/diag.h"
#include "analyze/engines/diff.h"
#include "analyze/output/junit.h"
#include "analyze/support/options.h"
#include "analyze/output/output.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MEASURED "GPU kernel durations (end - start, CUPTI activity timestamps), per launch"

/* What the filler needs: the comparison, and --strict, which moves the exit status and the JUnit
 * result of an UNCLEAR. */
struct job {
	const struct gt_diff *df;
	int strict;
	const struct gt_diff_counters *dc; /* hardware counters, shown when both sides have them */
};

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

/* A table of compared rows with every column. CSV's one table holds all the rows, so it starts
 * with the two columns that tell them apart (csv); the other formats keep them in separate tables. */
static struct gt_table *rows_table(struct gt_doc *d, const char *key, int csv)
{
	static const struct gt_column where[] = {
		{ "kind", "kind", GT_COL_LEFT }, { "side", "side", GT_COL_LEFT },
	};
	static const struct gt_column cols[] = {
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
	struct gt_table *t = gt_doc_table(d, key, where, csv ? sizeof where / sizeof where[0] : 0);
	if (t)
		gt_table_columns(t, GT_COLUMNS(cols));
	return t;
}

static void duration(struct gt_table *t, double ns) { gt_table_num_as(t, ns, ns / 1e3, 3); }

/* One row of rows_table (csv: with its kind and side first). */
static void row(struct gt_table *t, const struct gt_diff_row *r, int csv)
{
	static const char *const side[] = { "both", "base_only", "new_only" };
	char buf[64], ci[64], pv[32];
	if (csv) {
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

/* ---- text and Markdown ------------------------------------------------------------------------ */

/* The one-sided kernels for people: n, median, name. */
static int one_sided_table(struct gt_doc *d, const struct gt_diff *df, int side)
{
	const struct gt_column cols[] = {
		{ "n", "n", 0 }, { "median", "median us", 0 },
		{ "name", "name", GT_COL_LEFT | GT_COL_CODE },
	};
	struct gt_table *t = gt_doc_table(d, NULL, GT_COLUMNS(cols));
	if (!t)
		return GT_ERR_NOMEM;
	for (size_t i = 0; i < df->nrows; i++) {
		const struct gt_diff_row *r = &df->rows[i];
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

/* The rows compared on both sides, for people: kernels (unit 0) or split-unit quantities (unit 1);
 * a table of no kernels says so. */
static int both_table(struct gt_doc *d, const struct gt_diff *df, int unit)
{
	struct gt_table *t = rows_table(d, NULL, 0);
	if (!t)
		return GT_ERR_NOMEM;
	gt_table_when_empty(t, "none");
	for (size_t i = 0; i < df->nrows; i++) {
		const struct gt_diff_row *r = &df->rows[i];
		if (r->side == GT_DIFF_BOTH && r->unit == unit)
			row(t, r, 0);
	}
	return gt_table_close(t);
}

/* The runs pooled on a side, one line each, and what differs between them. */
static void runs_notes(struct gt_doc *d, const char *role, const struct gt_samples *s,
                       const struct gt_diff_runs *runs)
{
	gt_doc_note(d, "%s: %zu runs pooled (%llu kernel records, %zu %s over all)", role, runs->n,
	            (unsigned long long)s->kernel_records, s->nkernels + s->hidden,
	            kernels(s->nkernels + s->hidden));
	for (size_t i = 0; i < runs->n; i++)
		gt_doc_note(d, "%s run %zu of %zu: %s", role, i + 1, runs->n, runs->paths[i]);
	if (runs->mixed[0])
		gt_doc_note(d, "WARNING: the %s runs differ in gputrace version or device: %s", role, runs->mixed);
}

static void file_notes(struct gt_doc *d, const char *role, const struct gt_samples *s,
                       const struct gt_diff_runs *runs)
{
	if (runs->n > 1)
		runs_notes(d, role, s, runs);
	else
		gt_doc_note(d, "%s: %s (%llu kernel records, %zu %s)", role, s->path, (unsigned long long)s->kernel_records,
		            s->nkernels + s->hidden, kernels(s->nkernels + s->hidden));
	if (s->synthetic && runs->n > 1)
		gt_doc_note(d, "NOTE: a %s run is SYNTHETIC (META trace.synthetic = \"%s\"): written by a program, "
		            "not recorded on a GPU",
		            role, s->synthetic);
	else
		gt_cmd_doc_synthetic(d, s->path, s->synthetic);
	if (!s->complete && runs->n > 1)
		gt_doc_note(d, "NOTE: a %s run ends early (%llu bytes of incomplete chunks lost): its last records "
		            "are missing",
		            role, (unsigned long long)s->lost_bytes);
	else
		gt_cmd_doc_incomplete(d, s->path, s->complete, s->lost_bytes);
	if (s->bad)
		gt_doc_note(d, "excluded from %s: %llu kernel launches with bad timestamps", role,
		            (unsigned long long)s->bad);
}

static void rules(struct gt_doc *d, const struct job *x)
{
	const struct gt_diff_options *o = &x->df->opt;
	double L = 1 + o->threshold;
	gt_doc_heading(d, 3, "how to read this");
	gt_doc_note(d, "speedup = median BASE / median NEW (> 1: NEW is faster); 'change' writes it out, both "
	            "medians are beside it");
	gt_doc_note(d, "old/new 95%% CI: bootstrap percentile interval of the speedup, B = %zu resamples of each "
	            "trace, seed %llu (the same seed gives the same intervals)",
	            o->resamples, (unsigned long long)o->seed);
	gt_doc_note(d, "p (MWU): two-sided Mann-Whitney U test (as scipy.stats.mannwhitneyu: exact without ties "
	            "when a side has <= 8 samples, else normal approximation with tie and continuity "
	            "corrections)");
	gt_doc_note(d, "verdict at threshold %g%%: SLOWER when the whole CI of new/old is above %.4g and p < %g; "
	            "FASTER when the whole CI of old/new is above %.4g and p < %g; SAME when the CI lies "
	            "within [%.4f, %.4g]; UNCLEAR otherwise, or with fewer than %zu samples on a side",
	            o->threshold * 100, L, o->alpha, L, o->alpha, 1 / L, L, o->min_samples);
	gt_doc_note(d, "geometric mean: over the kernels with at least %zu samples on both sides; its CI from "
	            "the same bootstrap replicates; verdict by the same rule without the rank test",
	            o->min_samples);
	gt_doc_note(d, "exit status: 1 when any kernel or split-unit quantity is SLOWER%s, else 0 (2: usage or "
	            "input error)",
	            x->strict ? " or UNCLEAR (--strict)" : "");
}

static void summary_line(const struct gt_diff *df, char *buf, size_t len)
{
	int k = snprintf(buf, len, "%zu %s on both sides: %zu SLOWER, %zu UNCLEAR, %zu FASTER, %zu SAME; "
	                           "%zu only in BASE, %zu only in NEW",
	                 df->nboth, kernels(df->nboth), df->count[GT_VERDICT_SLOWER], df->count[GT_VERDICT_UNCLEAR],
	                 df->count[GT_VERDICT_FASTER], df->count[GT_VERDICT_SAME], df->nbase_only, df->nnew_only);
	if (df->units_done && k > 0 && (size_t)k < len)
		snprintf(buf + k, len - (size_t)k, "; split units: %zu SLOWER, %zu UNCLEAR, %zu FASTER, %zu SAME",
		         df->ucount[GT_VERDICT_SLOWER], df->ucount[GT_VERDICT_UNCLEAR], df->ucount[GT_VERDICT_FASTER],
		         df->ucount[GT_VERDICT_SAME]);
}

/* The first line: in Markdown a heading with the outcome, for a CI job summary; in text the sides. */
static void title(struct gt_doc *d, const struct gt_diff *df)
{
	size_t slower = df->count[GT_VERDICT_SLOWER], uslower = df->ucount[GT_VERDICT_SLOWER];
	char what[128], units[96] = "", md[384];
	if (slower)
		snprintf(what, sizeof what, "%zu of %zu %s SLOWER", slower, df->nboth, kernels(df->nboth));
	else
		snprintf(what, sizeof what, "no kernel SLOWER (of %zu)", df->nboth);
	if (uslower)
		snprintf(units, sizeof units, ", %zu split-unit %s SLOWER", uslower,
		         uslower == 1 ? "quantity" : "quantities");
	snprintf(md, sizeof md, "## gpuanalyze diff: %s%s (threshold %g%%)\n\n", what, units,
	         df->opt.threshold * 100);
	gt_doc_words_by_format(d, md, "gpuanalyze diff: BASE -> NEW\n");
}

/* What people read before the tables: the traces, the options that shaped the samples, the
 * verdicts' counts and the geometric mean. */
static void head_notes(struct gt_doc *d, const struct gt_diff *df)
{
	const struct gt_diff_options *o = &df->opt;
	char buf[512], ci[64];
	title(d, df);
	file_notes(d, "BASE", &df->base, &df->base_runs);
	file_notes(d, "NEW", &df->new, &df->new_runs);
	gt_doc_note(d, "measured: %s", MEASURED);
	if (o->warmup)
		gt_doc_note(d, "warm-up: first %llu launches of each kernel dropped in each trace (%llu in BASE, %llu "
		            "in NEW)",
		            (unsigned long long)o->warmup, (unsigned long long)df->base.warmup_dropped,
		            (unsigned long long)df->new.warmup_dropped);
	else
		gt_doc_note(d, "warm-up: none dropped (--warmup 0)");
	if (o->filter && o->filter->active)
		gt_doc_note(d, "kernels: only those matching --kernel '%s' (%zu in BASE and %zu in NEW left out)",
		            o->filter->pattern, df->base.hidden, df->new.hidden);
	summary_line(df, buf, sizeof buf);
	gt_doc_note(d, "%s", buf);
	if (df->geo_k)
		gt_doc_note(d, "geometric mean over %zu %s: %s (speedup %.4f, old/new 95%% CI %s): %s", df->geo_k,
		            kernels(df->geo_k), gt_diff_change(df->geo_speedup, buf, sizeof buf), df->geo_speedup,
		            interval(df->geo_lo, df->geo_hi, ci, sizeof ci), gt_verdict_name(df->geo_verdict));
	else
		gt_doc_note(d, "geometric mean: n/a (%s)", df->geo_why);
}

/* The tables people read, with the reasons for the verdicts that are not plain between them. */
static int human_tables(struct gt_doc *d, const struct gt_diff *df)
{
	gt_doc_heading(d, 3, "kernels on both sides (worst verdict first)");
	int rc = both_table(d, df, 0);
	if (!rc) {
		gt_doc_heading(d, 3, "split units");
		gt_doc_note(d, "%s", df->units_note);
		if (df->units_done && df->nunit_rows) {
			gt_doc_words_by_format(d, "\n", NULL); /* md: a table right after a list item would join it */
			rc = both_table(d, df, 1);
		}
	}
	/* Why each verdict that is not plain: the reason an UNCLEAR or SLOWER came out so. */
	int any = 0;
	for (size_t i = 0; i < df->nrows && !rc; i++) {
		const struct gt_diff_row *r = &df->rows[i];
		if (r->side != GT_DIFF_BOTH || (r->verdict != GT_VERDICT_SLOWER && r->verdict != GT_VERDICT_UNCLEAR))
			continue;
		if (!any++)
			gt_doc_heading(d, 3, "why");
		gt_doc_note(d, "%s %s: %s", gt_verdict_name(r->verdict), r->display, r->why);
	}
	if (!rc && df->nbase_only) {
		gt_doc_heading(d, 3, "only in BASE (no verdict)");
		rc = one_sided_table(d, df, GT_DIFF_BASE_ONLY);
	}
	if (!rc && df->nnew_only) {
		gt_doc_heading(d, 3, "only in NEW (no verdict)");
		rc = one_sided_table(d, df, GT_DIFF_NEW_ONLY);
	}
	return rc;
}

/* ---- JSON ------------------------------------------------------------------------------------- */

static void facts_file(struct gt_doc *d, const char *key, const struct gt_samples *s,
                       const struct gt_diff_runs *runs)
{
	gt_doc_object(d, key);
	gt_doc_str(d, "path", s->path);
	if (runs->n > 1) { /* pooled: the first run's path above, every run's here */
		gt_doc_u64(d, "runs", runs->n);
		gt_doc_array(d, "paths");
		for (size_t i = 0; i < runs->n; i++)
			gt_doc_str(d, NULL, runs->paths[i]);
		gt_doc_end(d);
		gt_doc_str(d, "runs_differ", runs->mixed[0] ? runs->mixed : NULL);
	}
	gt_doc_u64(d, "kernel_records", s->kernel_records);
	gt_doc_u64(d, "excluded_bad_times", s->bad);
	gt_doc_u64(d, "warmup_dropped", s->warmup_dropped);
	struct gt_json *j = gt_doc_json(d);
	if (j)
		gt_json_trace_state(j, s->complete, s->lost_bytes, s->synthetic != NULL);
	gt_doc_end(d);
}

static void facts_options(struct gt_doc *d, const struct job *x)
{
	const struct gt_diff_options *o = &x->df->opt;
	gt_doc_object(d, "options");
	gt_doc_num(d, "threshold", o->threshold);
	gt_doc_u64(d, "warmup_per_kernel", o->warmup);
	gt_doc_u64(d, "seed", o->seed);
	gt_doc_u64(d, "bootstrap_resamples", o->resamples);
	gt_doc_num(d, "confidence", GT_BOOT_LEVEL);
	gt_doc_num(d, "alpha", o->alpha);
	gt_doc_u64(d, "min_samples", o->min_samples);
	gt_doc_str(d, "kernel_filter", o->filter && o->filter->active ? o->filter->pattern : NULL);
	gt_doc_bool(d, "strict", x->strict);
	gt_doc_end(d);
}

/* JSON's head, before its tables. */
static void facts(struct gt_doc *d, const struct job *x)
{
	const struct gt_diff *df = x->df;
	char buf[64];
	gt_cmd_doc_head(d, "diff");
	gt_doc_str(d, "measured", MEASURED);
	gt_doc_str(d, "unit", "ns");
	facts_file(d, "base", &df->base, &df->base_runs);
	facts_file(d, "new", &df->new, &df->new_runs);
	facts_options(d, x);
	gt_doc_str(d, "rule", "speedup = median base / median new; SLOWER: whole CI of new/old above 1 + threshold "
	                      "and Mann-Whitney p < alpha; FASTER: whole CI of old/new above 1 + threshold and p < "
	                      "alpha; SAME: CI within [1/(1 + threshold), 1 + threshold]; UNCLEAR: otherwise, or "
	                      "fewer than min_samples on a side");
	gt_doc_object(d, "counts");
	for (int v = 0; v < GT_NVERDICTS; v++)
		gt_doc_u64(d, gt_verdict_name(v), df->count[v]);
	gt_doc_u64(d, "base_only", df->nbase_only);
	gt_doc_u64(d, "new_only", df->nnew_only);
	gt_doc_end(d);
	gt_doc_object(d, "split_unit_counts");
	for (int v = 0; v < GT_NVERDICTS; v++)
		gt_doc_u64(d, gt_verdict_name(v), df->ucount[v]);
	gt_doc_end(d);
	gt_doc_object(d, "geomean");
	gt_doc_u64(d, "kernels", df->geo_k);
	gt_doc_num(d, "speedup", df->geo_speedup);
	gt_doc_str(d, "change", gt_diff_change(df->geo_speedup, buf, sizeof buf));
	gt_doc_num(d, "ci_low", df->geo_lo);
	gt_doc_num(d, "ci_high", df->geo_hi);
	gt_doc_str(d, "verdict", gt_verdict_name(df->geo_verdict));
	gt_doc_str(d, "why", df->geo_why);
	gt_doc_end(d);
	gt_doc_u64(d, "exit_status", gt_diff_failed(df, x->strict) ? GT_EXIT_CHECK : GT_EXIT_OK);
	gt_doc_object(d, "split_units");
	gt_doc_bool(d, "compared", df->units_done);
	gt_doc_str(d, "note", df->units_note);
	gt_doc_str(d, "range", df->unit_range);
	gt_doc_u64(d, "units_base", df->units_base);
	gt_doc_u64(d, "units_new", df->units_new);
	gt_doc_end(d);
}

/* JSON's four tables of rows: kernels on both sides, on one side, and split-unit quantities. */
static int json_tables(struct gt_doc *d, const struct gt_diff *df)
{
	static const char *const keys[] = { "kernels", "base_only", "new_only", "units" };
	int rc = 0;
	for (int k = 0; k < 4 && !rc; k++) {
		struct gt_table *t = rows_table(d, keys[k], 0);
		if (!t)
			return GT_ERR_NOMEM;
		for (size_t i = 0; i < df->nrows; i++) {
			const struct gt_diff_row *r = &df->rows[i];
			if (k == 3 ? r->unit : (!r->unit && r->side == k))
				row(t, r, 0);
		}
		rc = gt_table_close(t);
	}
	return rc;
}

/* ---- CSV and JUnit ---------------------------------------------------------------------------- */

/* CSV: every row in one table. */
static int csv_table(struct gt_doc *d, const struct gt_diff *df)
{
	struct gt_table *t = rows_table(d, NULL, 1);
	if (!t)
		return GT_ERR_NOMEM;
	for (size_t i = 0; i < df->nrows; i++)
		row(t, &df->rows[i], 1);
	return gt_table_close(t);
}

static void suite_properties(struct gt_doc *d, const struct gt_diff *df)
{
	const struct gt_diff_options *o = &df->opt;
	char buf[512], ch[64], ci[64];
	gt_doc_suite(d, "gpuanalyze diff");
	gt_doc_property(d, "base", df->base.path);
	gt_doc_property(d, "new", df->new.path);
	if (df->base_runs.n > 1 || df->new_runs.n > 1) {
		snprintf(buf, sizeof buf, "%zu BASE, %zu NEW", df->base_runs.n, df->new_runs.n);
		gt_doc_property(d, "runs_pooled", buf);
	}
	snprintf(buf, sizeof buf, "%g%%", o->threshold * 100);
	gt_doc_property(d, "threshold", buf);
	snprintf(buf, sizeof buf, "%llu", (unsigned long long)o->warmup);
	gt_doc_property(d, "warmup", buf);
	snprintf(buf, sizeof buf, "B = %zu, seed %llu", o->resamples, (unsigned long long)o->seed);
	gt_doc_property(d, "bootstrap", buf);
	if (df->base.synthetic || df->new.synthetic)
		gt_doc_property(d, "synthetic", df->base.synthetic ? df->base.path : df->new.path);
	snprintf(buf, sizeof buf, "%s (speedup %.4f, CI %s, %zu kernels): %s",
	         gt_diff_change(df->geo_speedup, ch, sizeof ch), df->geo_speedup,
	         interval(df->geo_lo, df->geo_hi, ci, sizeof ci), df->geo_k, gt_verdict_name(df->geo_verdict));
	gt_doc_property(d, "geomean", buf);
}

/* JUnit: one case per row, SLOWER a failure, UNCLEAR skipped (a failure with --strict), a kernel
 * on one side only skipped. */
static void suite(struct gt_doc *d, const struct job *x)
{
	const struct gt_diff *df = x->df;
	char buf[512], ch[64], ci[64], pv[32], text[1024];
	suite_properties(d, df);
	for (size_t i = 0; i < df->nrows; i++) {
		const struct gt_diff_row *r = &df->rows[i];
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
				res = x->strict ? GT_JUNIT_FAILURE : GT_JUNIT_SKIPPED;
		}
		snprintf(text, sizeof text, "%s\n%s\nn = %zu in BASE, %zu in NEW\nkernel (mangled): %s\n", buf,
		         r->why, r->base ? r->base->n : 0, r->new ? r->new->n : 0, r->name);
		gt_doc_case(d, r->unit ? "gpuanalyze.diff.units" : "gpuanalyze.diff", r->display, -1, res, buf, text);
	}
}

/* gt_cmd_filler: the facts, the cases and the notes, each format taking what it carries. The
 * tables are not the same in every format, so the format chooses them: people's come with the
 * reasons between them and show one-sided kernels with fewer columns, JSON has one per side and
 * one of split units, CSV one of everything, JUnit none. */
static int fill(struct gt_doc *d, void *ctx)
{
	const struct job *x = ctx;
	facts(d, x);
	suite(d, x);
	head_notes(d, x->df);
	enum gt_format f = gt_doc_format(d);
	int rc = f == GT_FMT_JSON ? json_tables(d, x->df)
	         : f == GT_FMT_CSV ? csv_table(d, x->df)
	         : f == GT_FMT_JUNIT ? 0 /* the cases are the whole document */
	                           : human_tables(d, x->df);
	if (!rc && f != GT_FMT_CSV && f != GT_FMT_JUNIT)
		rc = gt_diff_counters_doc(d, x->dc);
	rules(d, x);
	gt_doc_end(d); /* the JSON document */
	return rc;
}

static struct gt_diff_options opt;
static uint64_t seed, resamples, min_samples;
static enum gt_format fmt;
static int strict;
static struct gt_name_filter filter;

static const struct gt_option options[] = {
	{ .kind = GT_OPT_PERCENT, .long_name = "threshold", .arg = "PCT%", .value = &opt.threshold,
	  .help = "smallest change that counts, with its unit: 5% (the default), 2.5%" },
	GT_OPT_WARMUP(&opt.warmup),
	GT_OPT_KERNEL(&filter),
	/* GT_OPT_FORMAT's fields, with help of its own: which format is for what. */
	{ .kind = GT_OPT_FORMAT, .short_name = 'f', .long_name = "format", .value = &fmt,
	  .formats = GT_FMT_ALL | GT_FMT_JUNIT,
	  .help = "output format (default text; md for a CI job summary, junit for test reporters)" },
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
	fmt = GT_FMT_TEXT;
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
	struct gt_diff_counters dc = { 0 };
	/* The counters take another read of every trace: only when both sides hold some. */
	if (!rc && d.base.metric_records && d.new.metric_records)
		rc = gt_diff_counters_run(&dc, files, nbase, files + nbase, (size_t)nfiles - nbase);
	if (!rc) {
		struct job x = { &d, strict, &dc };
		rc = gt_cmd_render(call, fmt, fill, &x);
	}
	if (!rc && gt_diff_failed(&d, strict))
		rc = GT_EXIT_CHECK;
	gt_diff_counters_release(&dc);
	gt_diff_release(&d);
	return rc;
}

const struct gt_command gt_cmd_diff = {
	.name = "diff",
	.help = "A/B per kernel: both medians, speedup, CI, rank test, verdict; exit 1 if slower",
	.operands = "BASE... [--] NEW...",
	.min_operands = 2,
	.max_operands = -1,
	.description =
	"Compares the GPU kernel durations (end - start, CUPTI activity timestamps) of two traces,\n"
	"kernel by kernel: n on each side, both medians, the speedup old/new written out (\"1.23x\n"
	"faster\"), its 95% bootstrap confidence interval, a Mann-Whitney U p-value, and a verdict:\n"
	"SAME, FASTER, SLOWER or UNCLEAR; per NVTX frame too when both traces mark frames. Exit\n"
	"status 1 when something is SLOWER beyond the threshold. gpuanalyze(1) states the rule.\n"
	"Several runs per side are pooled (each kernel's launches over the side's runs, after each\n"
	"run's warm-up): 'diff BASE1 BASE2 -- NEW1 NEW2', options before '--'; with one run per\n"
	"side, 'diff BASE NEW'.",
	.options = options,
	.reset = reset,
	.run = run,
};
GT_COMMAND_ENTRY(diff)
