/* refs.c: loading the reference library of --ref for shadow and calibrate, and the facts
 * their documents share (see refs.h). */
#include "analyze/commands/refs.h"

#include "analyze/support/diag.h"

int gt_cmd_refs_load(struct gt_refs **refs, const char *path)
{
	char err[512];
	if (gt_refs_load(refs, path, err, sizeof err) != 0)
		return gt_error("cannot load reference library '%s': %s", path, err);
	return 0;
}

void gt_cmd_ref_head(struct gt_doc *d, const char *command, const char *trace, const char *synthetic,
                     const char *recorded_on)
{
	gt_doc_set_inline_depth(d, 5);
	gt_doc_object(d, NULL);
	gt_doc_str(d, "command", command);
	gt_doc_str(d, "trace", trace);
	gt_doc_str(d, "synthetic", synthetic);
	gt_doc_str(d, "recorded_on", recorded_on);
}

void gt_cmd_ref_tol(struct gt_doc *d, const char *key, const struct gt_ref_tol *tol)
{
	gt_doc_object(d, key);
	gt_doc_num(d, "abs", tol->abs);
	gt_doc_num(d, "rel", tol->rel);
	gt_doc_u64(d, "ulps", tol->ulps);
	gt_doc_end(d);
}
