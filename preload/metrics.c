/* metrics.c: GPUTRACE_METRICS in the recorder: a PM sampler per device (cupti/pmsampling.h), its
 * samples written as they are decoded, and what was and was not sampled in META (metrics.h). */
#include "preload/metrics.h"

#include "cupti/pmsampling.h"
#include "preload/log.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define MAX_DEVICES 64

static struct {
	struct pm_sampler *s[MAX_DEVICES];
	unsigned char tried[MAX_DEVICES];
	char unavailable[640]; /* the first device's reason, for META and the one line */
	char dropped[512];
	uint64_t interval_us;
	int said;
} M;

int metrics_device(struct gt_writer *w, const struct gtp_config *c, uint32_t ordinal)
{
	if (!c->metrics[0] || ordinal >= MAX_DEVICES || M.tried[ordinal])
		return 0;
	M.tried[ordinal] = 1;
	M.interval_us = c->metrics_us;
	struct metric_list want = { 0 };
	char why[480] = "", dropped[512] = "";
	/* On the one GPU run so far (H100, CUPTI 13.0, 2026-12-05) programs recorded with counters
	 * crashed (SIGSEGV, every C run) or hung (15 of 20 PyTorch runs) at exit: until a run proves
	 * the sampler, it is held back unless asked for by name, and the recording goes on without
	 * counters as for any other reason. */
	if (!c->metrics_unverified)
		snprintf(why, sizeof why, "held back: on the one GPU run so far, programs recorded with "
		                          "GPUTRACE_METRICS crashed or hung at exit; "
		                          "GPUTRACE_METRICS_UNVERIFIED=1 samples anyway (docs/METRICS.md)");
	else if (metric_sets_parse(c->metrics, &want, why, sizeof why) == 0 &&
	         pm_start(&M.s[ordinal], ordinal, &want, (uint64_t)c->metrics_us * 1000, why, sizeof why,
	                  dropped, sizeof dropped) == 0) {
		gtp_debug("device %u: sampling %s every %u us", ordinal, pm_metrics(M.s[ordinal]), c->metrics_us);
		if (dropped[0] && !M.dropped[0]) {
			snprintf(M.dropped, sizeof M.dropped, "%s", dropped);
			gtp_log("GPUTRACE_METRICS: device %u does not offer %s in one sampling pass: left out",
			        ordinal, dropped);
		}
		return 0;
	}
	char line[560];
	snprintf(line, sizeof line, "device %u: %s", ordinal, why);
	if (!M.said) {
		M.said = 1;
		snprintf(M.unavailable, sizeof M.unavailable, "%s", line);
		gtp_log("no hardware counters (GPUTRACE_METRICS): %s; recording goes on without them", line);
	}
	return gt_writer_meta(w, "metrics.unavailable", M.unavailable);
}

static int decode_one(struct gt_writer *w, uint32_t d, int stop)
{
	char why[512] = "";
	int rc = stop ? pm_stop(M.s[d], w, why, sizeof why) : pm_decode(M.s[d], w, why, sizeof why);
	if (rc < 0)
		return rc;
	if (rc > 0 && !M.said) {
		M.said = 1;
		snprintf(M.unavailable, sizeof M.unavailable, "device %u: %s", d, why);
		gtp_log("hardware counters stopped (GPUTRACE_METRICS): %s", M.unavailable);
		return gt_writer_meta(w, "metrics.unavailable", M.unavailable);
	}
	return 0;
}

int metrics_decode(struct gt_writer *w)
{
	for (uint32_t d = 0; d < MAX_DEVICES; d++) {
		if (!M.s[d])
			continue;
		int rc = decode_one(w, d, 0);
		if (rc)
			return rc;
	}
	return 0;
}

int metrics_finish(struct gt_writer *w, uint64_t cupti_now)
{
	char sampled[2048] = "", v[96];
	uint64_t samples = 0;
	int overflowed = 0, any = 0;
	for (uint32_t d = 0; d < MAX_DEVICES; d++) {
		if (!M.s[d])
			continue;
		any = 1;
		if (!sampled[0])
			snprintf(sampled, sizeof sampled, "%s", pm_metrics(M.s[d]));
		/* pm_stop frees the sampler: its counts first. The debug lines say which phase a crash at
		 * exit came in (GPUTRACE_DEBUG=1). */
		gtp_debug("metrics: device %u: last decode before stopping", d);
		int rc = pm_decode(M.s[d], w, v, sizeof v);
		if (rc < 0)
			return rc;
		samples += pm_samples(M.s[d]);
		overflowed |= pm_overflowed(M.s[d]);
		gtp_debug("metrics: device %u: stopping, decoding the rest, disabling", d);
		rc = decode_one(w, d, 1);
		gtp_debug("metrics: device %u: stopped", d);
		M.s[d] = NULL;
		if (rc)
			return rc;
	}
	if (!any)
		return 0;
	int rc = gt_writer_meta(w, "metrics.sampled", sampled);
	snprintf(v, sizeof v, "%" PRIu64, M.interval_us);
	rc = rc ? rc : gt_writer_meta(w, "metrics.interval_us", v);
	snprintf(v, sizeof v, "%" PRIu64, samples);
	rc = rc ? rc : gt_writer_meta(w, "metrics.samples", v);
	if (M.dropped[0])
		rc = rc ? rc : gt_writer_meta(w, "metrics.left_out", M.dropped);
	if (overflowed)
		rc = rc ? rc : gt_writer_meta(w, "metrics.overflow", "the hardware buffer overflowed: samples "
		                                                     "after a gap are flagged partial");
	gtp_debug("metrics: %" PRIu64 " samples; CUPTI clock now %" PRIu64, samples, cupti_now);
	return rc;
}

void metrics_forget(void) { memset(&M, 0, sizeof M); }
