/* cmd_output.c: a subcommand's output from open to close (see cmd_output.h for why it is here).
 *
 * The order is the one the subcommands always had: the printer's failure is reported before the
 * output is closed, so a message about a short output comes after the message that explains it.
 */
#include "cmd_output.h"

#include "diag.h"
#include "gputrace.h"

int gt_cmd_print(const char *command, const char *out_path, gt_cmd_printer print, void *ctx)
{
	FILE *out = gt_output_open(out_path);
	if (!out)
		return GT_EXIT_USAGE;
	struct gt_json j;
	gt_json_init(&j, out);
	int rc = print(out, &j, ctx);
	if (rc < 0)
		rc = gt_error("%s: cannot print: %s", command, gt_strerror(rc));
	int crc = gt_output_close(out, out_path);
	return rc ? rc : crc;
}
