/* findings_pass.h: what the findings pass keeps from one read of a trace, for the rules that read
 * it afterwards. Private to the findings engine: findings.c fills it record by record, and each
 * findings_rules_<family>.c reads it once the pass is over.
 *
 * Per GPU operation, its interval with a label (kernel name id, or copy or memset) and stream, in
 * one array per device and kind (24 bytes); per kernel launch, its duration (8 bytes) under its
 * name; and a few counters per rule. The copy flags come from bandwidth.c, fed from the same pass,
 * so that findings and `gpuanalyze bandwidth` cannot disagree on which copy is synchronous or small.
 */
#ifndef GT_FINDINGS_PASS_H
#define GT_FINDINGS_PASS_H

#include "analyze/blocks/timeline.h"
#include "analyze/engines/bandwidth.h"
#include "analyze/engines/findings.h"
#include "analyze/support/idmap.h"
#include "common/grow.h"

#include <stddef.h>
#include <stdint.h>

/* An operation's label: a kernel's name id, or one of these bits with the copy or memory kind. A
 * name id never reaches these bits (the pass takes ids that high as damaged). */
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
	uint64_t first, last;        /* its span of GPU work: earliest start, latest end (n > 0) */
};

/* A kernel's launches. The durations are sorted once, by the first rule that needs them
 * (findings_rules_kernels.c), since both kernel rules read the sorted order. */
struct kacc {
	struct gt_growbuf buf;   /* durations, ns, in file order until sorted (huge pages once large) */
	uint64_t *d;
	size_t n, cap;
	uint64_t first_start, first_dur;
	uint32_t first_stream;
	int ready;               /* d sorted, median_rest and total set */
	double median_rest;      /* the median of the launches other than the first */
	double total;            /* the durations' sum */
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
	uint64_t metric_records;     /* hardware-counter records: the ceilings family reads the trace again */
	struct gt_bandwidth own_bw;  /* the copy flags, unless the caller lends one (gt_findings_begin) */
	struct gt_bandwidth *bw;
};

#endif
