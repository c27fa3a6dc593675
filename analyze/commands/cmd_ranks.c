/* cmd_ranks.c: `gpuanalyze ranks`: the traces of one job's processes (one per rank) side by side:
 * who recorded each, their clocks aligned, kernels per rank and merged, each kernel's spread across
 * ranks, the straggler of every step, and peer-to-peer copies against their link's peak.
 *
 * Options and the document only; ranks.c computes and ranks.h defines every quantity, align.h the clock
 * alignment. Text and Markdown show microseconds (times on the aligned clock in milliseconds from the
 * earliest trace start) and at most --steps steps; JSON gives nanoseconds and everything. CSV is one
 * long table, `table,rank,item,field,value`, one line per value, so that tables of different shapes
 * share one file (a spreadsheet or pandas pivots it back).
 */
#include "analyze/commands/cmd_output.h"
#include "analyze/commands/commands.h"
#include "analyze/support/diag.h"
#include "analyze/support/options.h"
#include "analyze/output/output.h"
#include "analyze/engines/ranks.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define ALIGNMENT                                                                                  \
	"each trace's CUPTI time is mapped to CLOCK_REALTIME by the line through its first and last "  \
	"clock pairing (offset and drift); uncertainty = max(|end offset - start offset|, residual of " \
	"pairings in between), not counting the sub-microsecond read of each pairing"
#define STRAGGLER                                                                                  \
	"slowest = the rank whose step lasted longest (none when two or more share it: a tie); "      \
	"others = median over the other ranks; ratio = slowest / others; lag = its end minus the "     \
	"median end of the other aligned ranks, on the aligned clock"
#define COLLECTIVES_TEXT                                                                           \
	"time covered by NCCL kernels (names beginning nccl) inside the step, a union; "               \
	"the rank with the least is the one the others waited for (it arrived last)"
/* The text's note carries the label; in JSON the key is the label and the value the rest. */
#define COLLECTIVES "collectives: " COLLECTIVES_TEXT
#define STATISTICS                                                                                 \
	"statistics: median; MAD = median |x - median|; p10, p90, p99 by NumPy's default 'linear' "    \
	"rule; gpuanalyze(1) defines them"
#define NO_LINK                                                                                    \
	"link peak unknown: the trace does not describe the devices' NVLink links (recorders of "      \
	"format 1.0 do not read NVML's NVLink state; gpuanalyze(1), NVLink metadata, names the keys)"

/* Flags of a sheet column beyond output.h's: the cell identifies the row in CSV's long form. */
#define SH_RANK 0x100u
#define SH_ITEM 0x200u
#define SH_MAXCOLS 32

/* What the parts of the document share. */
struct filler {
	struct gt_doc *d;
	struct gt_table *csv;    /* CSV: the one long table that holds every sheet */
	const struct gt_ranks *g;
	int human;               /* text or md: people read "?", "NO" and "tie" where machines get null */
	int listed;              /* a note was written since the last heading or table */
};

/* A table filled once for every format: text, md and json through a table of their own; csv as
 * one line per cell of the long table. */
struct sheet {
	struct filler *p;
	struct gt_table *t;
	const char *name;
	const char *keys[SH_MAXCOLS];
	unsigned flags[SH_MAXCOLS];
	size_t ncols, col;
	char rank[32], item[512];
};

static void line(struct filler *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void line(struct filler *p, const char *fmt, ...)
{
	p->listed = 1;
	va_list ap;
	va_start(ap, fmt);
	gt_doc_vnote(p->d, fmt, ap);
	va_end(ap);
}

static void heading(struct filler *p, const char *title)
{
	p->listed = 0;
	gt_doc_heading(p->d, 2, title);
}

static int sheet_begin(struct sheet *sh, struct filler *p, const char *name)
{
	memset(sh, 0, sizeof *sh);
	sh->p = p;
	sh->name = name;
	if (p->csv)
		return 0;
	if (p->listed) /* md: a table right after a list would continue the list */
		gt_doc_words_by_format(p->d, "\n", NULL);
	p->listed = 0;
	sh->t = gt_doc_table(p->d, name, NULL, 0);
	return sh->t ? 0 : GT_ERR_NOMEM;
}

static void sheet_col(struct sheet *sh, const char *key, const char *title, unsigned flags)
{
	if (sh->ncols == SH_MAXCOLS)
		return;
	sh->keys[sh->ncols] = key;
	sh->flags[sh->ncols++] = flags;
	if (sh->t)
		gt_table_column(sh->t, key, title, flags & ~(SH_RANK | SH_ITEM));
}

static void sheet_cols(struct sheet *sh, const struct gt_column *cols, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sheet_col(sh, cols[i].key, cols[i].title, cols[i].flags);
}

/* CSV: where the current cell goes. Returns 1 when the caller writes the value into the long table
 * (after the identifying fields), 0 when the cell is not written (a human-only column, or one that
 * identifies the row, whose text is then kept from `text`). */
static int csv_cell(struct sheet *sh, const char *text)
{
	size_t c = sh->col++;
	if (c >= sh->ncols || (sh->flags[c] & GT_COL_HUMAN))
		return 0;
	if (sh->flags[c] & SH_RANK) {
		snprintf(sh->rank, sizeof sh->rank, "%s", text ? text : "");
		return 0;
	}
	if (sh->flags[c] & SH_ITEM) {
		snprintf(sh->item, sizeof sh->item, "%s", text ? text : "");
		return 0;
	}
	struct gt_table *t = sh->p->csv;
	gt_table_str(t, sh->name);
	gt_table_str(t, sh->rank[0] ? sh->rank : NULL);
	gt_table_str(t, sh->item[0] ? sh->item : NULL);
	gt_table_str(t, sh->keys[c]);
	return 1;
}

static void sheet_str(struct sheet *sh, const char *s)
{
	if (sh->t) {
		gt_table_str(sh->t, s);
	} else if (csv_cell(sh, s)) {
		gt_table_str(sh->p->csv, s);
		gt_table_end_row(sh->p->csv);
	}
}

static void sheet_u64(struct sheet *sh, uint64_t v)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
	if (sh->t) {
		gt_table_u64(sh->t, v);
	} else if (csv_cell(sh, buf)) {
		gt_table_u64(sh->p->csv, v);
		gt_table_end_row(sh->p->csv);
	}
}

static void sheet_i64(struct sheet *sh, int64_t v)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%lld", (long long)v);
	if (sh->t) {
		gt_table_i64(sh->t, v);
	} else if (csv_cell(sh, buf)) {
		gt_table_i64(sh->p->csv, v);
		gt_table_end_row(sh->p->csv);
	}
}

static void sheet_num_as(struct sheet *sh, double machine, double hum, int decimals)
{
	if (sh->t) {
		gt_table_num_as(sh->t, machine, hum, decimals);
	} else if (csv_cell(sh, NULL)) {
		gt_table_num(sh->p->csv, machine, decimals);
		gt_table_end_row(sh->p->csv);
	}
}

static void sheet_null(struct sheet *sh)
{
	if (sh->t) {
		gt_table_null(sh->t);
	} else if (csv_cell(sh, NULL)) {
		gt_table_null(sh->p->csv);
		gt_table_end_row(sh->p->csv);
	}
}

/* A duration: ns for machines, us with 3 decimals for people. */
static void sheet_us(struct sheet *sh, double ns) { sheet_num_as(sh, ns, ns / 1e3, 3); }

static void sheet_rank(struct sheet *sh, const struct gt_ranks *g, size_t i)
{
	if (i < g->nranks)
		sheet_i64(sh, g->ranks[i].rank);
	else
		sheet_null(sh);
}

/* A step's rank, or "tie" (null for machines) when none stands out. */
static void sheet_step_rank(struct sheet *sh, const struct gt_ranks *g, size_t i, int available)
{
	if (i >= g->nranks && available && sh->p->human)
		sheet_str(sh, "tie");
	else
		sheet_rank(sh, g, i);
}

static void sheet_end_row(struct sheet *sh)
{
	if (sh->t)
		gt_table_end_row(sh->t);
	sh->col = 0;
	sh->rank[0] = sh->item[0] = '\0';
}

/* Text and md: the note said instead of a sheet without rows (machines get the empty table). */
static void sheet_when_empty(struct sheet *sh, const char *note)
{
	if (sh->t)
		gt_table_when_empty(sh->t, note);
}

static int sheet_finish(struct sheet *sh)
{
	int rc = sh->t ? gt_table_finish(sh->t) : 0;
	gt_table_free(sh->t);
	sh->t = NULL;
	return rc;
}

/* ---- the ranks and their clocks ------------------------------------------------------------------ */

static const char *rank_source_text(const struct gt_ranks *g, char *buf, size_t len)
{
	if (g->rank_source == GT_RANK_FROM_META) {
		const char *var = g->nranks && g->ranks[0].rank_from ? g->ranks[0].rank_from : NULL;
		int same = 1;
		for (size_t i = 1; i < g->nranks; i++)
			if (!var || !g->ranks[i].rank_from || strcmp(var, g->ranks[i].rank_from) != 0)
				same = 0;
		if (var && same)
			snprintf(buf, len, "ranks: from each trace's META process.rank (the recorder read %s)", var);
		else
			snprintf(buf, len, "ranks: from each trace's META process.rank");
	} else {
		snprintf(buf, len, "ranks: the order the files were given (0, 1, ...), because %s", g->rank_why);
	}
	return buf;
}

static void devices_text(const struct gt_rank *r, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < r->ndevices && n < len; i++) {
		const struct gt_rank_device *d = &r->devices[i];
		n += (size_t)snprintf(buf + n, len - n, "%s%u: %s%s%.12s", i ? "; " : "", d->id,
		                      d->name[0] ? d->name : "?", d->uuid[0] ? " " : "", d->uuid);
	}
	if (!r->ndevices)
		snprintf(buf, len, "none described");
}

static void preamble(struct filler *p)
{
	const struct gt_ranks *g = p->g;
	char buf[1024];
	gt_doc_title(p->d, "gpuanalyze ranks");
	line(p, "traces: %zu, one per process (rank)", g->nranks);
	line(p, "%s", rank_source_text(g, buf, sizeof buf));
	for (size_t i = 0; i < g->nranks; i++) {
		const struct gt_rank *r = &g->ranks[i];
		gt_cmd_doc_synthetic(p->d, r->path, r->synthetic);
		gt_cmd_doc_incomplete(p->d, r->path, r->complete, r->lost_bytes);
	}
	line(p, "clock: %s", ALIGNMENT);
	if (g->one_host)
		line(p, "hosts: every trace comes from host '%s', whose processes share one realtime clock: "
		        "the alignment's error is each trace's own uncertainty",
		     g->ranks[0].host);
	else
		line(p, "hosts: %zu different host names: across hosts, aligned times are only as good as "
		        "the hosts' NTP (or PTP) synchronisation, which the traces do not measure",
		     g->nhosts);
	for (size_t i = 0; i < g->nranks; i++) {
		const struct gt_rank *r = &g->ranks[i];
		const struct gt_align *a = &r->align;
		if (a->state == GT_ALIGN_NONE)
			line(p, "  rank %lld NOT ALIGNED: %s; its steps count by duration only", r->rank, a->why);
		else if (a->state == GT_ALIGN_OFFSET)
			line(p, "  rank %lld aligned by offset only: %s", r->rank, a->why);
		if (a->realtime_adjust_known && a->realtime_adjust_ns)
			line(p, "  rank %lld: the host's realtime clock was adjusted by %.3f us against monotonic "
			        "during the recording (NTP); the fit spreads it over the run",
			     r->rank, (double)a->realtime_adjust_ns / 1e3);
	}
	line(p, "times: ms from the earliest aligned trace start; durations in us");
	line(p, "%s", STATISTICS);
}

static int ranks_table(struct filler *p)
{
	const struct gt_ranks *g = p->g;
	struct sheet sh;
	if (sheet_begin(&sh, p, "ranks"))
		return GT_ERR_NOMEM;
	const struct gt_column cols[] = {
		{ "rank", "rank", SH_RANK }, { "given", "given", GT_COL_MACHINE },
		{ "host", "host", GT_COL_LEFT }, { "pid", "pid", 0 },
		{ "rank_meta", "META rank", GT_COL_MACHINE },
		{ "rank_from", "rank from", GT_COL_MACHINE }, { "devices", "devices", GT_COL_LEFT },
		{ "kernels", "kernels", 0 }, { "memcpys", "copies", 0 },
		{ "memsets", "memsets", GT_COL_MACHINE }, { "collective_kernels", "NCCL kernels", 0 },
		{ "clock_syncs", "clock pairings", GT_COL_MACHINE }, { "alignment", "aligned", 0 },
		{ "offset_start_ns", "offset start", GT_COL_MACHINE },
		{ "offset_end_ns", "offset end", GT_COL_MACHINE },
		{ "offset_change_ns", "offset change us", 0 }, { "span_ns", "span", GT_COL_MACHINE },
		{ "drift_ppm", "drift ppm", 0 }, { "max_residual_ns", "residual", GT_COL_MACHINE },
		{ "uncertainty_ns", "uncertainty us", 0 },
		{ "realtime_adjust_ns", "realtime adjust", GT_COL_MACHINE },
		{ "start_ns", "start ms", 0 }, { "complete", "complete", GT_COL_MACHINE },
		{ "synthetic", "synthetic", GT_COL_MACHINE }, { "path", "trace", GT_COL_LEFT },
	};
	sheet_cols(&sh, GT_COLUMNS(cols));
	for (size_t i = 0; i < g->nranks; i++) {
		const struct gt_rank *r = &g->ranks[i];
		const struct gt_align *a = &r->align;
		char dev[1024];
		devices_text(r, dev, sizeof dev);
		sheet_i64(&sh, r->rank);
		sheet_u64(&sh, r->given);
		sheet_str(&sh, r->host ? r->host : (p->human ? "?" : NULL));
		sheet_str(&sh, r->pid ? r->pid : (p->human ? "?" : NULL));
		sheet_str(&sh, r->rank_meta);
		sheet_str(&sh, r->rank_from);
		sheet_str(&sh, dev);
		sheet_u64(&sh, r->kernels);
		sheet_u64(&sh, r->copies);
		sheet_u64(&sh, r->memsets);
		sheet_u64(&sh, r->comm_kernels);
		sheet_u64(&sh, r->clock_syncs);
		sheet_str(&sh, a->state == GT_ALIGN_NONE && p->human ? "NO" : gt_align_state_name(a->state));
		if (a->state != GT_ALIGN_NONE) {
			sheet_i64(&sh, a->offset_start_ns);
			sheet_i64(&sh, a->offset_end_ns);
		} else {
			sheet_null(&sh);
			sheet_null(&sh);
		}
		if (a->state == GT_ALIGN_FIT) {
			sheet_num_as(&sh, (double)a->offset_change_ns, (double)a->offset_change_ns / 1e3, 3);
			sheet_u64(&sh, a->span_ns);
			sheet_num_as(&sh, a->drift_ppm, a->drift_ppm, 3);
			sheet_i64(&sh, a->max_residual_ns);
		} else {
			sheet_null(&sh);
			sheet_null(&sh);
			sheet_null(&sh);
			sheet_null(&sh);
		}
		sheet_us(&sh, a->uncertainty_ns);
		if (a->realtime_adjust_known)
			sheet_i64(&sh, a->realtime_adjust_ns);
		else
			sheet_null(&sh);
		if (a->state != GT_ALIGN_NONE && r->origin) {
			int64_t rel;
			double t = __builtin_sub_overflow(r->origin_host, g->start_host, &rel) ? NAN : (double)rel;
			sheet_num_as(&sh, t, t / 1e6, 3);
		} else {
			sheet_null(&sh);
		}
		sheet_str(&sh, r->complete ? "yes" : "no");
		sheet_str(&sh, r->synthetic ? "yes" : "no");
		sheet_str(&sh, r->path);
		sheet_end_row(&sh);
	}
	return sheet_finish(&sh);
}

/* JSON only: the devices of each rank, with their NVLink description. */
static void facts_devices(struct filler *p)
{
	const struct gt_ranks *g = p->g;
	struct gt_doc *d = p->d;
	gt_doc_array(d, "devices");
	for (size_t i = 0; i < g->nranks; i++) {
		const struct gt_rank *r = &g->ranks[i];
		for (size_t k = 0; k < r->ndevices; k++) {
			const struct gt_rank_device *dev = &r->devices[k];
			gt_doc_object(d, NULL);
			gt_doc_i64(d, "rank", r->rank);
			gt_doc_u64(d, "device", dev->id);
			gt_doc_str(d, "name", dev->name);
			gt_doc_str(d, "uuid", dev->uuid[0] ? dev->uuid : NULL);
			gt_doc_num(d, "pcie_peak_gbps", dev->peak_pcie > 0 ? dev->peak_pcie : NAN);
			gt_doc_bool(d, "nvlink_known", dev->nvlink_known);
			gt_doc_str(d, "pci_bus_id", dev->nvlink_known ? dev->pci : NULL);
			gt_doc_num(d, "nvlink_link_gbps", dev->nvlink_known && dev->link_gbps > 0 ? dev->link_gbps : NAN);
			gt_doc_str(d, "nvlink_remote", dev->nvlink_remote);
			gt_doc_end(d);
		}
	}
	gt_doc_end(d);
}

/* ---- kernels ----------------------------------------------------------------------------------- */

static void kernel_name_cols(struct sheet *sh)
{
	sheet_col(sh, "name", "name", GT_COL_MACHINE | SH_ITEM);
	sheet_col(sh, "demangled", "name", GT_COL_LEFT | GT_COL_CODE);
}

static void kernel_stat_cols(struct sheet *sh)
{
	const struct gt_column cols[] = {
		{ "launches", "launches", 0 }, { "warmup_dropped", "warm-up", GT_COL_MACHINE },
		{ "total_ns", "total ms", 0 }, { "median_ns", "median", 0 }, { "mad_ns", "MAD", 0 },
		{ "p90_ns", "p90", 0 }, { "p99_ns", "p99", 0 }, { "min_ns", "min", 0 },
		{ "max_ns", "max", 0 },
	};
	sheet_cols(sh, GT_COLUMNS(cols));
}

static void kernel_stat_cells(struct sheet *sh, const struct gt_summary_row *k)
{
	const struct gt_stats *s = &k->st;
	sheet_u64(sh, s->n);
	sheet_u64(sh, k->warmup_dropped);
	sheet_num_as(sh, s->total, s->total / 1e6, 3);
	sheet_us(sh, s->median);
	sheet_us(sh, s->mad);
	sheet_us(sh, s->p90);
	sheet_us(sh, s->p99);
	sheet_us(sh, s->min);
	sheet_us(sh, s->max);
}

static int kernels_per_rank(struct filler *p)
{
	const struct gt_ranks *g = p->g;
	struct sheet sh;
	if (sheet_begin(&sh, p, "kernels_per_rank"))
		return GT_ERR_NOMEM;
	sheet_col(&sh, "rank", "rank", SH_RANK);
	kernel_stat_cols(&sh);
	kernel_name_cols(&sh);
	for (size_t i = 0; i < g->nranks; i++) {
		const struct gt_summary *s = &g->ranks[i].summary;
		for (size_t k = 0; k < s->nkernels; k++) {
			sheet_i64(&sh, g->ranks[i].rank);
			kernel_stat_cells(&sh, &s->kernels[k]);
			sheet_str(&sh, s->kernels[k].name);
			sheet_str(&sh, s->kernels[k].display);
			sheet_end_row(&sh);
		}
	}
	return sheet_finish(&sh);
}

static int kernels_merged(struct filler *p)
{
	const struct gt_summary *s = &p->g->merged;
	struct sheet sh;
	if (sheet_begin(&sh, p, "kernels_merged"))
		return GT_ERR_NOMEM;
	kernel_stat_cols(&sh);
	sheet_col(&sh, "share", "share %", 0);
	kernel_name_cols(&sh);
	for (size_t k = 0; k < s->nkernels; k++) {
		kernel_stat_cells(&sh, &s->kernels[k]);
		sheet_num_as(&sh, s->kernels[k].share, s->kernels[k].share * 100, 1);
		sheet_str(&sh, s->kernels[k].name);
		sheet_str(&sh, s->kernels[k].display);
		sheet_end_row(&sh);
	}
	return sheet_finish(&sh);
}

static int spread_table(struct filler *p)
{
	const struct gt_ranks *g = p->g;
	struct sheet sh;
	if (sheet_begin(&sh, p, "spread"))
		return GT_ERR_NOMEM;
	const struct gt_column cols[] = {
		{ "ranks", "ranks", 0 }, { "min_ns", "min", 0 }, { "min_rank", "(rank)", 0 },
		{ "median_ns", "median", 0 }, { "max_ns", "max", 0 }, { "max_rank", "(rank)", 0 },
		{ "ratio", "max/min", 0 },
	};
	sheet_cols(&sh, GT_COLUMNS(cols));
	kernel_name_cols(&sh);
	for (size_t k = 0; k < g->nspread; k++) {
		const struct gt_rank_spread *sp = &g->spread[k];
		sheet_u64(&sh, sp->nranks);
		sheet_us(&sh, sp->min);
		sheet_rank(&sh, g, sp->nranks ? sp->min_rank : SIZE_MAX);
		sheet_us(&sh, sp->median);
		sheet_us(&sh, sp->max);
		sheet_rank(&sh, g, sp->nranks ? sp->max_rank : SIZE_MAX);
		sheet_num_as(&sh, sp->ratio, sp->ratio, 3);
		sheet_str(&sh, sp->row->name);
		sheet_str(&sh, sp->row->display);
		sheet_end_row(&sh);
	}
	return sheet_finish(&sh);
}

/* ---- steps ----------------------------------------------------------------------------------------- */

static void steps_sentence(const struct gt_ranks *g, char *buf, size_t len)
{
	if (!g->steps_mode)
		snprintf(buf, len, "steps: %s", g->steps_why[0] ? g->steps_why : "not matched");
	else if (g->steps_mode == GT_SPLIT_NVTX && g->steps_range_given)
		snprintf(buf, len, "steps: each instance of the NVTX range '%s' (--range), matched across ranks "
		                   "by their order in time",
		         g->steps_range);
	else if (g->steps_mode == GT_SPLIT_NVTX)
		snprintf(buf, len, "steps: each instance of the NVTX range '%s', the most frequent top-level "
		                   "range common to every rank (--range NAME picks another), matched across "
		                   "ranks by their order in time",
		         g->steps_range);
	else if (g->steps_mode == GT_SPLIT_SYNC)
		snprintf(buf, len, "steps: no NVTX ranges: the intervals between host synchronisations of each "
		                   "rank (as gpuanalyze split finds them), matched across ranks by their order; "
		                   "they correspond only if every rank synchronises at the same points");
	else
		snprintf(buf, len, "steps: no NVTX ranges and no host synchronisations: each rank's whole "
		                   "process is one step");
}

static int steps_table(struct filler *p, size_t limit)
{
	const struct gt_ranks *g = p->g;
	struct sheet sh;
	if (sheet_begin(&sh, p, "steps"))
		return GT_ERR_NOMEM;
	unsigned comm = g->have_comm ? 0 : GT_COL_MACHINE;
	const struct gt_column cols[] = {
		{ "step", "step", SH_ITEM }, { "slowest_rank", "slowest", 0 },
		{ "duration_ns", "its us", 0 }, { "others_median_ns", "others us", 0 },
		{ "ratio", "ratio", 0 }, { "lag_ns", "lag us", 0 },
		{ "waited_for_rank", "waited for", comm }, { "wait_ns", "its NCCL us", comm },
		{ "wait_others_median_ns", "others' NCCL us", comm },
	};
	sheet_cols(&sh, GT_COLUMNS(cols));
	size_t n = p->human && limit && limit < g->nsteps ? limit : g->nsteps;
	for (size_t s = 0; s < n; s++) {
		const struct gt_rank_step *st = &g->steps[s];
		sheet_u64(&sh, st->index);
		sheet_step_rank(&sh, g, st->slowest, 1);
		sheet_us(&sh, st->dur_ns);
		sheet_us(&sh, st->others_ns);
		sheet_num_as(&sh, st->ratio, st->ratio, 3);
		sheet_us(&sh, st->lag_ns);
		sheet_step_rank(&sh, g, st->waited, !isnan(st->wait_ns));
		sheet_us(&sh, st->wait_ns);
		sheet_us(&sh, st->wait_others_ns);
		sheet_end_row(&sh);
	}
	return sheet_finish(&sh);
}

/* JSON and CSV: every rank's value in every step. */
static int step_ranks_table(struct filler *p)
{
	const struct gt_ranks *g = p->g;
	struct sheet sh;
	if (sheet_begin(&sh, p, "step_ranks"))
		return GT_ERR_NOMEM;
	const struct gt_column cols[] = {
		{ "step", "step", SH_ITEM }, { "rank", "rank", SH_RANK }, { "duration_ns", "us", 0 },
		{ "end_ns", "end ms", 0 }, { "collective_ns", "NCCL us", 0 },
	};
	sheet_cols(&sh, GT_COLUMNS(cols));
	for (size_t s = 0; s < g->nsteps; s++) {
		for (size_t i = 0; i < g->nranks; i++) {
			size_t k = s * g->nranks + i;
			sheet_u64(&sh, g->steps[s].index);
			sheet_i64(&sh, g->ranks[i].rank);
			sheet_us(&sh, g->step_dur[k]);
			sheet_num_as(&sh, g->step_end[k], g->step_end[k] / 1e6, 3);
			sheet_us(&sh, g->step_comm[k]);
			sheet_end_row(&sh);
		}
	}
	return sheet_finish(&sh);
}

static int stragglers_table(struct filler *p)
{
	const struct gt_ranks *g = p->g;
	struct sheet sh;
	if (sheet_begin(&sh, p, "stragglers"))
		return GT_ERR_NOMEM;
	const struct gt_column cols[] = {
		{ "rank", "rank", SH_RANK }, { "slowest_steps", "slowest in", 0 },
		{ "slowest_share", "share %", 0 }, { "slowest_ratio_median", "median ratio", 0 },
		{ "waited_for_steps", "waited for in", g->have_comm ? 0 : GT_COL_MACHINE },
	};
	sheet_cols(&sh, GT_COLUMNS(cols));
	for (size_t i = 0; i < g->nranks; i++) {
		const struct gt_rank *r = &g->ranks[i];
		sheet_i64(&sh, r->rank);
		sheet_u64(&sh, r->slowest);
		double share = g->nsteps ? (double)r->slowest / (double)g->nsteps : NAN;
		sheet_num_as(&sh, share, 100 * share, 1);
		sheet_num_as(&sh, r->slowest_ratio, r->slowest_ratio, 3);
		sheet_u64(&sh, r->waited_for);
		sheet_end_row(&sh);
	}
	return sheet_finish(&sh);
}

static void steps_preamble(struct filler *p)
{
	const struct gt_ranks *g = p->g;
	char buf[1536];
	steps_sentence(g, buf, sizeof buf);
	line(p, "%s", buf);
	if (!g->steps_mode)
		return;
	if (g->steps_why[0])
		line(p, "  %s", g->steps_why);
	if (g->warmup_steps)
		line(p, "warm-up: the first %llu steps of each rank dropped (--warmup); %zu steps compared",
		     (unsigned long long)g->warmup_steps, g->nsteps);
	else
		line(p, "warm-up: none dropped (--warmup 0); %zu steps compared", g->nsteps);
	line(p, "%s", STRAGGLER);
	if (g->aligned < g->nranks)
		line(p, "  lag leaves out the %zu ranks that are not aligned", g->nranks - g->aligned);
	if (!isnan(g->lag_uncertainty_ns))
		line(p, "  lags are good to +-%.3f us (the two largest alignment uncertainties)%s",
		     g->lag_uncertainty_ns / 1e3, g->one_host ? "" : ", plus the hosts' NTP disagreement");
	else if (g->aligned >= 2)
		line(p, "  the lags' error is unknown: a rank is aligned by offset only");
	if (g->have_comm)
		line(p, "%s", COLLECTIVES);
	else
		line(p, "collectives: none (no NCCL kernels in any trace)");
}

static void straggler_headline(struct filler *p)
{
	const struct gt_ranks *g = p->g;
	if (g->most_slowest != SIZE_MAX) {
		const struct gt_rank *r = &g->ranks[g->most_slowest];
		line(p, "slowest most often: rank %lld, in %llu of %zu steps (median %.3fx the others' duration "
		        "in those steps)",
		     r->rank, (unsigned long long)r->slowest, g->nsteps, r->slowest_ratio);
	}
	if (g->steps_tied)
		line(p, "ties: in %llu of %zu steps two or more ranks share the longest duration (no slowest)",
		     (unsigned long long)g->steps_tied, g->nsteps);
	if (g->waits_tied)
		line(p, "ties: in %llu of %zu steps two or more ranks share the least collective time",
		     (unsigned long long)g->waits_tied, g->nsteps);
	if (g->most_waited != SIZE_MAX) {
		const struct gt_rank *r = &g->ranks[g->most_waited];
		line(p, "waited for most often in collectives: rank %lld, in %llu of %zu steps", r->rank,
		     (unsigned long long)r->waited_for, g->nsteps);
	}
}

/* ---- peer copies --------------------------------------------------------------------------------- */

static int peers_table(struct filler *p)
{
	const struct gt_ranks *g = p->g;
	struct sheet sh;
	if (sheet_begin(&sh, p, "peer_copies"))
		return GT_ERR_NOMEM;
	sheet_when_empty(&sh, "none: no PtoP copies and no copies between two devices in any trace");
	const struct gt_column cols[] = {
		{ "rank", "rank", SH_RANK }, { "pair", "pair", GT_COL_MACHINE | SH_ITEM },
		{ "src_device", "src", 0 }, { "dst_device", "dst", 0 }, { "copies", "copies", 0 },
		{ "no_rate", "no rate", GT_COL_MACHINE }, { "bytes", "MB", 0 },
		{ "time_ns", "total ms", 0 }, { "median_gbps", "median GB/s", 0 },
		{ "p10_gbps", "p10", 0 }, { "p90_gbps", "p90", 0 },
		{ "min_gbps", "min", GT_COL_MACHINE }, { "max_gbps", "max", GT_COL_MACHINE },
		{ "link", "link", GT_COL_LEFT }, { "nvlink_links", "links", GT_COL_MACHINE },
		{ "peak_gbps", "peak GB/s", 0 }, { "peak_pct", "% of peak", 0 },
	};
	sheet_cols(&sh, GT_COLUMNS(cols));
	for (size_t i = 0; i < g->npeers; i++) {
		const struct gt_rank_peer *pe = &g->peers[i];
		char pair[64], link[64];
		snprintf(pair, sizeof pair, "%u->%u", pe->src, pe->dst);
		if (pe->link == GT_LINK_NVLINK)
			snprintf(link, sizeof link, "NVLink x%u", pe->links);
		else if (pe->link == GT_LINK_PCIE)
			snprintf(link, sizeof link, "PCIe (no NVLink path)");
		else
			snprintf(link, sizeof link, "link peak unknown");
		sheet_i64(&sh, g->ranks[pe->rank].rank);
		sheet_str(&sh, pair);
		sheet_u64(&sh, pe->src);
		sheet_u64(&sh, pe->dst);
		sheet_u64(&sh, pe->count);
		sheet_u64(&sh, pe->no_rate);
		sheet_num_as(&sh, (double)pe->bytes, (double)pe->bytes / 1e6, 3);
		sheet_num_as(&sh, pe->time_ns, pe->time_ns / 1e6, 3);
		sheet_num_as(&sh, pe->median, pe->median, 2);
		sheet_num_as(&sh, pe->p10, pe->p10, 2);
		sheet_num_as(&sh, pe->p90, pe->p90, 2);
		sheet_num_as(&sh, pe->min, pe->min, 2);
		sheet_num_as(&sh, pe->max, pe->max, 2);
		sheet_str(&sh, p->human ? link : gt_link_kind_name(pe->link));
		sheet_u64(&sh, pe->links);
		sheet_num_as(&sh, pe->peak, pe->peak, 1);
		sheet_num_as(&sh, pe->pct, pe->pct, 1);
		sheet_end_row(&sh);
	}
	return sheet_finish(&sh);
}

static void peers_preamble(struct filler *p)
{
	const struct gt_ranks *g = p->g;
	line(p, "GB/s per copy = bytes / duration (decimal); peak: the link between the two devices, "
	        "NVLink links x their rate, or PCIe when they have no NVLink path");
	int unknown = 0;
	for (size_t i = 0; i < g->npeers; i++)
		if (g->peers[i].link == GT_LINK_UNKNOWN)
			unknown = 1;
	if (unknown)
		line(p, "%s", NO_LINK);
}

/* ---- JSON head ------------------------------------------------------------------------------------ */

static void facts_head(struct filler *p, const struct gt_ranks_options *o)
{
	const struct gt_ranks *g = p->g;
	struct gt_doc *d = p->d;
	char buf[1024];
	gt_cmd_doc_head(d, "ranks");
	gt_doc_str(d, "unit", "ns");
	gt_doc_str(d, "rank_source", g->rank_source == GT_RANK_FROM_META ? "meta" : "order");
	gt_doc_str(d, "rank_source_text", rank_source_text(g, buf, sizeof buf) + strlen("ranks: "));
	gt_doc_u64(d, "hosts", g->nhosts);
	gt_doc_bool(d, "one_host", g->one_host);
	gt_doc_object(d, "clock");
	gt_doc_str(d, "aligned_to", "CLOCK_REALTIME");
	gt_doc_str(d, "method", ALIGNMENT);
	gt_doc_u64(d, "ranks_aligned", g->aligned);
	gt_doc_i64_if(d, "start_realtime_ns", g->aligned, g->start_host);
	gt_doc_str(d, "across_hosts", g->one_host ? "one host: one realtime clock"
	                                          : "several hosts: only as good as their NTP synchronisation, "
	                                            "not measured");
	gt_doc_end(d);
	gt_doc_u64(d, "warmup", o->warmup);
	gt_cmd_doc_statistics(d, 0);
	gt_doc_end(d);
}

/* The rank at index i, null when there is none (SIZE_MAX). */
static void fact_rank(struct filler *p, const char *key, size_t i)
{
	if (i != SIZE_MAX)
		gt_doc_i64(p->d, key, p->g->ranks[i].rank);
	else
		gt_doc_null(p->d, key);
}

static void facts_steps(struct filler *p)
{
	const struct gt_ranks *g = p->g;
	struct gt_doc *d = p->d;
	char buf[1536];
	gt_doc_object(d, "steps_from");
	gt_doc_str(d, "mode", g->steps_mode == GT_SPLIT_NVTX ? "nvtx" : g->steps_mode == GT_SPLIT_SYNC ? "sync"
	                      : g->steps_mode == GT_SPLIT_WINDOW ? "window" : g->steps_mode ? "process" : NULL);
	gt_doc_str(d, "range", g->steps_range);
	gt_doc_bool(d, "range_given", g->steps_range_given);
	steps_sentence(g, buf, sizeof buf);
	gt_doc_str(d, "description", buf + strlen("steps: "));
	gt_doc_str(d, "note", g->steps_mode && g->steps_why[0] ? g->steps_why : NULL);
	gt_doc_u64(d, "warmup_dropped", g->warmup_steps);
	gt_doc_u64(d, "compared", g->nsteps);
	gt_doc_u64(d, "steps_tied", g->steps_tied);
	gt_doc_u64(d, "waits_tied", g->waits_tied);
	gt_doc_num(d, "lag_uncertainty_ns", g->lag_uncertainty_ns);
	gt_doc_str(d, "straggler", STRAGGLER);
	gt_doc_str(d, "collectives", g->have_comm ? COLLECTIVES_TEXT : NULL);
	fact_rank(p, "most_slowest_rank", g->most_slowest);
	fact_rank(p, "most_waited_for_rank", g->most_waited);
	gt_doc_end(d);
}

/* ---- the command ---------------------------------------------------------------------------------- */

/* The ranks, then their kernels, each part's facts, notes and tables in one order for every format. */
static int fill_ranks(struct filler *p, const struct gt_ranks_options *o)
{
	int rc;
	char title[256];
	facts_head(p, o);
	preamble(p);
	heading(p, "ranks");
	if ((rc = ranks_table(p)) != 0)
		return rc;
	facts_devices(p);

	snprintf(title, sizeof title, "kernels per rank (us; total in ms)%s",
	         o->warmup ? ", warm-up dropped per kernel and rank" : "");
	heading(p, title);
	if (o->warmup)
		line(p, "warm-up: the first %llu launches of each kernel in each rank dropped",
		     (unsigned long long)o->warmup);
	if ((rc = kernels_per_rank(p)) != 0)
		return rc;
	heading(p, "kernels, all ranks merged by name (us; total in ms)");
	if ((rc = kernels_merged(p)) != 0)
		return rc;
	heading(p, "spread across ranks: each rank's median, then their min, median and max (us)");
	return spread_table(p);
}

/* The steps (people see the first limit of them; machines get every rank's value in each too),
 * then the peer copies. */
static int fill_steps(struct filler *p, size_t limit)
{
	const struct gt_ranks *g = p->g;
	int rc;
	char title[256];
	heading(p, "steps and stragglers");
	facts_steps(p);
	steps_preamble(p);
	if (g->nsteps || !p->human) {
		if (p->human) {
			size_t shown = limit && limit < g->nsteps ? limit : g->nsteps;
			snprintf(title, sizeof title, "steps: %zu of %zu shown%s", shown, g->nsteps,
			         shown < g->nsteps ? " (--steps 0 shows all)" : "");
			heading(p, title);
		}
		if ((rc = steps_table(p, limit)) != 0)
			return rc;
		if (!p->human && (rc = step_ranks_table(p)) != 0)
			return rc;
		heading(p, "per rank");
		straggler_headline(p);
		if ((rc = stragglers_table(p)) != 0)
			return rc;
	}

	heading(p, "peer copies (between two devices of one process), per source -> destination device");
	if (g->npeers)
		peers_preamble(p);
	return peers_table(p);
}

/* What the filler needs besides the ranks: the options that shape the output. */
struct job {
	const struct gt_ranks *g;
	const struct gt_ranks_options *o;
	uint64_t limit;
};

/* gt_cmd_filler: every part in one order. CSV says every sheet in one long table, of its own. */
static int fill(struct gt_doc *d, void *ctx)
{
	const struct job *x = ctx;
	struct filler p = { d, NULL, x->g, gt_doc_for_people(d), 0 };
	if (gt_doc_format(d) == GT_FMT_CSV) {
		static const struct gt_column cols[] = {
			{ "table", "table", GT_COL_LEFT }, { "rank", "rank", 0 }, { "item", "item", GT_COL_LEFT },
			{ "field", "field", GT_COL_LEFT }, { "value", "value", 0 },
		};
		if (!(p.csv = gt_doc_table(d, NULL, GT_COLUMNS(cols))))
			return GT_ERR_NOMEM;
	}
	int rc = fill_ranks(&p, x->o);
	if (!rc)
		rc = fill_steps(&p, (size_t)x->limit);
	if (p.csv) {
		int crc = gt_table_close(p.csv);
		if (!rc)
			rc = crc;
	}
	if (!rc)
		gt_doc_end(d); /* the JSON document */
	return rc;
}

/* The options; reset() gives them their defaults (0 where none is named) before each parse. */
struct args {
	uint64_t warmup, limit;
	const char *range;
	enum gt_format fmt;
};
static struct args arg;

static const struct gt_option options[] = {
	{ .kind = GT_OPT_STRING, .long_name = "range", .arg = "NAME", .value = &arg.range,
	  .help = "a step is an instance of the NVTX range NAME (default: the most frequent "
	          "top-level range common to every rank)" },
	{ .kind = GT_OPT_UINT, .long_name = "warmup", .arg = "N", .value = &arg.warmup,
	  .help = "drop the first N launches of each kernel and the first N steps, in each trace "
	          "(default 0)" },
	{ .kind = GT_OPT_UINT, .long_name = "steps", .arg = "N", .value = &arg.limit,
	  .help = "text and md: show the first N steps (default 50; 0: all); json and csv hold all" },
	GT_OPT_FORMAT(&arg.fmt, GT_FMT_ALL),
	GT_OPT_END_OF_LIST,
};

static void reset(void) { arg = (struct args){ .limit = 50, .fmt = GT_FMT_TEXT }; }

static int run(const struct gt_cmd_call *call)
{
	struct gt_ranks g;
	struct gt_ranks_options o = { arg.range, arg.warmup };
	int rc = gt_ranks_run(&g, call->files, (size_t)call->nfiles, &o);
	if (rc)
		return rc;
	struct job x = { &g, &o, arg.limit };
	rc = gt_cmd_render(call, arg.fmt, fill, &x);
	gt_ranks_release(&g);
	return rc;
}

const struct gt_command gt_cmd_ranks = {
	.name = "ranks",
	.help = "one trace per process: ranks aligned, per-rank and merged kernels, stragglers, peer copies",
	.operands = "FILE...",
	.min_operands = 1,
	.max_operands = -1,
	.description =
	"Traces of one job's processes (one per rank, as GPUTRACE_OUTPUT's %r and %p make them),\n"
	"side by side: rank, host, pid and devices of each; their times aligned on CLOCK_REALTIME\n"
	"through each trace's clock pairings, with the alignment's uncertainty; kernel statistics\n"
	"per rank and merged, and each kernel's spread across ranks; per step (NVTX range, else\n"
	"interval between host synchronisations) the slowest rank and by how much it lagged;\n"
	"peer-to-peer copy bandwidth per device pair against the link's peak. gpuanalyze(1)\n"
	"defines every column.",
	.options = options,
	.reset = reset,
	.run = run,
};
GT_COMMAND_ENTRY(ranks)
