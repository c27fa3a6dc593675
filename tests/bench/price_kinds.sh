#!/bin/bash
# The price of each CUPTI activity kind alone, measured inside one process: runs
# tests/bench/price_kinds.py with tests/bench/cupti_price.c preloaded, between two bare processes that
# time the same workloads with no tool (CUPTI attached with nothing enabled vs not attached).
#   bash tests/bench/price_kinds.sh [ROUNDS]      (repository root, GPU machine; after make)
set -u
B=$(pwd)/build
rounds=${1:-12}
out=${OUT:-/tmp/gt-out}
mkdir -p "$out"
P=tests/bench/price_kinds.py
[ -f "$B/tests/bench/libcuptiprice.so" ] || { echo "price_kinds: build/tests/bench/libcuptiprice.so missing (make)"; exit 77; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader || { echo "price_kinds: no GPU"; exit 77; }
python3 "$P" --rounds 3 ${PRICE_ARGS:-} 2>&1 | sed 's/^/bare1 /'
LD_PRELOAD=$B/tests/bench/libcuptiprice.so python3 "$P" --rounds "$rounds" ${PRICE_ARGS:-} 2>&1 | tee "$out/price_kinds.txt"
python3 "$P" --rounds 3 ${PRICE_ARGS:-} 2>&1 | sed 's/^/bare2 /'
