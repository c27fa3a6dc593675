/* pmsampling.h: hardware counters sampled during the run through CUPTI's PM sampling API, written
 * as METRIC_SAMPLE records.
 *
 * One sampler per device: the GPU writes a sample of every configured metric each interval into a
 * hardware buffer; the writer thread decodes what has arrived (pm_decode) and writes one record per
 * metric and sample, on CUPTI's clock. Metrics the GPU does not offer are left out one by one; a
 * device whose counters cannot be had at all (profiling restricted to admin users, MIG, an
 * unsupported GPU, another profiler holding them) gets no records and a reason, which the recorder
 * prints once and writes to META: never records holding zeros. Runs on the writer thread only.
 */
#ifndef GT_CUPTI_PMSAMPLING_H
#define GT_CUPTI_PMSAMPLING_H

#include "traces/gputrace.h"
#include "cupti/metric_sets.h"

#include <stddef.h>
#include <stdint.h>

struct pm_sampler;

/* Starts sampling `metrics` on CUDA device `ordinal` every interval_ns. 0 and *out; -1 with the
 * reason in why (no sampler). Metrics the device does not offer, or that would need a second pass,
 * are dropped and named in dropped (empty when none). */
int pm_start(struct pm_sampler **out, uint32_t ordinal, const struct metric_list *metrics,
             uint64_t interval_ns, char *why, size_t nwhy, char *dropped, size_t ndropped);
/* What pm_start would sample on a chip ("GH100"), planned with CUPTI's host API alone (no GPU, no
 * driver): the metrics kept, comma-separated, and those left out. Uses the libcupti the recorder
 * loaded, else opens one. 0, or -1 with the reason in why. */
int pm_plan(const char *chip, const struct metric_list *metrics, char *kept, size_t nkept, char *dropped,
            size_t ndropped, char *why, size_t nwhy);
/* Decodes the samples completed so far and writes their records. 0, a negative GT_ERR_* from the
 * writer, or 1 when sampling failed (reason in why; the sampler stays, inert). */
int pm_decode(struct pm_sampler *s, struct gt_writer *w, char *why, size_t nwhy);
/* Stops sampling; the samples it completed are still there for pm_decode (on another thread: the
 * stop needs the context, the decode does not). s stays, for its counts, until pm_free. Safe with
 * NULL and twice. */
void pm_stop(struct pm_sampler *s);
/* Stops sampling if pm_stop did not and frees s. Safe with NULL. Sampling is never disabled on
 * the device (cuptiPmSamplingDisable aborted or hung programs on the H100): the device's sampling
 * object is left to the process's end. */
void pm_free(struct pm_sampler *s);
/* Whether s is sampling (started, not stopped). */
int pm_running(const struct pm_sampler *s);
/* What was kept: the metrics sampled, comma-separated; the samples and records written; the
 * samples the hardware buffer lost. */
const char *pm_metrics(const struct pm_sampler *s);
uint64_t pm_samples(const struct pm_sampler *s);
int pm_overflowed(const struct pm_sampler *s);

#endif
