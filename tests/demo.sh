#!/bin/sh
# make demo: the main job in one command.
#   With a GPU: record the demo renderer (kernels/splat_render) under gputrace and analyze that trace.
#   Without one: analyze a trace a real H200 recorded (traces/samples/), and say so.
# It leads with where the trace is and what to run next, then shows each analysis with its lines cut
# at 120 columns; the whole outputs are kept in BUILD/demo/, next to a recorded trace.
build=${1:-build}
ga=$build/gpuanalyze
out=$build/demo
width=120
say() { printf '\n== %s\n' "$*"; }
# narrow FILE: FILE with every line longer than $width columns cut to fit and marked " ..."
narrow() { awk -v w="$width" '{ if (length($0) > w) print substr($0, 1, w - 4) " ..."; else print }' "$1"; }
have_gpu() {
	command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 && [ -x "$build/libgputrace.so" -o -f "$build/libgputrace.so" ] && [ -x "$build/kernels/splat_render" ]
}
mkdir -p "$out" || exit 1
trace=""
where=""
if have_gpu; then
	trace=$out/splat_render.gtrace
	# gputrace never overwrites a trace: the previous demo's goes first, so the name stays this one.
	rm -f "$trace"
	say "recording the demo renderer on this machine's GPU"
	echo "\$ gputrace record -o $trace -- splat_render --frames 30"
	if "$build/gputrace" record -o "$trace" -- "$build/kernels/splat_render" --frames 30; then
		where="recorded just now on this machine's GPU"
	else
		echo "gputrace demo: the recording failed; analyzing the bundled H200 trace instead"
		trace=""
	fi
fi
if [ -z "$trace" ]; then
	trace=traces/samples/h200-splat_render.gtrace
	where="no GPU here: a trace recorded on an NVIDIA H200; see traces/samples/README.md"
fi
cmds=""
for cmd in info summary split bandwidth findings; do
	"$ga" "$cmd" --help >/dev/null 2>&1 && cmds="$cmds $cmd"
done
cat <<EOF

gputrace demo
  trace:    $trace
            ($where)
  outputs:  $out/<command>.txt, whole; below, each cut at $width columns
  next:     export PATH=\$PWD/build:\$PATH     (until make install)
            gpuanalyze summary $trace
            gpuanalyze export --format chrome -z $trace -o run.json.gz
            gpuanalyze --help; README.md; docs/USAGE.md
EOF
for cmd in $cmds; do
	say "gpuanalyze $cmd $trace"
	"$ga" "$cmd" "$trace" >"$out/$cmd.txt" || { rc=$?; narrow "$out/$cmd.txt"; [ $rc -eq 1 ] || exit 1; continue; }
	narrow "$out/$cmd.txt"
done
say "next: gpuanalyze --help, README.md; the whole outputs are in $out/"
