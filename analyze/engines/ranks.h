/* ranks.h: many traces of one job (one per process, as torchrun or mpirun start them) side by side.
 *
 * The engine behind `gpuanalyze ranks`. Each trace is one rank. For each it reads who recorded it
 * (META process.rank, host.name, process.pid, its DEVICE records), places its time on the host's
 * realtime clock through its clock pairings (align.h), and summarises its kernels (summary.h, one
 * summary per rank and one merged over all). Across ranks it gives:
 *
 *   rank           META process.rank when every trace has one, each a distinct non-negative
 *                  integer; otherwise the position in the order the files were given (0, 1, ...),
 *                  for every trace, with the reason (rank_why). Ranks are then ordered by rank.
 *   spread         per kernel (merged by name): min, median and max over the ranks that ran it of
 *                  each rank's median duration, the ranks of the min and the max, and max / min.
 *   steps          units of work per rank from split.h (instances of an NVTX range, else intervals
 *                  between host synchronisations, else the process), matched across ranks by their
 *                  index in start order (the k-th step of rank 0 is the k-th step of rank 1). The
 *                  range is options.range, else the most frequent top-level range over all ranks
 *                  among the names every rank has (most instances summed over ranks; ties: split's
 *                  order for the first rank). Ranks whose units are of different kinds are not
 *                  matched (steps_why says why). Warm-up: the first `warmup` steps of each rank are
 *                  dropped by position (so the same steps on every rank).
 *   straggler      per matched step: the slowest rank (longest step), its duration, the median
 *                  duration of the other ranks, ratio = slowest / that median, and lag = its end on
 *                  the aligned clock minus the median of the other aligned ranks' ends (NaN when it or
 *                  all the others are not aligned). When two or more ranks share the longest
 *                  duration the step has no slowest rank (a tie, counted). Per rank: how many steps
 *                  it was the slowest and the median of its ratios in those steps.
 *   collectives    when kernels of NCCL (names beginning "nccl", mangled or not) run: per step and
 *                  rank, the time covered by them inside the step (a union); the rank with the least
 *                  is the one the others waited for: in a synchronous collective the ranks that
 *                  arrive first spin in the kernel until the last arrives. Needs collective time on
 *                  every rank in that step; otherwise n/a; none when the least is shared (a tie).
 *   peer copies    copies between two devices of one process (copy kind PtoP, or device_id !=
 *                  dst_device_id), per rank and (src, dst) device pair: count, bytes, summed duration,
 *                  GB/s per copy (decimal, bytes / duration) median, p10, p90 (stats.h), against the
 *                  peak of the link between the two devices when the trace describes it (below),
 *                  else "link peak unknown".
 *
 * The link's peak: recorders of format 1.0 do not record NVLink. This engine reads the META keys a
 * recorder that does would write, per device ordinal D (gpuanalyze(1), "NVLink metadata"):
 *   device.D.pci_bus_id       the device's PCI bus id as NVML prints it ("00000000:19:00.0")
 *   device.D.nvlink.link_gbps the per-direction rate of one active link, decimal GB/s
 *   device.D.nvlink.remote    one entry per active link, comma-separated: "switch" (an NVSwitch),
 *                             "gpu:<pci bus id>" (another GPU directly), or "other"; "" for none
 * Peak from src to dst = (links of src that reach dst's bus id directly + min(switch links of src,
 * switch links of dst)) x min(link_gbps of both). No NVLink path: the copy crosses PCIe, whose peak
 * is the smaller of the two devices' (gt_device_peak_pcie_bw). Either device without the keys: the
 * peak is unknown.
 */
#ifndef GT_RANKS_H
#define GT_RANKS_H

#include "analyze/blocks/align.h"
#include "analyze/engines/split.h"
#include "analyze/engines/summary.h"
#include "analyze/blocks/timeline.h"

#include <stddef.h>
#include <stdint.h>

struct gt_ranks_options {
	const char *range;       /* NVTX range that makes a step; NULL: chosen as above */
	uint64_t warmup;         /* first N launches of each kernel per rank, and first N steps */
};

struct gt_rank_device {
	uint32_t id;
	char name[128];
	char uuid[48];           /* "GPU-..." or "" when unknown */
	double peak_pcie;        /* GB/s per direction, 0 when unknown */
	/* NVLink, from the META keys above */
	int nvlink_known;
	char pci[48];
	double link_gbps;
	char *nvlink_remote;     /* the raw list */
};

enum gt_rank_source { GT_RANK_FROM_META = 1, GT_RANK_FROM_ORDER = 2 };

struct gt_rank {
	char *path;
	size_t given;            /* position among the files given, 0-based */
	long long rank;          /* as used (see rank above) */
	char *rank_meta;         /* META process.rank as written, NULL when absent */
	char *rank_from;         /* META process.rank_from: the variable it came from */
	char *host;              /* META host.name, NULL when absent */
	char *pid;               /* META process.pid, NULL when absent */
	struct gt_rank_device *devices;
	size_t ndevices;
	uint64_t kernels, copies, memsets, clock_syncs; /* records read */
	uint64_t origin;         /* trace start: the earliest CUPTI time of any event, 0 if none */
	int64_t origin_host;     /* the same on the aligned clock (aligned ranks) */
	int complete;
	uint64_t lost_bytes;
	char *synthetic;
	struct gt_align align;
	struct gt_summary summary;    /* this rank's kernels */
	struct gt_split split;        /* this rank's units (steps) */
	int have_split;
	struct gt_tl_union comm;      /* union of collective (NCCL) kernel intervals, CUPTI ns */
	uint64_t comm_kernels;
	/* straggler counts */
	uint64_t slowest;             /* steps in which it was the slowest */
	double slowest_ratio;         /* median ratio over those steps; NaN when none */
	uint64_t waited_for;          /* steps in which the others waited for it in collectives */
};

enum gt_link_kind { GT_LINK_UNKNOWN = 0, GT_LINK_NVLINK = 1, GT_LINK_PCIE = 2 };
const char *gt_link_kind_name(int kind); /* "unknown", "nvlink", "pcie" */

struct gt_rank_peer {
	size_t rank;             /* index into gt_ranks.ranks */
	uint32_t src, dst;       /* device ordinals of that process */
	uint64_t count, bytes;
	uint64_t no_rate;        /* copies of zero duration or zero bytes, or end < start: left out */
	double time_ns;          /* summed duration of the copies with a rate */
	double median, p10, p90, min, max; /* GB/s per copy */
	int link;                /* enum gt_link_kind */
	unsigned links;          /* NVLink links the peak counts */
	double peak;             /* GB/s, NaN when unknown */
	double pct;              /* 100 * median / peak, NaN when unknown */
	double *rates;           /* private while reading */
	size_t nrates, cap;
};

struct gt_rank_spread {
	const struct gt_summary_row *row; /* the kernel in the merged summary */
	size_t nranks;           /* ranks with a median for it */
	double min, median, max; /* of the per-rank medians, ns */
	size_t min_rank, max_rank; /* indices into gt_ranks.ranks */
	double ratio;            /* max / min; NaN when min is 0 */
};

struct gt_rank_step {
	uint64_t index;          /* the step's index in each rank's units (before warm-up) */
	size_t slowest;          /* index into gt_ranks.ranks; SIZE_MAX: a tie */
	double dur_ns;           /* the longest duration */
	double others_ns;        /* median duration of the other ranks; NaN on a tie */
	double ratio;            /* dur / others; NaN on a tie */
	double lag_ns;           /* see straggler above; NaN when not available */
	size_t waited;           /* rank the others waited for; SIZE_MAX when not available */
	double wait_ns;          /* the least collective time in the step (NaN without collectives) */
	double wait_others_ns;   /* median collective time of the others */
};

struct gt_ranks {
	struct gt_rank *ranks;   /* ordered by rank */
	size_t nranks;
	int rank_source;         /* enum gt_rank_source */
	char rank_why[512];      /* GT_RANK_FROM_ORDER: why the metadata was not used */
	int one_host;            /* every trace names the same host */
	size_t nhosts;           /* distinct host names (a missing one counts once) */
	size_t aligned;          /* ranks whose state is not NONE */
	int64_t start_host;      /* earliest aligned trace start, realtime ns (aligned > 0) */
	struct gt_summary merged;
	struct gt_rank_spread *spread; /* in the merged summary's order */
	size_t nspread;
	/* steps */
	int steps_mode;          /* enum gt_split_mode common to all ranks; 0: not matched */
	char *steps_range;       /* NVTX mode: the range */
	int steps_range_given;
	char steps_why[1024];    /* why steps were not matched, or what limits them ("" if nothing) */
	struct gt_rank_step *steps;
	size_t nsteps;
	uint64_t warmup_steps;   /* steps dropped per rank */
	double *step_dur;        /* nsteps x nranks: duration of step s on rank r, ns */
	double *step_end;        /* nsteps x nranks: end on the aligned clock - start_host; NaN if not aligned */
	double *step_comm;       /* nsteps x nranks: collective time; NaN without collectives */
	double lag_uncertainty_ns; /* sum of the two largest rank uncertainties; NaN if one is unknown */
	int have_comm;           /* some rank ran collective kernels */
	uint64_t steps_tied;     /* steps whose longest duration two or more ranks share */
	uint64_t waits_tied;     /* steps whose least collective time two or more ranks share */
	size_t most_slowest;     /* rank slowest most often (SIZE_MAX: no steps) */
	size_t most_waited;      /* rank waited for most often (SIZE_MAX: none) */
	/* peer copies */
	struct gt_rank_peer *peers;
	size_t npeers;
};

/* Reads every trace (twice each: once for metadata, clocks, kernels and copies, once for the steps)
 * and computes everything above. 0; a negative GT_ERR_* with the failure held (failure.h: an
 * unreadable trace, --range naming a range a trace lacks); GT_ERR_NOMEM (perhaps unheld). g is
 * released on failure too. */
int gt_ranks_run(struct gt_ranks *g, char *const *paths, size_t n, const struct gt_ranks_options *o);
void gt_ranks_release(struct gt_ranks *g);

/* 1 when a kernel's name (mangled or not) is one of NCCL's: its identifier begins with "nccl". */
int gt_ranks_is_collective(const char *name);
/* The peak of the link from device src to device dst of rank r as defined above; *links gets the
 * NVLink links counted. Returns the link kind; *peak_gbps is NaN when unknown. */
int gt_ranks_link_peak(const struct gt_rank *r, uint32_t src, uint32_t dst, double *peak_gbps,
                       unsigned *links);

#endif
