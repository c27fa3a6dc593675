/* metric_sets.c: GPUTRACE_METRICS's sets and the form of a raw metric name (metric_sets.h).
 *
 * The sets hold only metrics that PM sampling reads in one pass on the GPUs we measured
 * (docs/METRICS.md lists what the H200 offers and why these were chosen): device memory bytes
 * read and written and L2 traffic for `memory`; SM throughput, the FMA, FP64 and tensor pipes'
 * activity and instruction issue for `compute`.
 */
#include "cupti/metric_sets.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	const char *metrics[8];
} sets[] = {
	{ "memory", { "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum", NULL } },
	{ "compute", { "sm__throughput.avg.pct_of_peak_sustained_elapsed",
	               "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed",
	               "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed",
	               "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
	               "sm__inst_executed.avg.per_cycle_active", NULL } },
};
#define NSETS (sizeof sets / sizeof sets[0])

const char *metric_sets_names(void) { return "memory, compute"; }

/* A CUPTI metric name: unit "__" counter, then rollups and submetrics after dots, in
 * [a-z0-9_.]; 95 bytes at most. */
static int is_metric_name(const char *w, size_t len)
{
	if (len == 0 || len >= sizeof ((struct metric_list *)0)->names[0])
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!((w[i] >= 'a' && w[i] <= 'z') || (w[i] >= '0' && w[i] <= '9') || w[i] == '_' || w[i] == '.'))
			return 0;
	const char *u = memchr(w, '_', len);
	return u && u > w && (size_t)(u - w) + 2 < len && u[1] == '_' && w[len - 1] != '.';
}

static int add(struct metric_list *out, const char *name, size_t len, char *why, size_t n)
{
	for (size_t i = 0; i < out->n; i++)
		if (strlen(out->names[i]) == len && !memcmp(out->names[i], name, len))
			return 0;
	if (out->n == METRICS_MAX) {
		snprintf(why, n, "more than %d metrics", METRICS_MAX);
		return -1;
	}
	memcpy(out->names[out->n], name, len);
	out->names[out->n++][len] = '\0';
	return 0;
}

int metric_sets_parse(const char *spec, struct metric_list *out, char *why, size_t n)
{
	const char *p = spec;
	while (*p) {
		size_t len = strcspn(p, ",");
		if (len == 0) { /* "memory,,compute": an empty word names nothing */
			p += *p == ',';
			continue;
		}
		size_t s = 0;
		while (s < NSETS && !(strlen(sets[s].name) == len && !memcmp(sets[s].name, p, len)))
			s++;
		if (s < NSETS) {
			for (const char *const *m = sets[s].metrics; *m; m++)
				if (add(out, *m, strlen(*m), why, n))
					return -1;
		} else if (strstr(p, "__") && strstr(p, "__") < p + len && is_metric_name(p, len)) {
			if (add(out, p, len, why, n))
				return -1;
		} else {
			snprintf(why, n, "'%.*s' is neither a metric set (%s) nor a CUPTI metric name", (int)(len > 64 ? 64 : len),
			         p, metric_sets_names());
			return -1;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}
