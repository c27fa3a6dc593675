/* load.c: the one place that turns reader failures into the analyzer's messages (held for the
 * command to say, failure.h) and error codes. */
#include "analyze/support/load.h"

#include "analyze/support/failure.h"
#include "analyze/support/progress.h"

#include <string.h>
#include <strings.h>

const char *gt_load_reason(const char *msg, const char *path)
{
	size_t n = strlen(path);
	if (strncmp(msg, path, n) == 0 && msg[n] == ':' && msg[n + 1] == ' ')
		return msg + n + 2;
	return msg;
}

int gt_load_open(struct gt_reader **r, const char *path)
{
	char err[512];
	int rc = gt_reader_open(r, path, err, sizeof err);
	if (rc != 0)
		return gt_fail(rc, "cannot open trace '%s': %s", path,
		               err[0] ? gt_load_reason(err, path) : gt_strerror(rc));
	return 0;
}

static int stream(struct gt_reader *r, gt_record_fn fn, void *ctx, int warn)
{
	const char *path = gt_reader_path(r);
	struct gt_event ev;
	int rc;
	while ((rc = gt_reader_next(r, &ev)) > 0) {
		gt_progress_tick(r);
		int stop = fn ? fn(ctx, r, &ev) : 0;
		if (stop)
			return gt_fail(stop, "cannot read trace '%s': %s", path, gt_strerror(stop));
	}
	if (rc < 0) {
		const char *msg = gt_reader_error(r);
		return gt_fail(rc, "cannot read trace '%s': %s", path,
		               msg[0] ? gt_load_reason(msg, path) : gt_strerror(rc));
	}
	struct gt_tail t;
	gt_reader_tail(r, &t);
	if (warn && !t.complete) {
		if (t.lost_bytes)
			gt_fail_warn("%s ends early: %llu bytes of an incomplete chunk lost; the recording "
			             "process did not close the trace",
			             path, (unsigned long long)t.lost_bytes);
		else
			gt_fail_warn("%s ends early: no END record after its last complete chunk; the "
			             "recording process did not close the trace",
			             path);
	}
	return 0;
}

int gt_load_stream(struct gt_reader *r, gt_record_fn fn, void *ctx) { return stream(r, fn, ctx, 1); }

int gt_load_stream_nowarn(struct gt_reader *r, gt_record_fn fn, void *ctx) { return stream(r, fn, ctx, 0); }

int gt_load_trace(const char *path, gt_record_fn fn, void *ctx)
{
	struct gt_reader *r;
	int rc = gt_load_open(&r, path);
	if (rc)
		return rc;
	rc = gt_load_stream(r, fn, ctx);
	gt_reader_close(r);
	return rc;
}

int gt_load_pass(const char *path, gt_record_fn fn, gt_finish_fn finish, void *ctx)
{
	struct gt_reader *r;
	int rc = gt_load_open(&r, path);
	if (rc)
		return rc;
	rc = gt_load_stream(r, fn, ctx);
	if (!rc)
		rc = finish(ctx, r);
	gt_reader_close(r);
	return rc;
}

const char *gt_load_synthetic(const struct gt_reader *r)
{
	const char *v = gt_reader_meta(r, "trace.synthetic");
	if (!v || !*v || strcmp(v, "0") == 0 || strcasecmp(v, "false") == 0 || strcasecmp(v, "no") == 0)
		return NULL;
	return v;
}
