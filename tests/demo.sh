#!/bin/sh
# make demo: the main job in one command.
#   With a GPU: record the demo renderer (kernels/splat_render) under gputrace and analyze that trace.
#   Without one: analyze a trace a real H200 recorded (traces/samples/), and say so.
build=${1:-build}
ga=$build/gpuanalyze
say() { printf '\n== %s\n' "$*"; }
have_gpu() {
	command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 && [ -x "$build/libgputrace.so" -o -f "$build/libgputrace.so" ] && [ -x "$build/kernels/splat_render" ]
}
trace=""
if have_gpu; then
	out=$(mktemp -d)
	trace=$out/splat_render.gtrace
	say "recording the demo renderer on this machine's GPU"
	echo "\$ gputrace record -o $trace -- splat_render --frames 30"
	"$build/gputrace" record -o "$trace" -- "$build/kernels/splat_render" --frames 30 || {
		echo "gputrace demo: the recording failed; analyzing the bundled H200 trace instead"
		trace=""
	}
fi
if [ -z "$trace" ]; then
	trace=traces/samples/h200-splat_render.gtrace
	say "no GPU here: analyzing $trace, recorded on an NVIDIA H200 (see traces/samples/README.md)"
fi
for cmd in info summary split bandwidth findings; do
	if "$ga" "$cmd" --help >/dev/null 2>&1; then
		say "gpuanalyze $cmd $trace"
		"$ga" "$cmd" "$trace" || { [ $? -eq 1 ] || exit 1; }
	fi
done
say "next: gpuanalyze --help, and README.md"
