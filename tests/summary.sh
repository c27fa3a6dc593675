#!/bin/sh
# Adds up the totals of the check passes (tests/run_tests.sh logs) into one closing line.
passed=0 failed=0 skipped=0
for log in "$@"; do
	[ -f "$log" ] || continue
	set -- $(grep '^TOTAL ' "$log" | tail -n 1)
	passed=$((passed + ${2:-0})) failed=$((failed + ${3:-0})) skipped=$((skipped + ${4:-0}))
done
echo "check: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
