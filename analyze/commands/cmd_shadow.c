/* cmd_shadow.c: `gpuanalyze shadow`: captured kernel launches replayed on CPU references.
 *
 * Options and the document it fills only; shadow.c loads the references, walks the trace and
 * compares. Every format carries the same facts: per launch its verdict, mismatches, worst element
 * (index, both values and their bits, absolute error, ULPs) and ULP histogram; the tolerance of
 * every output with its reason; launches that could not be checked and why. Exit status 0 only
 * when every selected launch was checked and passed: a launch without a reference, or whose memory
 * was not captured, is not a pass (exit 1), and neither is a trace without captures (exit 2, an
 * input error).
 */
#include "analyze/commands/cmd_output.h"
#include "analyze/commands/refs.h"
#include "analyze/commands/commands.h"
#include "analyze/shadow/compare.h"
#include "analyze/support/diag.h"
#include "analyze/output/doc.h"
#include "analyze/output/junit.h"
#include "analyze/support/options.h"
#include "analyze/output/output.h"
#include "analyze/shadow/shadow.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The formats offered: JUnit for CI's test reporters, beside the usual ones but CSV. */
#define FORMATS (GT_FMT_TEXT | GT_FMT_MD | GT_FMT_JSON | GT_FMT_JUNIT)

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

static void histogram_text(struct gt_doc *d, const struct gt_compare_result *c)
{
	int first = 1;
	for (int b = 0; b < GT_ULP_BUCKETS; b++) {
		if (!c->hist[b])
			continue;
		char lb[64];
		gt_doc_words(d, "%s%s: %" PRIu64, first ? "" : ", ", gt_ulp_bucket_label(b, lb, sizeof lb),
		             c->hist[b]);
		first = 0;
	}
	if (first)
		gt_doc_words(d, "(no elements)");
}

/* The start of a line of a launch's detail: text indents it under the launch's line by ind; a
 * Markdown code block and a JUnit case's body (a text document of its own, ind "") do not. */
static void indent(struct gt_doc *d, const char *ind) { gt_doc_words_by_format(d, NULL, ind); }

static void output_detail(struct gt_doc *d, const struct gt_shadow_output *o, const char *ind)
{
	char tb[128], nb[32], g[48], rv[48], gb[24], rb[24], u[32];
	const struct gt_compare_result *c = &o->cmp;
	indent(d, ind);
	gt_doc_printf_plain(d, "output %s (parameter %u, %s, %" PRIu64 " elements from the pointer to the "
	                    "end of its allocation), tolerance %s: %s\n", out_name(o, nb, sizeof nb), o->param,
	                    gt_elem_type_name(c->type), c->elements,
	                    gt_tol_describe(&o->decl->tol, tb, sizeof tb), gt_compare_passed(c) ? "pass" : "FAIL");
	if (c->mismatches) {
		indent(d, ind);
		gt_doc_words(d, "  %" PRIu64 " mismatch%s, the first at [%" PRIu64 "]\n", c->mismatches,
		             c->mismatches == 1 ? "" : "es", c->first_mismatch);
	}
	if (c->has_worst) {
		const struct gt_compare_worst *w = &c->worst;
		indent(d, ind);
		gt_doc_words(d, "  worst [%" PRIu64 "]: GPU %s (%s), reference %s (%s), abs error %.6g, %s ULP\n",
		             w->index, value_text(g, sizeof g, c->type, w->gpu_bits),
		             bits_text(gb, sizeof gb, c->type, w->gpu_bits),
		             value_text(rv, sizeof rv, c->type, w->ref_bits),
		             bits_text(rb, sizeof rb, c->type, w->ref_bits), w->abs_err,
		             ulps_text(u, sizeof u, w->ulps));
	}
	indent(d, ind);
	gt_doc_words(d, "  ULP distances: ");
	histogram_text(d, c);
	gt_doc_words(d, "\n");
	if (c->tail_bytes) {
		indent(d, ind);
		gt_doc_words(d, "  %" PRIu64 " bytes after the last whole element: %" PRIu64 " differ\n",
		             c->tail_bytes, c->tail_mismatches);
	}
}

/* The detail of one launch, for text (ind "  "), a Markdown code block and a JUnit case body
 * (ind ""). The kernel's name, the reason and the output names go through the text rule in every
 * one of them: one line each, no controls. */
static void launch_detail(struct gt_doc *d, const struct gt_shadow_result *r, const char *ind)
{
	indent(d, ind);
	gt_doc_printf_plain(d, "%s; grid (%u, %u, %u), block (%u, %u, %u), %u B dynamic shared memory\n",
	                    r->demangled, r->grid[0], r->grid[1], r->grid[2], r->block[0], r->block[1],
	                    r->block[2], r->dynamic_smem);
	if (r->status != GT_SHADOW_PASS && r->status != GT_SHADOW_FAIL) {
		indent(d, ind);
		gt_doc_printf_plain(d, "%s: %s\n", gt_shadow_status_name(r->status), r->why);
		return;
	}
	for (unsigned k = 0; k < r->noutputs; k++)
		output_detail(d, &r->outputs[k], ind);
	for (unsigned k = 0; k < r->nother; k++) {
		const struct gt_shadow_other *ot = &r->other[k];
		if (!ot->bytes)
			continue;
		indent(d, ind);
		if (ot->differing)
			gt_doc_words(d, "parameter %u's allocation, outside the declared outputs: %" PRIu64 " of %" PRIu64
			             " bytes changed, the first at byte %" PRIu64 "\n", ot->param, ot->differing, ot->bytes,
			             ot->first);
		else
			gt_doc_words(d, "parameter %u's allocation, outside the declared outputs: %" PRIu64
			             " bytes, unchanged\n", ot->param, ot->bytes);
	}
}

struct ctx {
	const char *trace;
	const struct gt_refs *refs;
	const struct gt_shadow_report *rep;
};


static int summary_table(struct gt_doc *d, const struct ctx *x)
{
	const struct gt_column cols[] = {
		{ "capture", "capture", 0 }, { "launch", "launch", 0 },
		{ "kernel", "kernel", GT_COL_LEFT | GT_COL_CODE },
		{ "verdict", "verdict", GT_COL_LEFT }, { "mismatches", "mismatches", 0 },
		{ "elements", "elements", 0 },
		{ "worst", "worst element (GPU vs reference)", GT_COL_LEFT | GT_COL_CODE },
	};
	struct gt_table *t = gt_doc_table(d, NULL, GT_COLUMNS(cols));
	if (!t)
		return GT_ERR_NOMEM;
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
	return gt_table_close(t);
}

/* Each distinct (reference, output) once: the tolerance and its reason. The line starts with the
 * reference's kernel name, so it is no note (a note's Markdown item drops leading spaces). */
static void tolerances(struct gt_doc *d, const struct ctx *x)
{
	size_t total = 1, nseen = 0;
	for (size_t i = 0; i < x->rep->n; i++)
		total += x->rep->launches[i].noutputs;
	const struct gt_ref_output **seen = calloc(total, sizeof *seen);
	for (size_t i = 0; i < x->rep->n; i++) {
		const struct gt_shadow_result *r = &x->rep->launches[i];
		for (unsigned k = 0; k < r->noutputs; k++) {
			const struct gt_ref_output *o = r->outputs[k].decl;
			int dup = 0;
			for (size_t s = 0; s < nseen && !dup; s++)
				dup = seen[s] == o;
			if (dup)
				continue;
			if (seen)
				seen[nseen++] = o;
			char tb[128], nb[32], line[2048];
			snprintf(line, sizeof line, "%s %s (%s): %s. %s", r->ref->kernel,
			         out_name(&r->outputs[k], nb, sizeof nb), gt_elem_type_name(o->type),
			         gt_tol_describe(&o->tol, tb, sizeof tb),
			         o->reason && *o->reason ? o->reason : "(no reason given)");
			gt_doc_words_by_format(d, "- ", "  ");
			gt_doc_prose(d, line);
			gt_doc_words(d, "\n");
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

/* One note, cut at 1 KiB as the preamble's lines always were. */
static void line_note(struct gt_doc *d, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void line_note(struct gt_doc *d, const char *format, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, format);
	vsnprintf(line, sizeof line, format, ap);
	va_end(ap);
	gt_doc_note(d, "%s", line);
}

/* The human formats' title and notes on the references and the trace (JSON says them as facts). */
static void preamble(struct gt_doc *d, const struct ctx *x)
{
	const struct gt_shadow_walk_info *in = &x->rep->info;
	const struct gt_ref_table *t = x->refs->table;
	gt_doc_words_by_format(d, "# Shadow replay: ", "shadow replay of ");
	gt_doc_name(d, x->trace);
	gt_doc_words_by_format(d, "\n\n", "\n");
	line_note(d, "references: %s (\"%s\", reference ABI %u, %u references)",
	          x->refs->path ? x->refs->path : "(in-process)", t->name ? t->name : "", (unsigned)t->abi,
	          t->count);
	if (in->synthetic)
		line_note(d, "trace: synthetic (%s): not recorded on a GPU", in->synthetic);
	if (in->recorded_on)
		line_note(d, "recorded on: %s", in->recorded_on);
	if (!in->complete)
		line_note(d, "trace: ends early (%" PRIu64 " bytes of an incomplete chunk lost): captures after its "
		          "last complete chunk are missing", in->lost_bytes);
	line_note(d, "captures: %" PRIu64 " in the trace, %" PRIu64 " selected; %" PRIu64 " launches the "
	          "recorder did not capture (caps, uncopyable memory)", in->captures, in->selected,
	          in->captures_dropped);
	line_note(d, "buffers: %.3f MB reassembled, at most %.3f MB held at once (the before and after copies "
	          "of the captures being replayed, one working copy)", (double)in->blob_bytes_read / 1e6,
	          (double)in->peak_bytes / 1e6);
	line_note(d, "rule: %s", RULE);
	gt_doc_words(d, "\n");
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

/* The fence of a Markdown code block; text has none. */
static void fence_line(struct gt_doc *d, int n)
{
	while (n-- > 0)
		gt_doc_words_by_format(d, "`", NULL);
	gt_doc_words_by_format(d, "\n", NULL);
}

/* One launch for people: its line (a Markdown heading) and its detail (a Markdown code block). */
static void launch_text(struct gt_doc *d, const struct gt_shadow_result *r)
{
	char *owned;
	const char *name = base_name(r, &owned);
	int fence = fence_length(r->demangled);
	gt_doc_words_by_format(d, "### ", NULL);
	gt_doc_words(d, "capture %" PRIu64 ", ", r->capture_id);
	gt_doc_name(d, name);
	gt_doc_words(d, " launch %u: %s\n", r->launch_index, verdict_upper(r->status));
	free(owned);
	gt_doc_words_by_format(d, "\n", NULL);
	fence_line(d, fence);
	launch_detail(d, r, "  ");
	fence_line(d, fence);
	gt_doc_words(d, "\n");
}

static void json_output(struct gt_doc *d, const struct gt_shadow_output *o)
{
	char buf[64];
	const struct gt_compare_result *c = &o->cmp;
	gt_doc_object(d, NULL);
	gt_doc_str(d, "name", out_name(o, buf, sizeof buf));
	gt_doc_u64(d, "param", o->param);
	gt_doc_str(d, "type", gt_elem_type_name(c->type));
	gt_cmd_ref_tol(d, "tolerance", &o->decl->tol);
	gt_doc_bool(d, "passed", gt_compare_passed(c));
	gt_doc_u64(d, "elements", c->elements);
	gt_doc_u64(d, "mismatches", c->mismatches);
	gt_doc_u64_if(d, "first_mismatch", c->first_mismatch != UINT64_MAX, c->first_mismatch);
	if (!c->has_worst) {
		gt_doc_null(d, "worst");
	} else {
		const struct gt_compare_worst *w = &c->worst;
		gt_doc_object(d, "worst");
		gt_doc_u64(d, "index", w->index);
		gt_doc_num(d, "gpu", w->gpu);
		gt_doc_num(d, "ref", w->ref);
		gt_doc_str(d, "gpu_bits", bits_text(buf, sizeof buf, c->type, w->gpu_bits));
		gt_doc_str(d, "ref_bits", bits_text(buf, sizeof buf, c->type, w->ref_bits));
		gt_doc_num(d, "abs_err", w->abs_err);
		gt_doc_u64_if(d, "ulps", w->ulps != GT_ULP_INFINITE, w->ulps);
		gt_doc_bool(d, "nonfinite", w->ulps == GT_ULP_INFINITE);
		gt_doc_bool(d, "passed", w->pass);
		gt_doc_end(d);
	}
	gt_doc_u64(d, "tail_bytes", c->tail_bytes);
	gt_doc_u64(d, "tail_mismatches", c->tail_mismatches);
	gt_doc_array(d, "ulp_histogram");
	for (int b = 0; b < GT_ULP_BUCKETS; b++) {
		if (!c->hist[b])
			continue;
		gt_doc_object(d, NULL);
		gt_doc_str(d, "ulps", gt_ulp_bucket_label(b, buf, sizeof buf));
		gt_doc_u64(d, "count", c->hist[b]);
		gt_doc_end(d);
	}
	gt_doc_end(d);
	gt_doc_end(d);
}

static void json_launch(struct gt_doc *d, const struct gt_shadow_result *r)
{
	char *owned;
	gt_doc_object(d, NULL);
	gt_doc_u64(d, "capture_id", r->capture_id);
	gt_doc_u64(d, "launch_index", r->launch_index);
	gt_doc_str(d, "kernel", r->kernel);
	gt_doc_str(d, "demangled", r->demangled);
	gt_doc_str(d, "name", base_name(r, &owned));
	free(owned);
	gt_doc_str(d, "reference", r->ref ? r->ref->kernel : NULL);
	gt_doc_array(d, "grid");
	for (int i = 0; i < 3; i++)
		gt_doc_u64(d, NULL, r->grid[i]);
	gt_doc_end(d);
	gt_doc_array(d, "block");
	for (int i = 0; i < 3; i++)
		gt_doc_u64(d, NULL, r->block[i]);
	gt_doc_end(d);
	gt_doc_u64(d, "dynamic_smem", r->dynamic_smem);
	gt_doc_str(d, "verdict", gt_shadow_status_name(r->status));
	gt_doc_str(d, "why", r->why[0] ? r->why : NULL);
	gt_doc_array(d, "outputs");
	for (unsigned k = 0; k < r->noutputs; k++)
		json_output(d, &r->outputs[k]);
	gt_doc_end(d);
	gt_doc_array(d, "outside_outputs");
	for (unsigned k = 0; k < r->nother; k++) {
		const struct gt_shadow_other *ot = &r->other[k];
		gt_doc_object(d, NULL);
		gt_doc_u64(d, "param", ot->param);
		gt_doc_u64(d, "bytes", ot->bytes);
		gt_doc_u64(d, "differing", ot->differing);
		gt_doc_u64_if(d, "first", ot->first != UINT64_MAX, ot->first);
		gt_doc_end(d);
	}
	gt_doc_end(d);
	gt_doc_end(d);
}

/* The facts before the launches: JSON's head, the references, the rule and the captures. */
static void json_head(struct gt_doc *d, const struct ctx *x)
{
	const struct gt_shadow_walk_info *in = &x->rep->info;
	const struct gt_ref_table *t = x->refs->table;
	gt_cmd_ref_head(d, "shadow", x->trace, in->synthetic, in->recorded_on);
	gt_doc_bool(d, "complete", in->complete);
	gt_doc_object(d, "references");
	gt_doc_str(d, "path", x->refs->path);
	gt_doc_str(d, "name", t->name);
	gt_doc_u64(d, "abi", t->abi);
	gt_doc_u64(d, "count", t->count);
	gt_doc_end(d);
	gt_doc_str(d, "rule", RULE);
	gt_doc_u64(d, "captures", in->captures);
	gt_doc_u64(d, "selected", in->selected);
	gt_doc_u64(d, "captures_dropped", in->captures_dropped);
	gt_doc_u64(d, "buffer_bytes_reassembled", in->blob_bytes_read);
	gt_doc_u64(d, "buffer_bytes_peak", in->peak_bytes);
}

/* The facts after the launches: the counts and the verdict; the end of the JSON document. */
static void json_tail(struct gt_doc *d, const struct ctx *x)
{
	gt_doc_object(d, "counts");
	for (int s = 0; s < GT_SHADOW_NSTATUS; s++)
		gt_doc_u64(d, s == GT_SHADOW_NO_REF ? "no_reference" : gt_shadow_status_name(s), x->rep->count[s]);
	gt_doc_end(d);
	gt_doc_bool(d, "passed", gt_shadow_all_passed(x->rep));
	gt_doc_end(d);
}

/* JUnit's suite and its properties. */
static void junit_head(struct gt_doc *d, const struct ctx *x)
{
	gt_doc_suite(d, "gpuanalyze shadow");
	gt_doc_property(d, "trace", x->trace);
	gt_doc_property(d, "references", x->refs->path ? x->refs->path : "(in-process)");
	if (x->rep->info.synthetic)
		gt_doc_property(d, "synthetic", x->rep->info.synthetic);
}

/* One launch as a JUnit case, its body the launch's detail as text writes it, unindented. Only
 * JUnit has cases: the body is not written for another format. */
static int junit_case(struct gt_doc *d, const struct gt_shadow_result *r)
{
	if (gt_doc_format(d) != GT_FMT_JUNIT)
		return 0;
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
	struct gt_doc *body = gt_doc_open_string(GT_FMT_TEXT);
	if (!body)
		return GT_ERR_NOMEM;
	launch_detail(body, r, "");
	int rc;
	char *text = gt_doc_close_string(body, &rc);
	if (text)
		gt_doc_case(d, cls, name, -1, res, msg, text);
	free(text);
	return rc;
}

/* gt_cmd_filler: the report, each format taking what it carries: JSON the facts, JUnit the suite
 * and its cases, text and Markdown the rest. */
static int fill(struct gt_doc *d, void *ctx)
{
	const struct ctx *x = ctx;
	int rc = 0;
	json_head(d, x);
	junit_head(d, x);
	preamble(d, x);
	if (gt_doc_for_people(d))
		rc = summary_table(d, x);
	gt_doc_words_by_format(d, "\n## Launches\n\n", "\n");
	gt_doc_array(d, "launches");
	for (size_t i = 0; i < x->rep->n; i++) {
		const struct gt_shadow_result *r = &x->rep->launches[i];
		json_launch(d, r);
		launch_text(d, r);
		int crc = junit_case(d, r);
		if (crc)
			return crc;
	}
	gt_doc_end(d);
	json_tail(d, x);
	gt_doc_words_by_format(d, "## Tolerances\n\n", "tolerances:\n");
	tolerances(d, x);
	char res[256];
	result_line(x, res, sizeof res);
	gt_doc_words_by_format(d, "\n**", "\nresult: ");
	gt_doc_words(d, "%s", res);
	gt_doc_words_by_format(d, "**\n", "\n");
	return rc;
}

static const char *ref_path;
static enum gt_format fmt;
static struct gt_name_filter filter;

static const struct gt_option options[] = {
	GT_OPT_REF(&ref_path),
	GT_OPT_KERNEL(&filter),
	{ .kind = GT_OPT_FORMAT, .short_name = 'f', .long_name = "format",
	  .help = "output format (default text)", .value = &fmt, .formats = FORMATS },
	GT_OPT_END_OF_LIST,
};

static void reset(void)
{
	ref_path = NULL;
	fmt = GT_FMT_TEXT;
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
		rc = gt_cli_usage_error(&gt_gpuanalyze_tool, "shadow", "option '--ref' is required: the reference "
		                        "library to replay the captures on");
		goto done;
	}
	if ((rc = gt_cmd_refs_load(&refs, ref_path)) != 0)
		goto done;
	int src = gt_shadow_run(trace, refs, &filter, &rep);
	if (src < 0) {
		/* The runner says the walk's held words (failure.h), or else "shadow: REASON". */
		rc = src;
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
	struct ctx x = { trace, refs, &rep };
	rc = gt_cmd_render(call, fmt, fill, &x);
	if (rc == GT_EXIT_OK && !gt_shadow_all_passed(&rep))
		rc = GT_EXIT_CHECK;
done:
	gt_shadow_report_release(&rep);
	gt_refs_free(refs);
	return rc;
}

const struct gt_command gt_cmd_shadow = {
	.name = "shadow",
	.help = "captured launches replayed on CPU references, compared per element",
	.operands = "FILE",
	.min_operands = 1,
	.max_operands = 1,
	.description =
	"Replays every captured kernel launch of the trace (GPUTRACE_SHADOW) on its CPU reference from\n"
	"LIB, on the captured inputs, and compares the reference's outputs with the GPU's: per launch\n"
	"the verdict, mismatches, the worst element and the ULP histogram. Exit 0 when every selected\n"
	"launch was checked and passed; 1 when any failed, or could not be checked (no reference,\n"
	"memory not captured); 2 for a usage or input error.",
	.options = options,
	.reset = reset,
	.run = run,
};
GT_COMMAND_ENTRY(shadow)
