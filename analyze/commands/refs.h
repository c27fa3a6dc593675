/* refs.h: what shadow and calibrate, the two commands that run references, share: the
 * reference library that --ref names, loaded the one way (the same error message for the same
 * failure), and the facts both documents state alike (their head, a tolerance).
 *
 * Why a file of its own and not cmd_output.c: every subcommand links cmd_output.o, and loading a
 * library pulls in the shadow replay and dlopen; only the two commands that run references should.
 */
#ifndef GT_REFS_H
#define GT_REFS_H

#include "analyze/output/doc.h"
#include "analyze/shadow/gputrace_ref.h"
#include "analyze/shadow/shadow.h"

/* Loads the reference library at path (gt_refs_load) into *refs. 0, or GT_EXIT_USAGE after
 * reporting "cannot load reference library 'PATH': WHY". *refs is the caller's to free either way
 * (gt_refs_free takes NULL). */
int gt_cmd_refs_load(struct gt_refs **refs, const char *path);

/* Opens the document's JSON object (objects inline from depth 5: a launch's outputs stay one
 * line each) and states "command", "trace" (its path), "synthetic" and "recorded_on" (NULL:
 * null). Nothing outside JSON. */
void gt_cmd_ref_head(struct gt_doc *d, const char *command, const char *trace, const char *synthetic,
                     const char *recorded_on);
/* A tolerance as the member key: {"abs":..,"rel":..,"ulps":..}, the one form in which both
 * state a declared or a proposed tolerance. */
void gt_cmd_ref_tol(struct gt_doc *d, const char *key, const struct gt_ref_tol *tol);

#endif
