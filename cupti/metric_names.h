/* metric_names.h: a list of hardware-counter metrics as a user writes it, "SET[,SET]" where each
 * word is the name of a set of metrics or a raw CUPTI metric name, parsed without CUPTI.
 *
 * One parser for both places that take such a list: GPUTRACE_METRICS (PM sampling, metric_sets.h)
 * and `gputrace replay --metrics` (the Range Profiler, preload/replay/replay_metric_sets.h). Their
 * tables of sets differ, because the two profilers offer different metrics; the grammar, the form
 * of a raw name and the words of the errors are the same. CUPTI-free, so that the launcher (built
 * without the toolkit) links it and refuses an unknown word before anything runs.
 */
#ifndef GT_CUPTI_METRIC_NAMES_H
#define GT_CUPTI_METRIC_NAMES_H

#include <stddef.h>
#include <stdint.h>

#define METRIC_NAME_MAX 96 /* bytes of a metric name with its NUL */

/* A set: its name and its metrics, NULL-terminated. A member may name alternatives, "A|B|C": the
 * same quantity under the names different chips give it, in order of preference; a profiler that
 * knows alternatives (PM sampling) keeps the first its chip offers, one that does not takes each
 * name as a member of its own. */
struct metric_set {
	const char *name;
	const char *const *metrics;
};

/* What one list takes: its sets, their names for messages ("memory, compute"), the most metrics it
 * holds, the option it is given with ("--metrics": messages begin with it) or NULL, and whether it
 * is strict: an empty list, an empty word or a final comma is an error rather than naming nothing
 * (strict needs an option, which the messages name). */
struct metric_grammar {
	const struct metric_set *sets;
	size_t nsets;
	const char *set_names;
	size_t max;
	const char *option;
	int strict;
};

/* Appends the metrics of spec ("memory,compute,dram__bytes_read.sum") to names, which holds *n of
 * them, each once, in order; raw (may be NULL) gets 1 for a metric the user named itself, 0 for one
 * only a set holds; alt (may be NULL) gets 1 for a name that is an alternative to the name before
 * it (a set's "A|B"), 0 for the first name of a member. 0, or -1 with one line in why naming the
 * word that is neither a set nor a metric name. */
int metric_names_parse(const struct metric_grammar *g, const char *spec, size_t *n,
                       char (*names)[METRIC_NAME_MAX], uint8_t *raw, uint8_t *alt, char *why, size_t nwhy);

#endif
