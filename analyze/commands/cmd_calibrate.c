/* cmd_calibrate.c: `gpuanalyze calibrate`: a tolerance for one kernel from the measured spread of
 * correct results, and what candidate rules do with planted errors.
 *
 * Options and the document it fills only; calibrate.c measures (the method is in calibrate.h). The
 * output states every condition the bound belongs to: the trace, the kernel, how many launches and
 * which orders, the margin, the planted distribution and the seed, so that the bound can be
 * re-derived when any of them changes.
 */
#include "analyze/shadow/calibrate.h"
#include "analyze/commands/cmd_output.h"
#include "analyze/commands/refs.h"
#include "analyze/commands/commands.h"
#include "analyze/support/diag.h"
#include "analyze/output/doc.h"
#include "analyze/support/options.h"
#include "analyze/output/output.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FORMATS (GT_FMT_TEXT | GT_FMT_MD | GT_FMT_JSON)

static int parse_double(const char *opt, const char *s, double lo, double hi, int lo_open, double *out)
{
	double v;
	const char *end;
	if (gt_parse_number(s, &v, &end) || *end || !isfinite(v) || v > hi || v < lo || (lo_open && v == lo))
		return gt_cli_usage_error(&gt_gpuanalyze_tool, "calibrate", "option '%s' wants a number in %s%g, "
		                          "%g], not '%s'", opt, lo_open ? "(" : "[", lo, hi, s ? s : "");
	*out = v;
	return 0;
}

struct ctx {
	const char *trace;
	const struct gt_refs *refs;
	const struct gt_calib_report *rep;
};

static const char *rule_label(const struct gt_calib_output *o, int rule, char *buf, size_t len)
{
	char tb[96];
	if (rule == GT_CALIB_DECLARED)
		snprintf(buf, len, "declared: %s", gt_tol_describe(&o->rule[rule], tb, sizeof tb));
	else if (rule == GT_CALIB_BOUND)
		snprintf(buf, len, "calibrated: %s", o->has_bound ? gt_tol_describe(&o->rule[rule], tb, sizeof tb)
		                                                  : "none (no finite distance)");
	else
		snprintf(buf, len, "%s", gt_calib_rule_name(rule));
	return buf;
}

static double pct(uint64_t a, uint64_t b) { return b ? 100.0 * (double)a / (double)b : NAN; }


/* The first error of rc and trc. */
static int first_error(int rc, int trc) { return rc ? rc : trc; }

/* Each table: GT_ERR_NOMEM when it could not be opened (the output stops there); else 0, its
 * close's error folded into *rc (the output goes on, as it always did). */
static int sources_table(struct gt_doc *d, const struct gt_calib_output *o, int *rc)
{
	const struct gt_column cols[] = {
		{ "source", "correct result", GT_COL_LEFT }, { "elements", "elements", 0 },
		{ "unchanged", "left as before", 0 }, { "nonfinite", "NaN/inf", 0 },
		{ "worst", "worst ULP", 0 }, { "p99", "p99 ULP", 0 }, { "median", "median ULP", 0 },
	};
	struct gt_table *t = gt_doc_table(d, NULL, GT_COLUMNS(cols));
	if (!t)
		return GT_ERR_NOMEM;
	for (size_t s = 0; s < o->nsources; s++) {
		const struct gt_calib_source *src = &o->sources[s];
		gt_table_str(t, src->name);
		gt_table_u64(t, src->elements);
		gt_table_u64(t, src->unchanged);
		gt_table_u64(t, src->nonfinite);
		gt_table_num(t, src->st.max, 0);
		gt_table_num(t, src->st.p99, 1);
		gt_table_num(t, src->st.median, 1);
		gt_table_end_row(t);
	}
	*rc = first_error(*rc, gt_table_close(t));
	return 0;
}

static int rules_table(struct gt_doc *d, const struct gt_calib_output *o, int *rc)
{
	char lb[160];
	const struct gt_column cols[] = {
		{ "rule", "rule", GT_COL_LEFT }, { "accepts_wrong", "accepts wrong", 0 },
		{ "accepts_wrong_pct", "%", 0 }, { "rejects_correct", "rejects correct", 0 },
		{ "rejects_correct_pct", "%", 0 },
	};
	struct gt_table *t = gt_doc_table(d, NULL, GT_COLUMNS(cols));
	if (!t)
		return GT_ERR_NOMEM;
	uint64_t correct = o->ndist + o->nonfinite;
	for (int r = 0; r < GT_CALIB_RULES; r++) {
		gt_table_str(t, rule_label(o, r, lb, sizeof lb));
		gt_table_u64(t, o->accepted[r]);
		gt_table_num(t, pct(o->accepted[r], o->nplanted), 1);
		gt_table_u64(t, o->rejected_correct[r]);
		gt_table_num(t, pct(o->rejected_correct[r], correct), 2);
		gt_table_end_row(t);
	}
	*rc = first_error(*rc, gt_table_close(t));
	return 0;
}

static int decades_table(struct gt_doc *d, const struct gt_calib_output *o, int *rc)
{
	const struct gt_column cols[] = {
		{ "error", "relative error", GT_COL_LEFT }, { "planted", "planted", 0 },
		{ "rel_1pct", "1% rel", 0 }, { "rel_1e5", "1e-5 rel", 0 },
		{ "declared", "declared", 0 }, { "calibrated", "calibrated", 0 },
	};
	struct gt_table *t = gt_doc_table(d, NULL, GT_COLUMNS(cols));
	if (!t)
		return GT_ERR_NOMEM;
	for (int k = 0; k < o->ndecades; k++) {
		char range[64];
		snprintf(range, sizeof range, "1e%d .. 1e%d", o->decade0 + k, o->decade0 + k + 1);
		gt_table_str(t, range);
		gt_table_u64(t, o->dec_planted[k]);
		for (int r = 0; r < GT_CALIB_RULES; r++)
			gt_table_u64(t, o->dec_accepted[k][r]);
		gt_table_end_row(t);
	}
	*rc = first_error(*rc, gt_table_close(t));
	return 0;
}

/* The spread and the proposed bound of one output, for people. */
static void spread_notes(struct gt_doc *d, const struct gt_calib_output *o,
                         const struct gt_calib_options *opt)
{
	if (o->ndist)
		gt_doc_note(d, "spread of the correct results against the reference, in ULPs: worst %.0f, p99 %.1f, "
		            "median %.1f (%zu element distances from %zu results; p99 and median by NumPy's "
		            "'linear' rule)", o->st.max, o->st.p99, o->st.median, o->ndist, o->nsources);
	else
		gt_doc_note(d, "spread of the correct results against the reference: nothing to measure (no "
		            "computed element with a finite distance in %zu results)", o->nsources);
	if (o->nonfinite)
		gt_doc_note(d, "%" PRIu64 " elements of the correct results are NaN or an unmatched infinity: they "
		            "have no ULP distance, are left out of the spread and rejected by every rule; a correct "
		            "result should have none", o->nonfinite);
	if (o->has_bound)
		gt_doc_note(d, "proposed bound: %" PRIu64 " ULP = worst observed %.0f x margin %g, rounded up",
		            o->bound, o->st.max, opt->margin);
	else
		gt_doc_note(d, "proposed bound: none (no finite distance to measure)");
}

/* One output for people: its heading, its spread, its tables and the declared tolerance's reason. */
static int output_text(struct gt_doc *d, const struct gt_calib_report *rep,
                       const struct gt_calib_output *o)
{
	const struct gt_calib_options *opt = &rep->opt;
	const char *name = o->decl->name && *o->decl->name ? o->decl->name : "?";
	gt_doc_words_by_format(d, "\n## Output ", "\noutput ");
	gt_doc_name(d, name);
	gt_doc_words(d, " (parameter %u, %s)\n", o->param, gt_elem_type_name(o->decl->type));
	gt_doc_words_by_format(d, "\n", NULL);
	spread_notes(d, o, opt);
	gt_doc_words(d, "\n");
	int rc = 0;
	if (sources_table(d, o, &rc))
		return GT_ERR_NOMEM;
	gt_doc_words(d, "\n");
	gt_doc_note(d, "planted: %zu wrong elements: %g of the %" PRIu64 " finite non-zero elements of the correct "
	            "results, chosen by selection sampling, each multiplied by (1 + s e) with s a random sign "
	            "and e log-uniform in [%g, %g], seed %" PRIu64 "; %" PRIu64 " more rounded back to the "
	            "correct value and were left out", o->nplanted, opt->plant_fraction, o->eligible,
	            opt->plant_min, opt->plant_max, opt->seed, o->rounded_back);
	gt_doc_words(d, "\n");
	if (rules_table(d, o, &rc))
		return GT_ERR_NOMEM;
	gt_doc_words_by_format(d, "\nPlanted errors accepted, by the size of the error:\n\n",
	                       "\nplanted errors accepted, by the size of the error:\n");
	if (decades_table(d, o, &rc))
		return GT_ERR_NOMEM;
	if (o->decl->reason && *o->decl->reason) {
		gt_doc_words(d, "\n");
		gt_doc_note(d, "the declared tolerance's reason: %s", o->decl->reason);
	}
	return rc;
}

/* The human formats' title and notes on the trace, the reference and the correct results. */
static void preamble(struct gt_doc *d, const struct ctx *x)
{
	const struct gt_calib_report *rep = x->rep;
	const struct gt_ref *ref = rep->ref;
	gt_doc_words_by_format(d, "# Calibration: ", "calibration of ");
	gt_doc_name(d, rep->demangled);
	gt_doc_words_by_format(d, "\n\n", "\n");
	const char *synthetic = rep->info.synthetic;
	gt_doc_note(d, "trace: %s%s%s%s", x->trace, synthetic ? " (synthetic: " : "", synthetic ? synthetic : "",
	            synthetic ? "; not recorded on a GPU)" : "");
	if (rep->info.recorded_on)
		gt_doc_note(d, "recorded on: %s", rep->info.recorded_on);
	gt_doc_note(d, "reference: %s in %s; computes: %s", ref->kernel,
	            x->refs->path ? x->refs->path : "(in-process)",
	            ref->description ? ref->description : "(no description)");
	gt_doc_note(d, "correct results: the GPU's outputs of %" PRIu64 " captured launch%s (assumed correct: check "
	            "them with 'gpuanalyze shadow' first) and, for each launch, %u alternative evaluation "
	            "order%s of the reference", rep->launches, rep->launches == 1 ? "" : "es", ref->norders,
	            ref->norders == 1 ? "" : "s");
	for (unsigned k = 0; k < ref->norders; k++)
		gt_doc_note(d, "  order %u: %s", k, ref->order_names[k]);
	if (rep->skipped)
		gt_doc_note(d, "skipped: %" PRIu64 " selected captures could not be replayed (%s)", rep->skipped,
		            rep->skipped_why);
	else if (rep->skipped_why[0])
		gt_doc_note(d, "note: %s", rep->skipped_why);
}

/* The JSON names of the rules, in calibrate.h's order. */
static const char *const rule_keys[GT_CALIB_RULES] = {
	"rel_1pct", "rel_1e5", "declared", "calibrated",
};

/* One output's facts, after its spread: the planted errors, the rules and the errors by size. */
static void json_planted(struct gt_doc *d, const struct gt_calib_output *o)
{
	gt_doc_u64(d, "planted", o->nplanted);
	gt_doc_u64(d, "eligible", o->eligible);
	gt_doc_u64(d, "rounded_back", o->rounded_back);
	gt_doc_u64(d, "correct_elements", o->ndist + o->nonfinite);
	gt_doc_array(d, "rules");
	for (int r = 0; r < GT_CALIB_RULES; r++) {
		gt_doc_object(d, NULL);
		gt_doc_str(d, "rule", rule_keys[r]);
		gt_cmd_ref_tol(d, "tolerance", &o->rule[r]);
		gt_doc_u64(d, "accepts_wrong", o->accepted[r]);
		gt_doc_u64(d, "rejects_correct", o->rejected_correct[r]);
		gt_doc_end(d);
	}
	gt_doc_end(d);
	gt_doc_array(d, "by_error_size");
	for (int k = 0; k < o->ndecades; k++) {
		gt_doc_object(d, NULL);
		gt_doc_num(d, "from", pow(10.0, o->decade0 + k));
		gt_doc_num(d, "to", pow(10.0, o->decade0 + k + 1));
		gt_doc_u64(d, "planted", o->dec_planted[k]);
		for (int r = 0; r < GT_CALIB_RULES; r++)
			gt_doc_u64(d, rule_keys[r], o->dec_accepted[k][r]);
		gt_doc_end(d);
	}
	gt_doc_end(d);
}

/* One output's facts: an element of the JSON "outputs". */
static void json_output(struct gt_doc *d, const struct gt_calib_output *o)
{
	gt_doc_object(d, NULL);
	gt_doc_str(d, "name", o->decl->name);
	gt_doc_u64(d, "param", o->param);
	gt_doc_str(d, "type", gt_elem_type_name(o->decl->type));
	gt_doc_u64(d, "distances", o->ndist);
	gt_doc_u64(d, "nonfinite", o->nonfinite);
	gt_doc_num(d, "worst_ulps", o->st.max);
	gt_doc_num(d, "p99_ulps", o->st.p99);
	gt_doc_num(d, "median_ulps", o->st.median);
	gt_doc_u64_if(d, "bound_ulps", o->has_bound, o->bound);
	gt_cmd_ref_tol(d, "declared", &o->decl->tol);
	gt_doc_array(d, "sources");
	for (size_t s = 0; s < o->nsources; s++) {
		const struct gt_calib_source *src = &o->sources[s];
		gt_doc_object(d, NULL);
		gt_doc_str(d, "name", src->name);
		gt_doc_u64(d, "capture_id", src->capture_id);
		gt_doc_u64_if(d, "order", src->order >= 0, (uint64_t)src->order);
		gt_doc_u64(d, "elements", src->elements);
		gt_doc_u64(d, "unchanged", src->unchanged);
		gt_doc_u64(d, "nonfinite", src->nonfinite);
		gt_doc_num(d, "worst_ulps", src->st.max);
		gt_doc_num(d, "p99_ulps", src->st.p99);
		gt_doc_num(d, "median_ulps", src->st.median);
		gt_doc_end(d);
	}
	gt_doc_end(d);
	json_planted(d, o);
	gt_doc_end(d);
}

/* The facts before the outputs: JSON's head, the kernel, the launches, the margin and the plant. */
static void json_head(struct gt_doc *d, const struct ctx *x)
{
	const struct gt_calib_report *rep = x->rep;
	const struct gt_calib_options *opt = &rep->opt;
	gt_cmd_ref_head(d, "calibrate", x->trace, rep->info.synthetic, rep->info.recorded_on);
	gt_doc_str(d, "references", x->refs->path);
	gt_doc_str(d, "kernel", rep->kernel);
	gt_doc_str(d, "demangled", rep->demangled);
	gt_doc_str(d, "reference", rep->ref->kernel);
	gt_doc_u64(d, "launches", rep->launches);
	gt_doc_u64(d, "skipped", rep->skipped);
	gt_doc_array(d, "orders");
	for (unsigned k = 0; k < rep->ref->norders; k++)
		gt_doc_str(d, NULL, rep->ref->order_names[k]);
	gt_doc_end(d);
	gt_doc_num(d, "margin", opt->margin);
	gt_doc_object(d, "plant");
	gt_doc_num(d, "fraction", opt->plant_fraction);
	gt_doc_num(d, "min", opt->plant_min);
	gt_doc_num(d, "max", opt->plant_max);
	gt_doc_str(d, "distribution", "relative error log-uniform in [min, max], random sign");
	gt_doc_u64(d, "seed", opt->seed);
	gt_doc_end(d);
}

/* gt_cmd_filler: JSON the facts, text and Markdown the notes and tables of each output. */
static int fill(struct gt_doc *d, void *ctx)
{
	const struct ctx *x = ctx;
	const struct gt_calib_report *rep = x->rep;
	json_head(d, x);
	preamble(d, x);
	gt_doc_array(d, "outputs");
	int rc = 0;
	for (unsigned k = 0; k < rep->noutputs && !rc; k++) {
		json_output(d, &rep->outputs[k]);
		if (gt_doc_for_people(d))
			rc = output_text(d, rep, &rep->outputs[k]);
	}
	gt_doc_end(d);
	gt_doc_end(d);
	return rc;
}

static const char *ref_path, *margin_s, *fraction_s, *min_s, *max_s;
static uint64_t seed;
static enum gt_format fmt;
static struct gt_name_filter filter;

static const struct gt_option options[] = {
	GT_OPT_REF(&ref_path),
	{ .kind = GT_OPT_REGEX, .long_name = "kernel", .arg = "REGEX",
	  .help = "the kernel to calibrate (required; mangled or demangled name; one kernel)",
	  .value = &filter },
	{ .kind = GT_OPT_STRING, .long_name = "margin", .arg = "X",
	  .help = "bound = worst observed ULP distance x X (default 4)", .value = &margin_s },
	{ .kind = GT_OPT_STRING, .long_name = "plant-fraction", .arg = "F",
	  .help = "fraction of each correct result's elements to make wrong (default 0.25)",
	  .value = &fraction_s },
	{ .kind = GT_OPT_STRING, .long_name = "plant-min", .arg = "E",
	  .help = "smallest planted relative error (default 1e-6)", .value = &min_s },
	{ .kind = GT_OPT_STRING, .long_name = "plant-max", .arg = "E",
	  .help = "largest planted relative error (default 0.1)", .value = &max_s },
	{ .kind = GT_OPT_UINT, .long_name = "seed", .arg = "N",
	  .help = "seed of the planted errors (default 7)", .value = &seed },
	{ .kind = GT_OPT_FORMAT, .short_name = 'f', .long_name = "format",
	  .help = "output format (default text)", .value = &fmt, .formats = FORMATS },
	GT_OPT_END_OF_LIST,
};

static void reset(void)
{
	ref_path = margin_s = fraction_s = min_s = max_s = NULL;
	seed = 7;
	fmt = GT_FMT_TEXT;
	filter = (struct gt_name_filter){ 0 };
}

/* The calibration's options from the command's; 0 or a reported usage error. */
static int calib_options(struct gt_calib_options *opt)
{
	gt_calib_options_default(opt);
	opt->seed = seed;
	if (!ref_path || !filter.active)
		return gt_cli_usage_error(&gt_gpuanalyze_tool, "calibrate", "option '%s' is required",
		                          !ref_path ? "--ref" : "--kernel");
	int rc = 0;
	if ((margin_s && (rc = parse_double("--margin", margin_s, 0, 1e6, 1, &opt->margin))) ||
	    (fraction_s && (rc = parse_double("--plant-fraction", fraction_s, 0, 1, 1, &opt->plant_fraction))) ||
	    (min_s && (rc = parse_double("--plant-min", min_s, 0, 1e6, 1, &opt->plant_min))) ||
	    (max_s && (rc = parse_double("--plant-max", max_s, 0, 1e6, 1, &opt->plant_max))))
		return rc;
	if (opt->plant_min > opt->plant_max)
		return gt_cli_usage_error(&gt_gpuanalyze_tool, "calibrate", "--plant-min %g is above --plant-max %g",
		                          opt->plant_min, opt->plant_max);
	return 0;
}

static int run(const struct gt_cmd_call *call)
{
	const char *trace = call->files[0];
	struct gt_refs *refs = NULL;
	struct gt_calib_report rep;
	memset(&rep, 0, sizeof rep);
	struct gt_calib_options opt;
	int rc = calib_options(&opt);
	if (!rc)
		rc = gt_cmd_refs_load(&refs, ref_path);
	if (rc)
		goto done;
	int crc = gt_calib_run(trace, refs, &filter, &opt, &rep);
	if (crc == GT_ERR_ARG && !gt_failed())
		rc = gt_error("calibrate: %s: %s", trace, rep.error);
	else if (crc < 0)
		rc = crc; /* the runner says the walk's held words (failure.h), or else "calibrate: REASON" */
	if (rc)
		goto done;
	struct ctx x = { trace, refs, &rep };
	rc = gt_cmd_render(call, fmt, fill, &x);
done:
	gt_calib_report_release(&rep);
	gt_refs_free(refs);
	return rc;
}

const struct gt_command gt_cmd_calibrate = {
	.name = "calibrate",
	.help = "a tolerance from the spread of correct results, tried on planted errors",
	.operands = "FILE",
	.min_operands = 1,
	.max_operands = 1,
	.description =
	"Measures how far correct results of one kernel lie from its reference in ULPs (the GPU's\n"
	"captured outputs and the reference's alternative evaluation orders), proposes a bound =\n"
	"worst observed x margin, then plants wrong outputs and counts how many each rule accepts:\n"
	"flat 1% relative, flat 1e-5 relative, the reference's declared tolerance, the calibrated\n"
	"bound. Exit 0, or 2 for a usage or input error.",
	.options = options,
	.reset = reset,
	.run = run,
};
GT_COMMAND_ENTRY(calibrate)
