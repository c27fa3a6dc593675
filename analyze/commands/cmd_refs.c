/* cmd_refs.c: loading the reference library of --ref for shadow and calibrate (see cmd_refs.h). */
#include "analyze/commands/cmd_refs.h"

#include "analyze/support/diag.h"

int gt_cmd_refs_load(struct gt_refs **refs, const char *path)
{
	char err[512];
	if (gt_refs_load(refs, path, err, sizeof err) != 0)
		return gt_error("cannot load reference library '%s': %s", path, err);
	return 0;
}
