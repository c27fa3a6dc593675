#!/bin/sh
# SQL written for Nsight Systems' SQLite export runs unchanged on `gpuanalyze export --format sqlite`
# and gives the numbers gpuanalyze's own reports give. On sample recordings of traces/samples (real
# H200 traces: PyTorch, NVTX frames, copies of every kind, a peer copy, graphs, two ranks), queries
# in the form nsys's documentation and users' recipes write them, over CUPTI_ACTIVITY_KIND_KERNEL,
# _MEMCPY, _MEMSET, _RUNTIME, NVTX_EVENTS, StringIds, TARGET_INFO_GPU and the ENUM_* tables, are
# compared group by group with reports computed without the database:
#   - kernels by mangledName, joined with StringIds:     stats cuda_gpu_kern_sum (count, total, min, max)
#   - kernels by demangledName:                          summary (launches, total)
#   - kernels by shortName: the short name is in each of its kernels' demangled names, and the groups
#     add up to summary's launches and total
#   - copies by copyKind with ENUM_CUDA_MEMCPY_OPER's label, memsets: stats cuda_gpu_mem_size_sum
#     and cuda_gpu_mem_time_sum (count, bytes, time)
#   - copies by copy, source and destination kind (ENUM_CUDA_MEM_KIND): summary's copy rows
#   - runtime API calls by nameId:                        stats cuda_api_sum (calls, total)
#   - NVTX push/pop ranges (eventType 59) by text:        stats nvtx_sum (instances, total)
#   - kernels launched inside each NVTX range, by time overlap of the range and the launching call
#     on the same thread (globalTid):                     stats nvtx_kern_sum (kernel instances)
#   - TARGET_INFO_GPU's name and smCount:                 info; kernel rows: dump's kernel records
# Needs the sqlite3 command (Debian package sqlite3); exits 77 without it.
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${GT_BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
G="$build/gpuanalyze"
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$G" ] || fail "no analyzer at $G"
command -v sqlite3 >/dev/null 2>&1 || {
	echo "sqlite3 is not installed (Debian package sqlite3): cannot run the nsys queries"
	exit 77
}
T=$(mktemp -d /tmp/gt_cli_nsysq_XXXXXX) || fail "mktemp"
trap 'rm -rf "$T"' EXIT
S=$root/traces/samples

# same NAME WANT_SQL GOT_SQL: the rows of the report (WANT_SQL over the report's CSV imported as
# table r) and of the nsys query (GOT_SQL over the export) are the same set.
same() {
	sqlite3 :memory: -cmd ".import --csv $T/r.csv r" "$2" | sort >"$T/want" || fail "$tr: $1: cannot read the report"
	sqlite3 "$T/db" "$3" | sort >"$T/got" || fail "$tr: $1: the nsys query fails"
	if ! cmp -s "$T/want" "$T/got"; then
		diff "$T/want" "$T/got" | head -n 10
		fail "$tr: $1: the nsys query disagrees with gpuanalyze (< gpuanalyze, > SQL)"
	fi
	n=$(wc -l <"$T/got")
	groups=$((groups + n))
}
report() { "$G" "$@" --format csv "$tr" >"$T/r.csv" 2>"$T/err" || fail "$tr: $*: $(cat "$T/err")"; }

checked=0 groups=0
for name in torch_mlp transfers splat_render-timed multi_procs-rank0 h200x2-ddp-rank0 h200x2-p2p_copy graph_launch; do
	tr=$S/h200-$name.gtrace
	[ -f "$tr" ] || tr=$S/$name.gtrace
	[ -f "$tr" ] || fail "no sample trace $name"
	"$G" export --format sqlite -o "$T/db" "$tr" 2>"$T/err" || fail "export $tr: $(cat "$T/err")"

	report stats cuda_gpu_kern_sum
	same "kernels by mangledName" \
		"SELECT name, instances, CAST(total_time_ns AS INTEGER), CAST(min_ns AS INTEGER), CAST(max_ns AS INTEGER) FROM r" \
		"SELECT s.value, count(*), sum(k.end - k.start), min(k.end - k.start), max(k.end - k.start)
		 FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN StringIds AS s ON s.id = k.mangledName GROUP BY k.mangledName"

	report summary
	same "kernels by demangledName" \
		"SELECT demangled, sum(launches), sum(CAST(total_ns AS INTEGER)) FROM r WHERE kind = 'kernel' GROUP BY demangled" \
		"SELECT StringIds.value, count(*), sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL
		 JOIN StringIds ON StringIds.id = CUPTI_ACTIVITY_KIND_KERNEL.demangledName GROUP BY demangledName"
	same "kernels by shortName, added up" \
		"SELECT coalesce(sum(launches), 0), coalesce(sum(CAST(total_ns AS INTEGER)), 0) FROM r WHERE kind = 'kernel'" \
		"SELECT coalesce(sum(n), 0), coalesce(sum(t), 0) FROM (SELECT s.value AS name, count(*) AS n, sum(k.end - k.start) AS t
		 FROM CUPTI_ACTIVITY_KIND_KERNEL k INNER JOIN StringIds s ON k.shortName = s.id GROUP BY k.shortName)"
	bad=$(sqlite3 "$T/db" "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName
		JOIN StringIds d ON d.id = k.demangledName WHERE s.value = '' OR instr(d.value, s.value) = 0")
	[ "$bad" = 0 ] || fail "$tr: $bad kernels whose shortName is not in their demangledName"
	same "copies by srcKind and dstKind" \
		"SELECT upper(copy_kind), src_kind, dst_kind, sum(launches), sum(CAST(bytes AS INTEGER)) FROM r WHERE kind = 'memcpy'
		 GROUP BY 1, 2, 3" \
		"SELECT substr(o.name, 18), lower(replace(sk.label, ' ', '-')), lower(replace(dk.label, ' ', '-')), count(*), sum(m.bytes)
		 FROM CUPTI_ACTIVITY_KIND_MEMCPY m JOIN ENUM_CUDA_MEMCPY_OPER o ON o.id = m.copyKind
		 JOIN ENUM_CUDA_MEM_KIND sk ON sk.id = m.srcKind JOIN ENUM_CUDA_MEM_KIND dk ON dk.id = m.dstKind
		 GROUP BY 1, 2, 3"

	report stats cuda_gpu_mem_size_sum
	same "copies and memsets by operation: bytes" \
		"SELECT operation, count, CAST(total_bytes AS INTEGER) FROM r" \
		"SELECT '[CUDA memcpy ' || mos.label || ']' AS name, count(*), sum(mcpy.bytes) FROM CUPTI_ACTIVITY_KIND_MEMCPY AS mcpy
		 INNER JOIN ENUM_CUDA_MEMCPY_OPER AS mos ON mos.id == mcpy.copyKind GROUP BY mcpy.copyKind
		 UNION ALL SELECT '[CUDA memset]', count(*), sum(bytes) FROM CUPTI_ACTIVITY_KIND_MEMSET HAVING count(*) > 0"
	report stats cuda_gpu_mem_time_sum
	same "copies and memsets by operation: time" \
		"SELECT operation, count, CAST(total_time_ns AS INTEGER) FROM r" \
		"SELECT '[CUDA memcpy ' || mos.label || ']', count(*), sum(mcpy.end - mcpy.start) FROM CUPTI_ACTIVITY_KIND_MEMCPY AS mcpy
		 INNER JOIN ENUM_CUDA_MEMCPY_OPER AS mos ON mos.id == mcpy.copyKind GROUP BY mcpy.copyKind
		 UNION ALL SELECT '[CUDA memset]', count(*), sum(end - start) FROM CUPTI_ACTIVITY_KIND_MEMSET HAVING count(*) > 0"

	report stats cuda_api_sum
	same "runtime API by nameId" \
		"SELECT name, num_calls, CAST(total_time_ns AS INTEGER) FROM r" \
		"SELECT value, count(*), sum(end - start) FROM CUPTI_ACTIVITY_KIND_RUNTIME
		 JOIN StringIds ON nameId = StringIds.id GROUP BY nameId"

	report stats nvtx_sum
	same "NVTX push/pop ranges by text" \
		"SELECT range, instances, CAST(total_time_ns AS INTEGER) FROM r WHERE style = 'PushPop'" \
		"SELECT text, count(*), sum(end - start) FROM NVTX_EVENTS WHERE eventType = 59 AND end IS NOT NULL GROUP BY domainId, text"

	report stats nvtx_kern_sum
	same "kernels inside NVTX ranges" \
		"SELECT range, sum(kern_inst) FROM r WHERE style = 'PushPop' GROUP BY range" \
		"SELECT n.text, count(*) FROM NVTX_EVENTS AS n
		 JOIN CUPTI_ACTIVITY_KIND_RUNTIME AS r ON r.globalTid = n.globalTid AND r.start >= n.start AND r.start < n.end
		 JOIN CUPTI_ACTIVITY_KIND_KERNEL AS k ON k.correlationId = r.correlationId
		 WHERE n.eventType = 59 GROUP BY n.text"

	"$G" info --format json "$tr" >"$T/info.json" || fail "info $tr"
	want=$(sed -n 's/.*"device_id": \([0-9]*\), "name": "\([^"]*\)".*"sm_count": \([0-9]*\),.*/\1|\2|\3/p' "$T/info.json" | sort)
	got=$(sqlite3 "$T/db" "SELECT id, name, smCount FROM TARGET_INFO_GPU" | sort)
	[ -n "$want" ] && [ "$want" = "$got" ] || fail "$tr: TARGET_INFO_GPU says '$got', info '$want'"
	want=$("$G" dump --format jsonl "$tr" | grep -c '^{"type": "kernel"')
	got=$(sqlite3 "$T/db" "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL")
	[ "$want" = "$got" ] || fail "$tr: $got kernel rows, dump has $want kernel records"
	checked=$((checked + 1))
done

# The enumerations hold nsys's values.
got=$(sqlite3 "$T/db" "SELECT id || '=' || name FROM ENUM_CUDA_MEMCPY_OPER WHERE id IN (1, 2, 8, 10) ORDER BY id" | tr '\n' ' ')
[ "$got" = "1=CUDA_MEMCPY_KIND_HTOD 2=CUDA_MEMCPY_KIND_DTOH 8=CUDA_MEMCPY_KIND_DTOD 10=CUDA_MEMCPY_KIND_PTOP " ] ||
	fail "ENUM_CUDA_MEMCPY_OPER: $got"
got=$(sqlite3 "$T/db" "SELECT group_concat(id || '=' || name, ' ') FROM ENUM_NSYS_EVENT_TYPE WHERE id IN (34, 59, 60)")
[ "$got" = "34=NvtxMark 59=NvtxPushPopRange 60=NvtxStartEndRange" ] || fail "ENUM_NSYS_EVENT_TYPE: $got"
[ "$groups" -gt 50 ] || fail "only $groups groups compared: the queries found too little"
echo "ok: nsys queries over $checked sample traces' exports agree with gpuanalyze in $groups groups"
