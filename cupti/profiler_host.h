/* profiler_host.h: the host side of CUPTI's profiler (cupti_profiler_host.h) for C callers: the
 * recorder's PM sampler (pmsampling.c) and the replay worker's Range Profiler
 * (preload/replay/replay_profiler.c).
 *
 * The host API needs no GPU: it turns metric names into a config image for a chip, says how many
 * passes that image takes, and evaluates a counter-data image the target side filled into metric
 * values. Both profilers call it the same way, only with another profiler type; the functions are
 * looked up in a libcupti the caller opened (the preload never links it). Also here: the user's
 * words for a profiler call that failed, shared by both so that the same failure reads the same.
 * Include with cupti/compat on the include path (cupti_profiler_host.h includes <string>).
 */
#ifndef GT_CUPTI_PROFILER_HOST_H
#define GT_CUPTI_PROFILER_HOST_H

#include <cupti_profiler_host.h>
#include <cupti_result.h>
#include <stddef.h>
#include <stdint.h>

/* One host object and the config image of the metrics added to it. Zero-initialise before use. */
struct profiler_host {
	CUpti_Profiler_Host_Object *obj;
	uint8_t *config;
	size_t config_size;
	size_t passes;
};

/* Looks the host functions up in the libcupti opened as dl (once per process is enough). NULL, or
 * the name of the first function this libcupti lacks (the functions are then not usable). */
const char *profiler_host_load(void *dl);

/* Creates h's host object for a profiler type, a chip ("GH100") and its counter-availability image
 * (may be NULL). On failure h holds no object. */
CUptiResult profiler_host_new(struct profiler_host *h, CUpti_ProfilerType type, const char *chip,
                              const uint8_t *avail);
/* Adds n metrics to h's object. */
CUptiResult profiler_host_add(struct profiler_host *h, const char **names, size_t n);
/* Builds the config image of the metrics added (h->config, h->config_size) and the passes it takes
 * (h->passes). */
CUptiResult profiler_host_config(struct profiler_host *h);
/* Evaluates range `range` of a counter-data image into one value per metric (n of them). */
CUptiResult profiler_host_evaluate(const struct profiler_host *h, const uint8_t *data, size_t data_size,
                                   size_t range, const char **names, size_t n, double *values);
/* Ends h's object and frees its config image; h is then as zero-initialised. Safe on an empty h. */
void profiler_host_free(struct profiler_host *h);

/* Why counters cannot be had, in the user's words, from a profiler call's result: `profiler` names
 * the profiler in the "not supported" case ("PM sampling"), err is CUPTI's text for r. */
void profiler_reason(char *why, size_t n, const char *profiler, const char *call, CUptiResult r,
                     const char *err);

#endif
