# golden.sh: byte-for-byte checks of gpuanalyze's output, for the tests/cli scripts that compare
# with files in an expected/ folder. Sourced (POSIX sh) after the script has set EXPECTED (the
# folder), T (its scratch folder) and fail().

# check NAME CMD...: exit 0, standard output equal to $EXPECTED/NAME, and standard error equal to
# $EXPECTED/NAME.err where that file exists, else empty. With GT_ACCEPT_GOLDEN=1 in the environment
# a differing standard output replaces $EXPECTED/NAME instead (to accept a deliberate change: then
# review `git diff` of the expected folder before committing it).
check() {
	name=$1
	shift
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq 0 ] || fail "'$*' exits $rc: $(cat "$T/err")"
	if [ -f "$EXPECTED/$name.err" ]; then
		cmp -s "$T/err" "$EXPECTED/$name.err" || fail "'$*' stderr: $(cat "$T/err")"
	elif [ -s "$T/err" ]; then
		fail "'$*' wrote to stderr: $(cat "$T/err")"
	fi
	if ! cmp -s "$T/out" "$EXPECTED/$name" && [ "${GT_ACCEPT_GOLDEN:-}" = 1 ]; then
		cp "$T/out" "$EXPECTED/$name" || fail "cannot write $EXPECTED/$name"
		echo "accepted: $EXPECTED/$name"
	fi
	if ! cmp -s "$T/out" "$EXPECTED/$name"; then
		diff -u "$EXPECTED/$name" "$T/out" | head -n 40
		fail "'$*' differs from expected/$name"
	fi
	return 0
}

# error WANT_RC WANT_STDERR CMD...: that exit status, exactly that on standard error, nothing on
# standard output.
error() {
	want_rc=$1 want=$2
	shift 2
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq "$want_rc" ] || fail "'$*' exits $rc, not $want_rc"
	[ -s "$T/out" ] && fail "'$*' wrote to stdout: $(head -c 200 "$T/out")"
	[ "$(cat "$T/err")" = "$want" ] || fail "'$*' says '$(cat "$T/err")', not '$want'"
	return 0
}
