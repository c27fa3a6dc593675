#!/bin/sh
# gpuanalyze's CSV and JSON Lines outputs in DuckDB, a consumer users name: summary, split
# (units and --distribution), bandwidth, stats cuda_gpu_kern_sum and the JSON Lines dump of real
# H200 samples and synthetic fixtures, loaded with DuckDB's own type detection (read_csv,
# read_json); duckdb_check.mjs says what it checks (typed columns, reals DOUBLE in every file, and
# query answers equal to gpuanalyze's own).
#
# DuckDB comes from npm (@duckdb/node-api; Debian has no DuckDB): `make check-all` installs the
# pinned version under build/duckdb (tests/duckdb_modules.sh) and points GT_DUCKDB_MODULES at it.
# Without node or that package (make check, or no registry) this exits 77 and says so. By hand:
#   (cd /some/dir && npm install @duckdb/node-api)
#   GT_DUCKDB_MODULES=/some/dir/node_modules sh tests/cli/test_tidy_duckdb.sh
# test_tidy_outputs.sh checks the same outputs with python3 and sqlite3 in every make check.
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${GT_BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
G="$build/gpuanalyze"
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$G" ] || fail "no analyzer at $G"
command -v node >/dev/null 2>&1 || { echo "skipped: node is not installed: no DuckDB (npm @duckdb/node-api)"; exit 77; }
mods=${GT_DUCKDB_MODULES:-$root/node_modules}
[ -d "$mods/@duckdb/node-api" ] ||
	{ echo "skipped: no DuckDB: @duckdb/node-api is not under $mods (make check-all installs it from npm; or set GT_DUCKDB_MODULES)"; exit 77; }
T=$(mktemp -d /tmp/gt_cli_duckdb_XXXXXX) || fail "mktemp"
trap 'rm -rf "$T"' EXIT
# Node resolves a package from the script's folder upwards: the checker runs from a folder whose
# node_modules is the one named.
ln -s "$mods" "$T/node_modules" && cp "$root/tests/cli/duckdb_check.mjs" "$T/" || fail "cannot stage the checker"
mkdir -p "$T/out" "$T/fx"
"$build/tests/test_analyze_split" write "$T/fx" >/dev/null || fail "cannot write the split fixtures"
S=$root/traces/samples
n=0
for tr in "$S/h200-torch_mlp.gtrace" "$S/h200-transfers.gtrace" "$S/h200-splat_render.gtrace" \
          "$S/h200-launch_storm.gtrace" "$T"/fx/*.gtrace; do
	[ -f "$tr" ] || fail "no trace $tr"
	b=$T/out/$(basename "$tr" .gtrace)
	"$G" summary --format csv "$tr" >"$b.summary.csv" &&
	"$G" summary --format json "$tr" >"$b.summary.json" &&
	"$G" split --format csv "$tr" >"$b.split.csv" &&
	"$G" split --format csv --distribution "$tr" >"$b.split-dist.csv" &&
	"$G" bandwidth --format csv "$tr" >"$b.bandwidth.csv" &&
	"$G" stats cuda_gpu_kern_sum --format csv "$tr" >"$b.kern_sum.csv" &&
	"$G" dump --format jsonl "$tr" >"$b.dump.jsonl" &&
	"$G" info --format json "$tr" >"$b.info.json" || fail "gpuanalyze failed on $tr"
	n=$((n + 1))
done
(cd "$T" && node duckdb_check.mjs "$T/out") || fail "DuckDB disagrees (above)"
echo "ok: $n traces' CSV and JSON Lines outputs typed and queried by DuckDB, answers equal gpuanalyze's"
