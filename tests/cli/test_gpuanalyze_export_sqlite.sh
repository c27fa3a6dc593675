#!/bin/sh
# gpuanalyze export --format sqlite: the database has exactly the tables, views and columns, in
# order and with the tables' types, that gputrace-sqlite(5) documents; a row per record of each
# type (against gpuanalyze info's counts, on every sample recording); names that are not UTF-8
# stored as U+FFFD; an existing file replaced; a trace that fails mid-read leaves no database
# behind; stdout and -z refused. Needs the sqlite3 command (Debian package sqlite3); exits 77
# without it.
why="read the exported database"
. "$(dirname "$0")/sqlite_fixture.sh"
MAN="$root/man/gputrace-sqlite.5"
db="$T/stats.sqlite"
echo "not a database" >"$db"
"$G" export --format sqlite -o "$db" "$T/stats.gtrace" >"$T/out" 2>"$T/err" || fail "export exits $?: $(cat "$T/err")"
[ -s "$T/out" ] || [ -s "$T/err" ] && fail "export printed: $(cat "$T/out" "$T/err")"

# The schema, as the man page lists it: ".SS TABLE" under TABLES, then ".B COLUMN TYPE" entries;
# each table's columns in order, tables by name. A view's columns are compared by name (SQLite
# gives a computed column no type), a table's by name and type.
sed -n '/^\.SH TABLES/,/^\.SH EXAMPLES/p' "$MAN" | awk '
	/^\.SS / { t = $2; next }
	/^\.B [a-zA-Z_0-9]+ (INTEGER|TEXT|REAL)$/ { print t "|" $2 "|" $3 }' | sort -t'|' -k1,1 -s >"$T/man"
[ -s "$T/man" ] || fail "no columns found in $MAN"
sqlite3 "$db" "SELECT m.name || '|' || p.name || '|' || CASE m.type WHEN 'view' THEN 'view' ELSE p.type END
	FROM sqlite_master m, pragma_table_info(m.name) p
	WHERE m.type IN ('table', 'view') ORDER BY m.name, p.cid" >"$T/db" || fail "cannot read the schema"
views=$(sqlite3 "$db" "SELECT name FROM sqlite_master WHERE type = 'view'")
[ -n "$views" ] || fail "the database has no views"
for v in $views; do
	sed -i "s/^\($v|[^|]*\)|.*/\1|view/" "$T/man"
done
if ! cmp -s "$T/man" "$T/db"; then
	diff "$T/man" "$T/db" | head -n 20
	fail "the database's tables, views and columns differ from gputrace-sqlite(5) (< man, > database)"
fi
echo "schema: $(wc -l <"$T/db") columns of $(cut -d'|' -f1 "$T/db" | uniq | wc -l) tables and views as gputrace-sqlite(5) lists them"

# Rows per record type, against gpuanalyze info, on every sample recording.
n=0
for f in "$root"/traces/samples/*.gtrace "$T/stats.gtrace"; do
	[ -f "$f" ] || continue
	"$G" export --format sqlite -o "$T/s.sqlite" "$f" 2>"$T/err" || fail "export $f exits $?: $(cat "$T/err")"
	"$G" info --format json "$f" >"$T/info.json" || fail "info $f"
	for pair in kernel:kernels memcpy:copies memset:memsets api:api_calls nvtx:nvtx_ranges sync:syncs \
	            memory:memory_ops graph_launch:graph_launches overhead:overheads dropped:dropped \
	            process:process_events clock_sample:clock_samples clock_sync:clock_syncs; do
		type=${pair%%:*} table=${pair#*:}
		want=$(sed -n '/"records_by_type"/,/}/p' "$T/info.json" | sed -n "s/^ *\"$type\": *\([0-9]*\).*/\1/p")
		got=$(sqlite3 "$T/s.sqlite" "SELECT count(*) FROM $table")
		[ "${want:-0}" = "$got" ] || fail "$f: $table has $got rows, info counts ${want:-0} $type records"
	done
	n=$((n + 1))
done
echo "row counts equal gpuanalyze info's record counts in $n traces"

# Text: the name that is not UTF-8, with U+FFFD; the CSV-hostile one as it is; NVTX parents.
got=$(sqlite3 "$db" "SELECT hex(name) FROM kernels WHERE name LIKE 'bad%' LIMIT 1")
[ "$got" = "626164EFBFBD6E616D65" ] || fail "a name that is not UTF-8 is stored as $got, not bad U+FFFD name"
got=$(sqlite3 "$db" "SELECT count(*) FROM kernels WHERE name = '=HYPERLINK(\"x\",\"y\"), k'")
[ "$got" = 3 ] || fail "the name with quotes and a comma: $got rows, not 3"
got=$(sqlite3 "$db" "SELECT count(*) FROM nvtx_ranges r JOIN nvtx_ranges p ON p.id = r.parent_id
	WHERE r.name = 'forward' AND p.name = 'step' AND p.start_ns <= r.start_ns AND r.end_ns <= p.end_ns")
[ "$got" = 3 ] || fail "forward's parent is step in $got of 3 instances"
got=$(sqlite3 "$db" "SELECT count(*) FROM nvtx_ranges WHERE parent_id IS NULL AND kind = 'push-pop' AND name = 'step'")
[ "$got" = 4 ] || fail "$got top-level step ranges, not 4"

# A trace that fails mid-read: one line, exit 2, no database left.
bad="$root/tests/data/bad/frame_checksum.gtrace"
"$G" export --format sqlite -o "$T/bad.sqlite" "$bad" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 2 ] || fail "export of $bad exits $rc, not 2"
[ "$(wc -l <"$T/err")" -eq 1 ] || fail "export of $bad says: $(cat "$T/err")"
[ -e "$T/bad.sqlite" ] && fail "export of $bad left a database behind"

. "$root/tests/cli/golden.sh"
error 2 "gpuanalyze: export: --format sqlite writes a database file, not standard output: give -o FILE (see 'gpuanalyze export --help')" \
	"$G" export --format sqlite -o - "$T/stats.gtrace"
error 2 "gpuanalyze: export: -z does not apply to --format sqlite: a database is read in place (see 'gpuanalyze export --help')" \
	"$G" export --format sqlite -z -o "$T/z.sqlite" "$T/stats.gtrace"
exit 0
