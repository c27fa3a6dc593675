/* findings_rules_records.c: the records family: records the trace lacks (lost, or after an early
 * end or a stop), records left out on purpose, and other CUPTI clients that got in the recorder's
 * way. A loss is an error because every number of the trace may be off by what went missing.
 */
#include "analyze/engines/findings_rules.h"
#include "analyze/engines/findings_text.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* DROPPED records of the lossy reasons, summed, and activity buffers CUPTI was refused. */
int gt_fd_records_lost(struct findings_pass *p, const struct gt_reader *r, const struct findings_rule *rule)
{
	struct gt_findings *F = p->F;
	char t[64];
	uint64_t lost = 0, lost_records = 0, unknown = 0, first = 0;
	char parts[512] = "";
	size_t n = 0;
	static const int lossy[] = { GT_DROP_CUPTI, GT_DROP_BUFFER_LOST, GT_DROP_BAD_RECORD,
		                     GT_DROP_UNKNOWN_KIND, 0 };
	for (size_t i = 0; i < sizeof lossy / sizeof lossy[0]; i++) {
		const struct dropacc *a = &p->drop[lossy[i]];
		if (!a->records)
			continue;
		lost += a->count;
		lost_records += a->records;
		unknown += a->zero_count;
		if (a->first && (!first || a->first < first))
			first = a->first;
		n += (size_t)snprintf(parts + n, sizeof parts - n, "%s%llu %s%s", n ? ", " : "",
		                      (unsigned long long)a->count,
		                      lossy[i] ? gt_drop_reason_name(lossy[i]) : "for reasons this analyzer does not know",
		                      a->zero_count ? " (and an unknown number more)" : "");
	}
	const char *buffers_refused = gt_reader_meta(r, "tracing.buffers_refused");
	int refused = buffers_refused && strcmp(buffers_refused, "0") != 0;
	if (lost_records || refused) {
		if (refused)
			n += (size_t)snprintf(parts + n, sizeof parts - n, "%sactivity buffers refused: %s",
			                      n ? "; " : "", buffers_refused);
		if (gt_fd_add(F, rule, GT_SEV_ERROR,
		              gt_fd_fmt("records were lost while recording: %s", parts),
		              gt_fd_fmt("first noticed %s", gt_fd_at(first, F->origin, t, sizeof t)), NAN,
		              gt_fd_fmt("unknown: what the lost records would have timed is not in the trace"),
		              gt_fd_fmt("Record again with larger or more activity buffers (GPUTRACE_BUFFER_KB, "
		                        "GPUTRACE_BUFFERS_MAX) or fewer activity kinds (GPUTRACE_ACTIVITIES); until "
		                        "then, treat totals and gaps in this trace as lower bounds")))
			return GT_ERR_NOMEM;
		gt_fd_set_where(gt_fd_last(F), first, F->origin, -1);
		gt_fd_last(F)->count = lost + unknown;
	}
	return 0;
}

/* Kernel records the recording's kernel filter left out: a choice, so info. */
int gt_fd_records_filtered(struct findings_pass *p, const struct gt_reader *r, const struct findings_rule *rule)
{
	struct gt_findings *F = p->F;
	const struct dropacc *fl = &p->drop[GT_DROP_FILTERED];
	if (fl->records) {
		if (gt_fd_add(F, rule, GT_SEV_INFO,
		              gt_fd_fmt("%llu kernel records were left out on purpose by the recording's kernel filter "
		                        "(GPUTRACE_KERNELS = '%s')",
		                        (unsigned long long)fl->count,
		                        gt_reader_meta(r, "trace.kernel_filter") ? gt_reader_meta(r, "trace.kernel_filter") : "?"),
		              gt_fd_fmt("the whole trace"), NAN, gt_fd_fmt("not a cost: a choice made when recording"),
		              gt_fd_fmt("Nothing to fix; remember that GPU busy time and gaps here miss the filtered "
		                        "kernels")))
			return GT_ERR_NOMEM;
		gt_fd_last(F)->count = fl->count;
	}
	return 0;
}

/* Shadow captures skipped at the caps: fewer launches to replay, no timing cost. */
int gt_fd_captures_skipped(struct findings_pass *p, const struct gt_reader *r, const struct findings_rule *rule)
{
	(void)r;
	struct gt_findings *F = p->F;
	char t[64];
	const struct dropacc *cap = &p->drop[GT_DROP_CAPTURE];
	if (cap->records) {
		if (gt_fd_add(F, rule, GT_SEV_INFO,
		              gt_fd_fmt("%llu shadow captures were skipped (caps reached, or memory that could not be "
		                        "copied)",
		                        (unsigned long long)cap->count),
		              gt_fd_fmt("first noticed %s", gt_fd_at(cap->first, F->origin, t, sizeof t)), NAN,
		              gt_fd_fmt("not a timing cost: fewer launches can be replayed"),
		              gt_fd_fmt("Raise GPUTRACE_SHADOW_MAX or GPUTRACE_SHADOW_BYTES if those launches matter")))
			return GT_ERR_NOMEM;
		gt_fd_last(F)->count = cap->count;
	}
	return 0;
}

/* A trace without its END record: the recorder did not close it. */
int gt_fd_trace_incomplete(struct findings_pass *p, const struct gt_reader *r, const struct findings_rule *rule)
{
	(void)r;
	struct gt_findings *F = p->F;
	if (!F->complete) {
		if (gt_fd_add(F, rule, GT_SEV_ERROR,
		              gt_fd_fmt("the trace ends early: %llu bytes of an incomplete last chunk are lost and there is "
		                        "no END record; the recording process did not close the trace (killed, crashed, "
		                        "or its writes failed, as on a full disk)",
		                        (unsigned long long)F->lost_bytes),
		              gt_fd_fmt("the end of the trace"), NAN,
		              /* Not "one flush interval": after a write failure the recorder stops and every
		               * later record is lost, however long the program went on; the trace cannot say. */
		              gt_fd_fmt("unknown: every record after the last complete chunk is lost, an unknown number "
		                        "(the program may have run on long after)"),
		              gt_fd_fmt("Let the program exit normally (or end it with SIGINT/SIGTERM, which the recorder "
		                        "handles) with room on the disk, then record again")))
			return GT_ERR_NOMEM;
	}
	return 0;
}

/* The recorder stopped tracing (META tracing.off, or a tracing-off PROCESS record). */
int gt_fd_tracing_off(struct findings_pass *p, const struct gt_reader *r, const struct findings_rule *rule)
{
	struct gt_findings *F = p->F;
	char t[64];
	const char *off = gt_reader_meta(r, "tracing.off");
	if (off || p->tracing_off) {
		if (gt_fd_add(F, rule, GT_SEV_ERROR,
		              gt_fd_fmt("the recorder stopped tracing before the program ended: %s",
		                        off ? off : "(no reason recorded)"),
		              gt_fd_fmt("%s", p->tracing_off ? gt_fd_at(p->tracing_off_ts, F->origin, t, sizeof t)
		                        : "the end of the trace"),
		              NAN, gt_fd_fmt("unknown: nothing after that point was recorded"),
		              gt_fd_fmt("Fix the cause named above and record again")))
			return GT_ERR_NOMEM;
		gt_fd_set_where(gt_fd_last(F), p->tracing_off_ts, F->origin, -1);
	}
	return 0;
}

/* The META keys the recorder writes when another CUPTI client got in its way: each is a finding on
 * the whole trace that quotes the key's value inside its what. */
struct client_rule {
	const char *key;
	int sev;
	const char *what, *what_after, *how, *todo;
};

static int client_rule(struct gt_findings *F, const struct gt_reader *r, const struct findings_rule *rule,
                       const struct client_rule *c)
{
	const char *v = gt_reader_meta(r, c->key);
	if (v && gt_fd_add(F, rule, c->sev, gt_fd_fmt("%s%s%s", c->what, v, c->what_after), gt_fd_fmt("the whole trace"),
	                   NAN, gt_fd_fmt("%s", c->how), gt_fd_fmt("%s", c->todo)))
		return GT_ERR_NOMEM;
	return 0;
}

int gt_fd_tracing_collision(struct findings_pass *p, const struct gt_reader *r, const struct findings_rule *rule)
{
	static const struct client_rule c = {
		"tracing.collision", GT_SEV_ERROR,
		"another CUPTI client registered activity buffers while gputrace recorded, so CUPTI handed buffers "
		"to the wrong client: ",
		"", "unknown: records went to the other client",
		"Record without other profilers in the process (torch.profiler, nsys, Nsight Compute)"
	};
	return client_rule(p->F, r, rule, &c);
}

int gt_fd_other_clients_refused(struct findings_pass *p, const struct gt_reader *r, const struct findings_rule *rule)
{
	static const struct client_rule c = {
		"tracing.other_clients_refused", GT_SEV_WARNING,
		"the program tried to start another CUPTI client (its own profiler), which was refused: ",
		"; this trace is whole, that profiler's output is not", "not a cost in this trace",
		"Profile with one tool at a time; disable the program's own profiler while recording"
	};
	return client_rule(p->F, r, rule, &c);
}
