/* cmd_refs.h: the reference library that --ref names, loaded the one way that shadow and
 * calibrate both need (the same error message for the same failure).
 *
 * Why a file of its own and not cmd_output.c: every subcommand links cmd_output.o, and loading a
 * library pulls in the shadow replay and dlopen; only the two commands that run references should.
 */
#ifndef GT_CMD_REFS_H
#define GT_CMD_REFS_H

#include "analyze/shadow/shadow.h"

/* Loads the reference library at path (gt_refs_load) into *refs. 0, or GT_EXIT_USAGE after
 * reporting "cannot load reference library 'PATH': WHY". *refs is the caller's to free either way
 * (gt_refs_free takes NULL). */
int gt_cmd_refs_load(struct gt_refs **refs, const char *path);

#endif
