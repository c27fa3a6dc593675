/* findings.c: the rules of findings.h, run over one pass of a trace.
 *
 * The pass keeps, per GPU operation, its interval with a label (kernel name id, or copy or memset)
 * and stream, in one array per device and kind (24 bytes); per kernel launch, its duration (8
 * bytes) under its name; and a few counters per rule. The copy flags come from bandwidth.c, fed
 * from the same pass, and its critical-path test is answered from those arrays rather than a
 * second read. Afterwards each array is sorted by start (usually already so) and a device's three
 * are merged on the fly: one walk in time order finds the idle gaps (and what ran on either side)
 * and another spreads the union of busy time over the utilisation slices, with no union kept.
 */
#include "analyze/engines/findings.h"
#include "analyze/blocks/event_origin.h"
#include "analyze/support/api_calls.h"

#include "analyze/engines/bandwidth.h"
#include "analyze/support/idmap.h"
#include "analyze/support/kname.h"
#include "analyze/support/load.h"
#include "analyze/support/trace_end.h"
#include "common/grow.h"
#include "common/stats.h"
#include "analyze/blocks/timeline.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *gt_severity_name(int sev)
{
	static const char *const n[] = { "info", "warning", "error" };
	return sev >= 0 && sev <= 2 ? n[sev] : "?";
}

char *gt_clock_reasons_text(uint64_t mask, char *buf, size_t len)
{
	static const char *const names[] = {
		"GpuIdle", "ApplicationsClocksSetting", "SwPowerCap", "HwSlowdown", "SyncBoost",
		"SwThermalSlowdown", "HwThermalSlowdown", "HwPowerBrakeSlowdown", "DisplayClockSetting",
	};
	size_t n = 0;
	if (len)
		buf[0] = '\0';
	for (int b = 0; b < 64 && n < len; b++) {
		if (!(mask >> b & 1))
			continue;
		if (b < (int)(sizeof names / sizeof names[0]))
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", names[b]);
		else
			n += (size_t)snprintf(buf + n, len - n, "%s0x%llx", n ? ", " : "", 1ull << b);
	}
	return buf;
}

void gt_findings_defaults(struct gt_findings_options *o)
{
	o->gap_ns = 1000000;
	o->slices = 30;
	o->util_pct = 50;
	o->first_ratio = 2;
	o->bimodal_min = 20;
	o->bimodal_ratio = 1.5;
	o->bimodal_share = 0.10;
	o->warn_pct = 5;
}

/* ---- what the pass keeps ------------------------------------------------------------------------ */

#define LBL_COPY 0x80000000u   /* | copy kind */
#define LBL_MEMSET 0xC0000000u /* | memory kind */
#define LBL_KIND(l) ((l) & 0xC0000000u)

struct op {
	uint64_t start, end;
	uint32_t label, stream;
};

/* A device's operations, one array per kind (kernels, copies, memsets): each kind arrives nearly
 * in time order, while the three interleave by chunk in the file, so three sorted arrays merged on
 * the fly cost far less than one array sorted. */
enum { OP_KERNEL = 0, OP_COPY, OP_MEMSET, OP_KINDS };

struct devops {
	uint32_t device;
	struct gt_tl_vec ops[OP_KINDS];
	size_t n;                    /* all kinds */
};

/* The three arrays of a device in start order. */
struct merged {
	const struct op *v[OP_KINDS];
	size_t n[OP_KINDS], i[OP_KINDS];
};

static void merged_init(struct merged *m, const struct devops *d)
{
	for (int k = 0; k < OP_KINDS; k++) {
		m->v[k] = d->ops[k].buf.p;
		m->n[k] = d->ops[k].n;
		m->i[k] = 0;
	}
}

static const struct op *merged_next(struct merged *m)
{
	int best = -1;
	for (int k = 0; k < OP_KINDS; k++)
		if (m->i[k] < m->n[k] && (best < 0 || m->v[k][m->i[k]].start < m->v[best][m->i[best]].start))
			best = k;
	return best < 0 ? NULL : &m->v[best][m->i[best]++];
}

struct kacc {
	struct gt_growbuf buf;   /* durations, ns, in file order (huge pages once large) */
	uint64_t *d;
	size_t n, cap;
	uint64_t first_start, first_dur;
	uint32_t first_stream;
};

struct flagacc {
	uint64_t count, bytes;
	double time_ns;
	uint64_t first;
	uint32_t first_stream;
	int first_kind;
};

struct block {                   /* a call that waited for the whole device */
	uint64_t start, end;
	uint32_t corr, from_api;
};

struct clk {
	uint32_t device;
	uint64_t n, busy_n;
	uint32_t sm_min, sm_max, busy_min, busy_max;
	uint64_t busy_min_ts, busy_max_ts;
	uint64_t reasons;
	uint64_t throttle_n, first_throttle;
	uint64_t throttle_reasons;
};

struct dropacc {
	uint64_t records, count, zero_count;
	uint64_t first;
};

struct findings_pass {
	struct gt_findings *F;
	struct devops *dev;
	size_t ndev, capdev;
	struct gt_idmap dev_index;   /* device id -> index in dev: a trace may name any number */
	struct kacc *k;              /* by kernel name id */
	size_t nk;
	struct flagacc pageable_async, sync_memsets;
	struct gt_tl_vec blocks;
	uint8_t *api_kind;           /* per API name id: 0 unknown, 1 device-wide sync, 2 other */
	size_t napi_kind;
	struct clk *clk;
	size_t nclk;
	struct dropacc drop[8];      /* by reason (0: unknown reasons) */
	uint64_t tracing_off_ts;
	int tracing_off;
	struct gt_bandwidth own_bw;  /* the copy flags, unless the caller lends one (gt_findings_begin) */
	struct gt_bandwidth *bw;
};

/* A string id the trace never defined (a damaged record) names nothing: it is taken as 0, so that
 * the tables indexed by id stay as small as the trace's strings (and below the label bits). */
static uint32_t known_id(const struct gt_reader *r, uint32_t id)
{
	return id <= gt_reader_string_count(r) && id < LBL_COPY ? id : 0;
}

static struct devops *devops_for(struct findings_pass *p, uint32_t device)
{
	size_t i = gt_idmap_get(&p->dev_index, device);
	if (i != SIZE_MAX)
		return &p->dev[i];
	if ((p->ndev == p->capdev && gt_grow_zeroed(&p->dev, &p->capdev, p->ndev + 1, sizeof *p->dev, 16)) ||
	    gt_idmap_put(&p->dev_index, device, p->ndev))
		return NULL;
	struct devops *d = &p->dev[p->ndev++];
	d->device = device;
	for (int k = 0; k < OP_KINDS; k++)
		gt_tl_vec_init(&d->ops[k], sizeof(struct op));
	d->n = 0;
	return d;
}

static int add_op(struct findings_pass *p, uint32_t device, int kind, uint64_t start, uint64_t end, uint32_t label,
                  uint32_t stream)
{
	/* Most traces have one device: the first entry is nearly always the one. */
	struct devops *d = p->ndev && p->dev[0].device == device ? &p->dev[0] : devops_for(p, device);
	if (!d)
		return GT_ERR_NOMEM;
	struct op *o = gt_tl_vec_push(&d->ops[kind]);
	d->n++;
	if (!o)
		return GT_ERR_NOMEM;
	o->start = start;
	o->end = end;
	o->label = label;
	o->stream = stream;
	return 0;
}

static void flag_add(struct flagacc *f, uint64_t start, uint64_t end, uint64_t bytes, uint32_t stream, int kind)
{
	f->count++;
	f->bytes += bytes;
	f->time_ns += (double)(end - start);
	if (!f->first || start < f->first) {
		f->first = start;
		f->first_stream = stream;
		f->first_kind = kind;
	}
}

static int on_kernel(struct findings_pass *p, const struct gt_reader *r, const struct gt_kernel *k)
{
	p->F->kernels++;
	if ((k->flags & GT_KERNEL_BAD_TIMES) || k->end < k->start)
		return 0;
	uint32_t id = known_id(r, k->name_id);
	if (id >= p->nk && gt_grow_zeroed(&p->k, &p->nk, (size_t)id + 1, sizeof *p->k, 16))
		return GT_ERR_NOMEM;
	struct kacc *a = &p->k[id];
	if (a->n == a->cap) {
		if (gt_growbuf_reserve(&a->buf, (a->n + 1) * sizeof *a->d))
			return GT_ERR_NOMEM;
		a->d = a->buf.p;
		a->cap = a->buf.cap / sizeof *a->d;
	}
	uint64_t dur = k->end - k->start;
	if (!a->n || k->start < a->first_start) {
		a->first_start = k->start;
		a->first_dur = dur;
		a->first_stream = k->stream_id;
	}
	a->d[a->n++] = dur;
	return add_op(p, k->device_id, OP_KERNEL, k->start, k->end, id, k->stream_id);
}

static int on_memcpy(struct findings_pass *p, const struct gt_memcpy *m)
{
	p->F->copies++;
	if (m->end < m->start)
		return 0;
	int host = m->copy_kind == GT_COPY_HTOD || m->copy_kind == GT_COPY_HTOA ? m->src_kind
	           : m->copy_kind == GT_COPY_DTOH || m->copy_kind == GT_COPY_ATOH ? m->dst_kind
	                                                                          : -1;
	if ((m->flags & GT_COPY_ASYNC) && host == GT_MEM_PAGEABLE)
		flag_add(&p->pageable_async, m->start, m->end, m->bytes, m->stream_id, m->copy_kind);
	return add_op(p, m->device_id, OP_COPY, m->start, m->end, LBL_COPY | m->copy_kind, m->stream_id);
}

static int on_memset(struct findings_pass *p, const struct gt_memset *m)
{
	p->F->memsets++;
	if (m->end < m->start)
		return 0;
	if (!(m->flags & GT_COPY_ASYNC))
		flag_add(&p->sync_memsets, m->start, m->end, m->bytes, m->stream_id, m->mem_kind);
	return add_op(p, m->device_id, OP_MEMSET, m->start, m->end, LBL_MEMSET | m->mem_kind, m->stream_id);
}

static int push_block(struct findings_pass *p, uint64_t start, uint64_t end, uint32_t corr, int from_api)
{
	struct block *b = gt_tl_vec_push(&p->blocks);
	if (!b)
		return GT_ERR_NOMEM;
	b->start = start;
	b->end = end;
	b->corr = corr;
	b->from_api = (uint32_t)from_api;
	return 0;
}

static int on_api(struct findings_pass *p, const struct gt_reader *r, const struct gt_api *a)
{
	p->F->apis++;
	uint32_t id = known_id(r, a->name_id);
	if (id >= p->napi_kind && gt_grow_zeroed(&p->api_kind, &p->napi_kind, (size_t)id + 1, 1, 16))
		return GT_ERR_NOMEM;
	if (!p->api_kind[id]) {
		const char *n = gt_reader_string(r, id);
		p->api_kind[id] = gt_api_sync_kind(n) == GT_API_SYNC_CONTEXT ? 1 : 2;
	}
	if (p->api_kind[id] == 1 && a->end >= a->start)
		return push_block(p, a->start, a->end, a->correlation_id, 1);
	return 0;
}

static int on_clock(struct findings_pass *p, const struct gt_clock_sample *c)
{
	p->F->clock_samples++;
	struct clk *k = NULL;
	for (size_t i = 0; i < p->nclk; i++)
		if (p->clk[i].device == c->device_id)
			k = &p->clk[i];
	if (!k) {
		size_t cap = p->nclk;
		if (gt_grow_zeroed(&p->clk, &cap, p->nclk + 1, sizeof *p->clk, 16))
			return GT_ERR_NOMEM;
		k = &p->clk[p->nclk++];
		memset(k, 0, sizeof *k);
		k->device = c->device_id;
	}
	if (!k->n || c->sm_clock_mhz < k->sm_min)
		k->sm_min = c->sm_clock_mhz;
	if (!k->n || c->sm_clock_mhz > k->sm_max)
		k->sm_max = c->sm_clock_mhz;
	k->n++;
	k->reasons |= c->throttle_reasons;
	if (!(c->throttle_reasons & GT_CLK_GPU_IDLE)) {
		if (!k->busy_n || c->sm_clock_mhz < k->busy_min) {
			k->busy_min = c->sm_clock_mhz;
			k->busy_min_ts = c->timestamp;
		}
		if (!k->busy_n || c->sm_clock_mhz > k->busy_max) {
			k->busy_max = c->sm_clock_mhz;
			k->busy_max_ts = c->timestamp;
		}
		k->busy_n++;
	}
	if (c->throttle_reasons & GT_CLK_THROTTLING) {
		if (!k->throttle_n || c->timestamp < k->first_throttle)
			k->first_throttle = c->timestamp;
		k->throttle_n++;
		k->throttle_reasons |= c->throttle_reasons & GT_CLK_THROTTLING;
	}
	return 0;
}

static int on_record(void *ctx, const struct gt_reader *r, const struct gt_event *ev)
{
	struct findings_pass *p = ctx;
	struct gt_findings *F = p->F;
	gt_event_origin(&F->origin, ev);
	int rc = gt_bw_record(p->bw, r, ev);
	if (rc)
		return rc;
	switch (ev->type) {
	case GT_REC_KERNEL: return on_kernel(p, r, &ev->u.kernel);
	case GT_REC_MEMCPY: return on_memcpy(p, &ev->u.memcpy);
	case GT_REC_MEMSET: return on_memset(p, &ev->u.memset);
	case GT_REC_API: return on_api(p, r, &ev->u.api);
	case GT_REC_SYNC:
		F->syncs++;
		if (ev->u.sync.kind == GT_SYNC_CONTEXT && ev->u.sync.end >= ev->u.sync.start)
			return push_block(p, ev->u.sync.start, ev->u.sync.end, ev->u.sync.correlation_id, 0);
		return 0;
	case GT_REC_CLOCK_SAMPLE: return on_clock(p, &ev->u.clock_sample);
	case GT_REC_DROPPED: {
		const struct gt_dropped *d = &ev->u.dropped;
		struct dropacc *a = &p->drop[d->reason < 8 ? d->reason : 0];
		a->records++;
		a->count += d->count;
		a->zero_count += d->count == 0;
		if (d->timestamp && (!a->first || d->timestamp < a->first))
			a->first = d->timestamp;
		return 0;
	}
	case GT_REC_PROCESS:
		if (ev->u.process.event == GT_PROCESS_TRACING_OFF) {
			p->tracing_off = 1;
			p->tracing_off_ts = ev->u.process.timestamp;
		}
		return 0;
	default: return 0;
	}
}

/* ---- building findings -------------------------------------------------------------------------- */

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));

static char *fmt(const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	char *s = NULL;
	if (vasprintf(&s, f, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

/* Adds a finding; the strings are taken (freed here on failure). */
static int add(struct gt_findings *F, const char *id, int sev, char *what, char *where, double cost,
               char *how, char *todo)
{
	struct gt_finding *f = NULL;
	if (what && where && how && todo && !gt_grow_zeroed(&F->f, &F->cap, F->n + 1, sizeof *F->f, 16))
		f = &F->f[F->n];
	if (!f) {
		free(what);
		free(where);
		free(how);
		free(todo);
		return GT_ERR_NOMEM;
	}
	memset(f, 0, sizeof *f);
	snprintf(f->id, sizeof f->id, "%s", id);
	f->severity = sev;
	f->what = what;
	f->where = where;
	f->cost_ns = cost;
	f->cost_how = how;
	f->todo = todo;
	f->stream = -1;
	F->n++;
	return 0;
}

static struct gt_finding *last(struct gt_findings *F) { return &F->f[F->n - 1]; }

static const char *pl(uint64_t n, const char *one, const char *many) { return n == 1 ? one : many; }

static void set_where(struct gt_finding *f, uint64_t ts, uint64_t origin, int64_t stream)
{
	if (ts && ts >= origin) {
		f->has_offset = 1;
		f->offset_ns = ts - origin;
	}
	f->stream = stream;
}

/* "+12.345 ms" from the trace's start. */
static const char *at(uint64_t ts, uint64_t origin, char *buf, size_t len)
{
	if (!ts || ts < origin)
		snprintf(buf, len, "at an unknown time");
	else
		snprintf(buf, len, "at +%.3f ms", (double)(ts - origin) / 1e6);
	return buf;
}

static double span(const struct gt_findings *F)
{
	return F->gpu_last > F->gpu_first ? (double)(F->gpu_last - F->gpu_first) : 0;
}

/* warning when cost >= warn_pct of the GPU span, else info. */
static int sev_by_cost(const struct gt_findings *F, double cost)
{
	double s = span(F);
	return s > 0 && cost >= F->opt.warn_pct / 100 * s ? GT_SEV_WARNING : GT_SEV_INFO;
}

static const char *pct_of_span(const struct gt_findings *F, double cost, char *buf, size_t len)
{
	double s = span(F);
	if (s > 0)
		snprintf(buf, len, "%.1f%% of the GPU span", 100 * cost / s);
	else
		snprintf(buf, len, "no GPU span");
	return buf;
}

/* The META keys the recorder writes when another CUPTI client got in its way: each is a finding on
 * the whole trace that quotes the key's value inside its what. */
struct client_rule {
	const char *key, *id;
	int sev;
	const char *what, *what_after, *how, *todo;
};
static const struct client_rule client_rules[] = {
	{ "tracing.collision", "tracing-collision", GT_SEV_ERROR,
	  "another CUPTI client registered activity buffers while gputrace recorded, so CUPTI handed buffers "
	  "to the wrong client: ",
	  "", "unknown: records went to the other client",
	  "Record without other profilers in the process (torch.profiler, nsys, Nsight Compute)" },
	{ "tracing.other_clients_refused", "other-clients-refused", GT_SEV_WARNING,
	  "the program tried to start another CUPTI client (its own profiler), which was refused: ",
	  "; this trace is whole, that profiler's output is not", "not a cost in this trace",
	  "Profile with one tool at a time; disable the program's own profiler while recording" },
};

static int rule_losses(struct findings_pass *p, const struct gt_reader *r)
{
	struct gt_findings *F = p->F;
	char t[64];
	/* DROPPED records: losses, and what was left out on purpose (info). */
	uint64_t lost = 0, lost_records = 0, unknown = 0, first = 0;
	char parts[512] = "";
	size_t n = 0;
	static const int lossy[] = { GT_DROP_CUPTI, GT_DROP_BUFFER_LOST, GT_DROP_BAD_RECORD,
		                     GT_DROP_UNKNOWN_KIND, 0 };
	for (size_t i = 0; i < sizeof lossy / sizeof lossy[0]; i++) {
		const struct dropacc *a = &p->drop[lossy[i]];
		if (!a->records)
			continue;
		lost += a->count;
		lost_records += a->records;
		unknown += a->zero_count;
		if (a->first && (!first || a->first < first))
			first = a->first;
		n += (size_t)snprintf(parts + n, sizeof parts - n, "%s%llu %s%s", n ? ", " : "",
		                      (unsigned long long)a->count,
		                      lossy[i] ? gt_drop_reason_name(lossy[i]) : "for reasons this analyzer does not know",
		                      a->zero_count ? " (and an unknown number more)" : "");
	}
	const char *buffers_refused = gt_reader_meta(r, "tracing.buffers_refused");
	int refused = buffers_refused && strcmp(buffers_refused, "0") != 0;
	if (lost_records || refused) {
		if (refused)
			n += (size_t)snprintf(parts + n, sizeof parts - n, "%sactivity buffers refused: %s",
			                      n ? "; " : "", buffers_refused);
		if (add(F, "records-lost", GT_SEV_ERROR,
		        fmt("records were lost while recording: %s", parts),
		        fmt("first noticed %s", at(first, F->origin, t, sizeof t)), NAN,
		        fmt("unknown: what the lost records would have timed is not in the trace"),
		        fmt("Record again with larger or more activity buffers (GPUTRACE_BUFFER_KB, "
		            "GPUTRACE_BUFFERS_MAX) or fewer activity kinds (GPUTRACE_ACTIVITIES); until "
		            "then, treat totals and gaps in this trace as lower bounds")))
			return GT_ERR_NOMEM;
		set_where(last(F), first, F->origin, -1);
		last(F)->count = lost + unknown;
	}
	const struct dropacc *fl = &p->drop[GT_DROP_FILTERED];
	if (fl->records) {
		if (add(F, "records-filtered", GT_SEV_INFO,
		        fmt("%llu kernel records were left out on purpose by the recording's kernel filter "
		            "(GPUTRACE_KERNELS = '%s')",
		            (unsigned long long)fl->count,
		            gt_reader_meta(r, "trace.kernel_filter") ? gt_reader_meta(r, "trace.kernel_filter") : "?"),
		        fmt("the whole trace"), NAN, fmt("not a cost: a choice made when recording"),
		        fmt("Nothing to fix; remember that GPU busy time and gaps here miss the filtered "
		            "kernels")))
			return GT_ERR_NOMEM;
		last(F)->count = fl->count;
	}
	const struct dropacc *cap = &p->drop[GT_DROP_CAPTURE];
	if (cap->records) {
		if (add(F, "captures-skipped", GT_SEV_INFO,
		        fmt("%llu shadow captures were skipped (caps reached, or memory that could not be "
		            "copied)",
		            (unsigned long long)cap->count),
		        fmt("first noticed %s", at(cap->first, F->origin, t, sizeof t)), NAN,
		        fmt("not a timing cost: fewer launches can be replayed"),
		        fmt("Raise GPUTRACE_SHADOW_MAX or GPUTRACE_SHADOW_BYTES if those launches matter")))
			return GT_ERR_NOMEM;
		last(F)->count = cap->count;
	}
	if (!F->complete) {
		if (add(F, "trace-incomplete", GT_SEV_ERROR,
		        fmt("the trace ends early: %llu bytes of an incomplete last chunk are lost and there is "
		            "no END record; the recording process did not close the trace (killed, crashed, "
		            "or its writes failed, as on a full disk)",
		            (unsigned long long)F->lost_bytes),
		        fmt("the end of the trace"), NAN,
		        /* Not "one flush interval": after a write failure the recorder stops and every
		         * later record is lost, however long the program went on; the trace cannot say. */
		        fmt("unknown: every record after the last complete chunk is lost, an unknown number "
		            "(the program may have run on long after)"),
		        fmt("Let the program exit normally (or end it with SIGINT/SIGTERM, which the recorder "
		            "handles) with room on the disk, then record again")))
			return GT_ERR_NOMEM;
	}
	const char *off = gt_reader_meta(r, "tracing.off");
	if (off || p->tracing_off) {
		if (add(F, "tracing-off", GT_SEV_ERROR,
		        fmt("the recorder stopped tracing before the program ended: %s",
		            off ? off : "(no reason recorded)"),
		        fmt("%s", p->tracing_off ? at(p->tracing_off_ts, F->origin, t, sizeof t) : "the end of the trace"),
		        NAN, fmt("unknown: nothing after that point was recorded"),
		        fmt("Fix the cause named above and record again")))
			return GT_ERR_NOMEM;
		set_where(last(F), p->tracing_off_ts, F->origin, -1);
	}
	for (size_t i = 0; i < sizeof client_rules / sizeof client_rules[0]; i++) {
		const struct client_rule *c = &client_rules[i];
		const char *v = gt_reader_meta(r, c->key);
		if (v && add(F, c->id, c->sev, fmt("%s%s%s", c->what, v, c->what_after), fmt("the whole trace"), NAN,
		             fmt("%s", c->how), fmt("%s", c->todo)))
			return GT_ERR_NOMEM;
	}
	return 0;
}

static int rule_copies(struct findings_pass *p)
{
	struct gt_findings *F = p->F;
	char t[64], pc[64];
	const struct flagacc *a = &p->pageable_async;
	if (a->count) {
		if (add(F, "pageable-async", sev_by_cost(F, a->time_ns),
		        fmt("%llu %s issued as asynchronous but with a pageable host end, so %s ran "
		            "synchronously (%.3f MB, %.3f ms)",
		            (unsigned long long)a->count, pl(a->count, "copy", "copies"), pl(a->count, "it", "they"),
		            (double)a->bytes / 1e6, a->time_ns / 1e6),
		        fmt("first %s, %s, stream %u", at(a->first, F->origin, t, sizeof t), gt_copy_kind_name(a->first_kind),
		            a->first_stream),
		        a->time_ns,
		        fmt("their summed GPU duration (%s): the host waited at least that long and could "
		            "not queue other work meanwhile",
		            pct_of_span(F, a->time_ns, pc, sizeof pc)),
		        fmt("Allocate these host buffers with cudaMallocHost (or pin them with "
		            "cudaHostRegister) so that cudaMemcpyAsync is asynchronous")))
			return GT_ERR_NOMEM;
		set_where(last(F), a->first, F->origin, a->first_stream);
		last(F)->count = a->count;
	}
	const struct gt_bw_flag *s = &p->bw->sync, *c = &p->bw->sync_critical;
	if (s->count) {
		if (add(F, "sync-copies", sev_by_cost(F, s->time_ns),
		        fmt("%llu %s without the async flag (cudaMemcpy and the like; %.3f MB, %.3f ms); %llu "
		            "of them (%.3f ms) ran while the device did nothing else",
		            (unsigned long long)s->count, pl(s->count, "copy", "copies"), (double)s->bytes / 1e6,
		            s->time_ns / 1e6, (unsigned long long)c->count, c->time_ns / 1e6),
		        fmt("first %s, %s, stream %u", at(s->first_start, F->origin, t, sizeof t),
		            gt_copy_kind_name(s->first_copy_kind), s->first_stream),
		        s->time_ns,
		        fmt("their summed GPU duration (%s): the host waited at least that long; the "
		            "critical-path part is time the GPU was idle too",
		            pct_of_span(F, s->time_ns, pc, sizeof pc)),
		        fmt("Use cudaMemcpyAsync on a stream from pinned memory, and synchronise once where "
		            "the result is needed")))
			return GT_ERR_NOMEM;
		set_where(last(F), s->first_start, F->origin, s->first_stream);
		last(F)->count = s->count;
	}
	a = &p->sync_memsets;
	if (a->count) {
		if (add(F, "sync-memsets", sev_by_cost(F, a->time_ns),
		        fmt("%llu %s without the async flag (cudaMemset; %.3f MB, %.3f ms)",
		            (unsigned long long)a->count, pl(a->count, "memset", "memsets"), (double)a->bytes / 1e6,
		            a->time_ns / 1e6),
		        fmt("first %s, stream %u", at(a->first, F->origin, t, sizeof t), a->first_stream),
		        a->time_ns,
		        fmt("their summed GPU duration (%s): the host waited at least that long",
		            pct_of_span(F, a->time_ns, pc, sizeof pc)),
		        fmt("Use cudaMemsetAsync on the stream that uses the memory")))
			return GT_ERR_NOMEM;
		set_where(last(F), a->first, F->origin, a->first_stream);
		last(F)->count = a->count;
	}
	const struct gt_bw_flag *sm = &p->bw->small;
	if (sm->count) {
		char thr[256] = "";
		size_t n = 0;
		for (size_t i = 0; i < p->bw->ndevices; i++) {
			const struct gt_bw_device *d = &p->bw->devices[i];
			n += (size_t)snprintf(thr + n, sizeof thr - n, "%sdevice %u: %.0f bytes for host copies, %.0f for DtoD",
			                      n ? "; " : "", d->device_id, d->small_host, d->small_dtod);
			if (n >= sizeof thr)
				break;
		}
		if (add(F, "small-copies", sev_by_cost(F, sm->time_ns),
		        fmt("%llu %s too small to reach 80%% of the bandwidth ceiling (%.3f MB, %.3f ms); "
		            "thresholds: %s",
		            (unsigned long long)sm->count, pl(sm->count, "copy", "copies"), (double)sm->bytes / 1e6,
		            sm->time_ns / 1e6, thr),
		        fmt("see 'gpuanalyze bandwidth' for the groups"), sm->time_ns,
		        fmt("their summed GPU duration (%s); with a fixed cost of about %.0f us per copy, "
		            "most of it is overhead",
		            pct_of_span(F, sm->time_ns, pc, sizeof pc), GT_BW_FIXED_COST_NS / 1e3),
		        fmt("Batch small copies into fewer large ones, or keep the data on the device")))
			return GT_ERR_NOMEM;
		last(F)->count = sm->count;
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static int rule_blocking(struct findings_pass *p)
{
	struct gt_findings *F = p->F;
	struct gt_tl_vec *v = &p->blocks;
	if (!v->n)
		return 0;
	/* Context syncs count as they are; an API call counts when no context sync record carries
	 * its correlation id (sync activity may be off). */
	size_t nsync = 0;
	for (size_t i = 0; i < v->n; i++)
		nsync += !((struct block *)gt_tl_vec_at(v, i))->from_api;
	uint32_t *ids = malloc((nsync ? nsync : 1) * sizeof *ids);
	if (!ids)
		return GT_ERR_NOMEM;
	size_t k = 0;
	for (size_t i = 0; i < v->n; i++) {
		const struct block *b = gt_tl_vec_at(v, i);
		if (!b->from_api)
			ids[k++] = b->corr;
	}
	qsort(ids, k, sizeof *ids, cmp_u32);
	uint64_t count = 0, first = 0, longest = 0, longest_at = 0;
	double total = 0;
	for (size_t i = 0; i < v->n; i++) {
		const struct block *b = gt_tl_vec_at(v, i);
		if (b->from_api && k && bsearch(&b->corr, ids, k, sizeof *ids, cmp_u32))
			continue;
		count++;
		uint64_t d = b->end - b->start;
		total += (double)d;
		if (!first || b->start < first)
			first = b->start;
		if (d > longest || !longest_at) {
			longest = d;
			longest_at = b->start;
		}
	}
	free(ids);
	char t1[64], t2[64], pc[64];
	if (add(F, "blocking-syncs", sev_by_cost(F, total),
	        fmt("%llu %s waited for all work of the device (cudaDeviceSynchronize, context "
	            "synchronisation), %.3f ms in all; the longest %.3f ms",
	            (unsigned long long)count, pl(count, "call", "calls"), total / 1e6, (double)longest / 1e6),
	        fmt("first %s; the longest %s", at(first, F->origin, t1, sizeof t1),
	            at(longest_at, F->origin, t2, sizeof t2)),
	        total,
	        fmt("the time the calls blocked the host, summed (%s); not all of it is lost, but no "
	            "host work overlapped the GPU meanwhile",
	            pct_of_span(F, total, pc, sizeof pc)),
	        fmt("Wait on the stream or an event that produces the result (cudaStreamSynchronize, "
	            "cudaEventSynchronize), and only where the host needs it")))
		return GT_ERR_NOMEM;
	set_where(last(F), first, F->origin, -1);
	last(F)->count = count;
	return 0;
}

/* What a label names, for "where". */
static const char *label_text(const struct findings_pass *p, const struct gt_reader *r, uint32_t label, char *buf,
                              size_t len)
{
	(void)p;
	if (LBL_KIND(label) == LBL_COPY)
		snprintf(buf, len, "a %s copy", gt_copy_kind_name((int)(label & 0xff)));
	else if (LBL_KIND(label) == LBL_MEMSET)
		snprintf(buf, len, "a memset");
	else {
		char *d = gt_kernel_short_name(gt_reader_string(r, label));
		snprintf(buf, len, "kernel %s", d ? d : gt_reader_string(r, label));
		free(d);
	}
	return buf;
}

/* Slice i of ns over [s0, s1) starts here (slice ns: s1); rounding to the ns as the ends do. */
static uint64_t slice_lo(uint64_t s0, uint64_t s1, double len, unsigned ns, unsigned i)
{
	return i >= ns ? s1 : s0 + (uint64_t)(len * i);
}

/* Adds the busy span [a, b) to the slices it crosses. */
static void spread(double *busy, unsigned ns, uint64_t s0, uint64_t s1, double len, uint64_t a, uint64_t b)
{
	if (b <= a)
		return;
	unsigned k = (unsigned)((double)(a - s0) / len);
	if (k >= ns)
		k = ns - 1;
	while (k > 0 && slice_lo(s0, s1, len, ns, k) > a)
		k--;
	while (k + 1 < ns && slice_lo(s0, s1, len, ns, k + 1) <= a)
		k++;
	for (; k < ns; k++) {
		uint64_t lo = slice_lo(s0, s1, len, ns, k), hi = slice_lo(s0, s1, len, ns, k + 1);
		if (lo >= b)
			break;
		uint64_t x = a > lo ? a : lo, y = b < hi ? b : hi;
		if (y > x)
			busy[k] += (double)(y - x);
	}
}

struct gap {
	uint64_t start, end;
	uint32_t before, after, before_stream, after_stream;
};

/* Keeps g among the three longest gaps in top (longest first), ntop of them so far. */
static void keep_longest(struct gap top[3], size_t *ntop, const struct gap *g)
{
	uint64_t len = g->end - g->start;
	size_t j;
	if (*ntop < 3)
		j = (*ntop)++;
	else if (len > top[2].end - top[2].start)
		j = 2;
	else
		j = 3;
	if (j < 3) {
		top[j] = *g;
		while (j > 0 && len > top[j - 1].end - top[j - 1].start) {
			struct gap x = top[j];
			top[j] = top[j - 1];
			top[j - 1] = x;
			j--;
		}
	}
}

/* The idle-gaps finding of a device (n > 0 operations); sets *s0, *s1 to its span of GPU work. */
static int idle_gaps(struct findings_pass *p, const struct gt_reader *r, struct devops *d, uint64_t *s0,
                     uint64_t *s1)
{
	struct gt_findings *F = p->F;
	const struct gt_findings_options *o = &F->opt;
	/* Idle gaps, with what ran on either side: the operation that reached furthest before the
	 * gap and the one that ends it. */
	struct merged mg;
	merged_init(&mg, d);
	const struct op *op = merged_next(&mg);
	*s0 = op->start;
	uint64_t maxend = op->end, count = 0;
	uint32_t before = op->label, before_stream = op->stream;
	double total = 0;
	struct gap top[3];
	size_t ntop = 0;
	while ((op = merged_next(&mg))) {
		if (op->start >= maxend + o->gap_ns) {
			struct gap g = { maxend, op->start, before, op->label, before_stream, op->stream };
			count++;
			total += (double)(g.end - g.start);
			keep_longest(top, &ntop, &g);
		}
		if (op->end > maxend) {
			maxend = op->end;
			before = op->label;
			before_stream = op->stream;
		}
	}
	*s1 = maxend;
	if (!count)
		return 0;
	char where[1024], a[256], b[256], t[64], pc[64];
	size_t w = 0;
	for (size_t j = 0; j < ntop && w < sizeof where; j++)
		w += (size_t)snprintf(where + w, sizeof where - w, "%s%.3f ms %s, after %s (stream %u), before %s (stream %u)",
		                      j ? "; " : "", (double)(top[j].end - top[j].start) / 1e6,
		                      at(top[j].start, F->origin, t, sizeof t),
		                      label_text(p, r, top[j].before, a, sizeof a), top[j].before_stream,
		                      label_text(p, r, top[j].after, b, sizeof b), top[j].after_stream);
	if (add(F, "idle-gaps", sev_by_cost(F, total),
	        fmt("device %u: %llu %s of at least %.3f ms with no GPU work (%.3f ms in all) between "
	            "its first and last operation",
	            d->device, (unsigned long long)count, pl(count, "gap", "gaps"), (double)o->gap_ns / 1e6,
	            total / 1e6),
	        fmt("the longest: %s", where), total,
	        fmt("the gaps' summed length (%s): GPU time nothing used", pct_of_span(F, total, pc, sizeof pc)),
	        fmt("See what the host did in those gaps (gpuanalyze dump --type api): CPU work, "
	            "allocation or synchronisation between launches; queue work ahead, overlap host "
	            "work with the GPU, move allocations out of the loop, or use CUDA graphs")))
		return GT_ERR_NOMEM;
	set_where(last(F), top[0].start, F->origin, top[0].after_stream);
	last(F)->count = count;
	return 0;
}

/* Busy time of each of the ns slices (len ns each) of [s0, s1): the union of the device's operations,
 * walked once in start order, spread over the slices each merged span crosses. */
static void busy_slices(struct devops *d, double *busy, unsigned ns, uint64_t s0, uint64_t s1, double len)
{
	struct merged mg;
	merged_init(&mg, d);
	const struct op *op = merged_next(&mg);
	uint64_t cs = op->start, ce = op->end;
	for (;;) {
		op = merged_next(&mg);
		if (op && op->start <= ce) {
			if (op->end > ce)
				ce = op->end;
			continue;
		}
		spread(busy, ns, s0, s1, len, cs, ce);
		if (!op)
			break;
		cs = op->start;
		ce = op->end;
	}
}

/* The low-utilization finding of a device whose GPU work spans [s0, s1): its slices less busy than
 * the threshold. */
static int low_utilization(struct findings_pass *p, struct devops *d, uint64_t s0, uint64_t s1)
{
	struct gt_findings *F = p->F;
	const struct gt_findings_options *o = &F->opt;
	unsigned ns = o->slices;
	if (!(s1 > s0 && ns > 0 && s1 - s0 >= ns))
		return 0;
	double len = (double)(s1 - s0) / ns;
	double *busy = calloc(ns, sizeof *busy);
	if (!busy)
		return GT_ERR_NOMEM;
	busy_slices(d, busy, ns, s0, s1, len);
	uint64_t regions = 0, low = 0, worst_at = 0;
	double idle = 0, low_time = 0, worst = 101;
	int in = 0;
	for (unsigned i = 0; i < ns; i++) {
		uint64_t a = slice_lo(s0, s1, len, ns, i), b = slice_lo(s0, s1, len, ns, i + 1);
		double util = b > a ? 100.0 * busy[i] / (double)(b - a) : 100;
		if (util < o->util_pct) {
			low++;
			low_time += (double)(b - a);
			idle += (double)(b - a) - busy[i];
			regions += !in;
			in = 1;
			if (util < worst) {
				worst = util;
				worst_at = a;
			}
		} else {
			in = 0;
		}
	}
	free(busy);
	if (!low)
		return 0;
	char t[64], pc[64];
	if (add(F, "low-utilization", sev_by_cost(F, idle),
	        fmt("device %u: %llu of %u slices of its GPU span (%.3f ms each) were less than "
	            "%.0f%% busy, in %llu %s, %.3f ms in all; the least busy was %.1f%% busy",
	            d->device, (unsigned long long)low, ns, len / 1e6, o->util_pct,
	            (unsigned long long)regions, pl(regions, "region", "regions"), low_time / 1e6, worst),
	        fmt("the least busy slice %s", at(worst_at, F->origin, t, sizeof t)), idle,
	        fmt("the idle time inside those slices (%s)", pct_of_span(F, idle, pc, sizeof pc)),
	        fmt("Look at the timeline there (gpuanalyze split, or export): launch more work per "
	            "call, batch small kernels, overlap copies with compute, or run independent "
	            "work on more streams")))
		return GT_ERR_NOMEM;
	set_where(last(F), worst_at, F->origin, -1);
	last(F)->count = low;
	return 0;
}

/* GPU time: per device, its idle gaps and its slices of low utilisation. */
static int rule_gpu_time(struct findings_pass *p, const struct gt_reader *r)
{
	for (size_t di = 0; di < p->ndev; di++) {
		struct devops *d = &p->dev[di];
		if (!d->n)
			continue;
		uint64_t s0, s1;
		int rc = idle_gaps(p, r, d, &s0, &s1);
		if (!rc)
			rc = low_utilization(p, d, s0, s1);
		if (rc)
			return rc;
	}
	return 0;
}

/* Kernels: first launch vs the rest, and bimodal durations. */
struct kfind {
	uint32_t id;
	double excess, ratio, first, median;
	uint32_t stream;
	uint64_t start, n;
	double total;
};

static int cmp_kfind(const void *a, const void *b)
{
	const struct kfind *x = a, *y = b;
	return (x->excess < y->excess) - (x->excess > y->excess);
}

/* The kernels whose first launch was slow, as found. */
struct kfinds {
	struct kfind *v;
	size_t n, cap;
};

/* Sorts a kernel's durations and returns the median of the launches other than the first; *total: the
 * durations' sum. */
static double median_after_first(struct kacc *a, double *total)
{
	/* One sort serves both rules. The median of the launches other than the first: its value
	 * is taken out of the sorted durations (shifted to the end) and put back afterwards. */
	*total = 0;
	for (size_t i = 0; i < a->n; i++)
		*total += (double)a->d[i];
	gt_stats_sort_u64(a->d, a->n);
	size_t lo = 0, hi = a->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a->d[mid] < a->first_dur)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t m = a->n - 1;
	memmove(a->d + lo, a->d + lo + 1, (m - lo) * sizeof *a->d);
	double med = gt_stats_percentile_u64(a->d, m, 50);
	memmove(a->d + lo + 1, a->d + lo, (m - lo) * sizeof *a->d);
	a->d[lo] = a->first_dur;
	return med;
}

/* Adds kernel id to the slow first launches when its first took first_ratio times the others' median. */
static int note_first_launch(struct kfinds *s, const struct gt_findings_options *o, size_t id,
                             const struct kacc *a, double med, double total)
{
	if (!(med > 0 && (double)a->first_dur >= o->first_ratio * med))
		return 0;
	struct kfind *q = gt_grow(s->v, &s->cap, s->n, sizeof *q, 16);
	if (!q)
		return GT_ERR_NOMEM;
	s->v = q;
	struct kfind *k = &s->v[s->n++];
	k->id = (uint32_t)id;
	k->first = (double)a->first_dur;
	k->median = med;
	k->excess = k->first - med;
	k->ratio = k->first / med;
	k->stream = a->first_stream;
	k->start = a->first_start;
	k->n = a->n;
	k->total = total;
	return 0;
}

/* The bimodal finding of kernel id (durations sorted): two groups split by a wide gap. */
static int rule_bimodal(struct findings_pass *p, const struct gt_reader *r, size_t id, const struct kacc *a)
{
	struct gt_findings *F = p->F;
	const struct gt_findings_options *o = &F->opt;
	if (a->n < o->bimodal_min || a->n < 2)
		return 0;
	/* The widest gap in the sorted durations that leaves bimodal_share on each side. */
	size_t need = (size_t)ceil(o->bimodal_share * (double)a->n);
	if (need < 1)
		need = 1;
	double best = 0;
	size_t split = 0;
	for (size_t i = need - 1; i + need < a->n; i++) {
		if (!a->d[i])
			continue;
		double ratio = (double)a->d[i + 1] / (double)a->d[i];
		if (ratio > best) {
			best = ratio;
			split = i;
		}
	}
	if (best < o->bimodal_ratio)
		return 0;
	size_t nfast = split + 1, nslowg = a->n - nfast;
	double mfast = gt_stats_percentile_u64(a->d, nfast, 50);
	double mslow = gt_stats_percentile_u64(a->d + nfast, nslowg, 50);
	double cost = (mslow - mfast) * (double)nslowg;
	char *name = gt_kernel_short_name(gt_reader_string(r, (uint32_t)id));
	if (!name)
		return GT_ERR_NOMEM;
	char pc[64];
	int rc = add(F, "bimodal", GT_SEV_WARNING,
	             fmt("kernel %s has two groups of durations: %zu launches with median %.3f us and %zu "
	                 "with median %.3f us, split by a gap of %.2fx between %.3f and %.3f us",
	                 name, nfast, mfast / 1e3, nslowg, mslow / 1e3, best, (double)a->d[split] / 1e3,
	                 (double)a->d[split + 1] / 1e3),
	             fmt("kernel %s, stream %u (of its first launch)", name, a->first_stream), cost,
	             fmt("the slow group's excess over the fast group's median, times its launches (%s)",
	                 pct_of_span(F, cost, pc, sizeof pc)),
	             fmt("Find what differs between the groups (input sizes, launch configuration, kernels "
	                 "running beside it, clocks) and report them apart: one median of both hides it"));
	if (rc) {
		free(name);
		return rc;
	}
	last(F)->kernel = name;
	last(F)->stream = a->first_stream;
	last(F)->count = nslowg;
	if (!(last(F)->kernel_name = strdup(gt_reader_string(r, (uint32_t)id))))
		return GT_ERR_NOMEM;
	return 0;
}

/* The first-launch finding: the slow first launches (at least one), the costliest first. */
static int rule_first_launch(struct findings_pass *p, const struct gt_reader *r, struct kfinds *s)
{
	struct gt_findings *F = p->F;
	const struct gt_findings_options *o = &F->opt;
	struct kfind *slow = s->v;
	size_t nslow = s->n;
	qsort(slow, nslow, sizeof *slow, cmp_kfind);
	char list[2048] = "";
	size_t n = 0;
	double excess = 0;
	int warn = 0;
	for (size_t i = 0; i < nslow; i++) {
		excess += slow[i].excess;
		warn |= slow[i].excess >= o->warn_pct / 100 * slow[i].total;
		if (i < 5 && n < sizeof list) {
			char *d = gt_kernel_short_name(gt_reader_string(r, slow[i].id));
			n += (size_t)snprintf(list + n, sizeof list - n, "%s%s: first %.3f us, %.1fx the median %.3f us of the other %llu",
			                      i ? "; " : "", d ? d : "?", slow[i].first / 1e3, slow[i].ratio,
			                      slow[i].median / 1e3, (unsigned long long)(slow[i].n - 1));
			free(d);
		}
	}
	char *top = gt_kernel_short_name(gt_reader_string(r, slow[0].id));
	char t[64];
	int rc = add(F, "first-launch", warn ? GT_SEV_WARNING : GT_SEV_INFO,
	             fmt("%zu %s first launch took at least %.1fx the median of the other launches "
	                 "(warm-up still in the data): %s%s",
	                 nslow, nslow == 1 ? "kernel's" : "kernels'", o->first_ratio, list, nslow > 5 ? "; ..." : ""),
	             fmt("kernel %s, first launch %s, stream %u", top ? top : "?", at(slow[0].start, F->origin, t, sizeof t),
	                 slow[0].stream),
	             excess,
	             fmt("each first launch's excess over the median of the others, summed"),
	             fmt("Drop warm-up by position when timing (gpuanalyze summary/diff --warmup 1 or more), "
	                 "run untimed iterations first, and consider CUDA_MODULE_LOADING=EAGER to load "
	                 "modules before the first launch"));
	if (rc) {
		free(top);
		return rc;
	}
	last(F)->kernel = top;
	set_where(last(F), slow[0].start, F->origin, slow[0].stream);
	last(F)->count = nslow;
	if (!(last(F)->kernel_name = strdup(gt_reader_string(r, slow[0].id))))
		return GT_ERR_NOMEM;
	return 0;
}

/* Kernels launched three times or more: bimodal durations per kernel, then the slow first launches. */
static int rule_kernels(struct findings_pass *p, const struct gt_reader *r)
{
	const struct gt_findings_options *o = &p->F->opt;
	struct kfinds slow = { NULL, 0, 0 };
	int rc = 0;
	for (size_t id = 0; id < p->nk && !rc; id++) {
		struct kacc *a = &p->k[id];
		if (a->n < 3)
			continue;
		double total;
		double med = median_after_first(a, &total);
		rc = note_first_launch(&slow, o, id, a, med, total);
		if (!rc)
			rc = rule_bimodal(p, r, id, a);
	}
	if (!rc && slow.n)
		rc = rule_first_launch(p, r, &slow);
	free(slow.v);
	return rc;
}

static int rule_clocks(struct findings_pass *p)
{
	struct gt_findings *F = p->F;
	if (!p->nclk) {
		return add(F, "clocks-unknown", GT_SEV_INFO,
		           fmt("no clock samples in the trace: the GPU's clocks and throttling during the run "
		               "are unknown"),
		           fmt("the whole trace"), NAN, fmt("not a cost: a gap in the evidence"),
		           fmt("Record with NVML sampling on (GPUTRACE_SAMPLE_MS, default 200) to know whether "
		               "clocks moved; lock them for benchmarks (nvidia-smi -lgc)"));
	}
	for (size_t i = 0; i < p->nclk; i++) {
		const struct clk *k = &p->clk[i];
		char reasons[512], t[64];
		if (k->throttle_n) {
			gt_clock_reasons_text(k->throttle_reasons, reasons, sizeof reasons);
			if (add(F, "clocks-throttled", GT_SEV_WARNING,
			        fmt("device %u was throttled in %llu of %llu clock samples: %s; SM clock %u..%u MHz",
			            k->device, (unsigned long long)k->throttle_n, (unsigned long long)k->n, reasons,
			            k->sm_min, k->sm_max),
			        fmt("first %s", at(k->first_throttle, F->origin, t, sizeof t)), NAN,
			        fmt("not estimated: durations measured while throttled are longer than the "
			            "kernel's own"),
			        fmt("Check cooling and power limits (nvidia-smi -q -d PERFORMANCE,POWER), lock "
			            "clocks below the throttling point for benchmarks (nvidia-smi -lgc), and compare "
			            "only runs under the same clock state")))
				return GT_ERR_NOMEM;
			set_where(last(F), k->first_throttle, F->origin, -1);
			last(F)->count = k->throttle_n;
		}
		if (k->busy_n >= 2 && k->busy_max > k->busy_min) {
			double range = 100.0 * (k->busy_max - k->busy_min) / k->busy_max;
			char t2[64];
			uint64_t lo = k->busy_min_ts;
			if (add(F, "clocks-moved", range >= F->opt.warn_pct ? GT_SEV_WARNING : GT_SEV_INFO,
			        fmt("device %u's SM clock moved while busy: %u..%u MHz (%.1f%% of the maximum) over "
			            "%llu samples not flagged GpuIdle",
			            k->device, k->busy_min, k->busy_max, range, (unsigned long long)k->busy_n),
			        fmt("lowest %s, highest %s", at(lo, F->origin, t, sizeof t),
			            at(k->busy_max_ts, F->origin, t2, sizeof t2)),
			        NAN, fmt("not estimated: kernel durations scale with the clock"),
			        fmt("Lock the SM clock for benchmarks (nvidia-smi -lgc) and warm the GPU up before "
			            "timing, so that runs compare")))
				return GT_ERR_NOMEM;
			set_where(last(F), lo, F->origin, -1);
			last(F)->count = k->busy_n;
		}
		if (k->busy_n < 2 && !k->throttle_n) {
			if (add(F, "clocks-unknown", GT_SEV_INFO,
			        fmt("device %u: %llu clock %s, %llu taken while busy (not GpuIdle): too few to tell "
			            "whether the clocks moved during the run; SM clock %u..%u MHz",
			            k->device, (unsigned long long)k->n, pl(k->n, "sample", "samples"),
			            (unsigned long long)k->busy_n, k->sm_min, k->sm_max),
			        fmt("the whole trace"), NAN, fmt("not a cost: a gap in the evidence"),
			        fmt("Sample more often (GPUTRACE_SAMPLE_MS) or run longer to see the clock state; "
			            "lock clocks for benchmarks (nvidia-smi -lgc)")))
				return GT_ERR_NOMEM;
			last(F)->count = k->n;
		}
		uint64_t benign = k->reasons & ~GT_CLK_THROTTLING & ~GT_CLK_GPU_IDLE;
		if (benign) {
			gt_clock_reasons_text(benign, reasons, sizeof reasons);
			if (add(F, "clock-settings", GT_SEV_INFO,
			        fmt("device %u's clocks were held by a setting, not throttled: %s", k->device, reasons),
			        fmt("the whole trace"), NAN, fmt("not a cost"),
			        fmt("Nothing to fix; say so in the report (clocks locked or limited by a setting)")))
				return GT_ERR_NOMEM;
		}
	}
	return 0;
}

static int cmp_findings(const void *pa, const void *pb)
{
	const struct gt_finding *a = pa, *b = pb;
	if (a->severity != b->severity)
		return b->severity - a->severity;
	double x = isnan(a->cost_ns) ? -1 : a->cost_ns, y = isnan(b->cost_ns) ? -1 : b->cost_ns;
	if (x != y)
		return x < y ? 1 : -1;
	return strcmp(a->id, b->id);
}

static void pass_release(struct findings_pass *p)
{
	for (size_t i = 0; i < p->ndev; i++)
		for (int k = 0; k < OP_KINDS; k++)
			gt_tl_vec_release(&p->dev[i].ops[k]);
	free(p->dev);
	gt_idmap_release(&p->dev_index);
	for (size_t i = 0; i < p->nk; i++)
		gt_growbuf_release(&p->k[i].buf);
	free(p->k);
	gt_tl_vec_release(&p->blocks);
	free(p->api_kind);
	free(p->clk);
	gt_bandwidth_release(&p->own_bw);
}

static int finish(struct findings_pass *p, const struct gt_reader *r)
{
	struct gt_findings *F = p->F;
	if (gt_trace_end(r, &F->complete, &F->lost_bytes, &F->synthetic))
		return GT_ERR_NOMEM;
	for (size_t i = 0; i < p->ndev; i++) {
		struct devops *d = &p->dev[i];
		for (int k = 0; k < OP_KINDS; k++) {
			if (gt_tl_vec_sort(&d->ops[k]))
				return GT_ERR_NOMEM;
			for (size_t j = 0; j < d->ops[k].n; j++) {
				const struct op *o = gt_tl_vec_at(&d->ops[k], j);
				if (!F->gpu_first || o->start < F->gpu_first)
					F->gpu_first = o->start;
				if (o->end > F->gpu_last)
					F->gpu_last = o->end;
			}
		}
	}
	int rc = gt_bw_end_pass(p->bw, r);
	if (rc < 0)
		return rc;
	if (rc == 1) {
		for (size_t i = 0; i < p->ndev; i++) {
			const struct devops *d = &p->dev[i];
			for (int k = 0; k < OP_KINDS; k++) {
				for (size_t j = 0; j < d->ops[k].n; j++) {
					const struct op *o = gt_tl_vec_at(&d->ops[k], j);
					gt_bw_mark_busy(p->bw, d->device, o->stream, o->start, o->end, k == OP_COPY);
				}
			}
		}
	}
	if ((rc = gt_bw_finish(p->bw, r)) != 0)
		return rc;
	if ((rc = rule_losses(p, r)) || (rc = rule_copies(p)) || (rc = rule_blocking(p)) ||
	    (rc = rule_gpu_time(p, r)) || (rc = rule_kernels(p, r)) || (rc = rule_clocks(p)))
		return rc;
	if (F->n > 1)
		qsort(F->f, F->n, sizeof *F->f, cmp_findings);
	for (size_t i = 0; i < F->n; i++)
		F->by_severity[F->f[i].severity]++;
	return 0;
}

int gt_findings_begin(struct gt_findings *F, const char *path, const struct gt_findings_options *opt,
                      struct gt_bandwidth *bw)
{
	memset(F, 0, sizeof *F);
	if (opt)
		F->opt = *opt;
	else
		gt_findings_defaults(&F->opt);
	struct findings_pass *p = calloc(1, sizeof *p);
	if (!p || !(F->path = strdup(path))) {
		free(p);
		return GT_ERR_NOMEM;
	}
	F->state = p;
	p->F = F;
	gt_tl_vec_init(&p->blocks, sizeof(struct block));
	p->bw = bw ? bw : &p->own_bw;
	return bw ? 0 : gt_bw_init(&p->own_bw, path, NULL);
}

int gt_findings_record(void *F, const struct gt_reader *r, const struct gt_event *ev)
{
	return on_record(((struct gt_findings *)F)->state, r, ev);
}

static void state_free(struct gt_findings *F)
{
	if (!F->state)
		return;
	pass_release(F->state);
	free(F->state);
	F->state = NULL;
}

int gt_findings_finish(struct gt_findings *F, const struct gt_reader *r)
{
	if (!F->state)
		return GT_ERR_STATE;
	int rc = finish(F->state, r);
	state_free(F);
	return rc;
}

static int finish_pass(void *F, const struct gt_reader *r) { return gt_findings_finish(F, r); }

int gt_findings_run(struct gt_findings *F, const char *path, const struct gt_findings_options *opt)
{
	int rc = gt_findings_begin(F, path, opt, NULL);
	if (!rc)
		rc = gt_load_pass(path, gt_findings_record, finish_pass, F);
	state_free(F);
	return rc;
}

int gt_findings_max_severity(const struct gt_findings *F)
{
	int m = -1;
	for (size_t i = 0; i < F->n; i++)
		if (F->f[i].severity > m)
			m = F->f[i].severity;
	return m;
}

void gt_findings_release(struct gt_findings *F)
{
	if (!F)
		return;
	state_free(F);
	for (size_t i = 0; i < F->n; i++) {
		struct gt_finding *f = &F->f[i];
		free(f->what);
		free(f->where);
		free(f->kernel);
		free(f->kernel_name);
		free(f->cost_how);
		free(f->todo);
	}
	free(F->f);
	free(F->path);
	free(F->synthetic);
	memset(F, 0, sizeof *F);
}
