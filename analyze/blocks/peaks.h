/* peaks.h: measured copy bandwidths and ceilings, as `gputrace peak` stores them, matched to a trace's
 * device.
 *
 * `gputrace peak` (preload/launcher/launcher_peak.c) runs the probe kernels/bwprobe and appends one line per
 * kind to the peaks file (common/peaks_path.h: $GPUTRACE_PEAKS, else $XDG_CACHE_HOME/gputrace/peaks,
 * else ~/.cache/gputrace/peaks): the probe's device fields, then the peak:
 *
 *   name="NVIDIA H200" uuid=GPU-84addb43-... cc=9.0 ... pci=0000:00:06.0 ... kind=htod_pinned
 *       gbps=55.41 bytes=268435456 reps=7
 *
 * (one line). gbps is decimal GB/s with bytes counted once (a DtoD copy of B bytes moved B), the
 * median of the probe's timed repetitions. A trace's device is matched by UUID only, written as
 * nvidia-smi writes it; a device whose UUID is unknown (all zero) matches nothing, and neither does
 * a line without a uuid field (probes older than the UUID). When several lines give the same device
 * and kind (the probe was run again), the last one in the file wins: it is the latest measurement.
 *
 * The ceilings (enum gt_ceiling_kind) are lines of the same form whose kind names a memory or compute
 * ceiling; a memory one gives gbps= (bytes read plus written, decimal GB/s), a compute one gflops=
 * (2 flops per FMA, decimal GFLOP/s), each the median of the probe's timed launches; beside it:
 *
 *   theory_gbps= or theory_gflops=   the figure from device attributes, or "unknown"
 *   bytes= or flops=                 bytes or flops per timed launch
 *   reps=                            timed launches
 *   sm_mhz=, mem_mhz=                clocks read while the timed launches ran
 *   clocks=                          nvml (read so), attribute (the device's maximum clocks instead)
 *   method="..."                     how it was measured, in words
 *
 * A ceiling line whose value is not a positive number, or whose theoretical figure, clocks, amount or
 * reps are given but are not numbers (theory: a positive number or "unknown"), is malformed.
 */
#ifndef GT_PEAKS_H
#define GT_PEAKS_H

#include "traces/gputrace.h"
#include "common/peaks_path.h" /* gt_peaks_default_path: the file's place, shared with gputrace peak */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum gt_peak_kind {
	GT_PEAK_HTOD_PINNED = 0,
	GT_PEAK_DTOH_PINNED,
	GT_PEAK_HTOD_PAGEABLE,
	GT_PEAK_DTOH_PAGEABLE,
	GT_PEAK_DTOD,
	GT_PEAK_NKINDS
};
const char *gt_peak_kind_name(enum gt_peak_kind k); /* "htod_pinned", ... */
/* The measured kind that applies to a copy (enum gt_copy_kind) whose host side is mem_kind (enum
 * gt_mem_kind; ignored for device-to-device copies); -1 when none does (managed memory, peer,
 * host-to-host). */
int gt_peak_kind_for(int copy_kind, int mem_kind);

/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (lower-case hex, as nvidia-smi prints it) into buf
 * (at least 41 bytes); "" when the UUID is all zero (unknown). Returns buf. */
char *gt_device_uuid_string(const struct gt_device *d, char *buf, size_t len);

struct gt_peak {
	double gbps;             /* decimal GB/s, bytes counted once */
	uint64_t bytes;          /* bytes per probe copy, 0 if not given */
	uint64_t reps;           /* timed repetitions, 0 if not given */
	size_t line;             /* 1-based line of the file it came from */
};

/* The ceilings, in the order the probe measures them. */
enum gt_ceiling_kind {
	GT_CEIL_DRAM_READ = 0, /* device memory, read only */
	GT_CEIL_DRAM_COPY,     /* device memory, b = a */
	GT_CEIL_DRAM_TRIAD,    /* device memory, a = b + s * c */
	GT_CEIL_L2_READ,       /* a working set inside L2, read repeatedly */
	GT_CEIL_FP32_FMA,
	GT_CEIL_FP64_FMA,
	GT_CEIL_FP16_MMA,      /* tensor cores, FP16 inputs, FP32 accumulation: mma.sync */
	GT_CEIL_BF16_MMA,
	GT_CEIL_FP16_GEMM,     /* a library GEMM (cuBLAS), FP16, FP32 accumulation: wgmma on sm_90 */
	GT_CEIL_BF16_GEMM,
	GT_CEIL_NKINDS
};
const char *gt_ceiling_kind_name(enum gt_ceiling_kind k); /* "dram_read", ...; "?" out of range */
int gt_ceiling_is_flops(enum gt_ceiling_kind k);          /* 1: GFLOP/s, 0: GB/s */
int gt_ceiling_is_tensor(enum gt_ceiling_kind k);         /* fp16/bf16 mma or gemm */
/* A ceiling's theoretical figure from the trace's device attributes, in its unit (GB/s or GFLOP/s;
 * 0 when unknown): device memory from its clock and bus width (gt_device_peak_mem_bw); compute
 * from SMs x per-SM rate per clock x the maximum SM clock, for the architectures whose rates are
 * published (sm_80, sm_90: the same rates and formula as `gputrace peak`'s theory_gflops); L2
 * and every other architecture: unknown, rather than guessed. */
double gt_ceiling_theory(const struct gt_device *d, enum gt_ceiling_kind k);

struct gt_ceiling {
	double value;            /* GB/s or GFLOP/s, decimal */
	double theory;           /* the same unit from device attributes; 0 when unknown */
	double amount;           /* bytes or flops per timed launch; 0 if not given */
	uint64_t reps;           /* timed launches, 0 if not given */
	unsigned sm_mhz, mem_mhz; /* 0 if not given */
	char clocks[16];         /* "nvml", "attribute", "" when not given */
	char method[512];        /* "" when not given; cut to fit */
	size_t line;
};

struct gt_peaks {
	char *path;              /* the file read (NULL: none) */
	int have[GT_PEAK_NKINDS];
	struct gt_peak p[GT_PEAK_NKINDS];
	int have_ceiling[GT_CEIL_NKINDS];
	/* GT_CEIL_NKINDS entries, allocated at the first ceiling line for the device (NULL before):
	 * a trace may name a device per record, and bandwidth holds a gt_peaks per device. */
	struct gt_ceiling *c;
	char uuid[48];           /* the device matched against */
	size_t lines;            /* lines in the file */
	size_t other_devices;    /* well-formed lines for other UUIDs */
	size_t no_uuid;          /* lines without a uuid field */
	size_t malformed;        /* lines without kind= or a number in gbps= (gflops= for a compute
	                          * ceiling), and ceiling lines with a bad field */
};

/* A peaks file holds a line per probe run and kind (about 300 bytes): a file over this size is
 * not one, and is not read. */
#define GT_PEAKS_MAX_BYTES (1u << 20)

/* The tensor-core ceiling that tensor FLOPs are held to: the highest of the tensor kinds measured
 * (fp16/bf16, mma.sync or a library GEMM: on sm_90 only the GEMM's wgmma reaches the full rate);
 * -1 when pk has none. */
int gt_peaks_tensor_kind(const struct gt_peaks *pk);

/* Reads path, keeping the lines for uuid (as gt_device_uuid_string writes it; "" matches nothing).
 * Only a regular file of at most GT_PEAKS_MAX_BYTES is read (a FIFO, a device such as /dev/urandom
 * or a directory would never end or never be a peaks file). 0 (pk filled, possibly without any
 * peak); GT_ERR_IO when the file cannot be opened or read, with errno's reason in err;
 * GT_ERR_ARG when it is not a regular file or is too large, with the reason in err. */
int gt_peaks_load(struct gt_peaks *pk, const char *path, const char *uuid, char *err, size_t errlen);

/* Opens path for reading under the rule above: the stream, or NULL with the reason in err and
 * *rc set to GT_ERR_IO or GT_ERR_ARG. Never blocks on a FIFO. */
FILE *gt_peaks_open(const char *path, char *err, size_t errlen, int *rc);
void gt_peaks_release(struct gt_peaks *pk);

#endif
