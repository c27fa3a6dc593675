#!/bin/sh
# gpuanalyze shadow and calibrate with hostile reference libraries (tests/fuzz/hostile_refs.c):
# a library is code the user chose to run, but one that misbehaves within the contract
# of gputrace-ref(3) must not make the analyzer misbehave.
#   1. Twelve malformed tables (another ABI, another struct size, a count past the cap, no table,
#      an output twice, a NaN tolerance, an unknown type, no kernel name, no run function, an output
#      past the parameters, orders without names, no outputs): shadow and calibrate refuse each with
#      exit 2 and exactly one line on stderr, with no control character in it (names are escaped).
#   2. A valid table whose strings are all hostile (Markdown headings, terminal escapes, CSV
#      formulas, HTML, invalid UTF-8), run in each of its nine behaviours (refusals with hostile
#      messages, a message without its NUL, odd return codes, NaN and noise written everywhere,
#      impossible gt_ref_ptr sizes, the call's own fields overwritten): every output of shadow (text,
#      md, json, junit) and calibrate (text, md, json) has the exit status and the structure of its
#      twin made with plain strings (escaping_check.py parses each with a real parser), and a
#      refused run's message is cut at the 255 bytes it may fill, never read past.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${GT_BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
G="$build/gpuanalyze"
FIXTURES="$build/tests/test_shadow"
CHECK="$here/escaping_check.py"
CC=${CC:-cc}
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$G" ] || fail "no analyzer at $G"
[ -x "$FIXTURES" ] || fail "no fixture writer at $FIXTURES"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3 to parse the outputs"; exit 77; }
command -v "$CC" >/dev/null 2>&1 || { echo "SKIP: no C compiler ($CC) to build the libraries"; exit 77; }
T=$(mktemp -d /tmp/gt_hostile_refs_XXXXXX) || fail "mktemp"
trap 'rm -rf "$T"' EXIT
"$FIXTURES" --write-fixtures "$T" >/dev/null || fail "cannot write the fixtures"
lib() { # lib NAME FLAGS...: builds hostile_refs.c into $T/NAME.so
	name=$1
	shift
	"$CC" -std=c11 -Wall -Wextra -Werror -O1 -shared -fPIC -I"$root" "$@" -o "$T/$name.so" \
		"$root/tests/fuzz/hostile_refs.c" || fail "hostile_refs.c does not build with $*"
}
lib hostile
lib plain -DHOSTILE_PLAIN
cd "$T" || fail "cd $T"

# one_clean_line FILE: exactly one line, starting with the program's name, no control character.
one_clean_line() {
	[ "$(wc -l <"$1")" -eq 1 ] || fail "$2: $(wc -l <"$1") lines on stderr, want 1: $(head -c 300 "$1")"
	grep -q '^gpuanalyze: ' "$1" || fail "$2: stderr does not start with 'gpuanalyze: ': $(head -c 300 "$1")"
	if LC_ALL=C tr -d '\n' <"$1" | LC_ALL=C grep -q '[[:cntrl:]]'; then
		fail "$2: a control character reached stderr: $(cat -v "$1" | head -c 300)"
	fi
}

# ---- 1. malformed tables ----------------------------------------------------------------------
for v in 1 2 3 4 5 6 7 8 9 10 11 12; do
	lib bad$v -DHOSTILE_VARIANT=$v
	"$G" shadow --ref ./bad$v.so saxpy_ok.gtrace >out 2>err
	rc=$?
	[ $rc -eq 2 ] || fail "shadow with malformed table $v: exit $rc, want 2"
	[ -s out ] && fail "shadow with malformed table $v printed a report"
	one_clean_line err "shadow with malformed table $v"
	"$G" calibrate --kernel saxpy --ref ./bad$v.so saxpy_ok.gtrace >out 2>err
	rc=$?
	[ $rc -eq 2 ] || fail "calibrate with malformed table $v: exit $rc, want 2"
	one_clean_line err "calibrate with malformed table $v"
done
echo "ok: 12 malformed tables refused in one clean line each, by shadow and calibrate"

# ---- 2. a valid table, hostile strings, every behaviour -----------------------------------------
# twin FMT CHECKFMT CMD...: runs CMD with the hostile and the plain library; same status; same shape.
twin() {
	fmt=$1
	cfmt=$2
	shift 2
	"$G" "$@" --format "$fmt" --ref ./hostile.so >h.out 2>h.err
	hr=$?
	"$G" "$@" --format "$fmt" --ref ./plain.so >p.out 2>p.err
	pr=$?
	what="HOSTILE_BEHAVIOUR=$HOSTILE_BEHAVIOUR $* --format $fmt"
	[ $hr -eq $pr ] || fail "$what: exit $hr, with plain strings $pr"
	[ $hr -le 2 ] || fail "$what: exit $hr"
	if [ $hr -eq 2 ]; then
		one_clean_line h.err "$what"
	else
		python3 "$CHECK" "$cfmt" h.out p.out >chk 2>&1 || fail "$what: $(head -n 3 chk)"
	fi
	# A refusal's message fills at most its 255 bytes (behaviour 2 leaves no NUL).
	if grep -q 'MMMMMMMM' h.out h.err; then
		grep -q 'M\{256\}' h.out h.err && fail "$what: the message was read past its buffer"
		grep -q 'M\{255\}' h.out h.err || fail "$what: the message lost its bytes"
	fi
	return 0
}
n=0
for b in 0 1 2 3 4 5 6 7 8; do
	export HOSTILE_BEHAVIOUR=$b
	for t in saxpy_ok.gtrace saxpy_planted.gtrace; do
		for f in text md json; do
			twin $f $f shadow "$t"
			twin $f $f calibrate --kernel saxpy "$t"
			n=$((n + 2))
		done
		twin junit xml shadow "$t"
		n=$((n + 1))
	done
done
# Behaviour 7 overwrites the call's fields in the first run; calibrate's orders that follow on the
# same working copies must still get a sound call (they did not, before the call was rebuilt).
HOSTILE_BEHAVIOUR=7 "$G" calibrate --kernel saxpy --ref ./hostile.so saxpy_ok.gtrace >out 2>err ||
	fail "calibrate after a reference overwrote its call: exit $?: $(head -c 300 err)"
grep -q 'capture 1: ' out || fail "calibrate after a reference overwrote its call: no orders in the report"
echo "ok: $n hostile-library outputs shaped as their plain twins, in 9 behaviours"
echo "PASS: test_shadow_hostile_refs"
