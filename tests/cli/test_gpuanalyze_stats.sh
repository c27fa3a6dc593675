#!/bin/sh
# gpuanalyze stats against SQL: for every sample recording of traces/samples (real H200 traces), a
# gt_synth trace and the synthetic trace of test_analyze_stats (nested and start/end ranges, two
# threads, graph kernels, bad timestamps, the recorder's own copies, names CSV must quote or
# neutralise, a name that is not UTF-8), each report's CSV is loaded into the trace's SQLite export
# (`gpuanalyze export --format sqlite`) and compared there with the same report written in SQL over
# the exported tables: the same groups, and per group the same count, total, min, max and median
# (exactly) and stddev (to 1e-9, relative), and for nvtx_kern_sum the same range instances. Then
# every report in every format (the JSON parsed), and the usage and input errors (exit 2, one line).
# Needs the sqlite3 command (Debian package sqlite3); exits 77 without it.
why="check the reports against SQL"
. "$(dirname "$0")/sqlite_fixture.sh"
SYNTH="$build/tools/gt_synth"
traces="$T/stats.gtrace"
if [ -x "$SYNTH" ]; then
	"$SYNTH" -o "$T/synth.gtrace" -n 2000 >/dev/null || fail "gt_synth failed"
	traces="$traces $T/synth.gtrace"
fi
for f in "$root"/traces/samples/*.gtrace; do
	[ -f "$f" ] && traces="$traces $f"
done

# N TEXT_SQL: the text as gpuanalyze's CSV writes it, formula neutralisation included (escape.h).
N() { printf "(CASE WHEN substr(%s,1,1) IN ('=','+','-','@',char(9),char(13),char(10)) THEN '''' || %s ELSE %s END)" "$1" "$1" "$1"; }
SEP="||char(1)||"
STYLE="CASE r.kind WHEN 'push-pop' THEN 'PushPop' ELSE 'StartEnd' END"

# src REPORT: SQL giving (key, v, inst) for each value the report counts: its group, the value, and
# for nvtx_kern_sum the range instance. got REPORT: the same keys from the imported CSV, with the
# report's count, total, min, max, median, stddev and instances.
src() {
	case $1 in
	cuda_api_sum) echo "SELECT $(N name) key, duration_ns v, NULL inst FROM api_calls WHERE duration_ns IS NOT NULL" ;;
	nvtx_sum) echo "SELECT $(N "coalesce(r.domain,'')")$SEP$(N r.name)$SEP$STYLE key, r.duration_ns v, NULL inst
		FROM nvtx_ranges r WHERE r.kind IN ('push-pop','start-end') AND r.duration_ns IS NOT NULL" ;;
	nvtx_kern_sum) echo "WITH call AS (SELECT a.correlation_id c, a.start_ns t, a.thread_id & 4294967295 th
		FROM api_calls a WHERE a.id = (SELECT b.id FROM api_calls b WHERE b.correlation_id = a.correlation_id
		ORDER BY b.start_ns, b.id LIMIT 1))
		SELECT $(N "coalesce(r.domain,'')")$SEP$(N r.name)$SEP$STYLE$SEP$(N k.name) key, k.duration_ns v, r.id inst
		FROM kernels k JOIN call ON call.c = k.correlation_id JOIN nvtx_ranges r
		ON r.kind IN ('push-pop','start-end') AND r.duration_ns IS NOT NULL AND r.start_ns <= call.t
		AND call.t < r.end_ns AND (r.kind = 'start-end' OR r.thread_id = call.th)
		WHERE k.duration_ns IS NOT NULL" ;;
	cuda_gpu_kern_sum) echo "SELECT $(N name) key, duration_ns v, NULL inst FROM kernels WHERE duration_ns IS NOT NULL" ;;
	cuda_gpu_mem_time_sum) echo "SELECT copy_kind key, duration_ns v, NULL inst FROM copies WHERE tool = 0 AND
		duration_ns IS NOT NULL UNION ALL SELECT 'memset', duration_ns, NULL FROM memsets WHERE duration_ns IS NOT NULL" ;;
	cuda_gpu_mem_size_sum) echo "SELECT copy_kind key, bytes v, NULL inst FROM copies WHERE tool = 0 AND
		duration_ns IS NOT NULL UNION ALL SELECT 'memset', bytes, NULL FROM memsets WHERE duration_ns IS NOT NULL" ;;
	kern_launch_sum) echo "SELECT $(N name)${SEP}grid_x||'x'||grid_y||'x'||grid_z${SEP}block_x||'x'||block_y||'x'||block_z$SEP
		static_smem_bytes${SEP}dynamic_smem_bytes${SEP}registers_per_thread key, duration_ns v, NULL inst
		FROM kernels WHERE duration_ns IS NOT NULL" ;;
	esac
}
num() { echo "CAST(NULLIF($1,'') AS REAL)"; }
got() {
	case $1 in
	cuda_api_sum) key=name n=num_calls ;;
	nvtx_sum) key="domain${SEP}range${SEP}style" n=instances ;;
	nvtx_kern_sum) key="domain${SEP}range${SEP}style${SEP}kernel_name" n=kern_inst ;;
	cuda_gpu_kern_sum) key=name n=instances ;;
	cuda_gpu_mem_time_sum) key=copy_kind n=count ;;
	cuda_gpu_mem_size_sum) key=copy_kind n=count ;;
	kern_launch_sum) key="name${SEP}grid_x||'x'||grid_y||'x'||grid_z${SEP}block_x||'x'||block_y||'x'||block_z$SEP
		static_smem_bytes${SEP}dynamic_smem_bytes${SEP}registers_per_thread" n=count ;;
	esac
	u=ns total=total_time_ns
	[ "$1" = cuda_gpu_mem_size_sum ] && u=bytes total=total_bytes
	inst=0
	[ "$1" = nvtx_kern_sum ] && inst="CAST(nvtx_inst AS INTEGER)"
	if [ "$1" = kern_launch_sum ]; then
		echo "SELECT $key key, CAST($n AS INTEGER) n, $(num total_time_ns) total, NULL mn, NULL mx,
			$(num med_ns) med, NULL sd, $inst inst FROM got_raw"
	else
		echo "SELECT $key key, CAST($n AS INTEGER) n, $(num $total) total, $(num min_$u) mn,
			$(num max_$u) mx, $(num med_$u) med, $(num stddev_$u) sd, $inst inst FROM got_raw"
	fi
}

reports="cuda_api_sum nvtx_sum nvtx_kern_sum cuda_gpu_kern_sum cuda_gpu_mem_time_sum cuda_gpu_mem_size_sum kern_launch_sum"
checked=0 rows=0
for f in $traces; do
	db="$T/db.sqlite"
	"$G" export --format sqlite -o "$db" "$f" 2>"$T/err" || fail "export --format sqlite $f exits $?: $(cat "$T/err")"
	[ -s "$T/err" ] && fail "export --format sqlite $f wrote to stderr: $(cat "$T/err")"
	for rep in $reports; do
		"$G" stats "$rep" --format csv "$f" >"$T/out.csv" 2>"$T/err" || fail "stats $rep $f exits $?: $(cat "$T/err")"
		cols="key, n, total, mn, mx, med, inst"
		[ "$rep" = kern_launch_sum ] && cols="key, n, total, med, inst"
		sqlite3 "$db" >"$T/diff" 2>&1 <<EOF || fail "sqlite3 failed on $rep of $f: $(cat "$T/diff")"
DROP TABLE IF EXISTS got_raw;
.import --csv $T/out.csv got_raw
CREATE TEMP TABLE src AS $(src "$rep");
CREATE INDEX temp.src_key ON src(key);
CREATE TEMP TABLE want AS
	WITH o AS (SELECT key, v, row_number() OVER (PARTITION BY key ORDER BY v) rn,
	                  count(*) OVER (PARTITION BY key) c FROM src),
	     m AS (SELECT key, avg(v) med FROM o WHERE rn IN ((c + 1) / 2, (c + 2) / 2) GROUP BY key),
	     a AS (SELECT key, count(*) n, total(v) total, min(v) * 1.0 mn, max(v) * 1.0 mx, avg(v) mean,
	                  count(DISTINCT inst) inst FROM src GROUP BY key)
	SELECT a.key, a.n, a.total, a.mn, a.mx, m.med, a.inst,
	       (SELECT CASE WHEN a.n > 1 THEN total((s.v - a.mean) * (s.v - a.mean)) / (a.n - 1) END
	        FROM src s WHERE s.key = a.key) var
	FROM a JOIN m USING (key);
CREATE TEMP TABLE got AS $(got "$rep");
SELECT 'missing from the report:', * FROM (SELECT $cols FROM want EXCEPT SELECT $cols FROM got);
SELECT 'not in SQL:', * FROM (SELECT $cols FROM got EXCEPT SELECT $cols FROM want);
SELECT 'rows:', (SELECT count(*) FROM got), 'SQL:', (SELECT count(*) FROM want)
	WHERE (SELECT count(*) FROM got) != (SELECT count(*) FROM want);
SELECT 'stddev:', want.key, got.sd, sqrt(want.var) FROM want JOIN got USING (key)
	WHERE '$rep' != 'kern_launch_sum' AND ((want.var IS NULL) != (got.sd IS NULL)
	   OR abs(got.sd * got.sd - want.var) > 1e-9 * want.var);
EOF
		[ -s "$T/diff" ] && fail "stats $rep $f disagrees with SQL over its export:
$(head -n 20 "$T/diff")"
		checked=$((checked + 1))
		rows=$((rows + $(sqlite3 "$db" "SELECT count(*) FROM got_raw")))
	done
done
# The synthetic trace has rows in every report: the comparison above was not of empty sets.
for rep in $reports; do
	n=$("$G" stats "$rep" --format csv "$T/stats.gtrace" | wc -l)
	[ "$n" -gt 1 ] || fail "stats $rep of the synthetic trace has no rows"
done
echo "$checked reports checked against SQL ($rows rows)"

# Every format; JSON parses and says which report it is.
for rep in $reports; do
	for fmt in text md json; do
		"$G" stats "$rep" --format $fmt "$T/stats.gtrace" >"$T/out" 2>"$T/err" ||
			fail "stats $rep --format $fmt exits $?: $(cat "$T/err")"
	done
	if command -v python3 >/dev/null 2>&1; then
		python3 -c 'import json,sys; d = json.load(sys.stdin); assert d["report"] == sys.argv[1], d["report"]' \
			"$rep" <"$T/out" || fail "stats $rep --format json: not the report's JSON"
	fi
done
# The deep trace: attributions past the cap are said, not silently lost.
"$G" stats nvtx_kern_sum "$T/deep.gtrace" | grep -q "^NOTE: 108 attributions dropped: more than 16 ranges open" ||
	fail "stats nvtx_kern_sum does not say that it dropped attributions past the cap"

. "$root/tests/cli/golden.sh"
error 2 "gpuanalyze: stats: unknown report 'cuda_api' (cuda_api_sum, nvtx_sum, nvtx_kern_sum, cuda_gpu_kern_sum, cuda_gpu_mem_time_sum, cuda_gpu_mem_size_sum, kern_launch_sum, cuda_gpu_trace, cuda_api_trace, cuda_kern_exec_trace, cuda_kern_exec_sum, cuda_api_gpu_sum, nvtx_pushpop_sum, nvtx_pushpop_trace, nvtx_gpu_proj_trace, nvtx_gpu_proj_sum or gpu_metrics_sum)" \
	"$G" stats cuda_api "$T/stats.gtrace"
error 2 "gpuanalyze: cannot open trace 'missing.gtrace': No such file or directory" "$G" stats nvtx_sum missing.gtrace
error 2 "gpuanalyze: stats: too few operands (wants a FILE after the report) (see 'gpuanalyze stats --help')" "$G" stats nvtx_sum
error 2 "gpuanalyze: export: --format sqlite writes a database file, not standard output: give -o FILE (see 'gpuanalyze export --help')" \
	"$G" export --format sqlite "$T/stats.gtrace"
error 2 "gpuanalyze: cannot write '$T': not a regular file (an SQLite database is a file)" \
	"$G" export --format sqlite -o "$T" "$T/stats.gtrace"
exit 0
