/* cmd_shadow.c: `gpuanalyze shadow`: captured kernel launches replayed on CPU references.
 *
 * Options and printing only; shadow.c loads the references, walks the trace and compares. Every
 * format carries the same facts: per launch its verdict, mismatches, worst element (index, both
 * values and their bits, absolute error, ULPs) and ULP histogram; the tolerance of every output with
 * its reason; launches that could not be checked and why. Exit status 0 only when every selected
 * launch was checked and passed: a launch without a reference, or whose memory was not captured,
 * is not a pass (exit 1), and neither is a trace without captures (exit 2, an input error).
 */
#include "analyze/commands/cmd_output.h"
#include "analyze/commands/cmd_refs.h"
#include "analyze/commands/commands.h"
#include "analyze/shadow/compare.h"
#include "analyze/support/diag.h"
#include "analyze/output/escape.h"
#include "analyze/output/json_member.h"
#include "analyze/output/junit.h"
#include "analyze/support/options.h"
#include "analyze/output/output.h"
#include "analyze/shadow/tol_json.h"
#include "analyze/shadow/shadow.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { F_TEXT, F_MD, F_JSON, F_JUNIT };
static const char *const formats[] = { "text", "md", "json", "junit", NULL };

#define RULE                                                                                       \
	"an element passes when |g - r| <= abs, or |g - r| <= rel * max(|g|, |r|), or its ULP "      \
	"distance <= ulps (each criterion on when non-zero); NaN never matches, +0 equals -0, an "    \
	"infinity matches only itself; integers compare exactly; an element the reference left as "  \
	"it was before the launch also passes when the GPU left it bit-identical (untouched poison); " \
	"every byte outside the declared outputs must be unchanged"

/* A value of an element as text, from its bits: floats with enough digits to read back, integers
 * exactly. */
static const char *value_text(char *buf, size_t len, int type, uint64_t bits)
{
	switch (type) {
	case GT_REF_F32: {
		float f;
		uint32_t b = (uint32_t)bits;
		memcpy(&f, &b, 4);
		snprintf(buf, len, "%.9g", f);
		break;
	}
	case GT_REF_F64: {
		double d;
		memcpy(&d, &bits, 8);
		snprintf(buf, len, "%.17g", d);
		break;
	}
	case GT_REF_I8: snprintf(buf, len, "%d", (int8_t)bits); break;
	case GT_REF_I16: snprintf(buf, len, "%d", (int16_t)bits); break;
	case GT_REF_I32: snprintf(buf, len, "%" PRId32, (int32_t)bits); break;
	case GT_REF_I64: snprintf(buf, len, "%" PRId64, (int64_t)bits); break;
	default: snprintf(buf, len, "%" PRIu64, bits); break;
	}
	return buf;
}

static const char *bits_text(char *buf, size_t len, int type, uint64_t bits)
{
	int digits = (int)gt_elem_size(type) * 2;
	snprintf(buf, len, "0x%0*" PRIx64, digits, bits);
	return buf;
}

static const char *ulps_text(char *buf, size_t len, uint64_t u)
{
	if (u == GT_ULP_INFINITE)
		snprintf(buf, len, "inf/NaN");
	else
		snprintf(buf, len, "%" PRIu64, u);
	return buf;
}

static const char *out_name(const struct gt_shadow_output *o, char *buf, size_t len)
{
	if (o->decl->name && *o->decl->name)
		return o->decl->name;
	snprintf(buf, len, "param%u", o->param);
	return buf;
}

/* The output whose worst element the summary shows: the first that failed, else the one with the
 * largest worst distance. NULL when there is none. */
static const struct gt_shadow_output *headline(const struct gt_shadow_result *r)
{
	const struct gt_shadow_output *best = NULL;
	for (unsigned k = 0; k < r->noutputs; k++) {
		const struct gt_shadow_output *o = &r->outputs[k];
		if (!o->cmp.has_worst)
			continue;
		if (!gt_compare_passed(&o->cmp))
			return o;
		if (!best || o->cmp.worst.ulps > best->cmp.worst.ulps)
			best = o;
	}
	return best;
}

/* "y[100003]: 1236 vs 1234.5 (abs 1.5, 12288 ULP)" */
static const char *worst_text(char *buf, size_t len, const struct gt_shadow_output *o)
{
	char nb[32], g[48], r[48], u[32];
	const struct gt_compare_worst *w = &o->cmp.worst;
	snprintf(buf, len, "%s[%" PRIu64 "]: %s vs %s (abs %.3g, %s ULP)", out_name(o, nb, sizeof nb),
	         w->index, value_text(g, sizeof g, o->cmp.type, w->gpu_bits),
	         value_text(r, sizeof r, o->cmp.type, w->ref_bits), w->abs_err,
	         ulps_text(u, sizeof u, w->ulps));
	return buf;
}

static const char *base_name(const struct gt_shadow_result *r, char **owned)
{
	*owned = gt_kernel_base_name(r->kernel, r->demangled);
	return *owned ? *owned : r->kernel;
}

static const char *verdict_upper(int status)
{
	switch (status) {
	case GT_SHADOW_PASS: return "PASS";
	case GT_SHADOW_FAIL: return "FAIL";
	case GT_SHADOW_ERROR: return "ERROR";
	case GT_SHADOW_INCOMPLETE: return "INCOMPLETE";
	}
	return "NO REFERENCE";
}

static uint64_t total_elements(const struct gt_shadow_result *r, uint64_t *mismatches)
{
	uint64_t n = 0;
	*mismatches = 0;
	for (unsigned k = 0; k < r->noutputs; k++) {
		n += r->outputs[k].cmp.elements;
		*mismatches += r->outputs[k].cmp.mismatches;
	}
	return n;
}

static void histogram_text(FILE *f, const struct gt_compare_result *c)
{
	int first = 1;
	for (int b = 0; b < GT_ULP_BUCKETS; b++) {
		if (!c->hist[b])
			continue;
		char lb[64];
		fprintf(f, "%s%s: %" PRIu64, first ? "" : ", ", gt_ulp_bucket_label(b, lb, sizeof lb), c->hist[b]);
		first = 0;
	}
	if (first)
		fputs("(no elements)", f);
}

/* The detail of one launch, for text (prefix "  "), a Markdown code block and a JUnit case body
 * (prefix ""). The kernel's name, the reason and the output names go through the text rule: one
 * line each, no controls. */
static void launch_detail(FILE *f, const struct gt_shadow_result *r, const char *ind)
{
	char tb[128], nb[32], g[48], rv[48], gb[24], rb[24], u[32];
	gt_esc_printf(f, gt_esc_text, "%s%s; grid (%u, %u, %u), block (%u, %u, %u), %u B dynamic shared memory\n",
	              ind, r->demangled, r->grid[0], r->grid[1], r->grid[2], r->block[0], r->block[1],
	              r->block[2], r->dynamic_smem);
	if (r->status != GT_SHADOW_PASS && r->status != GT_SHADOW_FAIL) {
		gt_esc_printf(f, gt_esc_text, "%s%s: %s\n", ind, gt_shadow_status_name(r->status), r->why);
		return;
	}
	for (unsigned k = 0; k < r->noutputs; k++) {
		const struct gt_shadow_output *o = &r->outputs[k];
		const struct gt_compare_result *c = &o->cmp;
		gt_esc_printf(f, gt_esc_text, "%soutput %s (parameter %u, %s, %" PRIu64 " elements from the pointer "
		              "to the end of its allocation), tolerance %s: %s\n", ind, out_name(o, nb, sizeof nb),
		              o->param, gt_elem_type_name(c->type), c->elements,
		              gt_tol_describe(&o->decl->tol, tb, sizeof tb), gt_compare_passed(c) ? "pass" : "FAIL");
		if (c->mismatches)
			fprintf(f, "%s  %" PRIu64 " mismatch%s, the first at [%" PRIu64 "]\n", ind, c->mismatches,
			        c->mismatches == 1 ? "" : "es", c->first_mismatch);
		if (c->has_worst) {
			const struct gt_compare_worst *w = &c->worst;
			fprintf(f, "%s  worst [%" PRIu64 "]: GPU %s (%s), reference %s (%s), abs error %.6g, %s "
			        "ULP\n", ind, w->index, value_text(g, sizeof g, c->type, w->gpu_bits),
			        bits_text(gb, sizeof gb, c->type, w->gpu_bits),
			        value_text(rv, sizeof rv, c->type, w->ref_bits),
			        bits_text(rb, sizeof rb, c->type, w->ref_bits), w->abs_err,
			        ulps_text(u, sizeof u, w->ulps));
		}
		fprintf(f, "%s  ULP distances: ", ind);
		histogram_text(f, c);
		fputc('\n', f);
		if (c->tail_bytes)
			fprintf(f, "%s  %" PRIu64 " bytes after the last whole element: %" PRIu64 " differ\n", ind,
			        c->tail_bytes, c->tail_mismatches);
	}
	for (unsigned k = 0; k < r->nother; k++) {
		const struct gt_shadow_other *ot = &r->other[k];
		if (!ot->bytes)
			continue;
		if (ot->differing)
			fprintf(f, "%sparameter %u's allocation, outside the declared outputs: %" PRIu64 " of %"
			        PRIu64 " bytes changed, the first at byte %" PRIu64 "\n", ind, ot->param,
			        ot->differing, ot->bytes, ot->first);
		else
			fprintf(f, "%sparameter %u's allocation, outside the declared outputs: %" PRIu64
			        " bytes, unchanged\n", ind, ot->param, ot->bytes);
	}
}

struct ctx {
	const char *trace;
	const struct gt_refs *refs;
	const struct gt_shadow_report *rep;
	FILE *out;
	int fmt;                 /* F_* */
};

static void summary_table(const struct ctx *x, enum gt_format fmt, int *rc)
{
	struct gt_table *t = gt_table_new(fmt, x->out, NULL);
	if (!t) {
		*rc = GT_ERR_NOMEM;
		return;
	}
	const struct gt_column cols[] = {
		{ "capture", "capture", 0 }, { "launch", "launch", 0 },
		{ "kernel", "kernel", GT_COL_LEFT | GT_COL_CODE },
		{ "verdict", "verdict", GT_COL_LEFT }, { "mismatches", "mismatches", 0 },
		{ "elements", "elements", 0 },
		{ "worst", "worst element (GPU vs reference)", GT_COL_LEFT | GT_COL_CODE },
	};
	gt_table_columns(t, GT_COLUMNS(cols));
	for (size_t i = 0; i < x->rep->n; i++) {
		const struct gt_shadow_result *r = &x->rep->launches[i];
		char *owned, wb[256];
		uint64_t mism, n = total_elements(r, &mism);
		gt_table_u64(t, r->capture_id);
		gt_table_u64(t, r->launch_index);
		gt_table_str(t, base_name(r, &owned));
		free(owned);
		gt_table_str(t, gt_shadow_status_name(r->status));
		const struct gt_shadow_output *h = headline(r);
		if (r->status == GT_SHADOW_PASS || r->status == GT_SHADOW_FAIL) {
			gt_table_u64(t, mism);
			gt_table_u64(t, n);
			gt_table_str(t, h ? worst_text(wb, sizeof wb, h) : r->why);
		} else {
			gt_table_null(t);
			gt_table_null(t);
			gt_table_str(t, r->why);
		}
		gt_table_end_row(t);
	}
	int trc = gt_table_close(t);
	if (trc && !*rc)
		*rc = trc;
}

/* Each distinct (reference, output) once: the tolerance and its reason. */
static void tolerances(const struct ctx *x, int md)
{
	size_t total = 1, nseen = 0;
	for (size_t i = 0; i < x->rep->n; i++)
		total += x->rep->launches[i].noutputs;
	const struct gt_ref_output **seen = calloc(total, sizeof *seen);
	for (size_t i = 0; i < x->rep->n; i++) {
		const struct gt_shadow_result *r = &x->rep->launches[i];
		for (unsigned k = 0; k < r->noutputs; k++) {
			const struct gt_ref_output *d = r->outputs[k].decl;
			int dup = 0;
			for (size_t s = 0; s < nseen && !dup; s++)
				dup = seen[s] == d;
			if (dup)
				continue;
			if (seen)
				seen[nseen++] = d;
			char tb[128], nb[32], line[2048];
			snprintf(line, sizeof line, "%s %s (%s): %s. %s", r->ref->kernel,
			         out_name(&r->outputs[k], nb, sizeof nb), gt_elem_type_name(d->type),
			         gt_tol_describe(&d->tol, tb, sizeof tb),
			         d->reason && *d->reason ? d->reason : "(no reason given)");
			if (md) {
				fputs("- ", x->out);
				gt_esc_md(x->out, line);
				fputc('\n', x->out);
			} else {
				fputs("  ", x->out);
				gt_esc_text(x->out, line);
				fputc('\n', x->out);
			}
		}
	}
	free(seen);
}

static void result_line(const struct ctx *x, char *buf, size_t len)
{
	const uint64_t *c = x->rep->count;
	snprintf(buf, len, "%s: %zu launch%s: %" PRIu64 " passed, %" PRIu64 " failed, %" PRIu64 " errors, %"
	         PRIu64 " incomplete, %" PRIu64 " without a reference",
	         gt_shadow_all_passed(x->rep) ? "PASS" : "FAIL", x->rep->n, x->rep->n == 1 ? "" : "es",
	         c[GT_SHADOW_PASS], c[GT_SHADOW_FAIL], c[GT_SHADOW_ERROR], c[GT_SHADOW_INCOMPLETE],
	         c[GT_SHADOW_NO_REF]);
}

static void preamble_lines(const struct ctx *x, int md)
{
	const struct gt_shadow_walk_info *in = &x->rep->info;
	const struct gt_ref_table *t = x->refs->table;
	char lines[9][1024];
	int n = 0;
	snprintf(lines[n++], sizeof lines[0], "references: %s (\"%s\", reference ABI %u, %u references)",
	         x->refs->path ? x->refs->path : "(in-process)", t->name ? t->name : "", (unsigned)t->abi,
	         t->count);
	if (in->synthetic)
		snprintf(lines[n++], sizeof lines[0], "trace: synthetic (%s): not recorded on a GPU",
		         in->synthetic);
	if (in->recorded_on)
		snprintf(lines[n++], sizeof lines[0], "recorded on: %s", in->recorded_on);
	if (!in->complete)
		snprintf(lines[n++], sizeof lines[0], "trace: ends early (%" PRIu64 " bytes of an incomplete "
		         "chunk lost): captures after its last complete chunk are missing", in->lost_bytes);
	snprintf(lines[n++], sizeof lines[0], "captures: %" PRIu64 " in the trace, %" PRIu64 " selected; %"
	         PRIu64 " launches the recorder did not capture (caps, uncopyable memory)", in->captures,
	         in->selected, in->captures_dropped);
	snprintf(lines[n++], sizeof lines[0], "buffers: %.3f MB reassembled, at most %.3f MB held at once "
	         "(the before and after copies of the captures being replayed, one working copy)",
	         (double)in->blob_bytes_read / 1e6, (double)in->peak_bytes / 1e6);
	snprintf(lines[n++], sizeof lines[0], "rule: %s", RULE);
	for (int i = 0; i < n; i++) {
		if (md) {
			fputs("- ", x->out);
			gt_esc_md(x->out, lines[i]);
			fputc('\n', x->out);
		} else {
			gt_esc_text(x->out, lines[i]);
			fputc('\n', x->out);
		}
	}
}

/* A Markdown code block of a launch's detail is fenced by more backticks than any run in the kernel's
 * name, the one text of the trace's that can begin one of its lines (a name starting with ``` would
 * otherwise close the block and let the rest of it be read as Markdown). */
static int fence_length(const char *name)
{
	int run = 0, longest = 0;
	for (const char *p = name ? name : ""; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		longest = run > longest ? run : longest;
	}
	return longest < 3 ? 3 : longest + 1;
}

static void fence_line(FILE *f, int n)
{
	while (n-- > 0)
		fputc('`', f);
	fputc('\n', f);
}

static int print_text(const struct ctx *x, int md)
{
	int rc = 0;
	char res[256];
	if (md) {
		fputs("# Shadow replay: ", x->out);
		gt_esc_md_code(x->out, x->trace);
		fputs("\n\n", x->out);
	} else {
		gt_esc_printf(x->out, gt_esc_text, "shadow replay of %s\n", x->trace);
	}
	preamble_lines(x, md);
	fputs(md ? "\n" : "\n", x->out);
	summary_table(x, md ? GT_FMT_MD : GT_FMT_TEXT, &rc);
	fputs(md ? "\n## Launches\n\n" : "\n", x->out);
	for (size_t i = 0; i < x->rep->n; i++) {
		const struct gt_shadow_result *r = &x->rep->launches[i];
		char *owned;
		const char *name = base_name(r, &owned);
		int fence = md ? fence_length(r->demangled) : 0;
		if (md) {
			fprintf(x->out, "### capture %" PRIu64 ", ", r->capture_id);
			gt_esc_md_code(x->out, name);
			fprintf(x->out, " launch %u: %s\n\n", r->launch_index, verdict_upper(r->status));
			fence_line(x->out, fence);
		} else {
			gt_esc_printf(x->out, gt_esc_text, "capture %" PRIu64 ", %s launch %u: %s\n", r->capture_id,
			              name, r->launch_index, verdict_upper(r->status));
		}
		free(owned);
		launch_detail(x->out, r, md ? "" : "  ");
		if (md)
			fence_line(x->out, fence);
		fputc('\n', x->out);
	}
	fputs(md ? "## Tolerances\n\n" : "tolerances:\n", x->out);
	tolerances(x, md);
	result_line(x, res, sizeof res);
	if (md)
		fprintf(x->out, "\n**%s**\n", res);
	else
		fprintf(x->out, "\nresult: %s\n", res);
	return rc;
}

static void json_launch(struct gt_json *j, const struct gt_shadow_result *r)
{
	char *owned, buf[64];
	gt_json_object_begin(j);
	gt_json_key_u64(j, "capture_id", r->capture_id);
	gt_json_key_u64(j, "launch_index", r->launch_index);
	gt_json_key_str(j, "kernel", r->kernel);
	gt_json_key_str(j, "demangled", r->demangled);
	gt_json_key_str(j, "name", base_name(r, &owned));
	free(owned);
	gt_json_key_str(j, "reference", r->ref ? r->ref->kernel : NULL);
	gt_json_key_array(j, "grid");
	for (int i = 0; i < 3; i++)
		gt_json_u64(j, r->grid[i]);
	gt_json_array_end(j);
	gt_json_key_array(j, "block");
	for (int i = 0; i < 3; i++)
		gt_json_u64(j, r->block[i]);
	gt_json_array_end(j);
	gt_json_key_u64(j, "dynamic_smem", r->dynamic_smem);
	gt_json_key_str(j, "verdict", gt_shadow_status_name(r->status));
	gt_json_key_str(j, "why", r->why[0] ? r->why : NULL);
	gt_json_key_array(j, "outputs");
	for (unsigned k = 0; k < r->noutputs; k++) {
		const struct gt_shadow_output *o = &r->outputs[k];
		const struct gt_compare_result *c = &o->cmp;
		gt_json_object_begin(j);
		gt_json_key_str(j, "name", out_name(o, buf, sizeof buf));
		gt_json_key_u64(j, "param", o->param);
		gt_json_key_str(j, "type", gt_elem_type_name(c->type));
		gt_json_key(j, "tolerance");
		gt_json_tol(j, &o->decl->tol);
		gt_json_key_bool(j, "passed", gt_compare_passed(c));
		gt_json_key_u64(j, "elements", c->elements);
		gt_json_key_u64(j, "mismatches", c->mismatches);
		gt_json_key_u64_if(j, "first_mismatch", c->first_mismatch != UINT64_MAX, c->first_mismatch);
		gt_json_key(j, "worst");
		if (!c->has_worst) {
			gt_json_null(j);
		} else {
			const struct gt_compare_worst *w = &c->worst;
			gt_json_object_begin(j);
			gt_json_key_u64(j, "index", w->index);
			gt_json_key_num(j, "gpu", w->gpu);
			gt_json_key_num(j, "ref", w->ref);
			gt_json_key_str(j, "gpu_bits", bits_text(buf, sizeof buf, c->type, w->gpu_bits));
			gt_json_key_str(j, "ref_bits", bits_text(buf, sizeof buf, c->type, w->ref_bits));
			gt_json_key_num(j, "abs_err", w->abs_err);
			gt_json_key_u64_if(j, "ulps", w->ulps != GT_ULP_INFINITE, w->ulps);
			gt_json_key_bool(j, "nonfinite", w->ulps == GT_ULP_INFINITE);
			gt_json_key_bool(j, "passed", w->pass);
			gt_json_object_end(j);
		}
		gt_json_key_u64(j, "tail_bytes", c->tail_bytes);
		gt_json_key_u64(j, "tail_mismatches", c->tail_mismatches);
		gt_json_key_array(j, "ulp_histogram");
		for (int b = 0; b < GT_ULP_BUCKETS; b++) {
			if (!c->hist[b])
				continue;
			gt_json_object_begin(j);
			gt_json_key_str(j, "ulps", gt_ulp_bucket_label(b, buf, sizeof buf));
			gt_json_key_u64(j, "count", c->hist[b]);
			gt_json_object_end(j);
		}
		gt_json_array_end(j);
		gt_json_object_end(j);
	}
	gt_json_array_end(j);
	gt_json_key_array(j, "outside_outputs");
	for (unsigned k = 0; k < r->nother; k++) {
		const struct gt_shadow_other *ot = &r->other[k];
		gt_json_object_begin(j);
		gt_json_key_u64(j, "param", ot->param);
		gt_json_key_u64(j, "bytes", ot->bytes);
		gt_json_key_u64(j, "differing", ot->differing);
		gt_json_key_u64_if(j, "first", ot->first != UINT64_MAX, ot->first);
		gt_json_object_end(j);
	}
	gt_json_array_end(j);
	gt_json_object_end(j);
}

static int print_json(const struct ctx *x)
{
	const struct gt_shadow_walk_info *in = &x->rep->info;
	const struct gt_ref_table *t = x->refs->table;
	struct gt_json j;
	gt_json_ref_head(&j, x->out, "shadow", x->trace, in->synthetic, in->recorded_on);
	gt_json_key_bool(&j, "complete", in->complete);
	gt_json_key_object(&j, "references");
	gt_json_key_str(&j, "path", x->refs->path);
	gt_json_key_str(&j, "name", t->name);
	gt_json_key_u64(&j, "abi", t->abi);
	gt_json_key_u64(&j, "count", t->count);
	gt_json_object_end(&j);
	gt_json_key_str(&j, "rule", RULE);
	gt_json_key_u64(&j, "captures", in->captures);
	gt_json_key_u64(&j, "selected", in->selected);
	gt_json_key_u64(&j, "captures_dropped", in->captures_dropped);
	gt_json_key_u64(&j, "buffer_bytes_reassembled", in->blob_bytes_read);
	gt_json_key_u64(&j, "buffer_bytes_peak", in->peak_bytes);
	gt_json_key_array(&j, "launches");
	for (size_t i = 0; i < x->rep->n; i++)
		json_launch(&j, &x->rep->launches[i]);
	gt_json_array_end(&j);
	gt_json_key_object(&j, "counts");
	for (int s = 0; s < GT_SHADOW_NSTATUS; s++) {
		gt_json_key_u64(&j, s == GT_SHADOW_NO_REF ? "no_reference" : gt_shadow_status_name(s),
		                x->rep->count[s]);
	}
	gt_json_object_end(&j);
	gt_json_key_bool(&j, "passed", gt_shadow_all_passed(x->rep));
	gt_json_object_end(&j);
	return gt_json_finish(&j);
}

static int print_junit(const struct ctx *x)
{
	struct gt_junit *ju = gt_junit_new("gpuanalyze shadow");
	if (!ju)
		return GT_ERR_NOMEM;
	int rc = gt_junit_property(ju, "trace", x->trace);
	if (!rc)
		rc = gt_junit_property(ju, "references", x->refs->path ? x->refs->path : "(in-process)");
	if (!rc && x->rep->info.synthetic)
		rc = gt_junit_property(ju, "synthetic", x->rep->info.synthetic);
	for (size_t i = 0; i < x->rep->n && !rc; i++) {
		const struct gt_shadow_result *r = &x->rep->launches[i];
		char *owned, cls[256], name[512], msg[512];
		const char *base = base_name(r, &owned);
		snprintf(cls, sizeof cls, "shadow.%s", base);
		snprintf(name, sizeof name, "%s launch %u (capture %" PRIu64 ")", base, r->launch_index,
		         r->capture_id);
		free(owned);
		enum gt_junit_result res = GT_JUNIT_PASS;
		switch (r->status) {
		case GT_SHADOW_FAIL: res = GT_JUNIT_FAILURE; break;
		case GT_SHADOW_ERROR: res = GT_JUNIT_ERROR; break;
		case GT_SHADOW_INCOMPLETE:
		case GT_SHADOW_NO_REF: res = GT_JUNIT_SKIPPED; break;
		}
		snprintf(msg, sizeof msg, "%s: %s", gt_shadow_status_name(r->status), r->why);
		char *text = NULL;
		size_t tlen = 0;
		FILE *m = open_memstream(&text, &tlen);
		if (!m) {
			rc = GT_ERR_NOMEM;
			break;
		}
		launch_detail(m, r, "");
		if (fclose(m) != 0) {
			free(text);
			rc = GT_ERR_NOMEM;
			break;
		}
		rc = gt_junit_case(ju, cls, name, -1, res, msg, text);
		free(text);
	}
	if (!rc)
		rc = gt_junit_finish(ju, x->out);
	gt_junit_free(ju);
	return rc;
}

/* gt_cmd_print's printer: the report in the format asked for (each printer starts its own JSON). */
static int print_report(FILE *out, struct gt_json *json, void *ctx)
{
	(void)json;
	struct ctx *x = ctx;
	x->out = out;
	return x->fmt == F_JSON ? print_json(x) : x->fmt == F_JUNIT ? print_junit(x) : print_text(x, x->fmt == F_MD);
}

static const char *ref_path;
static int fmt;
static struct gt_name_filter filter;

static const struct gt_option options[] = {
	GT_OPT_REF(&ref_path),
	GT_OPT_KERNEL(&filter),
	GT_OPT_FORMAT_CHOICE(&fmt, formats, "output format (default text)"),
	GT_OPT_END_OF_LIST,
};

static void reset(void)
{
	ref_path = NULL;
	fmt = F_TEXT;
	filter = (struct gt_name_filter){ 0 };
}

static int run(const struct gt_cmd_call *call)
{
	const char *trace = call->files[0];
	int rc = GT_EXIT_OK;
	struct gt_refs *refs = NULL;
	struct gt_shadow_report rep;
	memset(&rep, 0, sizeof rep);
	if (!ref_path) {
		rc = gt_error("shadow: option '--ref' is required: the reference library to replay the "
		              "captures on (see 'gpuanalyze shadow --help')");
		goto done;
	}
	if ((rc = gt_cmd_refs_load(&refs, ref_path)) != 0)
		goto done;
	int src = gt_shadow_run(trace, refs, &filter, &rep);
	if (src > 0) {
		rc = src;
		goto done;
	}
	if (src < 0) {
		rc = gt_error("shadow: %s", gt_strerror(src));
		goto done;
	}
	if (rep.n == 0) {
		if (filter.active && rep.info.captures)
			rc = gt_error("shadow: no captured launch in '%s' is of a kernel matching --kernel '%s' "
			              "(the trace holds %" PRIu64 " captures)", trace, filter.pattern,
			              rep.info.captures);
		else
			rc = gt_error("shadow: '%s' holds no captured launches (record with "
			              "GPUTRACE_SHADOW=PATTERN to capture some)", trace);
		goto done;
	}
	struct ctx x = { trace, refs, &rep, NULL, fmt };
	rc = gt_cmd_print(call, print_report, &x);
	if (rc == GT_EXIT_OK && !gt_shadow_all_passed(&rep))
		rc = GT_EXIT_CHECK;
done:
	gt_shadow_report_release(&rep);
	gt_refs_free(refs);
	return rc;
}

const struct gt_command gt_cmd_shadow = {
	"shadow", "captured launches replayed on CPU references, compared per element", "FILE", 1, 1,
	"Replays every captured kernel launch of the trace (GPUTRACE_SHADOW) on its CPU reference from\n"
	"LIB, on the captured inputs, and compares the reference's outputs with the GPU's: per launch\n"
	"the verdict, mismatches, the worst element and the ULP histogram. Exit 0 when every selected\n"
	"launch was checked and passed; 1 when any failed, or could not be checked (no reference,\n"
	"memory not captured); 2 for a usage or input error.",
	options, reset, run,
};
GT_COMMAND_ENTRY(shadow)
