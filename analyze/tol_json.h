/* tol_json.h: a tolerance (absolute, relative, ULPs) as one JSON object, {"abs":..,"rel":..,"ulps":..},
 * the one form in which both shadow and calibrate print a declared or proposed tolerance. */
#ifndef GT_TOL_JSON_H
#define GT_TOL_JSON_H

#include "gputrace_ref.h"
#include "output.h"

void gt_json_tol(struct gt_json *j, const struct gt_ref_tol *t);

#endif
