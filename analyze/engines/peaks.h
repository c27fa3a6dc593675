/* peaks.h: measured copy bandwidths, as `gputrace peak` stores them, matched to a trace's device.
 *
 * `gputrace peak` (preload/launcher_peak.c) runs the probe kernels/bwprobe and appends one line per
 * kind to the peaks file (traces/peaks_path.h: $GPUTRACE_PEAKS, else $XDG_CACHE_HOME/gputrace/peaks,
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
 */
#ifndef GT_PEAKS_H
#define GT_PEAKS_H

#include "gputrace.h"
#include "peaks_path.h" /* gt_peaks_default_path: the file's place, shared with gputrace peak */

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

struct gt_peaks {
	char *path;              /* the file read (NULL: none) */
	int have[GT_PEAK_NKINDS];
	struct gt_peak p[GT_PEAK_NKINDS];
	char uuid[48];           /* the device matched against */
	size_t lines;            /* lines in the file */
	size_t other_devices;    /* well-formed lines for other UUIDs */
	size_t no_uuid;          /* lines without a uuid field */
	size_t malformed;        /* lines without kind= or a number in gbps= */
};

/* A peaks file holds a line per probe run and kind (about 300 bytes): a file over this size is
 * not one, and is not read. */
#define GT_PEAKS_MAX_BYTES (1u << 20)

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
