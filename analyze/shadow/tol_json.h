/* tol_json.h: the JSON that shadow's and calibrate's printers write alike: a tolerance (absolute,
 * relative, ULPs) as one object, {"abs":..,"rel":..,"ulps":..}, the one form in which both print a
 * declared or proposed tolerance; and the head of their documents. */
#ifndef GT_TOL_JSON_H
#define GT_TOL_JSON_H

#include "analyze/shadow/gputrace_ref.h"
#include "analyze/output/output.h"

#include <stdio.h>

void gt_json_tol(struct gt_json *j, const struct gt_ref_tol *t);

/* Starts j on out (objects inline from depth 5: a launch's outputs stay one line each), opens the
 * document and writes "command", "trace" (its path), "synthetic" and "recorded_on" (NULL: null). */
void gt_json_ref_head(struct gt_json *j, FILE *out, const char *command, const char *trace,
                      const char *synthetic, const char *recorded_on);

#endif
