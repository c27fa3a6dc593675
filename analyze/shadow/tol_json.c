/* tol_json.c: the JSON shared by shadow's and calibrate's printers (tol_json.h). */
#include "analyze/shadow/tol_json.h"

#include "analyze/output/json_member.h"

void gt_json_tol(struct gt_json *j, const struct gt_ref_tol *t)
{
	gt_json_object_begin(j);
	gt_json_key_num(j, "abs", t->abs);
	gt_json_key_num(j, "rel", t->rel);
	gt_json_key_u64(j, "ulps", t->ulps);
	gt_json_object_end(j);
}

void gt_json_ref_head(struct gt_json *j, FILE *out, const char *command, const char *trace,
                      const char *synthetic, const char *recorded_on)
{
	gt_json_init(j, out);
	j->inline_depth = 5;
	gt_json_object_begin(j);
	gt_json_key_str(j, "command", command);
	gt_json_key_str(j, "trace", trace);
	gt_json_key_str(j, "synthetic", synthetic);
	gt_json_key_str(j, "recorded_on", recorded_on);
}
