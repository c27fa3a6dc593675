#!/bin/sh
# Two GPUs of one host (the nvidia-h200-x2 machine); skipped (77) unless `nvidia-smi -L` lists two.
#  1. kernels/p2p_copy under gputrace: the trace's peer copies, per direction, equal the program's
#     tally_peer line exactly (copies and bytes), every one of copy kind PtoP with both devices; the
#     other counts equal its tally line; `gpuanalyze ranks` shows them per device pair (link peak
#     unknown until the recorder records NVLink; see gpuanalyze(1), NVLink metadata);
#  2. a PyTorch DistributedDataParallel step over NCCL, one process per GPU (tests/gpu/ddp_step.py
#     starts them as torchrun does), rank 1 given extra work, recorded through %r: one trace per rank,
#     ranks from RANK, each on its own GPU, clocks aligned, NCCL kernels on both, steps (NVTX "step")
#     matched, and rank 1 the one the others waited for in the all-reduce.
# NVLink multicast stays off (the machine's notes): NCCL_NVLS_ENABLE=0,
# TORCH_SYMM_MEM_DISABLE_MULTICAST=1, NVSHMEM_DISABLE_NVLS=1.
. "$(dirname "$0")/lib.sh"
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
[ "$ngpu" -ge 2 ] || skip "needs 2 GPUs: nvidia-smi -L lists $ngpu"
[ -x "$B/kernels/p2p_copy" ] || skip "no $B/kernels/p2p_copy (built with the CUDA programs)"
command -v python3 >/dev/null 2>&1 || skip "no python3 for the checks"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
unset OMPI_COMM_WORLD_RANK PMI_RANK PMIX_RANK MV2_COMM_WORLD_RANK SLURM_PROCID RANK
nvidia-smi topo -m 2>&1 | head -n 8
rm -f "$KEEP"/p2p_copy.gtrace "$KEEP"/ddp-*.gtrace

# ---- 1. peer-to-peer copies ----
"$B/gputrace" record -q -o "$KEEP/p2p_copy.gtrace" -- "$B/kernels/p2p_copy" --reps 5 \
	> "$KEEP/p2p_copy.out" 2> p2p.err || { echo "  FAIL p2p_copy failed"; cat p2p.err; exit 1; }
grep -E '^(peer_access|bw|verify)' "$KEEP/p2p_copy.out" | sed 's/^/    /'
"$GA" dump "$KEEP/p2p_copy.gtrace" --type kernel,memcpy,memset --format csv > p2p.csv
check "p2p_copy counts" python3 "$REPO/tests/gpu/check_counts.py" "$KEEP/p2p_copy.out" p2p.csv
check "p2p_copy peer copies, exactly" python3 - "$KEEP/p2p_copy.out" p2p.csv <<'EOF'
import csv, sys
tally = None
for line in open(sys.argv[1]):
    if line.startswith("tally_peer "):
        tally = dict(kv.split("=") for kv in line.split()[1:])
if tally is None:
    print("  no tally_peer line")
    sys.exit(1)
got = {"0to1": [0, 0], "1to0": [0, 0]}
kinds = {}
for row in csv.DictReader(open(sys.argv[2], newline="")):
    if row["type"] != "memcpy" or row["device_id"] == row["dst_device_id"]:
        continue
    key = f"{row['device_id']}to{row['dst_device_id']}"
    kinds[row["copy_kind"]] = kinds.get(row["copy_kind"], 0) + 1
    if key in got:
        got[key][0] += 1
        got[key][1] += int(row["bytes"])
bad = 0
for key, (n, b) in got.items():
    wn, wb = int(tally["copies_" + key]), int(tally["bytes_" + key])
    ok = (n, b) == (wn, wb)
    bad += not ok
    print(f"  {key}: program {wn} copies {wb} bytes, trace {n} copies {b} bytes  {'ok' if ok else 'DIFFERENT'}")
print(f"  copy kinds of the copies between devices: {kinds}")
if set(kinds) != {"PtoP"}:
    print("  DIFFERENT: every copy between two devices should be of kind PtoP")
    bad += 1
sys.exit(1 if bad else 0)
EOF
"$GA" ranks "$KEEP/p2p_copy.gtrace" > "$KEEP/p2p_copy-ranks.txt" 2>&1
sed -n '/^peer copies/,$p' "$KEEP/p2p_copy-ranks.txt"
"$GA" ranks --format json "$KEEP/p2p_copy.gtrace" > p2p.json 2> p2p_ranks.err ||
	{ echo "  FAIL gpuanalyze ranks: $(cat p2p_ranks.err)"; exit 1; }
check "ranks: one group per direction, with the devices" python3 - p2p.json "$KEEP/p2p_copy.out" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
tally = {}
for line in open(sys.argv[2]):
    if line.startswith("tally_peer "):
        tally = dict(kv.split("=") for kv in line.split()[1:])
pairs = {p["pair"]: p for p in d["peer_copies"]}
print("  pairs:", {k: (v["copies"], v["median_gbps"], v["link"], v["peak_gbps"]) for k, v in pairs.items()})
devs = sorted(x["device"] for x in d["devices"])
print("  devices:", [(x["device"], x["name"], x["uuid"], x["nvlink_known"]) for x in d["devices"]])
ok = (set(pairs) == {"0->1", "1->0"} and pairs["0->1"]["copies"] == int(tally["copies_0to1"])
      and pairs["1->0"]["copies"] == int(tally["copies_1to0"]) and devs == [0, 1])
sys.exit(0 if ok else 1)
EOF

# ---- 2. DDP over NCCL, one process per GPU ----
if ! python3 -c 'import torch, torch.distributed as d; assert torch.cuda.device_count() >= 2 and d.is_nccl_available()' 2>/dev/null; then
	echo "  SKIP ddp: no PyTorch with CUDA, NCCL and 2 GPUs"
	exit $fail
fi
STEPS=20
WARM=3
"$B/gputrace" record -q -o "$KEEP/ddp-%r.gtrace" -- python3 "$REPO/tests/gpu/ddp_step.py" --nprocs 2 \
	--steps $STEPS --warmup $WARM --slow-rank 1 --slow-matmuls 8 > "$KEEP/ddp.out" 2> ddp.err ||
	{ echo "  FAIL ddp_step failed"; tail -n 30 ddp.err; exit 1; }
sed 's/^/    /' "$KEEP/ddp.out"
files=$(cd "$KEEP" && ls ddp-*.gtrace | tr '\n' ' ')
if [ "$files" = "ddp-0.gtrace ddp-1.gtrace " ]; then
	echo "  PASS one trace per rank: $files"
else
	echo "  FAIL traces written: '$files' (want ddp-0.gtrace and ddp-1.gtrace)"
	fail=1
fi
"$GA" ranks --range step "$KEEP/ddp-0.gtrace" "$KEEP/ddp-1.gtrace" > "$KEEP/ddp-ranks.txt" 2>&1
cat "$KEEP/ddp-ranks.txt"
"$GA" ranks --range step --format json "$KEEP/ddp-1.gtrace" "$KEEP/ddp-0.gtrace" > ddp.json 2> ddp_ranks.err ||
	{ echo "  FAIL gpuanalyze ranks: $(cat ddp_ranks.err)"; exit 1; }
check "ddp: ranks, devices, alignment, collectives, straggler" python3 - ddp.json $((STEPS + WARM)) <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
steps = int(sys.argv[2])
bad = []
def want(cond, what):
    print(("  ok  " if cond else "  BAD ") + what)
    if not cond:
        bad.append(what)
ranks = d["ranks"]
want([r["rank"] for r in ranks] == [0, 1] and d["rank_source"] == "meta", "ranks 0 and 1 from META process.rank")
want(all(r["rank_from"] == "RANK" for r in ranks), "process.rank_from is RANK")
used = {x["rank"]: sorted(y["device"] for y in d["devices"] if y["rank"] == x["rank"]) for x in ranks}
print(f"      devices per rank: {used}")
want(all(r in used.get(r, []) for r in (0, 1)), "each rank's trace describes its own GPU (LOCAL_RANK)")
uuids = {y["rank"]: y["uuid"] for y in d["devices"] if y["device"] == y["rank"]}
want(len(set(uuids.values())) == 2, f"two different GPUs: {uuids}")
for r in ranks:
    want(r["alignment"] == "fit", f"rank {r['rank']} aligned by a fit (uncertainty {r['uncertainty_ns']} ns)")
    want(r["collective_kernels"] > 0, f"rank {r['rank']} ran NCCL kernels: {r['collective_kernels']}")
s = d["steps_from"]
want(s["mode"] == "nvtx" and s["range"] == "step", f"steps are NVTX 'step': {s['mode']} {s['range']}")
want(s["compared"] == steps, f"{steps} steps matched: {s['compared']}")
want(s["most_waited_for_rank"] == 1, f"rank 1 (extra work) waited for most often: {s['most_waited_for_rank']}")
w = {x["rank"]: x["waited_for_steps"] for x in d["stragglers"]}
want(w.get(1, 0) >= 0.8 * steps, f"rank 1 waited for in >= 80% of steps: {w}")
print(f"      slowest by duration: {s['most_slowest_rank']}, lag uncertainty {s['lag_uncertainty_ns']} ns")
sys.exit(1 if bad else 0)
EOF
exit $fail
