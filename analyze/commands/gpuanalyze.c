/* gpuanalyze.c: main and the command table of gpuanalyze, the trace analyzer.
 *
 * `gpuanalyze CMD [ARGS]` runs the subcommand CMD; `gpuanalyze --help` lists them, `--version`
 * names the analyzer and the trace format it reads, `gpuanalyze CMD --help` shows a subcommand's
 * usage. Exit status: 0 ok, 1 a check failed (diff, findings, ...), 2 usage or input error.
 */
#include "analyze/commands/commands.h"
#include "analyze/support/diag.h"
#include "gputrace.h"

#include <stdio.h>
#include <string.h>

/* Adding a subcommand FOO (in the manner of git's builtin.h):
 *
 *  1. analyze/commands/cmd_foo.c with `int cmd_foo(int argc, char **argv)`: a struct gt_usage with its
 *     option table (options.h; reuse GT_OPT_FORMAT/KERNEL/WARMUP/OUTPUT for the common options),
 *     gt_options_parse(), traces read with gt_load_*() (load.h), output through output.h, errors
 *     through gt_error() (diag.h), and the printer handed to gt_cmd_print() (cmd_output.h), which
 *     opens -o, reports a printer's error and the write error found at the close, and gives the
 *     exit status. Argument parsing and printing only: the computation goes in an engine file
 *     (analyze/engines/foo.c + foo.h) that never sees argv, so tests can call it.
 *  2. Declare cmd_foo in analyze/commands/commands.h and add its row to the table below (alphabetical order
 *     is not required; the order here is the order of `gpuanalyze --help`).
 *  3. man/gpuanalyze.1: a subsection under COMMANDS with the synopsis line exactly as
 *     `gpuanalyze foo --help` prints it (tests/cli/test_gpuanalyze_help.sh fails otherwise), its
 *     options, and what it measures.
 *  4. Tests: tests/unit/test_analyze_foo.c for the engine (traces built with
 *     tests/unit/helpers/synth_trace.h), tests/cli/test_gpuanalyze_foo.sh for exact output and
 *     exit statuses.
 *
 * The Makefile needs nothing: analyze/module.mk builds every .c file in the subfolders of analyze/.
 */
const struct gt_command gt_commands[] = {
	{ "info", cmd_info, "what a trace holds: metadata, devices, record counts, losses" },
	{ "dump", cmd_dump, "every event, one per row, names resolved (csv, json)" },
	{ "summary", cmd_summary, "per-kernel statistics" },
	{ "split", cmd_split, "per frame or step: end to end vs kernel, copies, API, launch latency, idle" },
	{ "bandwidth", cmd_bandwidth, "copy bandwidth by direction, memory kind and size, against peaks" },
	{ "findings", cmd_findings, "what to fix: sync copies, idle gaps, warm-up, throttling, lost records" },
	{ "shadow", cmd_shadow, "captured launches replayed on CPU references, compared per element" },
	{ "calibrate", cmd_calibrate, "a tolerance from the spread of correct results, tried on planted errors" },
	{ "diff", cmd_diff, "A/B per kernel: both medians, speedup, CI, rank test, verdict; exit 1 if slower" },
	{ "ranks", cmd_ranks, "one trace per process: ranks aligned, per-rank and merged kernels, stragglers, peer copies" },
	{ "report", cmd_report, "the benchmark report: hardware, toolkit, sizes, method, correctness, result" },
	{ "export", cmd_export, "timeline for Perfetto / chrome://tracing (Chrome JSON), or CSV" },
	{ "stats", cmd_stats, "nsys-style reports: cuda_api_sum, nvtx_sum, nvtx_kern_sum, kernels, copies, launches" },
	{ NULL, NULL, NULL },
};

static void usage(FILE *f)
{
	fputs("usage: gpuanalyze [-V | --version] [-h | --help] COMMAND [ARGS]\n\n"
	      "Analyzes gputrace traces (.gtrace) offline.\n\ncommands:\n",
	      f);
	for (const struct gt_command *c = gt_commands; c->name; c++)
		fprintf(f, "  %-12s %s\n", c->name, c->help);
	fputs("\n'gpuanalyze COMMAND --help' shows a command's options; gpuanalyze(1) defines every "
	      "statistic.\nExit status: 0 ok, 1 a check failed, 2 usage or input error.\n",
	      f);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return GT_EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		if (strcmp(cmd, "help") == 0 && argc > 2) {
			/* `gpuanalyze help CMD` is `gpuanalyze CMD --help`. */
			for (const struct gt_command *c = gt_commands; c->name; c++) {
				if (strcmp(c->name, argv[2]) == 0) {
					char *av[] = { argv[2], "--help", NULL };
					return c->fn(2, av);
				}
			}
			return gt_error("unknown command '%s' (see 'gpuanalyze --help')", argv[2]);
		}
		usage(stdout);
		return fflush(stdout) == 0 ? GT_EXIT_OK : GT_EXIT_USAGE;
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
		printf("gpuanalyze %s (trace format %d.%d)\n", GT_VERSION, GT_FORMAT_MAJOR, GT_FORMAT_MINOR);
		return fflush(stdout) == 0 ? GT_EXIT_OK : GT_EXIT_USAGE;
	}
	for (const struct gt_command *c = gt_commands; c->name; c++)
		if (strcmp(c->name, cmd) == 0)
			return c->fn(argc - 1, argv + 1);
	if (cmd[0] == '-')
		return gt_error("unknown option '%s' (see 'gpuanalyze --help')", cmd);
	return gt_error("unknown command '%s' (see 'gpuanalyze --help')", cmd);
}
