/* calibrate.c: measures the spread of correct results against a kernel's reference, proposes a bound
 * and counts what each candidate rule does with planted errors (the method is in calibrate.h).
 *
 * Everything is gathered during one walk of the trace (shadow.c) and decided afterwards: the
 * calibrated bound is only known once every distance has been seen, so planted elements are kept
 * (their bits and the decade of their error) and judged at the end with all four rules.
 */
#include "analyze/shadow/calibrate.h"

#include "analyze/shadow/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gt_calib_plant {
	uint64_t w_bits, r_bits;     /* the planted value and the reference's */
	int decade;
};

void gt_calib_options_default(struct gt_calib_options *o)
{
	o->margin = 4.0;
	o->plant_fraction = 0.25;
	o->seed = 7;
	o->plant_min = 1e-6;
	o->plant_max = 1e-1;
}

const char *gt_calib_rule_name(int rule)
{
	switch (rule) {
	case GT_CALIB_REL_1PCT: return "flat 1% relative";
	case GT_CALIB_REL_1E5: return "flat 1e-5 relative";
	case GT_CALIB_DECLARED: return "the reference's declared tolerance";
	case GT_CALIB_BOUND: return "the calibrated ULP bound";
	}
	return "unknown";
}

struct calib {
	struct gt_calib_report *rep;
	const struct gt_calib_options *opt;
	uint64_t rng;
};

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 53 random bits. */
static double uniform(uint64_t *s) { return (double)(splitmix64(s) >> 11) * 0x1.0p-53; }

static int grow(void **p, size_t *cap, size_t n, size_t elem)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 1024;
	void *q = realloc(*p, c * elem);
	if (!q)
		return GT_ERR_NOMEM;
	*p = q;
	*cap = c;
	return 0;
}

static double load(int type, const uint8_t *p, uint64_t *bits)
{
	*bits = 0;
	if (type == GT_REF_F32) {
		float f;
		memcpy(&f, p, 4);
		memcpy(bits, p, 4);
		return f;
	}
	double d;
	memcpy(&d, p, 8);
	memcpy(bits, p, 8);
	return d;
}

static double from_bits(int type, uint64_t bits)
{
	if (type == GT_REF_F32) {
		float f;
		uint32_t b = (uint32_t)bits;
		memcpy(&f, &b, 4);
		return f;
	}
	double d;
	memcpy(&d, &bits, 8);
	return d;
}

static int close_as(int type, double g, double r, const struct gt_ref_tol *t, uint64_t *u)
{
	return type == GT_REF_F32 ? gt_close_f32((float)g, (float)r, t, u) : gt_close_f64(g, r, t, u);
}

/* Memory the reference left as it was before the launch and the result left too: not a computed
 * element, so no part of the spread (a poisoned padding would otherwise count as NaN). */
static int untouched(const uint8_t *got, const uint8_t *ref, const uint8_t *before, uint64_t i, size_t es)
{
	return memcmp(ref + i * es, before + i * es, es) == 0 && memcmp(got + i * es, ref + i * es, es) == 0;
}

/* One correct result: its distances, the fixed rules' rejections, and the planted errors. */
static int add_source(struct calib *c, struct gt_calib_output *o, const char *name, uint64_t capture_id,
                      int order, const uint8_t *got, const uint8_t *ref, const uint8_t *before,
                      uint64_t bytes)
{
	const int type = o->decl->type;
	const size_t es = gt_elem_size(type);
	const uint64_t n = bytes / es;
	if (grow((void **)&o->sources, &o->capsources, o->nsources, sizeof *o->sources))
		return GT_ERR_NOMEM;
	struct gt_calib_source *s = &o->sources[o->nsources];
	memset(s, 0, sizeof *s);
	s->name = strdup(name);
	if (!s->name)
		return GT_ERR_NOMEM;
	o->nsources++;
	s->capture_id = capture_id;
	s->order = order;
	const size_t first = o->ndist;
	uint64_t eligible = 0;
	static const struct gt_ref_tol exact = { 0 };
	for (uint64_t i = 0; i < n; i++) {
		uint64_t gb, rb, u;
		if (untouched(got, ref, before, i, es)) {
			s->unchanged++;
			continue;
		}
		s->elements++;
		double g = load(type, got + i * es, &gb), r = load(type, ref + i * es, &rb);
		close_as(type, g, r, &exact, &u);
		if (u == GT_ULP_INFINITE) {
			s->nonfinite++;
			o->nonfinite++;
		} else {
			if (grow((void **)&o->dist, &o->capdist, o->ndist, sizeof *o->dist))
				return GT_ERR_NOMEM;
			o->dist[o->ndist++] = u;
		}
		for (int k = 0; k < GT_CALIB_RULES; k++)
			if (k != GT_CALIB_BOUND && !close_as(type, g, r, &o->rule[k], NULL))
				o->rejected_correct[k]++;
		eligible += isfinite(g) && g != 0 && isfinite(r);
	}
	/* Per-source statistics on a copy: the aggregate stays unsorted until the end. */
	size_t m = o->ndist - first;
	uint64_t *tmp = malloc((m ? m : 1) * sizeof *tmp);
	if (!tmp)
		return GT_ERR_NOMEM;
	memcpy(tmp, o->dist + first, m * sizeof *tmp);
	gt_stats_compute_u64(&s->st, tmp, m);
	free(tmp);

	/* Selection sampling (Knuth's algorithm S): exactly `want` of the eligible, uniformly. */
	o->eligible += eligible;
	uint64_t want = (uint64_t)llround(c->opt->plant_fraction * (double)eligible), seen = 0;
	const double l0 = log10(c->opt->plant_min), l1 = log10(c->opt->plant_max);
	for (uint64_t i = 0; i < n && want; i++) {
		uint64_t gb, rb;
		if (untouched(got, ref, before, i, es))
			continue;
		double g = load(type, got + i * es, &gb), r = load(type, ref + i * es, &rb);
		if (!(isfinite(g) && g != 0 && isfinite(r)))
			continue;
		uint64_t left = eligible - seen++;
		if (uniform(&c->rng) * (double)left >= (double)want)
			continue;
		want--;
		const double e = pow(10.0, l0 + (l1 - l0) * uniform(&c->rng));
		const double sign = splitmix64(&c->rng) & 1 ? 1.0 : -1.0;
		double w = g * (1.0 + sign * e);
		uint64_t wb;
		if (type == GT_REF_F32) {
			float f = (float)w;
			uint32_t b;
			memcpy(&b, &f, 4);
			wb = b;
		} else {
			memcpy(&wb, &w, 8);
		}
		if (wb == gb) {
			o->rounded_back++;
			continue;
		}
		if (grow((void **)&o->planted, &o->capplanted, o->nplanted, sizeof *o->planted))
			return GT_ERR_NOMEM;
		int d = (int)floor(log10(e)) - o->decade0;
		if (d < 0)
			d = 0;
		if (d >= o->ndecades)
			d = o->ndecades - 1;
		o->planted[o->nplanted++] = (struct gt_calib_plant){ wb, rb, d };
	}
	return 0;
}

static int setup_outputs(struct calib *c, const struct gt_ref *ref)
{
	struct gt_calib_report *rep = c->rep;
	unsigned nf = 0;
	for (unsigned k = 0; k < ref->noutputs; k++)
		nf += gt_elem_is_float(ref->outputs[k].type);
	if (!nf) {
		snprintf(rep->error, sizeof rep->error, "the reference for %s has no float outputs: "
		         "integers compare exactly, there is nothing to calibrate", ref->kernel);
		return GT_ERR_ARG;
	}
	rep->outputs = calloc(nf, sizeof *rep->outputs);
	if (!rep->outputs)
		return GT_ERR_NOMEM;
	int d0 = (int)floor(log10(c->opt->plant_min)), d1 = (int)ceil(log10(c->opt->plant_max));
	if (d1 <= d0)
		d1 = d0 + 1;
	if (d1 - d0 > GT_CALIB_DECADES)
		d0 = d1 - GT_CALIB_DECADES;
	for (unsigned k = 0; k < ref->noutputs; k++) {
		if (!gt_elem_is_float(ref->outputs[k].type))
			continue;
		struct gt_calib_output *o = &rep->outputs[rep->noutputs++];
		o->param = ref->outputs[k].param;
		o->decl = &ref->outputs[k];
		o->rule[GT_CALIB_REL_1PCT].rel = 1e-2;
		o->rule[GT_CALIB_REL_1E5].rel = 1e-5;
		o->rule[GT_CALIB_DECLARED] = o->decl->tol;
		o->decade0 = d0;
		o->ndecades = d1 - d0;
	}
	return 0;
}

static int visit(void *ctx, const struct gt_shadow_launch *l)
{
	struct calib *c = ctx;
	struct gt_calib_report *rep = c->rep;
	if (!rep->kernel) {
		rep->kernel = strdup(l->kernel);
		rep->demangled = strdup(l->demangled ? l->demangled : l->kernel);
		if (!rep->kernel || !rep->demangled)
			return GT_ERR_NOMEM;
	} else if (strcmp(rep->kernel, l->kernel) != 0) {
		snprintf(rep->error, sizeof rep->error, "--kernel selects captures of several kernels (%s, "
		         "%s, ...): calibrate works on one kernel at a time", rep->demangled,
		         l->demangled ? l->demangled : l->kernel);
		return GT_ERR_ARG;
	}
	if (!l->ready) {
		if (l->status == GT_SHADOW_NO_REF) {
			snprintf(rep->error, sizeof rep->error, "no reference for %s in the library",
			         l->demangled ? l->demangled : l->kernel);
			return GT_ERR_ARG;
		}
		if (!rep->skipped++)
			snprintf(rep->skipped_why, sizeof rep->skipped_why, "capture %llu: %s",
			         (unsigned long long)l->cap.capture_id, l->why);
		return 0;
	}
	const struct gt_ref *ref = l->ref;
	if (!rep->ref) {
		rep->ref = ref;
		int rc = setup_outputs(c, ref);
		if (rc)
			return rc;
	}
	struct gt_shadow_call call;
	if (gt_shadow_call_init(&call, l) != 0)
		return GT_ERR_NOMEM;
	if (gt_shadow_call_run(&call, ref, -1) != 0) {
		if (!rep->skipped++)
			snprintf(rep->skipped_why, sizeof rep->skipped_why, "capture %llu: the reference refused "
			         "it: %s", (unsigned long long)l->cap.capture_id, call.call.message);
		gt_shadow_call_release(&call);
		return 0;
	}
	rep->launches++;
	int rc = 0;
	/* The reference's outputs, kept while the orders reuse the working copies. */
	uint8_t **refout = calloc(rep->noutputs, sizeof *refout);
	if (!refout)
		rc = GT_ERR_NOMEM;
	for (unsigned k = 0; k < rep->noutputs && !rc; k++) {
		const struct gt_shadow_param *p = &l->params[rep->outputs[k].param];
		uint64_t bytes = p->cp.alloc_bytes - p->offset;
		refout[k] = malloc(bytes ? bytes : 1);
		if (!refout[k])
			rc = GT_ERR_NOMEM;
		else if (bytes)
			memcpy(refout[k], call.base[rep->outputs[k].param] + p->offset, bytes);
	}
	char name[300];
	for (unsigned k = 0; k < rep->noutputs && !rc; k++) {
		struct gt_calib_output *o = &rep->outputs[k];
		const struct gt_shadow_param *p = &l->params[o->param];
		snprintf(name, sizeof name, "capture %llu: the GPU", (unsigned long long)l->cap.capture_id);
		rc = add_source(c, o, name, l->cap.capture_id, -1, p->after + p->offset, refout[k],
		                p->before + p->offset, p->cp.alloc_bytes - p->offset);
	}
	for (unsigned ord = 0; ord < ref->norders && !rc; ord++) {
		gt_shadow_call_reset(&call);
		if (gt_shadow_call_run(&call, ref, (int)ord) != 0) {
			if (!rep->skipped_why[0])
				snprintf(rep->skipped_why, sizeof rep->skipped_why, "capture %llu: order '%s' refused "
				         "it: %s", (unsigned long long)l->cap.capture_id, ref->order_names[ord],
				         call.call.message);
			continue;
		}
		for (unsigned k = 0; k < rep->noutputs && !rc; k++) {
			struct gt_calib_output *o = &rep->outputs[k];
			const struct gt_shadow_param *p = &l->params[o->param];
			snprintf(name, sizeof name, "capture %llu: %s", (unsigned long long)l->cap.capture_id,
			         ref->order_names[ord]);
			rc = add_source(c, o, name, l->cap.capture_id, (int)ord, call.base[o->param] + p->offset,
			                refout[k], p->before + p->offset, p->cp.alloc_bytes - p->offset);
		}
	}
	for (unsigned k = 0; refout && k < rep->noutputs; k++)
		free(refout[k]);
	free(refout);
	gt_shadow_call_release(&call);
	return rc;
}

/* After the walk: the aggregate spread, the bound, and every rule's verdict on the planted. */
static void decide(struct gt_calib_report *rep)
{
	for (unsigned k = 0; k < rep->noutputs; k++) {
		struct gt_calib_output *o = &rep->outputs[k];
		const int type = o->decl->type;
		gt_stats_compute_u64(&o->st, o->dist, o->ndist); /* sorts dist */
		o->has_bound = o->ndist > 0;
		if (o->has_bound) {
			double b = ceil(o->st.max * rep->opt.margin);
			o->bound = b >= 1.8e19 ? UINT64_MAX - 1 : (uint64_t)b;
		}
		o->rule[GT_CALIB_BOUND].ulps = o->bound;
		/* Correct elements the bound rejects: the sorted distances above it, and every NaN. */
		uint64_t above = 0;
		for (size_t i = o->ndist; i > 0 && o->dist[i - 1] > o->bound; i--)
			above++;
		o->rejected_correct[GT_CALIB_BOUND] = above + o->nonfinite;
		for (size_t i = 0; i < o->nplanted; i++) {
			const struct gt_calib_plant *p = &o->planted[i];
			double w = from_bits(type, p->w_bits), r = from_bits(type, p->r_bits);
			o->dec_planted[p->decade]++;
			for (int rule = 0; rule < GT_CALIB_RULES; rule++) {
				if (close_as(type, w, r, &o->rule[rule], NULL)) {
					o->accepted[rule]++;
					o->dec_accepted[p->decade][rule]++;
				}
			}
		}
	}
}

int gt_calib_run(const char *path, const struct gt_refs *refs, const struct gt_name_filter *filter,
                 const struct gt_calib_options *opt, struct gt_calib_report *rep)
{
	memset(rep, 0, sizeof *rep);
	rep->opt = *opt;
	struct calib c = { rep, &rep->opt, opt->seed };
	int rc = gt_shadow_walk(path, refs, filter, visit, &c, &rep->info);
	if (rc)
		return rc;
	if (!rep->kernel) {
		snprintf(rep->error, sizeof rep->error, "no captured launch is selected");
		return GT_ERR_ARG;
	}
	if (!rep->launches) {
		snprintf(rep->error, sizeof rep->error, "no capture of %s could be replayed (%s)",
		         rep->demangled, rep->skipped_why[0] ? rep->skipped_why : "none is complete");
		return GT_ERR_ARG;
	}
	decide(rep);
	return 0;
}

void gt_calib_report_release(struct gt_calib_report *rep)
{
	if (!rep)
		return;
	for (unsigned k = 0; k < rep->noutputs; k++) {
		struct gt_calib_output *o = &rep->outputs[k];
		for (size_t s = 0; s < o->nsources; s++)
			free(o->sources[s].name);
		free(o->sources);
		free(o->dist);
		free(o->planted);
	}
	free(rep->outputs);
	free(rep->kernel);
	free(rep->demangled);
	gt_shadow_walk_info_release(&rep->info);
	memset(rep, 0, sizeof *rep);
}
