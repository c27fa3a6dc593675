/* replay_args.h: the options of the replay worker (gputrace-replay TRACE [--capture ID]...
 * [--kernel REGEX] [--reps N] [--check-reps N] [--dtype T] [--device N] [--with-structs]
 * [--results FILE] [--metrics SPEC] [--metric-values FILE]) and the captures they pick, parsed and checked by one piece of code that both
 * processes run.
 *
 * `gputrace replay` hands the worker these options; it parses them here first and reads the
 * trace's capture records (no buffers), so that a bad value, a pattern that does not compile, an
 * unreadable trace, a capture id the trace does not hold or a selection that picks nothing is an
 * input error (exit 2) said before any driver is looked for; 77 is left to mean only that no GPU
 * or driver is there. CUDA-free: the launcher links it.
 */
#ifndef GT_PRELOAD_REPLAY_ARGS_H
#define GT_PRELOAD_REPLAY_ARGS_H

#include "common/demangler.h"
#include "preload/replay/replay_metric_sets.h"
#include "traces/capture_set.h"

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

/* Enough for any selection a person types; the worker's command line stays bounded. */
#define REPLAY_MAX_CAPTURES 256

struct replay_args {
	uint64_t ids[REPLAY_MAX_CAPTURES]; /* --capture, in order given; none: every capture */
	uint8_t found[REPLAY_MAX_CAPTURES]; /* ids[i] is in the trace (replay_args_check) */
	size_t nids;
	int have_re;
	regex_t re;                    /* --kernel */
	gt_cxa_demangle_fn demangle;   /* libstdc++'s, when the machine has it; NULL: mangled only */
	unsigned reps, check_reps;     /* --reps (default 50), --check-reps (default 10) */
	int dtype;                     /* --dtype, an enum replay_dtype (default RD_F32) */
	int device;                    /* --device (default 0) */
	int with_structs;              /* --with-structs */
	const char *results;           /* --results FILE, or NULL */
	struct replay_metric_list metrics; /* --metrics: what the Range Profiler reads (n 0: none) */
	const char *metric_values;     /* --metric-values FILE: one line per value, for the launcher */
	char why[160];                 /* the text of a usage error that is not a fixed string */
	const char *trace;
	/* What replay_args_pick saw: */
	int count_only;                /* pick nothing, only count (the launcher's check) */
	uint64_t seen, picked, lo, hi; /* captures, captures picked, lowest and highest id */
};

/* Parses the worker's argv (argv[0] is the program) into a (released first by nothing: a must be
 * fresh). Returns NULL, or a one-line reason without the program's name (a static string, or
 * a->why). Uses getopt_long from the start (optind reset). */
const char *replay_args_parse(struct replay_args *a, int argc, char **argv);

/* Frees the compiled pattern. */
void replay_args_release(struct replay_args *a);

/* A gt_capture_pick_fn: whether a (ctx) picks c, by id and by --kernel against the mangled name
 * and, when a->demangle is set and the name within common/mangled.h's caps, the demangled one.
 * Counts into a's seen, picked, lo, hi and found; keeps nothing when a->count_only. */
int replay_args_pick(void *ctx, const struct gt_capture *c, const char *mangled);

/* The demangled name of mangled (malloc'd), or NULL when it is not mangled, over the caps, or no
 * demangler is there. */
char *replay_args_demangled(const struct replay_args *a, const char *mangled);

/* Loads the captures a picks from a->trace into set, and checks that every --capture id is there
 * and that something is picked (the check needs what the pick saw, so it is made after the load).
 * Returns 0, or -1 with a one-line reason in why (quoting the trace's path and ids as they are: the
 * caller escapes the line) and set released. */
int replay_args_load(struct replay_args *a, struct gt_capture_set *set, char *why, size_t n);

/* replay_args_load with nothing kept: reads a->trace's capture records (not their buffers), the same. */
int replay_args_check(struct replay_args *a, char *why, size_t n);

#endif
