#!/bin/sh
# gpuanalyze's machine outputs read by the tools a user loads them into. First, typed: every CSV and
# JSON of summary, split (units and --distribution), bandwidth, dump (csv, json, jsonl), info,
# findings, stats (each report), diff and ranks, on the synthetic fixtures and real H200 samples,
# goes through tidy_check.py (python3's csv and json): a numeric column holds only numbers, a JSON
# member one type in every record (a real always looks real), every real the shortest text that
# reads back, JSON Lines one object per line, units only at the end of column names. Then sqlite3:
# each CSV is imported into a table with the types its values give (as DuckDB's sniffer does) and
# queried; each answer must equal gpuanalyze's own: summary's kernel total (its JSON) is the sum of
# its kernel rows' total_ns and of end - start over dump's kernels; split's count, min and max of
# every column are its --distribution's n, min_ns and max_ns; bandwidth's count, bytes and time
# are summary's copies'; stats cuda_gpu_kern_sum's totals are summary's; the JSON Lines dump,
# loaded line by line with SQLite's JSON functions, holds what the CSV dump holds.
# Needs python3 and the sqlite3 command (Debian package sqlite3); exits 77 without them.
why="load gpuanalyze's CSV into SQL"
. "$(dirname "$0")/sqlite_fixture.sh"
command -v python3 >/dev/null 2>&1 || { echo "python3 is not installed: cannot check the outputs' types"; exit 77; }
CHECK="$root/tests/cli/tidy_check.py"
S="$root/traces/samples"
for w in test_analyze_cli_fixture test_analyze_split test_analyze_bandwidth test_analyze_ranks; do
	[ -x "$build/tests/$w" ] || fail "no trace writer at $build/tests/$w"
	mkdir -p "$T/$w" && "$build/tests/$w" write "$T/$w" >/dev/null || fail "$w cannot write its traces"
done
SMALL="$T/test_analyze_cli_fixture/small.gtrace"
SPLIT="$T/test_analyze_split"
COPIES="$T/test_analyze_bandwidth/copies.gtrace"
RANKS="$T/test_analyze_ranks"
REPORTS="cuda_api_sum nvtx_sum nvtx_kern_sum cuda_gpu_kern_sum cuda_gpu_mem_time_sum cuda_gpu_mem_size_sum kern_launch_sum"

# tidy KIND NAME CMD...: run gpuanalyze CMD into its own file (exit status at most $MAXRC), to be
# checked as KIND, with the CSV columns named in $FREE exempt from typing: every output is listed
# in $T/tidy.list and checked by one tidy_check.py at the end.
n=0 MAXRC=0 FREE=""
mkdir -p "$T/out" || fail "mkdir"
: >"$T/tidy.list"
tidy() {
	kind=$1 name=$2
	shift 2
	n=$((n + 1))
	"$G" "$@" >"$T/out/$n.$name" 2>"$T/err"
	rc=$?
	[ $rc -le $MAXRC ] || fail "gpuanalyze $* exits $rc: $(head -n 1 "$T/err")"
	printf 'gpuanalyze %s\t%s\t%s\t%s\n' "$*" "$kind" "$T/out/$n.$name" "$(echo $FREE | tr ' ' '\t')" >>"$T/tidy.list"
}

for tr in "$SMALL" "$SPLIT"/*.gtrace "$COPIES" "$T/stats.gtrace" "$S/h200-torch_mlp.gtrace" \
          "$S/h200-transfers.gtrace" "$S/h200-splat_render.gtrace"; do
	[ -f "$tr" ] || fail "no trace $tr"
	for c in summary split bandwidth; do
		tidy csv out.csv $c --format csv "$tr"
		tidy json out.json $c --format json "$tr"
	done
	tidy csv out.csv split --format csv --distribution "$tr"
	tidy json out.json info --format json "$tr"
	tidy json out.json dump --format json "$tr"
	tidy jsonl out.jsonl dump --format jsonl "$tr"
	# dump's kind column is the name of an enumeration (sync, nvtx, overhead): a value a trace
	# gives that has no name is shown as its number, as gpuanalyze(1) says.
	FREE=kind
	tidy csv out.csv dump --format csv "$tr"
	FREE=""
	for r in $REPORTS; do
		tidy csv out.csv stats "$r" --format csv "$tr"
		tidy json out.json stats "$r" --format json "$tr"
	done
	MAXRC=1 # findings and diff exit 1 for what they found
	tidy json out.json findings --format json "$tr"
	MAXRC=0
done
MAXRC=1
for f in csv json; do
	tidy $f out.$f diff --format $f "$S/h200-launch_storm.gtrace" "$root/tests/data/diff/launch_storm-k1-slow10.gtrace"
	tidy $f out.$f diff --format $f "$S/h200-splat_render.gtrace" "$root/tests/data/diff/splat_render-slow10.gtrace"
done
MAXRC=0
# ranks' CSV is one long table (table, rank, item, field, value): item and value hold what each
# field is.
FREE="item value"
tidy csv out.csv ranks --format csv "$RANKS/rank0.gtrace" "$RANKS/rank1.gtrace" "$RANKS/rank2.gtrace"
FREE=""
tidy json out.json ranks --format json "$RANKS/rank0.gtrace" "$RANKS/rank1.gtrace" "$RANKS/rank2.gtrace"
python3 "$CHECK" batch "$T/tidy.list" >"$T/why" || fail "$(head -n 5 "$T/why")"
[ "$(wc -l <"$T/tidy.list")" -eq $n ] || fail "$n outputs made, $(wc -l <"$T/tidy.list") checked"
echo "ok: $n outputs typed"

# A check that would pass on anything proves nothing: the checker must refuse what this work
# removed (a real written as an integer, %.17g noise, a stat row among the units, a unit first).
printf '[{"share": 1.0}, {"share": 1}]\n' >"$T/bad.json"
python3 "$CHECK" json "$T/bad.json" >/dev/null && fail "tidy_check accepts an integral real written as 1"
printf '{"v": 0.10000000000000001}\n' >"$T/bad.jsonl"
python3 "$CHECK" jsonl "$T/bad.jsonl" >/dev/null && fail "tidy_check accepts the noise of %.17g"
printf 'category,wall_ns\nunit,5\nmedian,n/a\n' >"$T/bad.csv"
python3 "$CHECK" csv "$T/bad.csv" >/dev/null && fail "tidy_check accepts a string in a numeric column"
printf 'pct_theory\n5\n' >"$T/bad.csv"
python3 "$CHECK" csv "$T/bad.csv" >/dev/null && fail "tidy_check accepts a unit before the name's end"
# The batch that checked the outputs above refuses a bad file among good ones, naming its label.
printf 'good\tcsv\t%s\t\nthe bad one\tcsv\t%s\t\n' "$T/out/1.out.csv" "$T/bad.csv" >"$T/bad.list"
out=$(python3 "$CHECK" batch "$T/bad.list") && fail "tidy_check batch accepts a bad file among good ones"
case $out in "the bad one: "*) ;; *) fail "tidy_check batch does not name the bad output: $out" ;; esac

# sql SQL: run SQL (after the loads in $T/load.sql) in a fresh in-memory database; one line.
sql() {
	{ cat "$T/load.sql"; echo ".mode list"; echo "$1"; } | sqlite3 -bail :memory: 2>"$T/sqlerr" ||
		fail "sqlite3: $(head -n 2 "$T/sqlerr") in: $1"
}
# load FILE TABLE: add FILE (CSV) to the tables of $T/load.sql.
load() { python3 "$CHECK" sql "$1" "$2" >>"$T/load.sql" || fail "cannot make the load of $1"; }
# same WHAT A B: A and B are the same number(s).
same() {
	[ -n "$2" ] || fail "$1: no answer"
	awk -v a="$2" -v b="$3" 'BEGIN { na = split(a, x, "|"); nb = split(b, y, "|"); if (na != nb) exit 1;
		for (i = 1; i <= na; i++) if (x[i] + 0 != y[i] + 0) exit 1 }' || fail "$1: SQL says $2, gpuanalyze $3"
}
json_value() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2], {"d": d}))' "$@"; }

q=0
for tr in "$SMALL" "$S/h200-transfers.gtrace" "$S/h200-torch_mlp.gtrace"; do
	: >"$T/load.sql"
	"$G" summary --format csv "$tr" >"$T/s.csv" && "$G" summary --format json "$tr" >"$T/s.json" &&
		"$G" dump --type kernel "$tr" >"$T/d.csv" && "$G" bandwidth --format csv "$tr" >"$T/b.csv" &&
		"$G" stats cuda_gpu_kern_sum --format csv "$tr" >"$T/k.csv" || fail "gpuanalyze on $tr"
	load "$T/s.csv" s && load "$T/d.csv" d && load "$T/b.csv" b && load "$T/k.csv" k
	total=$(json_value "$T/s.json" 'd["kernel_total_ns"]')
	launches=$(json_value "$T/s.json" 'sum(k["launches"] for k in d["kernels"])')
	same "$tr: summary's kernel rows" "$(sql "SELECT coalesce(sum(total_ns), 0) FROM s WHERE kind = 'kernel';")" "$total"
	# The kernels summary counts: not flagged GT_KERNEL_BAD_TIMES (8), end not before start.
	same "$tr: dump's kernels" \
		"$(sql "SELECT count(*) || '|' || coalesce(sum(\"end\" - start), 0) FROM d WHERE (flags & 8) = 0 AND \"end\" >= start;")" \
		"$launches|$total"
	same "$tr: bandwidth's groups against summary's copies" \
		"$(sql "SELECT coalesce(sum(count), 0) || '|' || coalesce(sum(bytes), 0) || '|' || coalesce(sum(time_ns), 0) FROM b;")" \
		"$(sql "SELECT coalesce(sum(launches), 0) || '|' || coalesce(sum(bytes), 0) || '|' || coalesce(sum(total_ns), 0) FROM s WHERE kind = 'memcpy';")"
	same "$tr: stats cuda_gpu_kern_sum" \
		"$(sql "SELECT coalesce(sum(instances), 0) || '|' || coalesce(sum(total_time_ns), 0) FROM k;")" "$launches|$total"
	# The JSON Lines dump, one line a row, read by SQLite's JSON functions.
	"$G" dump --format jsonl --type kernel "$tr" >"$T/d.jsonl" || fail "dump jsonl $tr"
	printf 'CREATE TABLE j (line TEXT);\n.mode ascii\n.separator "\\037" "\\n"\n.import "%s" j\n' "$T/d.jsonl" >>"$T/load.sql"
	same "$tr: dump's JSON Lines against its CSV" \
		"$(sql "SELECT count(*) || '|' || coalesce(sum(json_extract(line, '\$.end') - json_extract(line, '\$.start')), 0) || '|' || coalesce(sum(json_extract(line, '\$.registers')), 0) FROM j;")" \
		"$(sql "SELECT count(*) || '|' || coalesce(sum(\"end\" - start), 0) || '|' || coalesce(sum(registers), 0) FROM d;")"
	q=$((q + 5))
done

for tr in "$SPLIT/sync.gtrace" "$SPLIT/nvtx.gtrace" "$S/h200-torch_mlp.gtrace" "$S/h200-splat_render.gtrace"; do
	: >"$T/load.sql"
	"$G" split --format csv "$tr" >"$T/u.csv" && "$G" split --format csv --distribution "$tr" >"$T/dist.csv" ||
		fail "split $tr"
	load "$T/u.csv" u && load "$T/dist.csv" dist
	units=$(sql "SELECT count(*) FROM u;")
	[ "$units" -gt 0 ] || fail "split $tr: no units"
	for m in $(sql "SELECT metric FROM dist;"); do
		same "split $tr: $m over the units against --distribution" \
			"$(sql "SELECT count(\"$m\") || '|' || coalesce(min(\"$m\"), 0) || '|' || coalesce(max(\"$m\"), 0) FROM u;")" \
			"$(sql "SELECT n || '|' || coalesce(min_ns, 0) || '|' || coalesce(max_ns, 0) FROM dist WHERE metric = '$m';")"
		q=$((q + 1))
	done
	# One kind of row: every row is a unit, so a mean over the file is a mean over units.
	same "split $tr: rows" "$units" "$(sql "SELECT n FROM dist WHERE metric = 'wall_ns';")"
done
echo "ok: $q SQL answers equal gpuanalyze's"
exit 0
