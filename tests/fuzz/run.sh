#!/bin/sh
# tests/fuzz/run.sh [SECONDS] [TARGET...]: fuzzes every target (or those named) for SECONDS each
# (default 60). Kept for the habit of typing it: everything, builds, seeds and the table, is
# run_all.sh's (its --help says more), so that the two cannot drift apart.
secs=60
case ${1:-} in
'' | *[!0-9]*) ;;
*) secs=$1; shift ;;
esac
exec sh "$(dirname "$0")/run_all.sh" --time "$secs" "$@"
