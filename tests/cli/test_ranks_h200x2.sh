#!/bin/sh
# Multi-GPU traces recorded on the two-H200 machine (traces/samples/h200x2-*), analyzed with no GPU:
# a DDP step over NCCL, one trace per rank: rank 1 (given extra work) is the one the other waited
# for in the collectives in most steps; peer copies between the GPUs go over NVLink and are compared
# with the link's peak from the recorded NVLink metadata (18 links x 25 GB/s per direction).
build=${GT_BUILD:-build}
ga=$build/gpuanalyze
command -v python3 >/dev/null 2>&1 || { echo "skipped: no python3 to read the JSON"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$ga" ranks --range step --format json traces/samples/h200x2-ddp-rank1.gtrace \
	traces/samples/h200x2-ddp-rank0.gtrace > "$tmp/ddp.json" || { echo "FAIL: ranks on the DDP traces"; exit 1; }
"$ga" ranks --format json traces/samples/h200x2-p2p_copy.gtrace > "$tmp/p2p.json" ||
	{ echo "FAIL: ranks on the peer-copy trace"; exit 1; }
python3 - "$tmp/ddp.json" "$tmp/p2p.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
p = json.load(open(sys.argv[2]))
bad = []
s = d["steps_from"]
if s["range"] != "step" or s["compared"] != 23:
    bad.append(f"steps: {s['range']} x {s['compared']}, want step x 23")
if s["most_waited_for_rank"] != 1:
    bad.append(f"waited for most often: rank {s['most_waited_for_rank']}, want 1")
if sorted(r["rank"] for r in d["ranks"]) != [0, 1]:
    bad.append("ranks are not 0 and 1")
pairs = p["peer_copies"]
if len(pairs) != 2:
    bad.append(f"{len(pairs)} peer-copy directions, want 2")
for c in pairs:
    if c.get("link") != "nvlink" or abs((c.get("peak_gbps") or 0) - 450) > 1e-6:
        bad.append(f"peer copies {c.get('src')}->{c.get('dst')}: link {c.get('link')}, peak {c.get('peak_gbps')}")
    if c.get("copies") != 24:
        bad.append(f"peer copies {c.get('src')}->{c.get('dst')}: {c.get('copies')} copies, want 24")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
echo "ok: DDP ranks aligned, rank 1 waited for; peer copies over NVLink against a 450 GB/s peak"
