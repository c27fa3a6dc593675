/* gt_count.c: streams a trace through the public reader and counts its records by type.
 *
 * The benchmark's reader loop (the least a consumer does per record: gt_reader_next and a switch on
 * the type), and a quick look at a file for tests: how many records of each type, how many chunks,
 * whether the writer closed it, how many bytes a cut-off tail lost. Errors are reported as the
 * reader words them and exit 2, as gpuanalyze does.
 *
 *   gt_count [--time] [--passes N] FILE
 */
#include "traces/gputrace.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	int timed = 0;
	long passes = 1;
	const char *path = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--time")) {
			timed = 1;
		} else if (!strcmp(argv[i], "--passes") && i + 1 < argc) {
			passes = strtol(argv[++i], NULL, 10);
			if (passes < 1)
				passes = 1;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "usage: gt_count [--time] [--passes N] FILE\n");
			return 2;
		} else {
			path = argv[i];
		}
	}
	if (!path) {
		fprintf(stderr, "usage: gt_count [--time] [--passes N] FILE\n");
		return 2;
	}
	char err[512];
	struct gt_reader *r;
	int rc = gt_reader_open(&r, path, err, sizeof err);
	if (rc) {
		fprintf(stderr, "gt_count: cannot open trace: %s\n", err);
		return 2;
	}
	static uint64_t by_type[GT_REC_TYPE_MAX + 1];
	uint64_t total = 0, ksum = 0;
	double t0 = now_s();
	for (long p = 0; p < passes; p++) {
		if (p && (rc = gt_reader_rewind(r)) != 0)
			break;
		memset(by_type, 0, sizeof by_type);
		struct gt_event ev;
		while ((rc = gt_reader_next(r, &ev)) > 0) {
			by_type[ev.type & GT_REC_TYPE_MAX]++;
			/* Touch the payload so the loop cannot be reduced to counting. */
			if (ev.type == GT_REC_KERNEL)
				ksum += ev.u.kernel.end - ev.u.kernel.start;
			total++;
		}
		if (rc < 0)
			break;
	}
	double secs = now_s() - t0;
	if (rc < 0) {
		fprintf(stderr, "gt_count: %s\n", gt_reader_error(r));
		gt_reader_close(r);
		return 2;
	}
	struct gt_tail t;
	gt_reader_tail(r, &t);
	int major, minor;
	gt_reader_version(r, &major, &minor);
	printf("file %s version %d.%d\n", path, major, minor);
	printf("records %" PRIu64 " chunks %" PRIu64 " complete %d file_bytes %" PRIu64
	       " good_bytes %" PRIu64 " lost_bytes %" PRIu64 " skipped %" PRIu64 "\n",
	       t.records, t.chunks, t.complete, t.file_bytes, t.good_bytes, t.lost_bytes,
	       t.skipped_records);
	for (int i = 0; i <= GT_REC_TYPE_MAX; i++)
		if (by_type[i])
			printf("type %d %s %" PRIu64 "\n", i, gt_rec_type_name(i), by_type[i]);
	if (timed)
		printf("seconds %.4f records_per_s %.0f kernel_ns_sum %" PRIu64 "\n", secs,
		       secs > 0 ? (double)total / secs : 0.0, ksum);
	gt_reader_close(r);
	return 0;
}
