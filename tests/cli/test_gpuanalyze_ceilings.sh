#!/bin/sh
# Measured ceilings, end to end without a GPU: `gputrace peak` with a stand-in probe that prints the
# lines bwprobe prints (copies, then ceilings) stores them tagged with the device; `gpuanalyze info`
# shows them under the device of a real H200 sample whose UUID they carry (text and JSON), and
# nothing without them; `gpuanalyze bandwidth` says byte for byte what it says with the copy lines
# alone (ceiling and malformed lines change nothing there), and with ceiling lines only says so; an
# unreadable --peaks is exit 2.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${GT_BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
G="$build/gpuanalyze"
L="$build/gputrace"
S="$root/traces/samples/h200-launch_storm-injection.gtrace"
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$G" ] || fail "no analyzer at $G"
[ -x "$L" ] || fail "no launcher at $L"
[ -f "$S" ] || fail "no sample at $S"
T=$(mktemp -d /tmp/gt_cli_ceil_XXXXXX) || fail "mktemp"
trap 'rm -rf "$T"' EXIT
cd "$T" || fail "cd $T"
# Nothing from wherever the person running the tests keeps their peaks.
export GPUTRACE_PEAKS="$T/no-peaks-here"
export HOME="$T"
unset XDG_CACHE_HOME

# The stand-in probe: the sample's device, one copy kind, four ceilings and a kind it could not
# measure (no cuBLAS: a skip line, never stored), as bwprobe prints them.
mkdir -p bin && cp "$L" bin/gputrace || fail "cp gputrace"
cat >bin/bwprobe <<'EOF'
#!/bin/sh
echo 'device name="NVIDIA H200" uuid=GPU-84addb43-5e5e-8be3-5541-016c34614063 cc=9.0 sms=132 clock_khz=1980000 mem_clock_khz=3201000'
echo 'peak kind=htod_pinned gbps=55.41 bytes=268435456 reps=7'
echo 'detail kind=htod_pinned gbps_min=55.00 gbps_max=55.60 warmup=2'
echo 'peak kind=dram_triad gbps=4301.25 theory_gbps=4814.30 bytes=3221225472 reps=7 sm_mhz=1980 mem_mhz=3201 clocks=nvml method="kernel a = b + s*c over three arrays"'
echo 'peak kind=l2_read gbps=10250.00 theory_gbps=unknown bytes=8589934592 reps=7 sm_mhz=1980 mem_mhz=3201 clocks=nvml method="a quarter of L2"'
echo 'peak kind=fp16_mma gflops=662000.00 theory_gflops=1070530.56 flops=2267742732288 reps=7 sm_mhz=1965 mem_mhz=3201 clocks=nvml method="mma.sync m16n8k16"'
echo 'peak kind=fp16_gemm gflops=781200.00 theory_gflops=1070530.56 flops=1099511627776 reps=7 sm_mhz=1980 mem_mhz=3201 clocks=nvml method="cuBLAS cublasGemmEx"'
echo 'skip kind=bf16_gemm why="cublasGemmEx failed with status 15 in libcublas.so.13"'
EOF
chmod +x bin/bwprobe
bin/gputrace peak -o peaks >out 2>err || fail "peak: $(cat err)"
grep -q 'measured peaks stored' err || fail "peak said: $(cat err)"
[ "$(wc -l <peaks)" = 5 ] || fail "peak stored $(wc -l <peaks) lines: $(cat peaks)"
grep -q '^name="NVIDIA H200" uuid=GPU-84addb43-5e5e-8be3-5541-016c34614063 .* kind=fp16_mma gflops=662000.00 ' peaks ||
	fail "the fp16_mma line not stored with its device: $(cat peaks)"
grep -q 'bf16_gemm' peaks && fail "a skipped kind was stored: $(cat peaks)"
grep -q 'skip kind=bf16_gemm' out || fail "peak did not show the probe's skip line: $(cat out)"
echo "ok: gputrace peak stores the ceiling lines with the device"

"$G" info --peaks peaks "$S" >info.txt 2>err || fail "info --peaks exits $?: $(cat err)"
cat >want.txt <<EOF
      measured ceilings (gputrace peak, peaks):
        dram_triad     4301.2 GB/s  89.3% of theoretical 4814.3 GB/s; SM 1980 MHz, memory 3201 MHz (read by NVML during the run); 7 reps; line 2
          method: kernel a = b + s*c over three arrays
        l2_read       10250.0 GB/s  theoretical unknown; SM 1980 MHz, memory 3201 MHz (read by NVML during the run); 7 reps; line 3
          method: a quarter of L2
        fp16_mma    662.00 TFLOP/s  61.8% of theoretical 1070.53 TFLOP/s; SM 1965 MHz, memory 3201 MHz (read by NVML during the run); 7 reps; line 4
          method: mma.sync m16n8k16
        fp16_gemm   781.20 TFLOP/s  73.0% of theoretical 1070.53 TFLOP/s; SM 1980 MHz, memory 3201 MHz (read by NVML during the run); 7 reps; line 5
          method: cuBLAS cublasGemmEx
EOF
sed -n '/measured ceilings/,/records by type/p' info.txt | sed '$d' >got.txt
cmp -s want.txt got.txt || fail "info's ceilings: $(diff want.txt got.txt)"
"$G" info --format json --peaks peaks "$S" >info.json 2>err || fail "info --format json exits $?: $(cat err)"
python3 - info.json <<'EOF' || fail "info's JSON ceilings"
import json, sys
d = json.load(open(sys.argv[1]))["traces"][0]["devices"][0]
assert d["peaks_file"] == "peaks", d
c = {x["kind"]: x for x in d["ceilings"]}
assert list(c) == ["dram_triad", "l2_read", "fp16_mma", "fp16_gemm"], list(c)
assert c["dram_triad"]["unit"] == "bytes/s" and c["dram_triad"]["measured"] == 4301.25e9
assert c["dram_triad"]["bytes_per_launch"] == 3221225472 and c["dram_triad"]["line"] == 2
assert c["l2_read"]["theoretical"] is None and c["l2_read"]["measured_pct_of_theoretical"] is None
assert c["fp16_mma"]["unit"] == "flops/s" and c["fp16_mma"]["theoretical"] == 1070530.56e9
assert c["fp16_mma"]["sm_clock_mhz"] == 1965 and c["fp16_mma"]["clocks"] == "nvml"
assert c["fp16_mma"]["method"] == "mma.sync m16n8k16"
EOF
echo "ok: info shows the device's ceilings in text and JSON"

# The default place ($GPUTRACE_PEAKS) is read too; without ceilings, info is as it always was.
GPUTRACE_PEAKS=peaks "$G" info "$S" | cmp -s - info.txt || fail "info did not read \$GPUTRACE_PEAKS as --peaks"
"$G" info "$S" >none.txt 2>err || fail "info without peaks exits $?: $(cat err)"
grep -v '^name=.*kind=\(dram\|l2\|fp\)' peaks >copies-only
"$G" info --peaks copies-only "$S" | cmp -s - none.txt || fail "copy lines alone changed info's output"
"$G" info --format json "$S" >none.json || fail "info --format json without peaks"
"$G" info --format json --peaks copies-only "$S" | cmp -s - none.json || fail "copy lines alone changed info's JSON"
grep -q ceilings none.txt && fail "info without ceilings speaks of them"
echo "ok: without ceilings info says what it said before"

# bandwidth: the ceiling lines, and malformed ones, change nothing it says.
{ cat peaks; echo 'name="NVIDIA H200" uuid=GPU-84addb43-5e5e-8be3-5541-016c34614063 kind=fp32_fma gbps=1'; } >with-bad
for f in txt json csv; do
	case $f in txt) fmt=text ;; *) fmt=$f ;; esac
	"$G" bandwidth --format $fmt --peaks copies-only "$S" | sed 's/copies-only/PEAKS/g' >a.$f
	"$G" bandwidth --format $fmt --peaks with-bad "$S" | sed 's/with-bad/PEAKS/g' >b.$f
	cmp -s a.$f b.$f || fail "ceiling lines changed bandwidth --format $fmt: $(diff a.$f b.$f | head -5)"
done
grep -v 'kind=htod_pinned' peaks >ceilings-only
"$G" bandwidth --peaks ceilings-only "$S" | grep -qF "no measured copy peak for this device: its lines in ceilings-only are ceilings only" ||
	fail "bandwidth with ceiling lines only: $("$G" bandwidth --peaks ceilings-only "$S" | grep measured)"
echo "ok: bandwidth is byte-identical with and without ceiling lines, and says when there are only ceilings"

"$G" info --peaks "$T/none/peaks" "$S" >/dev/null 2>err
[ $? = 2 ] || fail "an unreadable --peaks is not exit 2"
[ "$(wc -l <err)" = 1 ] && grep -q "^gpuanalyze: cannot read peaks file '$T/none/peaks': " err ||
	fail "unreadable --peaks said: $(cat err)"
echo "ok: an unreadable --peaks is an input error"
exit 0
