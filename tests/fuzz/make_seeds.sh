#!/bin/sh
# Regenerates the seed corpora in tests/fuzz/corpus/ from gt_synth traces:
#   tests/fuzz/make_seeds.sh [BUILD]     (BUILD defaults to build; needs BUILD/tools/gt_synth, gt_chunks)
# reader/: small whole traces (one chunk, many small chunks, every record type, cut mid-chunk,
# never closed) and the small real H200 recordings of traces/samples/; chunks/: the same traces
# decompressed into fuzz_chunks' input form (those up to 64 KiB).
set -eu
cd "$(dirname "$0")/../.."
b=${1:-build}
make --no-print-directory -s -f Makefile -f tests/tools/module.mk BUILD="$b" "$b/tools/gt_synth" \
	"$b/tools/gt_chunks"
r=tests/fuzz/corpus/reader
c=tests/fuzz/corpus/chunks
rm -rf "$r" "$c"
mkdir -p "$r" "$c"
synth=$b/tools/gt_synth
$synth -o $r/renderer_small.gtrace -n 12 --seed 1
$synth -o $r/renderer_all_types.gtrace -n 9 --seed 2 --all-types
$synth -o $r/renderer_chunks.gtrace -n 30 --seed 3 --chunk-bytes 2048
$synth -o $r/steady.gtrace -n 40 --seed 4 --shape steady
$synth -o $r/steady_chunks.gtrace -n 60 --seed 5 --shape steady --chunk-bytes 1024
$synth -o $r/truncated.gtrace -n 30 --seed 6 --chunk-bytes 2048 --truncate
$synth -o $r/no_end.gtrace -n 6 --seed 7 --no-end
# Real recordings from the H200 (traces/samples/), the small ones: what the recorder really writes.
for f in traces/samples/h200-*.gtrace; do
	[ -f "$f" ] && [ "$(wc -c < "$f")" -le 40000 ] && cp "$f" "$r/"
done
for f in $r/*.gtrace; do
	n=$(basename "$f" .gtrace)
	$b/tools/gt_chunks --raw "$c/$n.raw" "$f" > /dev/null || true
	# Keep the chunk-level seeds small: libFuzzer's input size limit follows the largest seed.
	[ "$(wc -c < "$c/$n.raw")" -le 65536 ] || rm -f "$c/$n.raw"
done
ls -l $r $c
