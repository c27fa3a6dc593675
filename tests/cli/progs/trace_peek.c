/* trace_peek.c: what a trace holds, one fact per line, for the CLI tests to grep.
 *
 *   trace_peek FILE
 *
 * Prints "complete 0|1" (whether the writer closed the file), "kernels N", "memcpys N", "bytes N"
 * (copied, all directions), one "meta KEY=VALUE" per metadata entry, "process EVENT STATUS" per
 * process record, "dropped REASON COUNT" per dropped-records entry (enum gt_drop_reason), "device NAME" per device. Exits
 * 2 with the reader's message when the file cannot be read.
 */
#include "traces/gputrace.h"

#include <inttypes.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: trace_peek FILE\n");
		return 2;
	}
	char err[512];
	struct gt_reader *r;
	if (gt_reader_open(&r, argv[1], err, sizeof err) != 0) {
		fprintf(stderr, "trace_peek: %s\n", err);
		return 2;
	}
	uint64_t kernels = 0, memcpys = 0, bytes = 0;
	struct gt_event ev;
	int rc;
	while ((rc = gt_reader_next(r, &ev)) > 0) {
		switch (ev.type) {
		case GT_REC_KERNEL: kernels++; break;
		case GT_REC_MEMCPY: memcpys++; bytes += ev.u.memcpy.bytes; break;
		case GT_REC_PROCESS:
			printf("process %u %d\n", ev.u.process.event, ev.u.process.status);
			break;
		case GT_REC_DROPPED:
			printf("dropped %u %" PRIu64 "\n", ev.u.dropped.reason, ev.u.dropped.count);
			break;
		default: break;
		}
	}
	if (rc < 0) {
		fprintf(stderr, "trace_peek: %s\n", gt_reader_error(r));
		gt_reader_close(r);
		return 2;
	}
	struct gt_tail t;
	gt_reader_tail(r, &t);
	printf("complete %d\nkernels %" PRIu64 "\nmemcpys %" PRIu64 "\nbytes %" PRIu64 "\n", t.complete,
	       kernels, memcpys, bytes);
	for (size_t i = 0; i < gt_reader_meta_count(r); i++) {
		const char *k, *v;
		if (gt_reader_meta_at(r, i, &k, &v) == 0)
			printf("meta %s=%s\n", k, v);
	}
	for (size_t i = 0; i < gt_reader_device_count(r); i++) {
		const char *name = "";
		if (gt_reader_device_at(r, i, &name))
			printf("device %s\n", name);
	}
	gt_reader_close(r);
	return 0;
}
