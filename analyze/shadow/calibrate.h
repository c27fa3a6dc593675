/* calibrate.h: a kernel's tolerance derived from the spread of correct results, and tested on
 * planted errors (the engine behind `gpuanalyze calibrate`).
 *
 * The method is the seed practice for reductions: compute a double reference; measure how far
 * several correct results lie from it in ULPs (worst, p99, median); propose a bound = worst observed
 * x a stated margin; then plant wrong outputs and count how many each candidate rule would accept.
 *
 * Correct results: for every captured launch of the one kernel selected (replayable, with a
 * reference), the GPU's captured output (assumed correct: check the captures with shadow first) and
 * each alternative evaluation order the reference offers, run on that launch's inputs. Every
 * computed element of each float output is measured against the reference, from the kernel's
 * pointer to the end of the allocation, as shadow compares; elements that the reference and the
 * result both left as they were before the launch (padding, poison) are not computed results and
 * are left out. A NaN or unmatched infinity has no finite distance: it is counted apart
 * (nonfinite) and rejected by every rule.
 *
 * Planting: in each correct result, a fraction of the elements that are finite and non-zero (a
 * relative error of a zero is zero) is chosen by selection sampling; each becomes v * (1 + s * e),
 * s a random sign and e log-uniform in [plant_min, plant_max], rounded to the element type. An
 * element that rounds back to v is not wrong and is left out (counted). Random numbers come from
 * splitmix64 seeded with `seed`, drawn in file order, so a run is reproducible.
 *
 * Rules compared: a flat 1% relative tolerance, a flat 1e-5 relative tolerance, the reference's
 * declared tolerance, and the calibrated ULP bound. For each: the planted wrong elements it accepts,
 * and the correct elements it rejects.
 */
#ifndef GT_CALIBRATE_H
#define GT_CALIBRATE_H

#include "analyze/shadow/shadow.h"
#include "common/stats.h"

#include <stdint.h>

struct gt_calib_options {
	double margin;          /* bound = ceil(worst x margin); default 4 */
	double plant_fraction;  /* of the eligible elements of each correct result; default 0.25 */
	uint64_t seed;          /* default 7 */
	double plant_min, plant_max; /* relative error range, log-uniform; default 1e-6 .. 1e-1 */
};
void gt_calib_options_default(struct gt_calib_options *o);

enum gt_calib_rule {
	GT_CALIB_REL_1PCT = 0,
	GT_CALIB_REL_1E5 = 1,
	GT_CALIB_DECLARED = 2,
	GT_CALIB_BOUND = 3,
};
#define GT_CALIB_RULES 4
#define GT_CALIB_DECADES 24

/* One correct result of one output. */
struct gt_calib_source {
	char *name;             /* "capture 3: GPU" or "capture 3: float, index order" */
	uint64_t capture_id;
	int order;              /* -1: the GPU's output, else the order's index */
	uint64_t elements;      /* computed elements measured */
	uint64_t unchanged;     /* left as before by the reference and the result: not measured */
	uint64_t nonfinite;
	struct gt_stats st;     /* of the finite ULP distances */
};

struct gt_calib_output {
	unsigned param;
	const struct gt_ref_output *decl;
	struct gt_calib_source *sources;
	size_t nsources, capsources;
	uint64_t *dist;         /* every finite distance, all sources */
	size_t ndist, capdist;
	uint64_t nonfinite;
	struct gt_stats st;     /* of dist, after gt_calib_run */
	int has_bound;          /* 0 when there is no finite distance */
	uint64_t bound;         /* ULPs */
	struct gt_ref_tol rule[GT_CALIB_RULES];
	uint64_t rejected_correct[GT_CALIB_RULES];
	/* planted */
	struct gt_calib_plant *planted;
	size_t nplanted, capplanted;
	uint64_t eligible;      /* finite non-zero elements of the correct results */
	uint64_t rounded_back;  /* perturbations that rounded to the correct value, left out */
	uint64_t accepted[GT_CALIB_RULES];
	int decade0, ndecades;  /* decade d covers [10^(decade0+d), 10^(decade0+d+1)) */
	uint64_t dec_planted[GT_CALIB_DECADES];
	uint64_t dec_accepted[GT_CALIB_DECADES][GT_CALIB_RULES];
};

struct gt_calib_report {
	char *kernel, *demangled;
	const struct gt_ref *ref;
	uint64_t launches;      /* captures used */
	uint64_t skipped;       /* selected but not replayable */
	char skipped_why[300];  /* the first reason */
	struct gt_calib_output *outputs;
	unsigned noutputs;      /* float outputs of the reference */
	struct gt_calib_options opt;
	struct gt_shadow_walk_info info;
	char error[512];        /* why gt_calib_run returned GT_ERR_ARG */
};

/* 0 (rep filled); a negative GT_ERR_* with the walk's failure held (failure.h: an unreadable
 * trace); GT_ERR_ARG with rep->error, nothing held (several kernels selected, no reference, nothing
 * replayable, no float output); GT_ERR_NOMEM. The caller releases rep in every case. */
int gt_calib_run(const char *path, const struct gt_refs *refs, const struct gt_name_filter *filter,
                 const struct gt_calib_options *opt, struct gt_calib_report *rep);
void gt_calib_report_release(struct gt_calib_report *rep);
const char *gt_calib_rule_name(int rule); /* "flat 1% relative", ... */

#endif
