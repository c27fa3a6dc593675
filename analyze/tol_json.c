/* tol_json.c: a tolerance as JSON, shared by shadow's and calibrate's printers (tol_json.h). */
#include "tol_json.h"

void gt_json_tol(struct gt_json *j, const struct gt_ref_tol *t)
{
	gt_json_object_begin(j);
	gt_json_key(j, "abs");
	gt_json_num(j, t->abs);
	gt_json_key(j, "rel");
	gt_json_num(j, t->rel);
	gt_json_key(j, "ulps");
	gt_json_u64(j, t->ulps);
	gt_json_object_end(j);
}
