#!/bin/sh
# gpuanalyze on hostile input, part two of two (tests/cli/badinput_sweep.sh says what is checked and
# what the slow tier adds): diff, ranks and report with each input beside a valid trace (in the full
# sweep also on both sides and beside itself), and the stats reports.
BADINPUT_PART=pairs
. tests/cli/badinput_sweep.sh
