/* apportion.h: device-wide counter samples shared out among the kernel launches they overlap.
 *
 * A PM sample is one metric's count over an interval of one device, not any kernel's. The rule,
 * stated in gpuanalyze(1) (ceiling):
 *   1. A device's launches cut its time into pieces: idle (no launch), alone (exactly one launch
 *      running) and shared (two or more running at once).
 *   2. A sample's count is spread evenly over the busy time (alone or shared) inside its interval:
 *      a rate of value / busy ns. A sample whose interval holds no busy time gives nothing to any
 *      kernel; its count is summed as idle.
 *   3. Each piece of time alone gets the rates of the samples that cover it, times its length, for
 *      the kernel that ran alone there; that time counts as covered for that kernel and metric.
 *      Shared time goes to no kernel: its share is summed as concurrent (left out), and it counts
 *      as covered for none.
 * So a kernel's rate for a metric is its amount over its covered time, and its coverage is its
 * covered time over its total time. A percentage metric is given as value x interval length (a
 * percent-ns), so that the same rule averages it over time.
 *
 * Cost: O((L + S) log(L + S)) for L launches and S samples, plus (pieces + S) x slots; memory
 * about 80 bytes per launch and 48 per sample, freed before return.
 */
#ifndef GT_APPORTION_H
#define GT_APPORTION_H

#include <stddef.h>
#include <stdint.h>

struct gt_ap_launch {
	uint64_t start, end;     /* end <= start: no time, ignored */
	uint32_t device, group;  /* group: the caller's kernel index, < ngroups */
};

struct gt_ap_sample {
	uint64_t start, end;     /* end <= start: ignored (counted in skipped) */
	double value;            /* finite and >= 0; others are ignored (counted in skipped) */
	uint32_t device, slot;   /* slot: the caller's metric index, < nslots */
};

/* The caller's arrays, zeroed, of the sizes given; the results are added to them (so several
 * files may be added into one). */
struct gt_ap_out {
	size_t ngroups, nslots;
	double *amount;          /* [group * nslots + slot]: the count given to the kernel */
	double *covered;         /* [group * nslots + slot]: its ns alone under a sample of slot */
	double *solo_ns;         /* [group]: its ns running alone */
	double *shared_ns;       /* [group]: its ns running beside another launch */
	double *concurrent;      /* [slot]: counts in shared time, left out */
	double *idle;            /* [slot]: counts of samples with no busy time, left out */
	uint64_t skipped;        /* samples ignored: bad times or a value not finite or negative */
};

/* Sorts l and s in place (by device, then start) and adds their apportioning to out. 0, or
 * GT_ERR_NOMEM (out then partly added). */
int gt_apportion(struct gt_ap_launch *l, size_t nl, struct gt_ap_sample *s, size_t ns, struct gt_ap_out *out);

#endif
