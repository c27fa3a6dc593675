/* cmd_calibrate.c: `gpuanalyze calibrate`: a tolerance for one kernel from the measured spread of
 * correct results, and what candidate rules do with planted errors.
 *
 * Options and printing only; calibrate.c measures (the method is in calibrate.h). The output states
 * every condition the bound belongs to: the trace, the kernel, how many launches and which orders,
 * the margin, the planted distribution and the seed, so that the bound can be re-derived when any of
 * them changes.
 */
#include "analyze/shadow/calibrate.h"
#include "analyze/commands/cmd_output.h"
#include "analyze/commands/cmd_refs.h"
#include "analyze/commands/commands.h"
#include "analyze/support/diag.h"
#include "analyze/output/escape.h"
#include "analyze/output/json_member.h"
#include "analyze/support/options.h"
#include "analyze/output/output.h"
#include "analyze/shadow/tol_json.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { F_TEXT, F_MD, F_JSON };
static const char *const formats[] = { "text", "md", "json", NULL };

static int parse_double(const char *opt, const char *s, double lo, double hi, int lo_open, double *out)
{
	char *end;
	errno = 0;
	double v = s ? strtod(s, &end) : NAN;
	if (!s || errno || end == s || *end || !isfinite(v) || v > hi || v < lo || (lo_open && v == lo))
		return gt_error("calibrate: option '%s' wants a number in %s%g, %g], not '%s' (see "
		                "'gpuanalyze calibrate --help')", opt, lo_open ? "(" : "[", lo, hi, s ? s : "");
	*out = v;
	return 0;
}

struct ctx {
	const char *trace;
	const struct gt_refs *refs;
	const struct gt_calib_report *rep;
	FILE *out;
	int md;
	int json;
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

static int print_output(const struct ctx *x, const struct gt_calib_output *o)
{
	const struct gt_calib_report *rep = x->rep;
	const struct gt_calib_options *opt = &rep->opt;
	enum gt_format tf = x->md ? GT_FMT_MD : GT_FMT_TEXT;
	int rc = 0;
	char lb[160];
	const char *name = o->decl->name && *o->decl->name ? o->decl->name : "?";
	if (x->md) {
		fputs("\n## Output ", x->out);
		gt_esc_md_code(x->out, name);
		fprintf(x->out, " (parameter %u, %s)\n\n", o->param, gt_elem_type_name(o->decl->type));
	} else {
		gt_esc_printf(x->out, gt_esc_text, "\noutput %s (parameter %u, %s)\n", name, o->param,
		              gt_elem_type_name(o->decl->type));
	}
	if (o->ndist)
		gt_out_note(x->out, x->md ? GT_FMT_MD : GT_FMT_TEXT, "spread of the correct results against the reference, in ULPs: worst %.0f, p99 %.1f, "
		     "median %.1f (%zu element distances from %zu results; p99 and median by NumPy's "
		     "'linear' rule)", o->st.max, o->st.p99, o->st.median, o->ndist, o->nsources);
	else
		gt_out_note(x->out, x->md ? GT_FMT_MD : GT_FMT_TEXT, "spread of the correct results against the reference: nothing to measure (no "
		     "computed element with a finite distance in %zu results)", o->nsources);
	if (o->nonfinite)
		gt_out_note(x->out, x->md ? GT_FMT_MD : GT_FMT_TEXT, "%" PRIu64 " elements of the correct results are NaN or an unmatched infinity: they "
		     "have no ULP distance, are left out of the spread and rejected by every rule; a correct "
		     "result should have none", o->nonfinite);
	if (o->has_bound)
		gt_out_note(x->out, x->md ? GT_FMT_MD : GT_FMT_TEXT, "proposed bound: %" PRIu64 " ULP = worst observed %.0f x margin %g, rounded up",
		     o->bound, o->st.max, opt->margin);
	else
		gt_out_note(x->out, x->md ? GT_FMT_MD : GT_FMT_TEXT, "proposed bound: none (no finite distance to measure)");
	fputc('\n', x->out);
	const struct gt_column source_cols[] = {
		{ "source", "correct result", GT_COL_LEFT }, { "elements", "elements", 0 },
		{ "unchanged", "left as before", 0 }, { "nonfinite", "NaN/inf", 0 },
		{ "worst", "worst ULP", 0 }, { "p99", "p99 ULP", 0 }, { "median", "median ULP", 0 },
	};
	struct gt_table *t = gt_table_open(tf, x->out, NULL, GT_COLUMNS(source_cols));
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
	rc = gt_table_close(t);

	fputc('\n', x->out);
	gt_out_note(x->out, x->md ? GT_FMT_MD : GT_FMT_TEXT, "planted: %zu wrong elements: %g of the %" PRIu64 " finite non-zero elements of the correct "
	     "results, chosen by selection sampling, each multiplied by (1 + s e) with s a random sign "
	     "and e log-uniform in [%g, %g], seed %" PRIu64 "; %" PRIu64 " more rounded back to the "
	     "correct value and were left out", o->nplanted, opt->plant_fraction, o->eligible,
	     opt->plant_min, opt->plant_max, opt->seed, o->rounded_back);
	fputc('\n', x->out);
	const struct gt_column rule_cols[] = {
		{ "rule", "rule", GT_COL_LEFT }, { "accepts_wrong", "accepts wrong", 0 },
		{ "accepts_wrong_pct", "%", 0 }, { "rejects_correct", "rejects correct", 0 },
		{ "rejects_correct_pct", "%", 0 },
	};
	t = gt_table_open(tf, x->out, NULL, GT_COLUMNS(rule_cols));
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
	int trc = gt_table_close(t);
	if (trc && !rc)
		rc = trc;
	fprintf(x->out, x->md ? "\nPlanted errors accepted, by the size of the error:\n\n"
	                      : "\nplanted errors accepted, by the size of the error:\n");
	const struct gt_column decade_cols[] = {
		{ "error", "relative error", GT_COL_LEFT }, { "planted", "planted", 0 },
		{ "rel_1pct", "1% rel", 0 }, { "rel_1e5", "1e-5 rel", 0 },
		{ "declared", "declared", 0 }, { "calibrated", "calibrated", 0 },
	};
	t = gt_table_open(tf, x->out, NULL, GT_COLUMNS(decade_cols));
	if (!t)
		return GT_ERR_NOMEM;
	for (int d = 0; d < o->ndecades; d++) {
		char range[64];
		snprintf(range, sizeof range, "1e%d .. 1e%d", o->decade0 + d, o->decade0 + d + 1);
		gt_table_str(t, range);
		gt_table_u64(t, o->dec_planted[d]);
		for (int r = 0; r < GT_CALIB_RULES; r++)
			gt_table_u64(t, o->dec_accepted[d][r]);
		gt_table_end_row(t);
	}
	trc = gt_table_close(t);
	if (trc && !rc)
		rc = trc;
	if (o->decl->reason && *o->decl->reason) {
		fputc('\n', x->out);
		gt_out_note(x->out, x->md ? GT_FMT_MD : GT_FMT_TEXT, "the declared tolerance's reason: %s", o->decl->reason);
	}
	return rc;
}

static int print_text(const struct ctx *x)
{
	const struct gt_calib_report *rep = x->rep;
	const struct gt_ref *ref = rep->ref;
	if (x->md) {
		fputs("# Calibration: ", x->out);
		gt_esc_md_code(x->out, rep->demangled);
		fputs("\n\n", x->out);
	} else {
		gt_esc_printf(x->out, gt_esc_text, "calibration of %s\n", rep->demangled);
	}
	gt_out_note(x->out, x->md ? GT_FMT_MD : GT_FMT_TEXT, "trace: %s%s%s%s", x->trace, rep->info.synthetic ? " (synthetic: " : "",
	     rep->info.synthetic ? rep->info.synthetic : "", rep->info.synthetic ? "; not recorded on a GPU)" : "");
	if (rep->info.recorded_on)
		gt_out_note(x->out, x->md ? GT_FMT_MD : GT_FMT_TEXT, "recorded on: %s", rep->info.recorded_on);
	gt_out_note(x->out, x->md ? GT_FMT_MD : GT_FMT_TEXT, "reference: %s in %s; computes: %s", ref->kernel, x->refs->path ? x->refs->path : "(in-process)",
	     ref->description ? ref->description : "(no description)");
	gt_out_note(x->out, x->md ? GT_FMT_MD : GT_FMT_TEXT, "correct results: the GPU's outputs of %" PRIu64 " captured launch%s (assumed correct: check "
	     "them with 'gpuanalyze shadow' first) and, for each launch, %u alternative evaluation "
	     "order%s of the reference", rep->launches, rep->launches == 1 ? "" : "es", ref->norders,
	     ref->norders == 1 ? "" : "s");
	for (unsigned k = 0; k < ref->norders; k++)
		gt_out_note(x->out, x->md ? GT_FMT_MD : GT_FMT_TEXT, "  order %u: %s", k, ref->order_names[k]);
	if (rep->skipped)
		gt_out_note(x->out, x->md ? GT_FMT_MD : GT_FMT_TEXT, "skipped: %" PRIu64 " selected captures could not be replayed (%s)", rep->skipped,
		     rep->skipped_why);
	else if (rep->skipped_why[0])
		gt_out_note(x->out, x->md ? GT_FMT_MD : GT_FMT_TEXT, "note: %s", rep->skipped_why);
	int rc = 0;
	for (unsigned k = 0; k < rep->noutputs && !rc; k++)
		rc = print_output(x, &rep->outputs[k]);
	return rc;
}

static void json_u64_or_null(struct gt_json *j, int has, uint64_t v)
{
	if (has)
		gt_json_u64(j, v);
	else
		gt_json_null(j);
}

static int print_json(const struct ctx *x)
{
	static const char *const rule_keys[GT_CALIB_RULES] = { "rel_1pct", "rel_1e5", "declared", "calibrated" };
	const struct gt_calib_report *rep = x->rep;
	const struct gt_calib_options *opt = &rep->opt;
	struct gt_json j;
	gt_json_ref_head(&j, x->out, "calibrate", x->trace, rep->info.synthetic, rep->info.recorded_on);
	gt_json_key_str(&j, "references", x->refs->path);
	gt_json_key_str(&j, "kernel", rep->kernel);
	gt_json_key_str(&j, "demangled", rep->demangled);
	gt_json_key_str(&j, "reference", rep->ref->kernel);
	gt_json_key_u64(&j, "launches", rep->launches);
	gt_json_key_u64(&j, "skipped", rep->skipped);
	gt_json_key_array(&j, "orders");
	for (unsigned k = 0; k < rep->ref->norders; k++)
		gt_json_str(&j, rep->ref->order_names[k]);
	gt_json_array_end(&j);
	gt_json_key_num(&j, "margin", opt->margin);
	gt_json_key_object(&j, "plant");
	gt_json_key_num(&j, "fraction", opt->plant_fraction);
	gt_json_key_num(&j, "min", opt->plant_min);
	gt_json_key_num(&j, "max", opt->plant_max);
	gt_json_key_str(&j, "distribution", "relative error log-uniform in [min, max], random sign");
	gt_json_key_u64(&j, "seed", opt->seed);
	gt_json_object_end(&j);
	gt_json_key_array(&j, "outputs");
	for (unsigned k = 0; k < rep->noutputs; k++) {
		const struct gt_calib_output *o = &rep->outputs[k];
		gt_json_object_begin(&j);
		gt_json_key_str(&j, "name", o->decl->name);
		gt_json_key_u64(&j, "param", o->param);
		gt_json_key_str(&j, "type", gt_elem_type_name(o->decl->type));
		gt_json_key_u64(&j, "distances", o->ndist);
		gt_json_key_u64(&j, "nonfinite", o->nonfinite);
		gt_json_key_num(&j, "worst_ulps", o->st.max);
		gt_json_key_num(&j, "p99_ulps", o->st.p99);
		gt_json_key_num(&j, "median_ulps", o->st.median);
		gt_json_key(&j, "bound_ulps");
		json_u64_or_null(&j, o->has_bound, o->bound);
		gt_json_key(&j, "declared");
		gt_json_tol(&j, &o->decl->tol);
		gt_json_key_array(&j, "sources");
		for (size_t s = 0; s < o->nsources; s++) {
			const struct gt_calib_source *src = &o->sources[s];
			gt_json_object_begin(&j);
			gt_json_key_str(&j, "name", src->name);
			gt_json_key_u64(&j, "capture_id", src->capture_id);
			gt_json_key_u64_if(&j, "order", src->order >= 0, (uint64_t)src->order);
			gt_json_key_u64(&j, "elements", src->elements);
			gt_json_key_u64(&j, "unchanged", src->unchanged);
			gt_json_key_u64(&j, "nonfinite", src->nonfinite);
			gt_json_key_num(&j, "worst_ulps", src->st.max);
			gt_json_key_num(&j, "p99_ulps", src->st.p99);
			gt_json_key_num(&j, "median_ulps", src->st.median);
			gt_json_object_end(&j);
		}
		gt_json_array_end(&j);
		gt_json_key_u64(&j, "planted", o->nplanted);
		gt_json_key_u64(&j, "eligible", o->eligible);
		gt_json_key_u64(&j, "rounded_back", o->rounded_back);
		gt_json_key_u64(&j, "correct_elements", o->ndist + o->nonfinite);
		gt_json_key_array(&j, "rules");
		for (int r = 0; r < GT_CALIB_RULES; r++) {
			gt_json_object_begin(&j);
			gt_json_key_str(&j, "rule", rule_keys[r]);
			gt_json_key(&j, "tolerance");
			gt_json_tol(&j, &o->rule[r]);
			gt_json_key_u64(&j, "accepts_wrong", o->accepted[r]);
			gt_json_key_u64(&j, "rejects_correct", o->rejected_correct[r]);
			gt_json_object_end(&j);
		}
		gt_json_array_end(&j);
		gt_json_key_array(&j, "by_error_size");
		for (int d = 0; d < o->ndecades; d++) {
			gt_json_object_begin(&j);
			gt_json_key_num(&j, "from", pow(10.0, o->decade0 + d));
			gt_json_key_num(&j, "to", pow(10.0, o->decade0 + d + 1));
			gt_json_key_u64(&j, "planted", o->dec_planted[d]);
			for (int r = 0; r < GT_CALIB_RULES; r++)
				gt_json_key_u64(&j, rule_keys[r], o->dec_accepted[d][r]);
			gt_json_object_end(&j);
		}
		gt_json_array_end(&j);
		gt_json_object_end(&j);
	}
	gt_json_array_end(&j);
	gt_json_object_end(&j);
	return gt_json_finish(&j);
}

/* gt_cmd_print's printer (print_json starts its own JSON writer). */
static int print_report(FILE *out, struct gt_json *json, void *ctx)
{
	(void)json;
	struct ctx *x = ctx;
	x->out = out;
	return x->json ? print_json(x) : print_text(x);
}

static const char *ref_path, *margin_s, *fraction_s, *min_s, *max_s;
static uint64_t seed;
static int fmt;
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
	GT_OPT_FORMAT_CHOICE(&fmt, formats, "output format (default text)"),
	GT_OPT_END_OF_LIST,
};

static void reset(void)
{
	ref_path = margin_s = fraction_s = min_s = max_s = NULL;
	seed = 7;
	fmt = F_TEXT;
	filter = (struct gt_name_filter){ 0 };
}

/* The calibration's options from the command's; 0 or a reported usage error. */
static int calib_options(struct gt_calib_options *opt)
{
	gt_calib_options_default(opt);
	opt->seed = seed;
	if (!ref_path || !filter.active)
		return gt_error("calibrate: option '%s' is required (see 'gpuanalyze calibrate --help')",
		                !ref_path ? "--ref" : "--kernel");
	int rc = 0;
	if ((margin_s && (rc = parse_double("--margin", margin_s, 0, 1e6, 1, &opt->margin))) ||
	    (fraction_s && (rc = parse_double("--plant-fraction", fraction_s, 0, 1, 1, &opt->plant_fraction))) ||
	    (min_s && (rc = parse_double("--plant-min", min_s, 0, 1e6, 1, &opt->plant_min))) ||
	    (max_s && (rc = parse_double("--plant-max", max_s, 0, 1e6, 1, &opt->plant_max))))
		return rc;
	if (opt->plant_min > opt->plant_max)
		return gt_error("calibrate: --plant-min %g is above --plant-max %g (see 'gpuanalyze calibrate "
		                "--help')", opt->plant_min, opt->plant_max);
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
	if (crc > 0)
		rc = crc;
	else if (crc == GT_ERR_ARG)
		rc = gt_error("calibrate: %s: %s", trace, rep.error);
	else if (crc < 0)
		rc = gt_error("calibrate: %s", gt_strerror(crc));
	if (rc)
		goto done;
	struct ctx x = { trace, refs, &rep, NULL, fmt == F_MD, fmt == F_JSON };
	rc = gt_cmd_print(call, print_report, &x);
done:
	gt_calib_report_release(&rep);
	gt_refs_free(refs);
	return rc;
}

const struct gt_command gt_cmd_calibrate = {
	"calibrate", "a tolerance from the spread of correct results, tried on planted errors", "FILE", 1, 1,
	"Measures how far correct results of one kernel lie from its reference in ULPs (the GPU's\n"
	"captured outputs and the reference's alternative evaluation orders), proposes a bound =\n"
	"worst observed x margin, then plants wrong outputs and counts how many each rule accepts:\n"
	"flat 1% relative, flat 1e-5 relative, the reference's declared tolerance, the calibrated\n"
	"bound. Exit 0, or 2 for a usage or input error.",
	options, reset, run,
};
GT_COMMAND_ENTRY(calibrate)
