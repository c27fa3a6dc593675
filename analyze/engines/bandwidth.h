/* bandwidth.h: achieved copy bandwidth, grouped, against theoretical and measured peaks; and the
 * copies worth fixing.
 *
 * The engine behind `gpuanalyze bandwidth`, and the copy flags that `gpuanalyze findings` repeats.
 * Per copy: GB/s = bytes / (end - start) in ns, which is decimal GB/s (10^9 bytes per second), with
 * the bytes counted once whatever the direction (a DtoD copy of B bytes reads B and writes B through
 * device memory; it counts B). Copies with end < start are left out (bad timestamps), and so are
 * copies of zero duration or zero bytes (no rate), each counted.
 *
 * Groups: device, copy kind (HtoD, DtoH, DtoD, PtoP, HtoA, ...), memory, and size bucket. "memory"
 * is the kind of the copy's host end where it has one (HtoD and HtoA: the source; DtoH and AtoH:
 * the destination): pageable, pinned, managed, ...; otherwise its source and destination kinds,
 * one name when they agree ("device"), "src->dst" when not. Size buckets are powers of 4: < 4 KiB,
 * 4-64 KiB, 64 KiB-1 MiB, 1-16 MiB, 16-256 MiB, >= 256 MiB (lower bound included).
 * Two rates, each dividing the same bytes by a stated time:
 *   DMA          bytes / (end - start) of the copy record: the transfer as the copy engine timed it;
 *   call         for a copy made by a synchronous call (an API record whose name begins with
 *                cudaMemcpy or cuMemcpy and holds no "Async": cudaMemcpy, cudaMemcpy2D,
 *                cuMemcpyHtoD_v2, ...; paired by correlation id with a copy without the async
 *                flag), bytes / (call end - call start): what the program waited for. A pageable
 *                copy is staged through a pinned buffer by the driver, so its call takes several
 *                times its DMA (traces/samples/h200-transfers: 3.4x to 5.7x for 1 MiB HtoD). A
 *                call that made more than one copy record is left out of the call rates (its
 *                time is not one copy's) and counted (calls_shared), as are calls of zero or
 *                negative duration (calls_bad).
 * Per group: count, bytes, summed DMA duration, median DMA GB/s, p10 and p90 (stats.h's 'linear'
 * rule); the copies paired with their call, the calls' summed duration and their median, p10 and
 * p90 call GB/s; and a median as a percentage of each peak:
 *   theoretical  the DMA median over: for copies with a host end, the device's PCIe peak per
 *                direction (gt_device_peak_pcie_bw); for device-to-device copies, its memory peak
 *                (gt_device_peak_mem_bw). The percentage is always bytes-once GB/s over the peak,
 *                so a DtoD copy, which moves each byte twice through memory, reaches at most 50%
 *                of the memory peak.
 *   measured     against the `gputrace peak` probe's figure (htod_pinned, dtoh_pinned,
 *                htod_pageable, dtoh_pageable, dtod; also bytes once, so 100% is the probe's
 *                rate), for the device of the same UUID (peaks.h). The probe times a pageable
 *                copy as a whole synchronous cudaMemcpy (CUDA events around it), so a pageable
 *                group is judged by its call median against the pageable peak; where it has no
 *                paired calls, or the file has no pageable figure, by its DMA median against the
 *                pinned peak of its direction (measured_kind then names a pinned kind: the staged
 *                transfer against the rate the DMA engine reaches). Other kinds: the DMA median
 *                against the same kind's peak; none for managed, peer and host-to-host copies.
 *                measured_rate says which median was divided.
 *
 * Flags:
 *   pageable     copies with a pageable host end: the driver stages them through a pinned
 *                buffer, so they neither overlap with other work nor reach the pinned rate;
 *   small        copies smaller than the size at which a copy can reach 80% of its ceiling: a
 *                copy of B bytes takes about t0 + B / peak with a fixed cost t0 of
 *                GT_BW_FIXED_COST_NS per copy (setup and completion; the 4 KiB copies recorded on
 *                the H200 take 1 to 3 us), so B / (t0 + B / peak) >= 0.8 peak needs B >= 4 t0 peak;
 *                the ceiling is the PCIe peak for host copies and half the memory peak for DtoD
 *                (bytes once); no flag where the device's peak is unknown;
 *   sync critical  copies without the async flag (cudaMemcpy rather than cudaMemcpyAsync) during
 *                which the device did no other work (no kernel, memset or other copy of that device
 *                overlapped them): the host waited and the GPU had nothing else to do.
 *
 * Streaming: the pass keeps one GB/s value and size per copy (16 bytes) and, for copies without
 * the async flag, their interval (32 bytes) and correlation id (24 bytes), and for each
 * synchronous copy call its interval (24 bytes); when there are such copies, a second pass over the
 * trace looks for GPU work that overlaps them (gt_bw_mark_busy), so nothing is kept per kernel;
 * unless the look-ups visit more than 8 copies per copy and call (copies that overlap very many
 * operations: one as long as the run, thousands at one instant), after which each operation is
 * kept (32 bytes) and settled in gt_bw_finish, so that time stays O(n log n).
 */
#ifndef GT_BANDWIDTH_H
#define GT_BANDWIDTH_H

#include "traces/gputrace.h"
#include "analyze/blocks/peaks.h"
#include "analyze/blocks/timeline.h"

#include <stddef.h>
#include <stdint.h>

#define GT_BW_FIXED_COST_NS 2000.0 /* t0 above */
#define GT_BW_NBUCKETS 6

const char *gt_bw_bucket_name(int bucket); /* "<4KiB", "4-64KiB", ... */
int gt_bw_bucket_of(uint64_t bytes);

struct gt_bw_group {
	uint32_t device_id;
	int copy_kind, src_kind, dst_kind; /* enums of gputrace.h */
	int host_kind;           /* the host end's memory kind, -1 for copies without one */
	char memory[48];         /* as defined above */
	int bucket;
	uint64_t count, bytes;
	double time_ns;          /* summed duration */
	double median, p10, p90; /* GB/s */
	double peak_theory;      /* GB/s, NaN when unknown or not applicable */
	double pct_theory;       /* 100 * median / peak_theory */
	double peak_measured;    /* GB/s, NaN when none */
	double pct_measured;
	int measured_kind;       /* enum gt_peak_kind, -1 */
	int measured_rate;       /* enum gt_bw_rate: which median pct_measured divides; -1 none */
	uint64_t small;          /* copies of this group under the small threshold */
	uint64_t calls;          /* copies paired with their synchronous call */
	double call_time_ns;     /* those calls' summed duration */
	double call_median, call_p10, call_p90; /* GB/s over the calls' durations; NaN without calls */
};

enum gt_bw_rate { GT_BW_RATE_DMA = 0, GT_BW_RATE_CALL = 1 };
const char *gt_bw_rate_name(int rate); /* "dma", "call" */

/* The copy flags, summed. */
struct gt_bw_flag {
	uint64_t count, bytes;
	double time_ns;
	uint64_t first_start;    /* the earliest (CUPTI ns), 0 if none */
	uint32_t first_stream;
	int first_copy_kind;
	uint64_t calls;          /* pageable, sync: copies paired with their synchronous call */
	double call_time_ns;     /* their calls' summed duration */
};

struct gt_bw_device {
	uint32_t device_id;
	char name[128];
	char uuid[48];
	int known;               /* a DEVICE record described it */
	double peak_pcie, peak_mem; /* GB/s, 0 when unknown */
	double small_host, small_dtod; /* thresholds in bytes, 0 when unknown */
	struct gt_peaks peaks;   /* measured; peaks.path NULL when no file was read */
};

struct bw_state;

struct gt_bandwidth {
	/* inputs */
	const char *peaks_path;  /* NULL: the default place */
	int peaks_given;         /* peaks_path came from --peaks */
	/* results */
	struct gt_bw_group *groups;
	size_t ngroups;
	struct gt_bw_device *devices;
	size_t ndevices;
	struct gt_bw_flag pageable, small, sync, sync_critical;
	uint64_t copies, copies_bad, copies_no_rate;
	uint64_t calls_shared;   /* copies whose call made other copies too: no call rate */
	uint64_t calls_bad;      /* copies whose call has end <= start: no call rate */
	char *peaks_file;        /* the peaks file looked for (default or given); NULL if none formed */
	char peaks_error[256];   /* why it could not be read ("" when it was, or was not there) */
	int peaks_missing;       /* the default file does not exist */
	uint64_t origin;         /* trace start (CUPTI ns) */
	char *path;
	int complete;
	uint64_t lost_bytes;
	char *synthetic;
	struct bw_state *state;
};

/* Reads path (twice when there are synchronous copies) and fills b. peaks_path: the measured
 * peaks file (NULL: the default place of peaks_path.h, where a missing file is not an
 * error; a given file that cannot be read is). 0; a negative GT_ERR_* with the failure held
 * (failure.h: an unreadable trace or --peaks file); GT_ERR_NOMEM, perhaps with nothing held. */
int gt_bandwidth_run(struct gt_bandwidth *b, const char *path, const char *peaks_path);
void gt_bandwidth_release(struct gt_bandwidth *b);

/* The same in steps, for a caller that streams the trace itself (findings):
 * init; gt_bw_record for every record; gt_bw_end_pass (0: done; 1: synchronous copies need the GPU
 * work: feed every kernel, copy and memset of the trace to gt_bw_mark_busy, then gt_bw_finish). */
int gt_bw_init(struct gt_bandwidth *b, const char *path, const char *peaks_path);
int gt_bw_record(void *b, const struct gt_reader *r, const struct gt_event *ev); /* gt_record_fn */
int gt_bw_end_pass(struct gt_bandwidth *b, const struct gt_reader *r);
/* GPU work [start, end) on device and stream: marks the synchronous copies it overlaps as not
 * critical. A copy does not mark itself: a copy (is_copy) with the same stream, start and end as a
 * synchronous copy is that copy, since one stream runs one operation at a time. */
void gt_bw_mark_busy(struct gt_bandwidth *b, uint32_t device, uint32_t stream, uint64_t start,
                     uint64_t end, int is_copy);
/* Computes the groups' statistics and the flags. 0; a negative GT_ERR_* with the failure held (an
 * unreadable --peaks file); or GT_ERR_NOMEM. */
int gt_bw_finish(struct gt_bandwidth *b, const struct gt_reader *r);

#endif
