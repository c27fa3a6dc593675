/* replay_metric_sets.c: the metric sets of `gputrace replay --metrics` (replay_metric_sets.h).
 *
 * The Range Profiler replays a launch as many times as its metrics need, so a set may hold metrics
 * of several passes. `memory`: device-memory bytes read and written, and L2 traffic. `compute`:
 * the SASS instruction counts a FLOP count is made of (FP32, FP64 and FP16 adds, multiplies and
 * fused multiply-adds, per thread, predicated-on: a FLOP count is 2 x fma + add + mul), the tensor
 * pipe's instructions (HMMA, and Hopper's warpgroup GMMA) and activity, the FMA and FP64 pipes'
 * activity, and SM throughput. Both carry the launch's GPU time, so a rate can be formed from one
 * record set. On GH100 (H100, H200) CUPTI's host API plans memory in 1 pass and compute in 10, 3
 * without sm__throughput, which alone takes 8. Members a GPU does not offer are left out by the
 * worker with a note; raw names are all-or-nothing.
 */
#include "preload/replay/replay_metric_sets.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	const char *metrics[24];
} sets[] = {
	{ "memory", { "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum",
	              "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_write.sum",
	              "gpu__time_duration.sum", NULL } },
	{ "compute", { "sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
	               "sm__sass_thread_inst_executed_op_fadd_pred_on.sum",
	               "sm__sass_thread_inst_executed_op_fmul_pred_on.sum",
	               "sm__sass_thread_inst_executed_op_dfma_pred_on.sum",
	               "sm__sass_thread_inst_executed_op_dadd_pred_on.sum",
	               "sm__sass_thread_inst_executed_op_dmul_pred_on.sum",
	               "sm__sass_thread_inst_executed_op_hfma_pred_on.sum",
	               "sm__sass_thread_inst_executed_op_hadd_pred_on.sum",
	               "sm__sass_thread_inst_executed_op_hmul_pred_on.sum",
	               "sm__inst_executed_pipe_tensor_op_hmma.sum",
	               "sm__inst_executed_pipe_tensor_op_gmma.sum",
	               "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
	               "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
	               "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active",
	               "sm__throughput.avg.pct_of_peak_sustained_elapsed",
	               "gpu__time_duration.sum", NULL } },
};
#define NSETS (sizeof sets / sizeof sets[0])

const char *replay_metric_sets_names(void) { return "memory, compute"; }

/* A CUPTI metric name: unit "__" counter, then rollups and submetrics after dots, in [a-z0-9_.]. */
static int is_metric_name(const char *w, size_t len)
{
	if (len == 0 || len >= REPLAY_METRIC_NAME)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!((w[i] >= 'a' && w[i] <= 'z') || (w[i] >= '0' && w[i] <= '9') || w[i] == '_' || w[i] == '.'))
			return 0;
	const char *u = NULL;
	for (size_t i = 1; i + 2 < len && !u; i++)
		if (w[i] == '_' && w[i + 1] == '_')
			u = w + i;
	return u && w[0] != '_' && w[len - 1] != '.';
}

static int add(struct replay_metric_list *out, const char *name, size_t len, int raw, char *why, size_t n)
{
	for (size_t i = 0; i < out->n; i++)
		if (strlen(out->names[i]) == len && !memcmp(out->names[i], name, len)) {
			out->raw[i] |= (uint8_t)raw;
			return 0;
		}
	if (out->n == REPLAY_METRICS_MAX) {
		snprintf(why, n, "--metrics: more than %d metrics", REPLAY_METRICS_MAX);
		return -1;
	}
	memcpy(out->names[out->n], name, len);
	out->names[out->n][len] = '\0';
	out->raw[out->n++] = (uint8_t)raw;
	return 0;
}

int replay_metric_sets_parse(const char *spec, struct replay_metric_list *out, char *why, size_t n)
{
	const char *p = spec;
	if (!*p) {
		snprintf(why, n, "--metrics takes sets (%s) or CUPTI metric names, comma-separated", replay_metric_sets_names());
		return -1;
	}
	while (*p) {
		size_t len = strcspn(p, ",");
		size_t s = 0;
		while (s < NSETS && !(strlen(sets[s].name) == len && !memcmp(sets[s].name, p, len)))
			s++;
		if (s < NSETS) {
			for (const char *const *m = sets[s].metrics; *m; m++)
				if (add(out, *m, strlen(*m), 0, why, n))
					return -1;
		} else if (is_metric_name(p, len)) {
			if (add(out, p, len, 1, why, n))
				return -1;
		} else {
			snprintf(why, n, "--metrics: '%.*s' is neither a metric set (%s) nor a CUPTI metric name",
			         (int)(len > 64 ? 64 : len), p, replay_metric_sets_names());
			return -1;
		}
		p += len;
		if (*p == ',') {
			p++;
			if (!*p) {
				snprintf(why, n, "--metrics: the list ends with a comma");
				return -1;
			}
		}
	}
	return 0;
}
