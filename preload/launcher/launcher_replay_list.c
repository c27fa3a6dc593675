/* launcher_replay_list.c: `gputrace replay --list TRACE`: the captures a trace holds, one a line,
 * so a user can pick --capture ID or --extract ID. Reads only the capture records (no buffers). */
#include "preload/launcher/launcher_replay.h"

#include "traces/capture_set.h"
#include "common/text_escape.h"

#include <inttypes.h>
#include <string.h>

struct listing {
	FILE *out;
	int header_done;
};

static int list_one(void *ctx, const struct gt_capture *c, const char *mangled)
{
	struct listing *li = ctx;
	FILE *out = li->out;
	/* The header comes with the first capture, so that an unreadable trace prints only its error. */
	if (!li->header_done++)
		fprintf(out, "%6s  %6s  %-11s  %-11s  %6s  %-10s %s\n", "id", "launch", "grid", "block", "params",
		        "memory", "kernel (mangled)");
	/* The name is the traced program's: the row goes through the terminal text rule, as
	 * gpuanalyze's tables do. */
	gt_esc_line(out, "%6" PRIu64 "  %6u  %5ux%ux%u  %5ux%ux%u  %6u  %-10s %s", c->capture_id, c->launch_index,
	            c->grid[0], c->grid[1], c->grid[2], c->block[0], c->block[1], c->block[2], c->nparams,
	            (c->flags & GT_CAPTURE_INCOMPLETE) ? "incomplete" : "complete", mangled);
	return 0;
}

int launcher_replay_list(const char *trace, FILE *out)
{
	struct gt_capture_set set;
	char err[512];
	struct listing li = { .out = out };
	if (gt_capture_set_load(&set, trace, list_one, &li, err, sizeof err) != 0) {
		gt_esc_line(stderr, "gputrace: replay: cannot read trace '%s': %s", trace, err);
		return 2;
	}
	fprintf(out, "%" PRIu64 " captured launches%s", set.seen, set.seen ? "" : " (record with --shadow PATTERN)");
	if (set.dropped)
		fprintf(out, "; %" PRIu64 " more were not captured (caps reached)", set.dropped);
	fputc('\n', out);
	gt_capture_set_release(&set);
	return 0;
}
