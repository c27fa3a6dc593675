/* replay_metrics_write.c: runs the last step of `gputrace replay --metrics` alone, without a GPU.
 *
 *   replay_metrics_write REPLAY-TRACE VALUES RESULTS
 *
 * Calls launcher_replay_metrics (preload/launcher/launcher_replay_metrics.c) on a trace and a file
 * in the worker's format ("V ID ORDINAL PASSES METRIC VALUE", "D METRICS", "U REASON") and the
 * worker's results file ("ID LAUNCHES VERDICT CORRELATION PROFILED" per capture), as the
 * launcher does after the worker exits, so that a CLI test checks how the values enter the trace:
 * what they are attached to, that every other record stays as it was, and what META says. Exit 0,
 * or 1 when the launcher's function fails.
 */
#include "preload/launcher/launcher_replay.h"

#include <stdio.h>

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: replay_metrics_write REPLAY-TRACE VALUES RESULTS\n");
		return 2;
	}
	return launcher_replay_metrics(argv[1], argv[2], argv[3], stdout) ? 1 : 0;
}
