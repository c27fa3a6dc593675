/* diff.c: compares two traces kernel by kernel and decides each kernel's verdict (diff.h).
 *
 * Both traces are collected by samples.c, so each kernel's durations arrive sorted: the medians
 * are read off, the rank test is one merge, and the bootstrap draws order statistics, so a kernel
 * costs O(n) for the test and O(B) for the interval however many launches it has. Kernels are
 * matched by the name the trace holds (mangled), which is what identifies a kernel across builds.
 * Each trace is read once: the same pass feeds split.c, from the trace's first NVTX range on, for
 * the unit rows. Several runs per side go into one samples collector per side (pooled) and one
 * split per run, whose units are pooled when the rows are made.
 */
#include "analyze/engines/diff.h"

#include "analyze/support/failure.h"
#include "analyze/support/load.h"
#include "analyze/engines/split.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *gt_verdict_name(int v)
{
	switch (v) {
	case GT_VERDICT_SAME: return "SAME";
	case GT_VERDICT_FASTER: return "FASTER";
	case GT_VERDICT_SLOWER: return "SLOWER";
	default: return "UNCLEAR";
	}
}

void gt_diff_options_default(struct gt_diff_options *o)
{
	memset(o, 0, sizeof *o);
	o->threshold = 0.05;
	o->seed = 1;
	o->resamples = 2000;
	o->min_samples = 10;
	o->alpha = 0.05;
}

const char *gt_diff_change(double s, char *buf, size_t len)
{
	if (!isfinite(s) || s <= 0)
		snprintf(buf, len, "n/a");
	else if (s == 1)
		snprintf(buf, len, "1.00x (equal medians)");
	else if (s > 1)
		snprintf(buf, len, "%.2fx faster", s);
	else
		snprintf(buf, len, "%.2fx slower", 1 / s);
	return buf;
}

int gt_diff_verdict(double lo, double hi, double p, const struct gt_diff_options *o, char *why,
                    size_t len)
{
	char dummy[8];
	if (!why) {
		why = dummy;
		len = sizeof dummy;
	}
	double L = 1 + o->threshold, inv = 1 / L;
	int test = !isnan(p);
	if (isnan(lo) || isnan(hi)) {
		snprintf(why, len, "no interval: a median is 0 ns, the ratio is undefined");
		return GT_VERDICT_UNCLEAR;
	}
	if (lo >= inv && hi <= L) {
		snprintf(why, len, "95%% interval of old/new [%.4g, %.4g] within [%.4g, %.4g]", lo, hi, inv, L);
		return GT_VERDICT_SAME;
	}
	if (hi < inv || lo > L) {
		int slower = hi < inv;
		if (test && !(p < o->alpha)) {
			snprintf(why, len, "95%% interval beyond %.4gx %s, but Mann-Whitney p = %.3g >= %g", L,
			         slower ? "slower" : "faster", p, o->alpha);
			return GT_VERDICT_UNCLEAR;
		}
		char pv[40] = "";
		if (test && p < 1e-300)
			snprintf(pv, sizeof pv, ", Mann-Whitney p < 1e-300");
		else if (test)
			snprintf(pv, sizeof pv, ", Mann-Whitney p = %.3g", p);
		if (slower)
			snprintf(why, len, "whole 95%% interval of new/old [%.4g, %.4g] above %.4g%s", 1 / hi,
			         1 / lo, L, pv);
		else
			snprintf(why, len, "whole 95%% interval of old/new [%.4g, %.4g] above %.4g%s", lo, hi, L, pv);
		return slower ? GT_VERDICT_SLOWER : GT_VERDICT_FASTER;
	}
	snprintf(why, len, "95%% interval of old/new [%.4g, %.4g] straddles %.4g", lo, hi,
	         lo < inv ? inv : L);
	return GT_VERDICT_UNCLEAR;
}

static void rows_free(struct gt_diff *d)
{
	free(d->rows);
	d->rows = NULL;
	d->nrows = 0;
}

static void unit_samples_free(struct gt_kernel_sample *k, size_t n)
{
	for (size_t i = 0; k && i < n; i++) {
		free(k[i].name);
		free(k[i].display);
		free(k[i].dur);
	}
	free(k);
}

void gt_diff_release(struct gt_diff *d)
{
	if (!d)
		return;
	rows_free(d);
	unit_samples_free(d->ubase, d->nunit_rows);
	unit_samples_free(d->unew, d->nunit_rows);
	free(d->unit_range);
	gt_samples_release(&d->base);
	gt_samples_release(&d->new);
	memset(d, 0, sizeof *d);
}

static void one_sided(struct gt_diff_row *r, int side, const struct gt_kernel_sample *k)
{
	memset(r, 0, sizeof *r);
	r->side = side;
	if (side == GT_DIFF_BASE_ONLY)
		r->base = k;
	else
		r->new = k;
	r->name = k->name;
	r->display = k->display;
	r->speedup = NAN;
	r->ci.lo = r->ci.hi = NAN;
	r->mwu.p = r->mwu.u1 = r->mwu.z = NAN;
	r->verdict = GT_VERDICT_UNCLEAR;
	snprintf(r->why, sizeof r->why, "only in %s", side == GT_DIFF_BASE_ONLY ? "BASE" : "NEW");
}

/* One kernel on both sides: ratio, interval (replicates into reps), rank test, verdict. Returns 1
 * when the replicates can go into the geometric mean. */
static int compare(struct gt_diff_row *r, const struct gt_diff_options *o, double *reps,
                   double *scratch, int *rc)
{
	const struct gt_kernel_sample *b = r->base, *n = r->new;
	*rc = 0;
	r->speedup = b->st.median > 0 && n->st.median > 0 ? b->st.median / n->st.median : NAN;
	r->ci.lo = r->ci.hi = NAN;
	int usable = 0;
	if (b->n && n->n) {
		struct gt_rng g;
		gt_rng_seed(&g, o->seed, gt_rng_key(r->name));
		gt_boot_ratio_ci_u64(&g, b->dur, b->n, n->dur, n->n, o->resamples, reps, scratch, &r->ci);
		usable = !r->ci.undefined;
	}
	if ((*rc = gt_mwu_sorted_u64(b->dur, b->n, n->dur, n->n, &r->mwu)) != 0)
		return 0;
	if (b->n < o->min_samples || n->n < o->min_samples) {
		snprintf(r->why, sizeof r->why, "too few samples: n = %zu in BASE, %zu in NEW (at least %zu each)",
		         b->n, n->n, o->min_samples);
		r->verdict = GT_VERDICT_UNCLEAR;
		return 0;
	}
	r->verdict = gt_diff_verdict(r->ci.lo, r->ci.hi, r->mwu.p, o, r->why, sizeof r->why);
	return usable && isfinite(r->speedup);
}

/* Rows a reader should see first come first: SLOWER, UNCLEAR, FASTER, SAME; within a verdict
 * (and among one-sided kernels) the kernels with the most time in the trace that has them. */
static int rank_of(int v)
{
	static const int rank[GT_NVERDICTS] = { [GT_VERDICT_SLOWER] = 0, [GT_VERDICT_UNCLEAR] = 1,
		                                [GT_VERDICT_FASTER] = 2, [GT_VERDICT_SAME] = 3 };
	return v >= 0 && v < GT_NVERDICTS ? rank[v] : GT_NVERDICTS;
}

static int cmp_rows(const void *pa, const void *pb)
{
	const struct gt_diff_row *a = pa, *b = pb;
	if (a->side != b->side)
		return a->side - b->side;
	if (a->side == GT_DIFF_BOTH && a->verdict != b->verdict)
		return rank_of(a->verdict) - rank_of(b->verdict);
	const struct gt_kernel_sample *ka = a->base ? a->base : a->new, *kb = b->base ? b->base : b->new;
	if (ka->st.total != kb->st.total)
		return ka->st.total < kb->st.total ? 1 : -1;
	return strcmp(a->name, b->name);
}

int gt_diff_compute(struct gt_diff *d, struct gt_samples *base, struct gt_samples *new,
                    const struct gt_diff_options *o)
{
	memset(d, 0, sizeof *d);
	d->opt = *o;
	d->base = *base;
	d->new = *new;
	memset(base, 0, sizeof *base);
	memset(new, 0, sizeof *new);
	const struct gt_samples *A = &d->base, *N = &d->new;
	size_t cap = A->nkernels + N->nkernels;
	d->rows = calloc(cap ? cap : 1, sizeof *d->rows);
	size_t B = o->resamples ? o->resamples : 1;
	double *reps = malloc(B * sizeof *reps), *scratch = malloc(B * sizeof *scratch);
	double *sumlog = calloc(B, sizeof *sumlog);
	int rc = 0;
	if (!d->rows || !reps || !scratch || !sumlog) {
		rc = GT_ERR_NOMEM;
		goto out;
	}
	double logsum = 0;
	/* Both lists are sorted by name: one merge finds the common kernels and the one-sided ones. */
	size_t i = 0, j = 0, nb = 0;
	while (i < A->nkernels && j < N->nkernels) {
		int c = strcmp(A->kernels[i].name, N->kernels[j].name);
		if (c) {
			if (c < 0)
				i++;
			else
				j++;
			continue;
		}
		struct gt_diff_row *r = &d->rows[nb++];
		memset(r, 0, sizeof *r);
		r->side = GT_DIFF_BOTH;
		r->base = &A->kernels[i++];
		r->new = &N->kernels[j++];
		r->name = r->base->name;
		r->display = r->base->display;
		int crc;
		if (compare(r, o, reps, scratch, &crc)) {
			for (size_t k = 0; k < B; k++)
				sumlog[k] += log(reps[k]);
			logsum += log(r->speedup);
			d->geo_k++;
		}
		if (crc) {
			rc = crc;
			goto out;
		}
		d->count[r->verdict]++;
	}
	d->nboth = nb;
	size_t nr = nb;
	for (size_t k = 0; k < A->nkernels; k++)
		if (!gt_samples_find(N, A->kernels[k].name))
			one_sided(&d->rows[nr++], GT_DIFF_BASE_ONLY, &A->kernels[k]);
	d->nbase_only = nr - nb;
	for (size_t k = 0; k < N->nkernels; k++)
		if (!gt_samples_find(A, N->kernels[k].name))
			one_sided(&d->rows[nr++], GT_DIFF_NEW_ONLY, &N->kernels[k]);
	d->nnew_only = nr - nb - d->nbase_only;
	d->nrows = nr;
	qsort(d->rows, nr, sizeof *d->rows, cmp_rows);
	if (d->geo_k) {
		double K = (double)d->geo_k;
		d->geo_speedup = exp(logsum / K);
		for (size_t k = 0; k < B; k++)
			sumlog[k] = exp(sumlog[k] / K);
		gt_boot_percentile_ci(sumlog, B, &d->geo_lo, &d->geo_hi);
		d->geo_verdict = gt_diff_verdict(d->geo_lo, d->geo_hi, NAN, o, d->geo_why, sizeof d->geo_why);
	} else {
		d->geo_speedup = d->geo_lo = d->geo_hi = NAN;
		d->geo_verdict = GT_VERDICT_UNCLEAR;
		snprintf(d->geo_why, sizeof d->geo_why,
		         "no kernel on both sides with at least %zu samples each and nonzero medians",
		         o->min_samples);
	}
out:
	free(reps);
	free(scratch);
	free(sumlog);
	return rc;
}

/* The quantities of a split unit that diff compares. */
static const enum gt_split_metric unit_metrics[] = { GT_M_WALL, GT_M_KERNEL, GT_M_HTOD, GT_M_DTOH,
	                                             GT_M_DTOD, GT_M_API };
#define NUNIT_METRICS (sizeof unit_metrics / sizeof *unit_metrics)

static size_t units_of(const struct gt_split *s, size_t n)
{
	size_t u = 0;
	for (size_t i = 0; i < n; i++)
		u += s[i].nunits;
	return u;
}

/* One quantity of every unit of a side's runs (pooled) as a sorted sample of integer nanoseconds. */
static int unit_sample(struct gt_kernel_sample *k, const struct gt_split *runs, size_t nruns,
                       enum gt_split_metric m, const char *label)
{
	memset(k, 0, sizeof *k);
	if (!(k->name = strdup(label)) || !(k->display = strdup(label)))
		return GT_ERR_NOMEM;
	size_t total = units_of(runs, nruns);
	if (!(k->dur = malloc((total ? total : 1) * sizeof *k->dur)))
		return GT_ERR_NOMEM;
	for (size_t r = 0; r < nruns; r++) {
		const struct gt_split *s = &runs[r];
		for (size_t i = 0; i < s->nunits; i++) {
			double v = s->units[i].v[m];
			if (isnan(v) || v < 0)
				continue;
			k->dur[k->n++] = (uint64_t)llround(v);
		}
	}
	k->launches = k->n;
	gt_stats_compute_u64(&k->st, k->dur, k->n);
	return 0;
}

/* The NVTX range that cuts every run of a side, or NULL when one run has another (or none). */
static const char *common_range(const struct gt_split *runs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (runs[i].mode != GT_SPLIT_NVTX || strcmp(runs[i].range, runs[0].range) != 0)
			return NULL;
	return n ? runs[0].range : NULL;
}

/* When both traces are cut by the same NVTX range, a row per quantity. 0, or GT_ERR_NOMEM. */
static int compare_units(struct gt_diff *d, const struct gt_split *pa, size_t na, const struct gt_split *pb,
                         size_t nb, const struct gt_diff_options *o)
{
	const struct gt_split sa = *pa, sb = *pb;
	int rc = 0;
	if (na > 1 && sa.mode == GT_SPLIT_NVTX && !common_range(pa, na)) {
		snprintf(d->units_note, sizeof d->units_note, "not compared: the BASE runs are not all cut by one NVTX range");
		goto out;
	}
	if (nb > 1 && sb.mode == GT_SPLIT_NVTX && !common_range(pb, nb)) {
		snprintf(d->units_note, sizeof d->units_note, "not compared: the NEW runs are not all cut by one NVTX range");
		goto out;
	}
	if (sa.mode != GT_SPLIT_NVTX || sb.mode != GT_SPLIT_NVTX) {
		snprintf(d->units_note, sizeof d->units_note, "not compared: %s has no NVTX range to cut it into units",
		         sa.mode != GT_SPLIT_NVTX ? (sb.mode != GT_SPLIT_NVTX ? "neither trace" : "BASE") : "NEW");
		goto out;
	}
	if (strcmp(sa.range, sb.range) != 0) {
		snprintf(d->units_note, sizeof d->units_note,
		         "not compared: BASE is cut by NVTX range '%.60s', NEW by '%.60s'", sa.range, sb.range);
		goto out;
	}
	if (!(d->unit_range = strdup(sa.range))) {
		rc = GT_ERR_NOMEM;
		goto out;
	}
	d->units_base = units_of(pa, na);
	d->units_new = units_of(pb, nb);
	d->ubase = calloc(NUNIT_METRICS, sizeof *d->ubase);
	d->unew = calloc(NUNIT_METRICS, sizeof *d->unew);
	struct gt_diff_row *rows = realloc(d->rows, (d->nrows + NUNIT_METRICS) * sizeof *rows);
	if (!d->ubase || !d->unew || !rows) {
		if (rows)
			d->rows = rows;
		rc = GT_ERR_NOMEM;
		goto out;
	}
	d->rows = rows;
	size_t B = o->resamples ? o->resamples : 1;
	double *scratch = malloc(B * sizeof *scratch);
	if (!scratch) {
		rc = GT_ERR_NOMEM;
		goto out;
	}
	for (size_t i = 0; i < NUNIT_METRICS && !rc; i++) {
		enum gt_split_metric m = unit_metrics[i];
		char label[160];
		snprintf(label, sizeof label, "%.100s: %s", sa.range, gt_split_metric_title(m));
		size_t k = d->nunit_rows;
		if ((rc = unit_sample(&d->ubase[k], pa, na, m, label)) != 0 ||
		    (rc = unit_sample(&d->unew[k], pb, nb, m, label)) != 0) {
			d->nunit_rows = k + 1; /* free what was made */
			break;
		}
		d->nunit_rows = k + 1;
		if (!(d->ubase[k].st.total > 0) && !(d->unew[k].st.total > 0))
			continue; /* nothing of this kind in any unit */
		struct gt_diff_row *r = &d->rows[d->nrows++];
		memset(r, 0, sizeof *r);
		r->side = GT_DIFF_BOTH;
		r->unit = 1;
		r->base = &d->ubase[k];
		r->new = &d->unew[k];
		r->name = r->base->name;
		r->display = r->base->display;
		int crc;
		compare(r, o, NULL, scratch, &crc);
		if (crc)
			rc = crc;
		else
			d->ucount[r->verdict]++;
	}
	free(scratch);
	/* Unit rows come after every kernel row, in the order of unit_metrics. */
	if (!rc)
		snprintf(d->units_note, sizeof d->units_note,
		         "compared: NVTX range '%.100s', %zu units in BASE and %zu in NEW after warm-up", sa.range,
		         d->units_base, d->units_new);
	d->units_done = !rc;
out:
	return rc;
}

/* ---- reading the traces ---------------------------------------------------------------------- */

/* One run (trace) of a side: its kernels go into the side's samples (samples.c pools the runs),
 * and, from the same pass, its split units. Units are compared only when every run holds NVTX
 * ranges, so split is fed only from a trace's first NVTX range on, after catching up with the
 * records before it through a second reader: a trace without ranges costs split nothing (its
 * memory would be the largest part of the run), and one with ranges is read again only up to its
 * first. */
struct side {
	const char *path;
	struct gt_samples *s;
	struct gt_split split;
	struct gt_split_options so;
	int split_allowed;       /* units may still be compared */
	int split_on;            /* split is being fed (the trace holds NVTX ranges) */
	int ranged;              /* the trace holds NVTX ranges */
	uint64_t seen;           /* records handed over so far */
	struct gt_reader *r;     /* open during the pass: split finishes with its strings */
	char fingerprint[200];   /* tool version and devices, to tell runs of different setups */
};

static int catch_up(struct side *x)
{
	struct gt_reader *r;
	char err[256];
	if (gt_reader_open(&r, x->path, err, sizeof err) != 0)
		return GT_ERR_IO;
	struct gt_event ev;
	int rc = 0;
	for (uint64_t i = 0; i < x->seen && !rc; i++) {
		int n = gt_reader_next(r, &ev);
		rc = n < 0 ? n : n == 0 ? GT_ERR_STATE : gt_split_record(&x->split, r, &ev);
	}
	gt_reader_close(r);
	return rc;
}

static int side_record(void *ctx, const struct gt_reader *r, const struct gt_event *ev)
{
	struct side *x = ctx;
	int rc = gt_samples_record(x->s, r, ev);
	if (rc)
		return rc;
	if (!x->split_on && x->split_allowed && ev->type == GT_REC_NVTX && ev->u.nvtx.kind != GT_NVTX_MARK) {
		if ((rc = gt_split_begin(&x->split, x->path, &x->so)) != 0 || (rc = catch_up(x)) != 0)
			return rc;
		x->split_on = 1;
	}
	x->seen++;
	return x->split_on ? gt_split_record(&x->split, r, ev) : 0;
}

/* What a run was recorded with, as far as it changes durations: gputrace's version and each
 * device's model (not its UUID: two GPUs of one model are the same setup). */
static void fingerprint(const struct gt_reader *r, char *buf, size_t len)
{
	const char *v = gt_reader_meta(r, "tool.version");
	int k = snprintf(buf, len, "gputrace %s", v ? v : "(version unknown)");
	size_t nd = gt_reader_device_count(r);
	for (size_t i = 0; i < nd && k > 0 && (size_t)k < len; i++) {
		const char *name = NULL;
		const struct gt_device *dv = gt_reader_device_at(r, i, &name);
		if (dv)
			k += snprintf(buf + k, len - (size_t)k, "%s %s (compute %u.%u, %u SMs)", i ? "," : " on",
			              name ? name : "?", dv->cc_major, dv->cc_minor, dv->sm_count);
	}
	if (!nd && k > 0 && (size_t)k < len)
		snprintf(buf + k, len - (size_t)k, ", no device record");
}

/* Reads one run into its side's samples (and split, see above), finishing its split and closing
 * its reader. 0, or a negative GT_ERR_* with the failure held. */
static int side_load(struct side *x)
{
	uint64_t ranges = x->s->nvtx_ranges;
	int rc = gt_load_open(&x->r, x->path);
	if (rc)
		return rc;
	if ((rc = gt_load_stream(x->r, side_record, x)) != 0)
		return rc;
	if ((rc = gt_samples_file_end(x->s, x->r)) != 0)
		return gt_fail(rc, "cannot read trace '%s': %s", x->path, gt_strerror(rc));
	x->ranged = x->s->nvtx_ranges > ranges;
	fingerprint(x->r, x->fingerprint, sizeof x->fingerprint);
	if (x->split_on && (rc = gt_split_finish(&x->split, x->r)) != 0)
		return rc;
	gt_reader_close(x->r);
	x->r = NULL;
	return 0;
}

/* The first run of a side whose setup differs from the side's first run, said in mixed. */
static void note_mixed(struct gt_diff_runs *runs, const struct side *x, size_t n)
{
	runs->mixed[0] = '\0';
	for (size_t i = 1; i < n; i++)
		if (strcmp(x[i].fingerprint, x[0].fingerprint) != 0) {
			snprintf(runs->mixed, sizeof runs->mixed, "'%.150s' was recorded with %s, '%.150s' with %s",
			         x[0].path, x[0].fingerprint, x[i].path, x[i].fingerprint);
			return;
		}
}

/* Shallow copies of the runs' splits, side by side, for compare_units. NULL on no memory. */
static struct gt_split *splits_of(const struct side *x, size_t n)
{
	struct gt_split *s = malloc((n ? n : 1) * sizeof *s);
	for (size_t i = 0; s && i < n; i++)
		s[i] = x[i].split;
	return s;
}

static int all_ranged(const struct side *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!x[i].ranged)
			return 0;
	return 1;
}

static int compare_pooled_units(struct gt_diff *d, const struct side *xa, size_t na, const struct side *xb,
                                size_t nb, const struct gt_diff_options *o)
{
	struct gt_split *pa = splits_of(xa, na), *pb = splits_of(xb, nb);
	int rc = pa && pb ? compare_units(d, pa, na, pb, nb, o) : GT_ERR_NOMEM;
	free(pa);
	free(pb);
	return rc;
}

int gt_diff_run_pooled(struct gt_diff *d, const char *const *base, size_t nbase, const char *const *new,
                       size_t nnew, const struct gt_diff_options *o)
{
	struct gt_samples a, b;
	memset(d, 0, sizeof *d);
	if (!nbase || !nnew)
		return GT_ERR_ARG;
	int rc = gt_samples_init(&a, o->warmup, 0);
	int rc2 = gt_samples_init(&b, o->warmup, 0);
	struct side *x = calloc(nbase + nnew, sizeof *x);
	if (rc || rc2 || !x) {
		free(x);
		gt_samples_release(&a);
		gt_samples_release(&b);
		return GT_ERR_NOMEM;
	}
	struct side *xa = x, *xb = x + nbase;
	/* Units need ranges in every run: a run without them stops split for the runs after it. */
	int allowed = !o->no_units;
	for (size_t i = 0; i < nbase + nnew && !rc; i++) {
		x[i].path = i < nbase ? base[i] : new[i - nbase];
		x[i].s = i < nbase ? &a : &b;
		x[i].so.range = NULL;
		x[i].so.warmup = o->warmup;
		x[i].split_allowed = allowed;
		rc = side_load(&x[i]);
		allowed = allowed && x[i].split_on;
	}
	if (!rc) {
		if (gt_samples_finish(&a, o->filter) || gt_samples_finish(&b, o->filter))
			rc = GT_ERR_NOMEM;
		else
			rc = gt_diff_compute(d, &a, &b, o);
	}
	int ra = all_ranged(xa, nbase), rb = all_ranged(xb, nnew);
	if (!rc && o->no_units)
		snprintf(d->units_note, sizeof d->units_note, "not compared (--no-units)");
	else if (!rc && ra && rb)
		rc = compare_pooled_units(d, xa, nbase, xb, nnew, o);
	else if (!rc)
		snprintf(d->units_note, sizeof d->units_note, "not compared: %s has no NVTX range to cut it into units",
		         !ra ? (!rb ? "neither trace" : "BASE") : "NEW");
	if (!rc) {
		d->base_runs.n = nbase;
		d->base_runs.paths = base;
		note_mixed(&d->base_runs, xa, nbase);
		d->new_runs.n = nnew;
		d->new_runs.paths = new;
		note_mixed(&d->new_runs, xb, nnew);
	}
	for (size_t i = 0; i < nbase + nnew; i++) {
		gt_split_release(&x[i].split);
		gt_reader_close(x[i].r);
	}
	free(x);
	gt_samples_release(&a);
	gt_samples_release(&b);
	return rc;
}

int gt_diff_run(struct gt_diff *d, const char *base, const char *new, const struct gt_diff_options *o)
{
	const char *b[1] = { base }, *n[1] = { new };
	int rc = gt_diff_run_pooled(d, b, 1, n, 1, o);
	d->base_runs.paths = d->new_runs.paths = NULL; /* b and n go; d->base.path names the one run */
	return rc;
}

int gt_diff_failed(const struct gt_diff *d, int strict)
{
	size_t slower = d->count[GT_VERDICT_SLOWER] + d->ucount[GT_VERDICT_SLOWER];
	size_t unclear = d->count[GT_VERDICT_UNCLEAR] + d->ucount[GT_VERDICT_UNCLEAR];
	return slower > 0 || (strict && unclear > 0);
}
