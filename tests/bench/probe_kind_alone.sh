#!/bin/bash
# Which kind, switched on from the start and never switched, costs a process more than kernel and
# memcpy records do? In-process switching (price_kinds.py) cannot see a cost that stays
# once a kind was on, so here each process keeps one set from load (CUPTI_PRICE_START, no switch):
# kernel,memcpy alone, and kernel,memcpy with one more kind, alternated in rounds.
#   bash tests/bench/probe_kind_alone.sh [ROUNDS]     (repository root, GPU machine; after make)
set -u
P=tests/bench/price_kinds.py
L=build/tests/bench/libcuptiprice.so
[ -f "$L" ] || { echo "probe_kind_alone: $L missing (make)"; exit 77; }
command -v nvidia-smi >/dev/null 2>&1 || { echo "probe_kind_alone: skipped: no GPU (nvidia-smi not found)"; exit 77; }
A="--rounds 2 --steps 20 --ops 4000"
for r in $(seq 1 "${1:-2}"); do
	for k in k+m +sync +memory +nvtx +overhead +memset; do
		case $k in k+m) set=kernel,memcpy ;; *) set=kernel,memcpy,${k#+} ;; esac
		CUPTI_PRICE_START=$set LD_PRELOAD=$L python3 $P $A --configs "$k" 2>&1 | grep "^price" |
			sed "s/^/r$r $k /; s/ unit=[^ ]*//; s/ratio.*//"
	done
done
