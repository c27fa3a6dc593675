/* metric_sets.h: the names GPUTRACE_METRICS takes: sets of hardware-counter metrics, and raw
 * CUPTI metric names, checked without CUPTI.
 *
 * CUPTI-free, so that the gputrace launcher (built without the toolkit) refuses an unknown name
 * before it starts the program: an unknown set, or a word that cannot be a CUPTI metric name, is a
 * usage error (metric_names.h parses; this holds PM sampling's sets). An empty word names nothing.
 * Whether the GPU offers a well-formed metric is known only once CUPTI is asked (cupti/pmsampling.c),
 * and an unoffered one is then left out with the reason.
 */
#ifndef GT_CUPTI_METRIC_SETS_H
#define GT_CUPTI_METRIC_SETS_H

#include "cupti/metric_names.h"

#include <stddef.h>
#include <stdint.h>

#define METRICS_MAX 32

struct metric_list {
	size_t n;
	char names[METRICS_MAX][METRIC_NAME_MAX];
	uint8_t alt[METRICS_MAX]; /* 1: an alternative to the name before it (the sampler keeps one) */
};

/* Appends the metrics of "memory,compute,dram__bytes_read.sum" to out, each once, in order. 0, or
 * -1 with one line in why naming the word that is no set and no metric name. */
int metric_sets_parse(const char *spec, struct metric_list *out, char *why, size_t n);
/* The sets' names, "memory, compute", for messages and --help. */
const char *metric_sets_names(void);

#endif
