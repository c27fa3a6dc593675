#!/bin/bash
# Does it cost more to switch CUPTI's kinds on before the program's first CUDA call (as gputrace
# does) than after CUDA is up (as a window does)? Alternates, 3 rounds: a bare process,
# one with tests/bench/cupti_price.c enabling the defaults' non-API kinds at load
# (CUPTI_PRICE_START), and one enabling the same kinds after PyTorch and CuPy have initialised.
# Measured on the H200 (2026-12-02): no difference beyond the noise (Transformer step at start
# 5.86 / 5.27 / 6.29 ms, later 5.78 / 5.46 / 5.54 ms, bare 4.82 / 4.64 / 4.92 ms).
#   bash tests/bench/probe_start_vs_later.sh       (repository root, GPU machine; after make)
set -u
P=tests/bench/price_kinds.py
L=build/tests/bench/libcuptiprice.so
[ -f "$L" ] || { echo "probe_start_vs_later: $L missing (make)"; exit 77; }
command -v nvidia-smi >/dev/null 2>&1 || { echo "probe_start_vs_later: skipped: no GPU (nvidia-smi not found)"; exit 77; }
A="--rounds 4 --steps 20 --ops 4000"
NA=kernel,memcpy,memset,sync,nvtx,memory,overhead
for r in 1 2 3; do
	python3 $P $A 2>&1 | grep "^price" | sed "s/^/r$r bare /"
	CUPTI_PRICE_START=$NA LD_PRELOAD=$L python3 $P $A --configs no-api 2>&1 | grep "^price" | sed "s/^/r$r at-start /"
	LD_PRELOAD=$L python3 $P $A --configs no-api 2>&1 | grep "^price" | sed "s/^/r$r later /"
done | sed 's/ unit=[^ ]*//; s/ratio.*//'
