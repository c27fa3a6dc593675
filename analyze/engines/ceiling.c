/* ceiling.c: kernels' counters against the measured ceilings (ceiling.h).
 *
 * One pass per trace. Kernels are found by name across traces (kernel_ids.h); each launch is kept
 * (24 bytes) and each usable sample (32 bytes) until the trace's end, when apportion.h shares the
 * samples out among that trace's launches. Replay values are summed as they come, per kernel and
 * role-table row, in an entry per row that reached the kernel (nothing for a trace without
 * counters). A metric's row is looked up once per string id of a trace.
 */
#include "analyze/engines/ceiling.h"
#include "analyze/blocks/apportion.h"
#include "analyze/blocks/kernel_ids.h"

#include "analyze/support/failure.h"
#include "analyze/support/idmap.h"
#include "analyze/support/load.h"
#include "analyze/support/trace_end.h"
#include "common/grow.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Per kernel and row: what the replay gave and what the samples were apportioned. A kernel keeps
 * one for each row that reached it, no more (a trace may name a kernel per counter record). */
struct row_acc {
	int row;                       /* in the role table */
	double ex_amount, ex_ns, ex_n; /* replay: sum (pct: pct x ns), launches' ns, records */
	double sm_amount, sm_covered;  /* samples */
};

struct group {
	char *name;
	uint64_t launches;
	double time_ns;
	double solo_ns, shared_ns;
	size_t device;           /* SIZE_MAX until its trace ends */
	uint32_t raw_device;     /* its first launch's device id in that trace */
	int file;                /* the trace it was first seen in */
	struct row_acc *acc;     /* the rows that reached it, nacc of them */
	size_t nacc;
};

struct ceil_state {
	struct group *g;
	size_t n, cap;
	struct gt_kernel_ids ids;
	int file;
	size_t first_new;        /* kernels before this index were made by earlier traces */
	struct gt_ap_launch *l;  /* this trace's launches */
	size_t nl, capl;
	struct gt_ap_sample *s;  /* this trace's usable samples */
	size_t ns, caps;
	int *row_of;             /* string id -> row + 2 (0: not looked up, 1: no row) */
	size_t nrow_of;
	struct gt_idmap devs;    /* this trace's device id -> index in devices */
};

static const char *const bound_names[] = { "not measured", "memory", "compute", "latency", "undecided" };

const char *gt_ceil_bound_name(int bound)
{
	return bound >= 0 && bound <= GT_BOUND_UNDECIDED ? bound_names[bound] : "?";
}

const char *gt_ceil_source_name(int source)
{
	switch (source) {
	case GT_CEIL_SRC_REPLAY: return "replay";
	case GT_CEIL_SRC_SAMPLES: return "samples";
	case GT_CEIL_SRC_REPLAY | GT_CEIL_SRC_SAMPLES: return "replay+samples";
	default: return "none";
	}
}

int gt_ceil_bound_of(double m, double c)
{
	int km = isfinite(m), kc = isfinite(c);
	if (!km && !kc)
		return GT_BOUND_NOT_MEASURED;
	double hi = !km ? c : !kc ? m : (m >= c ? m : c);
	if (hi >= GT_CEIL_BOUND_PCT) {
		if (km && m >= hi)
			return GT_BOUND_MEMORY;
		return GT_BOUND_COMPUTE;
	}
	return km && kc ? GT_BOUND_LATENCY : GT_BOUND_UNDECIDED;
}

double gt_ceil_mem_pct(const struct gt_ceil_kernel *k)
{
	double dram = isfinite(k->mem_pct) ? k->mem_pct : k->mem_pct_theory;
	return isfinite(k->l2_pct) && !(dram >= k->l2_pct) ? k->l2_pct : dram;
}

double gt_ceil_compute_pct(const struct gt_ceil_kernel *k)
{
	return isfinite(k->compute_pct) ? k->compute_pct : k->compute_pct_theory;
}

static const char *kernel_make(void *ctx, const char *name)
{
	struct ceil_state *st = ctx;
	struct group *q = gt_grow(st->g, &st->cap, st->n, sizeof *q, 16);
	if (!q)
		return NULL;
	st->g = q;
	struct group *g = &st->g[st->n];
	memset(g, 0, sizeof *g);
	if (!(g->name = strdup(name)))
		return NULL;
	g->device = SIZE_MAX;
	g->file = -1;
	st->n++;
	return g->name;
}

/* The kernel index of a name id, made when new; SIZE_MAX when out of memory. */
static size_t group_of(struct ceil_state *st, const struct gt_reader *r, uint32_t id)
{
	uint32_t e = id < st->ids.nids ? st->ids.of_id[id] : 0;
	if (!e && !(e = gt_kernel_ids_resolve(&st->ids, r, id, kernel_make, st)))
		return SIZE_MAX;
	return e - 1;
}

/* The role-table row of a metric's string id: -1 none, -2 out of memory. */
static int row_of(struct ceil_state *st, const struct gt_reader *r, uint32_t id)
{
	if (id >= st->nrow_of) {
		/* The table grows only to the strings the trace has defined so far: an id beyond them (a
		 * damaged record) is looked up each time rather than sized for. */
		if (id >= gt_reader_string_count(r))
			return gt_metric_role_find(gt_reader_string(r, id));
		size_t n = (size_t)id + 1 + st->nrow_of;
		int *q = realloc(st->row_of, n * sizeof *q);
		if (!q)
			return -2;
		memset(q + st->nrow_of, 0, (n - st->nrow_of) * sizeof *q);
		st->row_of = q;
		st->nrow_of = n;
	}
	if (!st->row_of[id])
		st->row_of[id] = gt_metric_role_find(gt_reader_string(r, id)) + 2;
	return st->row_of[id] - 2;
}

static const struct row_acc *find_acc(const struct group *g, int row)
{
	for (size_t i = 0; i < g->nacc; i++)
		if (g->acc[i].row == row)
			return &g->acc[i];
	return NULL;
}

/* Kernel g's accumulator of a row, made when new; NULL when out of memory. */
static struct row_acc *acc_of(struct group *g, int row)
{
	const struct row_acc *a = find_acc(g, row);
	if (a)
		return (struct row_acc *)a;
	struct row_acc *q = realloc(g->acc, (g->nacc + 1) * sizeof *q);
	if (!q)
		return NULL;
	g->acc = q;
	memset(&q[g->nacc], 0, sizeof *q);
	q[g->nacc].row = row;
	return &q[g->nacc++];
}

static int usable(double v) { return isfinite(v) && v >= 0; }

/* The role row of a counter record (a sample or a launch's value), or -1: a metric no row names
 * (counted as unknown) or a record not measured, its times bad or its value not finite or negative
 * (counted in *left_out); -2: out of memory. */
static int measured_row(struct gt_ceil_analysis *c, const struct gt_reader *r, uint32_t metric_id, uint32_t flags,
                        uint64_t start, uint64_t end, double value, uint64_t *left_out)
{
	int row = row_of(c->state, r, metric_id);
	if (row == -2)
		return -2;
	if (row < 0) {
		c->unknown_metric++;
		return -1;
	}
	if ((flags & GT_METRIC_BAD_TIMES) || end <= start || !usable(value)) {
		(*left_out)++;
		return -1;
	}
	return row;
}

static int on_record(void *ctx, const struct gt_reader *r, const struct gt_event *ev)
{
	struct gt_ceil_analysis *c = ctx;
	struct ceil_state *st = c->state;
	switch (ev->type) {
	case GT_REC_KERNEL: {
		const struct gt_kernel *k = &ev->u.kernel;
		if (!gt_summary_kernel_good(k)) {
			c->kernels_bad++;
			return 0;
		}
		size_t gi = group_of(st, r, k->name_id);
		if (gi == SIZE_MAX)
			return GT_ERR_NOMEM;
		struct group *g = &st->g[gi];
		if (g->file < 0) {
			g->file = st->file;
			g->raw_device = k->device_id;
		}
		g->launches++;
		g->time_ns += (double)(k->end - k->start);
		struct gt_ap_launch *q = gt_grow(st->l, &st->capl, st->nl, sizeof *q, 1024);
		if (!q)
			return GT_ERR_NOMEM;
		st->l = q;
		st->l[st->nl++] = (struct gt_ap_launch){ k->start, k->end, k->device_id, (uint32_t)gi };
		return 0;
	}
	case GT_REC_METRIC_SAMPLE: {
		const struct gt_metric_sample *m = &ev->u.metric_sample;
		c->metric_samples++;
		int row = measured_row(c, r, m->metric_id, m->flags, m->start, m->end, m->value, &c->samples_left_out);
		if (row < 0)
			return row == -2 ? GT_ERR_NOMEM : 0;
		int pct = gt_metric_role_is_pct(gt_metric_role_rows[row].role);
		double v = pct ? m->value * (double)(m->end - m->start) : m->value;
		c->sampled[row] += v;
		c->row_seen[row] |= 1;
		struct gt_ap_sample *q = gt_grow(st->s, &st->caps, st->ns, sizeof *q, 1024);
		if (!q)
			return GT_ERR_NOMEM;
		st->s = q;
		st->s[st->ns++] = (struct gt_ap_sample){ m->start, m->end, v, m->device_id, (uint32_t)row };
		return 0;
	}
	case GT_REC_LAUNCH_METRIC: {
		const struct gt_launch_metric *m = &ev->u.launch_metric;
		c->launch_metrics++;
		int row = measured_row(c, r, m->metric_id, m->flags, m->start, m->end, m->value, &c->launches_left_out);
		if (row < 0)
			return row == -2 ? GT_ERR_NOMEM : 0;
		size_t gi = group_of(st, r, m->name_id);
		if (gi == SIZE_MAX)
			return GT_ERR_NOMEM;
		struct group *g = &st->g[gi];
		if (g->file < 0) {
			g->file = st->file;
			g->raw_device = m->device_id;
		}
		struct row_acc *a = acc_of(g, row);
		if (!a)
			return GT_ERR_NOMEM;
		double ns = (double)(m->end - m->start);
		int pct = gt_metric_role_is_pct(gt_metric_role_rows[row].role);
		a->ex_amount += pct ? m->value * ns : m->value;
		a->ex_ns += ns;
		a->ex_n += 1;
		c->row_seen[row] |= 2;
		return 0;
	}
	default:
		return 0;
	}
}

/* The device of this trace's id, found by UUID among those of earlier traces, else added with its
 * measured ceilings. SIZE_MAX: out of memory; a held failure is returned through *rc. */
static size_t device_index(struct gt_ceil_analysis *c, const struct gt_reader *r, uint32_t id, int *rc)
{
	struct ceil_state *st = c->state;
	size_t i = gt_idmap_get(&st->devs, id);
	if (i != SIZE_MAX)
		return i;
	const char *name = NULL;
	const struct gt_device *dev = gt_reader_device(r, id, &name);
	char uuid[48] = "";
	if (dev)
		gt_device_uuid_string(dev, uuid, sizeof uuid);
	for (size_t k = 0; uuid[0] && k < c->ndevices; k++)
		if (!strcmp(c->devices[k].uuid, uuid)) {
			if (gt_idmap_put(&st->devs, id, k))
				break;
			return k;
		}
	struct gt_ceil_device *q = realloc(c->devices, (c->ndevices + 1) * sizeof *q);
	if (!q || gt_idmap_put(&st->devs, id, c->ndevices)) {
		if (q)
			c->devices = q;
		return SIZE_MAX;
	}
	c->devices = q;
	struct gt_ceil_device *d = &c->devices[c->ndevices++];
	memset(d, 0, sizeof *d);
	d->device_id = id;
	d->mem_kind = -1;
	d->mem_gbps = NAN;
	d->l2_gbps = NAN;
	if (dev) {
		d->known = 1;
		snprintf(d->name, sizeof d->name, "%s", name ? name : "");
		snprintf(d->uuid, sizeof d->uuid, "%s", uuid);
		for (int k = 0; k < GT_CEIL_NKINDS; k++)
			d->theory[k] = gt_ceiling_theory(dev, (enum gt_ceiling_kind)k);
	}
	if (!c->peaks_file || c->peaks_missing || c->peaks_error[0])
		return c->ndevices - 1;
	char err[200];
	int lr = gt_peaks_load(&d->peaks, c->peaks_file, d->uuid, err, sizeof err);
	if (lr == GT_ERR_NOMEM)
		return SIZE_MAX;
	if (lr) {
		snprintf(c->peaks_error, sizeof c->peaks_error, "%s", err);
		if (c->peaks_path) {
			*rc = gt_fail(lr, "cannot read peaks file '%s': %s", c->peaks_file, err);
			return SIZE_MAX;
		}
		return c->ndevices - 1;
	}
	/* The memory ceiling: the highest of the device-memory ones measured. */
	static const enum gt_ceiling_kind mem[] = { GT_CEIL_DRAM_READ, GT_CEIL_DRAM_COPY, GT_CEIL_DRAM_TRIAD };
	for (size_t k = 0; k < sizeof mem / sizeof mem[0]; k++)
		if (d->peaks.have_ceiling[mem[k]] && d->peaks.c &&
		    (d->mem_kind < 0 || d->peaks.c[mem[k]].value > d->mem_gbps)) {
			d->mem_kind = (int)mem[k];
			d->mem_gbps = d->peaks.c[mem[k]].value;
		}
	if (d->peaks.c && d->peaks.have_ceiling[GT_CEIL_L2_READ] && d->peaks.c[GT_CEIL_L2_READ].value > 0)
		d->l2_gbps = d->peaks.c[GT_CEIL_L2_READ].value;
	return c->ndevices - 1;
}

/* The trace's end: its kernels' devices, and its samples shared out among its launches. */
static int end_trace(void *ctx, const struct gt_reader *r)
{
	struct gt_ceil_analysis *c = ctx;
	struct ceil_state *st = c->state;
	int complete = 1;
	uint64_t lost = 0;
	int rc = gt_trace_end(r, &complete, &lost, &c->synthetic);
	if (rc)
		return rc;
	c->complete &= complete;
	c->lost_bytes += lost;
	/* The kernels this trace named first were made during it: the last ones of the array. */
	for (size_t i = st->first_new; i < st->n; i++) {
		struct group *g = &st->g[i];
		if (g->file != st->file || g->device != SIZE_MAX)
			continue;
		rc = GT_ERR_NOMEM;
		if ((g->device = device_index(c, r, g->raw_device, &rc)) == SIZE_MAX)
			return rc;
	}
	if (st->ns) {
		/* Slots for the rows this trace sampled only, so the per-kernel arrays stay small. */
		int slot_of[GT_METRIC_ROLE_MAX_ROWS], row_of_slot[GT_METRIC_ROLE_MAX_ROWS];
		size_t nr = 0, ng = 0;
		for (size_t k = 0; k < gt_metric_role_nrows; k++)
			slot_of[k] = -1;
		for (size_t i = 0; i < st->ns; i++) {
			uint32_t row = st->s[i].slot;
			if (slot_of[row] < 0) {
				row_of_slot[nr] = (int)row;
				slot_of[row] = (int)nr++;
			}
			st->s[i].slot = (uint32_t)slot_of[row];
		}
		/* The kernels this trace launched, numbered from 0 for it, so that its arrays are sized by
		 * them, not by every kernel of the traces before it. */
		struct gt_idmap local = { 0 };
		size_t *global = malloc((st->nl ? st->nl : 1) * sizeof *global);
		for (size_t i = 0; global && i < st->nl; i++) {
			size_t j = gt_idmap_get(&local, st->l[i].group);
			if (j == SIZE_MAX) {
				if (gt_idmap_put(&local, st->l[i].group, ng)) {
					free(global);
					global = NULL;
					break;
				}
				global[ng] = st->l[i].group;
				j = ng++;
			}
			st->l[i].group = (uint32_t)j;
		}
		gt_idmap_release(&local);
		if (!global)
			return GT_ERR_NOMEM;
		double *amount = calloc(ng * nr + 1, sizeof *amount), *covered = calloc(ng * nr + 1, sizeof *covered);
		double *solo = calloc(ng + 1, sizeof *solo), *shared = calloc(ng + 1, sizeof *shared);
		double conc[GT_METRIC_ROLE_MAX_ROWS] = { 0 }, idle[GT_METRIC_ROLE_MAX_ROWS] = { 0 };
		struct gt_ap_out o = { ng, nr, amount, covered, solo, shared, conc, idle, 0 };
		rc = amount && covered && solo && shared ? gt_apportion(st->l, st->nl, st->s, st->ns, &o) : GT_ERR_NOMEM;
		for (size_t k = 0; k < nr; k++) {
			c->concurrent[row_of_slot[k]] += conc[k];
			c->idle[row_of_slot[k]] += idle[k];
		}
		for (size_t i = 0; !rc && i < ng; i++) {
			struct group *g = &st->g[global[i]];
			g->solo_ns += solo[i];
			g->shared_ns += shared[i];
			int any = 0;
			for (size_t k = 0; k < nr; k++)
				any |= covered[i * nr + k] > 0;
			if (!any)
				continue;
			for (size_t k = 0; !rc && k < nr; k++) {
				if (!(covered[i * nr + k] > 0))
					continue;
				struct row_acc *a = acc_of(g, row_of_slot[k]);
				if (!a) {
					rc = GT_ERR_NOMEM;
					break;
				}
				a->sm_amount += amount[i * nr + k];
				a->sm_covered += covered[i * nr + k];
			}
		}
		c->samples_left_out += o.skipped;
		free(amount);
		free(covered);
		free(solo);
		free(shared);
		free(global);
		if (rc)
			return rc;
	}
	st->nl = st->ns = 0;
	return 0;
}

/* A role's rate and per-launch amount for kernel g: replay rows when it has any, else samples. */
static void role_figures(const struct group *g, int role, double *rate, double *per_launch, int *source,
                         double *coverage, const unsigned char *use_ex, const unsigned char *use_sm)
{
	*rate = *per_launch = NAN;
	int pct = gt_metric_role_is_pct(role);
	double r = 0, p = 0;
	int have = 0;
	for (size_t k = 0; k < gt_metric_role_nrows; k++) {
		const struct row_acc *a = find_acc(g, (int)k);
		if ((int)gt_metric_role_rows[k].role != role || !use_ex[k] || !a)
			continue;
		double f = gt_metric_role_rows[k].factor;
		r += f * a->ex_amount / a->ex_ns;
		p += pct ? f * a->ex_amount / a->ex_ns : f * a->ex_amount / a->ex_n;
		have = 1;
	}
	if (have) {
		*rate = r;
		*per_launch = p;
		*source |= GT_CEIL_SRC_REPLAY;
		return;
	}
	for (size_t k = 0; k < gt_metric_role_nrows; k++) {
		const struct row_acc *a = find_acc(g, (int)k);
		if ((int)gt_metric_role_rows[k].role != role || !use_sm[k])
			continue;
		double share = g->time_ns > 0 && a ? a->sm_covered / g->time_ns : 0;
		if (!(*coverage <= share))
			*coverage = share;
		if (!a || !(a->sm_covered > 0))
			continue;
		r += gt_metric_role_rows[k].factor * a->sm_amount / a->sm_covered;
		have = 1;
	}
	if (have && g->launches) {
		*rate = r;
		*per_launch = pct ? r : r * g->time_ns / (double)g->launches;
		*source |= GT_CEIL_SRC_SAMPLES;
	}
}

static void kernel_figures(const struct gt_ceil_analysis *c, const struct group *g, const unsigned char *use_sm,
                           struct gt_ceil_kernel *k)
{
	k->launches = g->launches;
	k->time_ns = g->time_ns;
	k->device = g->device;
	k->coverage = NAN;
	int sampled_rows = 0;
	/* Per quantity, the one variant used: of this kernel's replayed rows here, of the sampled ones
	 * in finish(). */
	unsigned char have_ex[GT_METRIC_ROLE_MAX_ROWS], use_ex[GT_METRIC_ROLE_MAX_ROWS];
	for (size_t i = 0; i < gt_metric_role_nrows; i++) {
		const struct row_acc *a = find_acc(g, (int)i);
		have_ex[i] = a && a->ex_n > 0;
	}
	gt_metric_role_pick(have_ex, use_ex);
	for (int role = 0; role < GT_ROLE_COUNT; role++)
		role_figures(g, role, &k->rate[role], &k->per_launch[role], &k->source, &k->coverage, use_ex, use_sm);
	for (size_t i = 0; i < gt_metric_role_nrows; i++)
		sampled_rows |= c->row_seen[i] & 1;
	k->solo_share = sampled_rows && g->time_ns > 0 ? g->solo_ns / g->time_ns : NAN;
	if (!sampled_rows)
		k->coverage = NAN;
	const struct gt_ceil_device *d = g->device < c->ndevices ? &c->devices[g->device] : NULL;
	const double *rt = k->rate, *pl = k->per_launch;
	k->dram_gbps = rt[GT_ROLE_DRAM_READ_BYTES] + rt[GT_ROLE_DRAM_WRITE_BYTES]; /* NaN unless both */
	k->dram_bytes = pl[GT_ROLE_DRAM_READ_BYTES] + pl[GT_ROLE_DRAM_WRITE_BYTES];
	k->l2_gbps = rt[GT_ROLE_L2_BYTES];
	k->l2_bytes = pl[GT_ROLE_L2_BYTES];
	k->mem_pct = d && isfinite(d->mem_gbps) ? 100 * k->dram_gbps / d->mem_gbps : NAN;
	const double theory_mem = d ? d->theory[GT_CEIL_DRAM_READ] : 0;
	k->mem_pct_theory = theory_mem > 0 ? 100 * k->dram_gbps / theory_mem : NAN;
	k->l2_pct = d && isfinite(d->l2_gbps) ? 100 * k->l2_gbps / d->l2_gbps : NAN;
	/* FLOPs: the kinds measured, each against its own ceiling. */
	/* Tensor FLOPs against the highest tensor ceiling measured: a library GEMM's where the probe
	 * had cuBLAS (wgmma on sm_90), else mma.sync's; the theoretical figure is the same for both. */
	int tensor = d ? gt_peaks_tensor_kind(&d->peaks) : -1;
	const struct {
		int role;
		enum gt_ceiling_kind ceil;
	} kinds[] = { { GT_ROLE_FP32_FLOPS, GT_CEIL_FP32_FMA }, { GT_ROLE_FP64_FLOPS, GT_CEIL_FP64_FMA },
		      { GT_ROLE_TENSOR_FLOPS, tensor >= 0 ? (enum gt_ceiling_kind)tensor : GT_CEIL_FP16_MMA } };
	k->flops = k->gflops = k->compute_pct = k->compute_pct_theory = NAN;
	double flops = 0, gflops = 0, frac = 0, frac_theory = 0;
	int any = 0, all = 1, peaks_known = 1, theory_known = 1, some_nonzero = 0;
	size_t vs = 0;
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		int role = kinds[i].role;
		if (!isfinite(rt[role])) {
			all = 0;
			continue;
		}
		any = 1;
		flops += pl[role];
		gflops += rt[role];
		if (!(rt[role] > 0))
			continue;
		some_nonzero = 1;
		if (d && d->theory[kinds[i].ceil] > 0)
			frac_theory += rt[role] / d->theory[kinds[i].ceil];
		else
			theory_known = 0;
		if (d && d->peaks.c && d->peaks.have_ceiling[kinds[i].ceil] && d->peaks.c[kinds[i].ceil].value > 0) {
			frac += rt[role] / d->peaks.c[kinds[i].ceil].value;
			vs += (size_t)snprintf(k->compute_vs + vs, vs < sizeof k->compute_vs ? sizeof k->compute_vs - vs : 0,
			                       "%s%s", vs ? "+" : "", gt_ceiling_kind_name(kinds[i].ceil));
			if (vs >= sizeof k->compute_vs)
				vs = sizeof k->compute_vs - 1;
		} else {
			peaks_known = 0;
		}
	}
	/* Some kinds measured and none of them counting anything says nothing of the others: the
	 * replay counts tensor FLOPs but not FP32/FP64 ones (SASS-patched counts), so an FP32 kernel
	 * would show 0 FLOPs. Then the pipes' activity stands for compute instead. */
	int counted = any && (all || flops > 0);
	if (counted) {
		k->flops = flops;
		k->gflops = gflops;
		if (peaks_known && vs)
			k->compute_pct = 100 * frac;
		if (theory_known && some_nonzero)
			k->compute_pct_theory = 100 * frac_theory;
	}
	/* Without a measured ceiling for the FLOPs counted, the pipes' activity (measured against the
	 * hardware's own peak) stands for compute as well, ahead of the theoretical FLOP figure: on sm_90
	 * mma.sync keeps the tensor pipe 99% busy at 58% of the theoretical dense rate, which only
	 * wgmma reaches, so the FLOP figure alone would call a kernel that saturates its unit
	 * latency-bound. */
	if (!isfinite(k->compute_pct)) {
		double best = NAN;
		static const int pipes[] = { GT_ROLE_FP32_PIPE_PCT, GT_ROLE_FP64_PIPE_PCT, GT_ROLE_TENSOR_PIPE_PCT };
		for (size_t i = 0; i < 3; i++)
			if (isfinite(rt[pipes[i]]) && !(best >= rt[pipes[i]]))
				best = rt[pipes[i]];
		if (isfinite(best)) {
			k->compute_pct = best;
			snprintf(k->compute_vs, sizeof k->compute_vs, "busiest pipe's activity");
		} else if (isfinite(rt[GT_ROLE_SM_PCT])) {
			k->compute_pct = rt[GT_ROLE_SM_PCT];
			snprintf(k->compute_vs, sizeof k->compute_vs, "SM throughput");
		} else if (counted && !peaks_known) {
			snprintf(k->compute_vs, sizeof k->compute_vs, "no measured compute ceiling");
		}
	}
	k->intensity = isfinite(k->flops) && k->dram_bytes > 0 ? k->flops / k->dram_bytes : NAN;
	k->bound = gt_ceil_bound_of(gt_ceil_mem_pct(k), gt_ceil_compute_pct(k));
}

static int cmp_kernels(const void *pa, const void *pb)
{
	const struct gt_ceil_kernel *a = pa, *b = pb;
	if (a->time_ns != b->time_ns)
		return a->time_ns > b->time_ns ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int finish(struct gt_ceil_analysis *c)
{
	struct ceil_state *st = c->state;
	if (!(c->kernels = calloc(st->n ? st->n : 1, sizeof *c->kernels)))
		return GT_ERR_NOMEM;
	/* The sampled rows to use are the traces' (one per quantity), the same for every kernel. */
	unsigned char have_sm[GT_METRIC_ROLE_MAX_ROWS], use_sm[GT_METRIC_ROLE_MAX_ROWS];
	for (size_t i = 0; i < gt_metric_role_nrows; i++)
		have_sm[i] = (unsigned char)(c->row_seen[i] & 1);
	gt_metric_role_pick(have_sm, use_sm);
	for (size_t i = 0; i < st->n; i++) {
		struct gt_ceil_kernel *k = &c->kernels[c->nkernels++];
		kernel_figures(c, &st->g[i], use_sm, k);
		k->name = st->g[i].name;
		st->g[i].name = NULL;
	}
	qsort(c->kernels, c->nkernels, sizeof *c->kernels, cmp_kernels);
	return 0;
}

/* The peaks file: given, or the default place, where a missing file is no error. */
static int peaks_place(struct gt_ceil_analysis *c)
{
	char def[4096];
	const char *file = c->peaks_path ? c->peaks_path : gt_peaks_default_path(def, sizeof def, NULL);
	if (!file)
		return 0;
	if (!(c->peaks_file = strdup(file)))
		return GT_ERR_NOMEM;
	struct stat sb;
	if (!c->peaks_path && stat(file, &sb) != 0 && errno == ENOENT) {
		c->peaks_missing = 1;
		return 0;
	}
	char err[200];
	int rc = 0;
	FILE *f = gt_peaks_open(file, err, sizeof err, &rc);
	if (!f) {
		if (c->peaks_path)
			return gt_fail(rc, "cannot read peaks file '%s': %s", file, err);
		snprintf(c->peaks_error, sizeof c->peaks_error, "%s", err);
		return 0;
	}
	fclose(f);
	return 0;
}

/* One trace: gt_load_pass, without the warning about its end when quiet. */
static int one_trace(struct gt_ceil_analysis *c, const char *path, int quiet)
{
	if (!quiet)
		return gt_load_pass(path, on_record, end_trace, c);
	struct gt_reader *r;
	int rc = gt_load_open(&r, path);
	if (rc)
		return rc;
	rc = gt_load_stream_nowarn(r, on_record, c);
	if (!rc)
		rc = end_trace(c, r);
	gt_reader_close(r);
	return rc;
}

static int run(struct gt_ceil_analysis *c, char *const *paths, int n, const char *peaks_path, int quiet)
{
	memset(c, 0, sizeof *c);
	c->peaks_path = peaks_path;
	c->complete = 1;
	if (!(c->state = calloc(1, sizeof *c->state)) || (n > 0 && !(c->path = strdup(paths[0]))))
		return GT_ERR_NOMEM;
	int rc = peaks_place(c);
	for (int i = 0; !rc && i < n; i++) {
		c->state->file = i;
		c->state->first_new = c->state->n;
		c->ntraces++;
		rc = one_trace(c, paths[i], quiet);
		gt_kernel_ids_next_file(&c->state->ids);
		free(c->state->row_of);
		c->state->row_of = NULL;
		c->state->nrow_of = 0;
		gt_idmap_release(&c->state->devs);
		memset(&c->state->devs, 0, sizeof c->state->devs);
	}
	return rc ? rc : finish(c);
}

int gt_ceiling_run(struct gt_ceil_analysis *c, char *const *paths, int n, const char *peaks_path)
{
	return run(c, paths, n, peaks_path, 0);
}

int gt_ceiling_run_again(struct gt_ceil_analysis *c, char *const *paths, int n)
{
	return run(c, paths, n, NULL, 1);
}

const struct gt_ceil_kernel *gt_ceiling_find(const struct gt_ceil_analysis *c, const char *name)
{
	for (size_t i = 0; i < c->nkernels; i++)
		if (!strcmp(c->kernels[i].name, name))
			return &c->kernels[i];
	return NULL;
}

void gt_ceiling_release(struct gt_ceil_analysis *c)
{
	if (!c)
		return;
	if (c->state) {
		for (size_t i = 0; i < c->state->n; i++) {
			free(c->state->g[i].name);
			free(c->state->g[i].acc);
		}
		free(c->state->g);
		gt_kernel_ids_release(&c->state->ids);
		free(c->state->l);
		free(c->state->s);
		free(c->state->row_of);
		gt_idmap_release(&c->state->devs);
		free(c->state);
	}
	for (size_t i = 0; i < c->nkernels; i++)
		free(c->kernels[i].name);
	free(c->kernels);
	for (size_t i = 0; i < c->ndevices; i++)
		gt_peaks_release(&c->devices[i].peaks);
	free(c->devices);
	free(c->peaks_file);
	free(c->path);
	free(c->synthetic);
	memset(c, 0, sizeof *c);
}
