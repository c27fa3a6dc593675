/* stats_doc.c: what every stats report writes of its trace (stats_doc.h). */
#include "analyze/commands/stats_doc.h"

#include "analyze/commands/cmd_output.h"
#include "analyze/commands/commands.h"

static const char *pl(uint64_t n, const char *one, const char *many) { return n == 1 ? one : many; }

const char *gt_stats_doc_plural(uint64_t n, const char *one, const char *many) { return pl(n, one, many); }

void gt_stats_doc_facts(struct gt_doc *d, const char *name, const char *measured, const struct gt_stats_trace *t)
{
	gt_doc_object(d, NULL);
	gt_doc_str(d, "command", "stats");
	gt_doc_str(d, "report", name);
	gt_doc_str(d, "version", GT_VERSION);
	gt_cmd_doc_trace(d, t->path, t->complete, t->lost_bytes, t->synthetic != NULL);
	gt_doc_u64(d, "records", t->records);
	gt_doc_end(d);
	gt_doc_str(d, "measured", measured);
}

void gt_stats_doc_excluded(struct gt_doc *d, const struct gt_stats_trace *t)
{
	gt_doc_object(d, "excluded");
	gt_doc_u64(d, "bad_times", t->bad_times);
	gt_doc_u64(d, "tool_copies", t->tool_copies);
	gt_doc_u64(d, "nvtx_marks", t->marks);
	gt_doc_u64(d, "nvtx_unclosed", t->unclosed);
	gt_doc_u64(d, "kernels_without_call", t->no_call);
}

void gt_stats_doc_notes(struct gt_doc *d, const char *name, const char *measured, const struct gt_stats_trace *t)
{
	gt_doc_title(d, "gpuanalyze stats %s", name);
	gt_doc_note(d, "trace: %s (%llu records of the kinds this report reads)", t->path,
	            (unsigned long long)t->records);
	gt_cmd_doc_synthetic(d, t->path, t->synthetic);
	gt_cmd_doc_incomplete(d, t->path, t->complete, t->lost_bytes);
	gt_doc_note(d, "%s: %s", name, measured);
	if (t->bad_times)
		gt_doc_note(d, "excluded: %llu %s with bad timestamps (end < start, or flagged so)",
		            (unsigned long long)t->bad_times, pl(t->bad_times, "record", "records"));
	if (t->tool_copies)
		gt_doc_note(d, "excluded: %llu %s made by gputrace's shadow capture, not by the program",
		            (unsigned long long)t->tool_copies, pl(t->tool_copies, "copy", "copies"));
	if (t->marks || t->unclosed)
		gt_doc_note(d, "excluded: %llu NVTX %s (instants), %llu %s never closed",
		            (unsigned long long)t->marks, pl(t->marks, "mark", "marks"),
		            (unsigned long long)t->unclosed, pl(t->unclosed, "range", "ranges"));
}
