/* replay_metric_sets.h: the names `gputrace replay --metrics` takes: sets of hardware-counter
 * metrics for the Range Profiler, and raw CUPTI metric names, checked without CUPTI.
 *
 * CUPTI-free: the launcher (built without the toolkit) checks the option with this code before
 * anything runs, so an unknown set, or a word that cannot be a CUPTI metric name, is a usage error
 * said on any machine (cupti/metric_names.h parses; this holds the Range Profiler's sets). Whether the GPU offers a well-formed raw name is known only once CUPTI is
 * asked, by the worker (replay_profiler.c).
 */
#ifndef GT_REPLAY_METRIC_SETS_H
#define GT_REPLAY_METRIC_SETS_H

#include "cupti/metric_names.h" /* CUPTI-free */

#include <stddef.h>
#include <stdint.h>

#define REPLAY_METRICS_MAX 48
#define REPLAY_METRIC_NAME METRIC_NAME_MAX

struct replay_metric_list {
	size_t n;
	char names[REPLAY_METRICS_MAX][REPLAY_METRIC_NAME];
	uint8_t raw[REPLAY_METRICS_MAX]; /* named by the user: one the GPU lacks is an error, not a note */
};

/* Appends the metrics of "memory,compute,dram__bytes_read.sum" to out (zeroed by the caller), each
 * once, in order. 0, or -1 with one line in why naming the word that is neither a set nor a metric
 * name. */
int replay_metric_sets_parse(const char *spec, struct replay_metric_list *out, char *why, size_t n);

/* The sets' names, "memory, compute", for messages. */
const char *replay_metric_sets_names(void);

#endif
