#!/bin/sh
# gpuanalyze on hostile input, part one of two (tests/cli/badinput_sweep.sh says what is checked and
# what the slow tier adds): the subcommands that read one trace (info, dump, summary, split, bandwidth, findings, shadow,
# calibrate, export and any other the analyzer lists but diff, ranks, report and stats).
BADINPUT_PART=single
. tests/cli/badinput_sweep.sh
