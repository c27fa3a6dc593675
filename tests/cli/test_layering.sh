#!/bin/sh
# docs/DESIGN.md's "The house", checked: each stage folder includes only the stages it may use, and what
# the design says is loaded with dlopen is never linked.
#   common/   only common/ headers and libc: no CUDA/CUPTI header, no library at all
#   traces/   traces/ and common/ headers; no CUDA/CUPTI/NVTX/NVML header, no library but zstd and libc
#   cupti/    traces/, common/ and cupti/ (never analyze/, preload/)
#   preload/  cupti/, traces/, common/ and preload/ (never analyze/)
#   analyze/  traces/, common/ and analyze/ (never cupti/, preload/, nor a CUDA/CUPTI header);
#             inside it output/ < support/ < shadow/, blocks/ < export/, engines/ < commands/: each
#             uses only those before it (export/ and engines/ never each other)
#   output    only analyze/output/ includes output_direct.h (writing a table, a note or a heading
#             straight to a FILE): every other file fills a document
#   engines   analyze/blocks/, export/, engines/ and shadow/ never speak: no #include of analyze/support/diag.h,
#             no call of gt_error, gt_warn or gt_diag_*, no stdout or stderr (outside comments and
#             strings); they return error codes and hold their words with failure.h's gt_fail
#   launcher  its sources (LAUNCHER_SRCS, LAUNCHER_SHARED of preload/module.mk) reach no CUDA/CUPTI
#             header, directly or through project headers followed transitively, and compile with
#             -I. alone (no CUDA include path)
#   linking   gpuanalyze, gputrace and libgputrace.so need no libcuda, libcupti, libcudart or NVML
# A quoted #include is resolved as the compiler does with the build's -I.: the including
# file's folder, then the root. One line per rule; each offence as FILE:LINE; exit 1
# when any rule is broken. Needs only sh, awk, the C compiler and readelf (or objdump).
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root" || exit 1
abs() { case $1 in /*) echo "$1" ;; *) echo "$root/$1" ;; esac; }
B=$(abs "${GT_BUILD:-build}")
P=$(abs "${GT_PLAIN_BUILD:-build}") # libgputrace.so: the sanitizer pass does not build it
broken=0

# includes FILE...: one "FILE:LINE:q:NAME" (q: "NAME") or "FILE:LINE:a:NAME" (a: <NAME>) per #include.
includes() {
	awk '/^[ \t]*#[ \t]*include[ \t]*[<"]/ {
		s = $0; sub(/^[ \t]*#[ \t]*include[ \t]*/, "", s)
		k = (substr(s, 1, 1) == "<") ? "a" : "q"; s = substr(s, 2)
		i = index(s, (k == "a") ? ">" : "\"")
		if (i > 1) print FILENAME ":" FNR ":" k ":" substr(s, 1, i - 1)
	}' "$@"
}

# resolve FILE NAME: sets r to the project file that `#include "NAME"` in FILE reaches, or to nothing
# (a header from outside the tree, found on a system or CUDA include path).
resolve() {
	r=
	for c in "${1%/*}/$2" "$2"; do
		if [ -f "$c" ]; then r=$c; break; fi
	done
	case $r in
	*../* | */./* | ./*) r=$(cd "${r%/*}" && pwd -P)/${r##*/}; r=${r#"$root"/} ;;
	esac
}

# Headers of the CUDA toolkit (driver, runtime, CUPTI, NVTX, NVML): only cupti/ and preload/ may see them.
is_cuda_header() {
	case $1 in
	cuda.h | cuda_*.h | cudaProfiler*.h | cupti*.h | generated_*.h | driver_types.h | nvtx* | nvToolsExt* | nvml.h) return 0 ;;
	esac
	return 1
}
# Libraries the tree uses elsewhere that are neither zstd nor libc: traces/ must not reach them.
is_other_library_header() {
	case $1 in
	zlib.h | sqlite3.h | libelf.h | gelf.h | cmocka.h) return 0 ;;
	esac
	return 1
}

include_line() { # q|a NAME: sets inc to the #include line as written
	if [ "$1" = q ]; then inc="#include \"$2\""; else inc="#include <$2>"; fi
}

offence() { echo "FAIL: $*"; bad=$((bad + 1)); }
rule_end() { # TEXT: the rule's one line when it held
	if [ "$bad" -eq 0 ]; then echo "ok: $1"; else broken=1; fi
}

# check_folder FOLDER "ALLOWED FOLDERS" NO-CUDA(0|1) NO-OTHER-LIBS(0|1)
check_folder() {
	folder=$1 allowed=$2 no_cuda=$3 no_libs=$4
	bad=0 n=0
	shown=$(echo "$allowed" | sed 's|\([^ ]*\)|\1/|g; s| |, |g') # "cupti traces" -> "cupti/, traces/"
	files=$(find "$folder" -name '*.[ch]' | sort)
	[ -n "$files" ] || { offence "$folder/: no .c or .h file found"; rule_end ""; return; }
	# shellcheck disable=SC2086 # the file names have no spaces (the tree's own names)
	list=$(includes $files)
	while IFS=: read -r f l k name; do
		[ -n "$f" ] || continue
		n=$((n + 1))
		include_line "$k" "$name"
		r=
		[ "$k" = q ] && resolve "$f" "$name"
		if [ -n "$r" ]; then
			# Allowed when r lies in one of the allowed folders (a stage, or a subfolder of one).
			ok=0
			for a in $allowed; do
				case $r in "$a"/*) ok=1 ;; esac
			done
			[ "$ok" = 1 ] || offence "$f:$l: $inc reaches $r: $folder/ may include only $shown"
		elif [ "$no_cuda" = 1 ] && is_cuda_header "$name"; then
			offence "$f:$l: $inc is a CUDA/CUPTI header: $folder/ must never use one"
		elif [ "$no_libs" = 1 ] && is_other_library_header "$name"; then
			offence "$f:$l: $inc: $folder/ may use only zstd and libc"
		fi
	done <<EOF
$list
EOF
	what="$folder/ includes only $shown headers"
	[ "$no_cuda" = 1 ] && what="$what, no CUDA/CUPTI one"
	[ "$no_libs" = 1 ] && what="$what, no library but zstd and libc"
	rule_end "$what ($(echo "$files" | wc -l | tr -d ' ') files, $n includes)"
}

check_folder common "common" 1 1
check_folder traces "traces common" 1 1
check_folder cupti "cupti traces common" 0 0
check_folder preload "preload cupti traces common" 0 0
check_folder analyze "analyze traces common" 1 0
# Inside analyze/, each role uses only the roles below it: output/ (the document, renderers,
# escaping) stands alone; support/ may print through output/; blocks/ (the pieces several analyses
# share) and shadow/ compute; export/ (the export family) and engines/ (one analysis per command)
# build on blocks/ and never reach each other or commands/, which alone parse argv and speak.
check_folder analyze/output "analyze/output traces common" 1 0
check_folder analyze/support "analyze/support analyze/output traces common" 1 0
check_folder analyze/shadow "analyze/shadow analyze/support analyze/output traces common" 1 0
check_folder analyze/blocks "analyze/blocks analyze/support analyze/output traces common" 1 0
check_folder analyze/export "analyze/export analyze/blocks analyze/support analyze/output traces common" 1 0
check_folder analyze/engines "analyze/engines analyze/blocks analyze/shadow analyze/support analyze/output traces common" 1 0

# --- engines never speak: they return an error code and hold their words (failure.h) -----------
# code FILE: the file with its comments, strings and character constants blanked, lines kept.
code() {
	awk '{
		out = ""; n = length($0); i = 1
		while (i <= n) {
			c = substr($0, i, 1); d = substr($0, i, 2)
			if (incomment) { if (d == "*/") { incomment = 0; i += 2 } else i++; continue }
			if (d == "/*") { incomment = 1; i += 2; out = out " "; continue }
			if (d == "//") break
			if (c == "\"" || c == "\047") {
				q = c; i++
				while (i <= n && substr($0, i, 1) != q) i += (substr($0, i, 1) == "\\") ? 2 : 1
				i++; out = out q q; continue
			}
			out = out c; i++
		}
		print out
	}' "$1"
}
# forbid_include FILE HEADER WHY: an offence for each #include of FILE that reaches HEADER.
forbid_include() {
	list=$(includes "$1")
	while IFS=: read -r g l k name; do
		[ -n "$g" ] || continue
		r=
		[ "$k" = q ] && resolve "$g" "$name"
		include_line "$k" "$name"
		[ "$r" = "$2" ] && offence "$g:$l: $inc: $3"
	done <<EOF
$list
EOF
}
bad=0 n=0
for f in $(find analyze/blocks analyze/export analyze/engines analyze/shadow -name '*.[ch]' | sort); do
	n=$((n + 1))
	forbid_include "$f" analyze/support/diag.h \
		"an engine prints nothing; it holds its words with gt_fail (analyze/support/failure.h)"
	hits=$(code "$f" | grep -n -E '(^|[^A-Za-z0-9_])(gt_error|gt_warn|gt_diag_[a-z_]*)[[:space:]]*\(|(^|[^A-Za-z0-9_])std(out|err)([^A-Za-z0-9_]|$)')
	while IFS=: read -r l text; do
		[ -n "$l" ] || continue
		offence "$f:$l: $(sed -n "${l}s/^[[:space:]]*//p" "$f"): an engine prints nothing; it holds its words with gt_fail (analyze/support/failure.h)"
	done <<EOF
$hits
EOF
done
rule_end "analyze/blocks/, export/, engines/ and shadow/ never speak: no diag.h, gt_error, gt_warn, gt_diag_*, stdout or stderr ($n files)"

# --- commands fill documents: only the output layer writes straight to a FILE ----------------
bad=0 n=0
for f in $(find analyze -name '*.[ch]' | sort); do
	case $f in analyze/output/*) continue ;; esac
	n=$((n + 1))
	forbid_include "$f" analyze/output/output_direct.h "outside analyze/output/, fill a document (doc.h) instead"
done
rule_end "only analyze/output/ includes output_direct.h; the rest fills documents ($n files)"

# --- the launcher: no CUDA/CUPTI header, followed through the project's headers ---------------
# Its sources and the CUDA include folders, as the build has them (make evaluates the Makefile and
# preload/module.mk; nothing is built).
# shellcheck disable=SC2016 # $(...) are make's, expanded by make
vars=$(printf 'print-layering:\n\t@echo "LAUNCHER: $(LAUNCHER_SRCS) $(LAUNCHER_SHARED)"\n\t@echo "CUDA_DIRS: $(CUPTI_INC) $(CUDA_INC)"\n' |
	make --no-print-directory -s -f Makefile -f - print-layering 2>/dev/null)
launcher=$(echo "$vars" | sed -n 's/^LAUNCHER: //p')
cuda_dirs=$(echo "$vars" | sed -n 's/^CUDA_DIRS: //p' | tr ' ' '\n' | sort -u)
bad=0
[ -n "$launcher" ] || offence "make could not list LAUNCHER_SRCS and LAUNCHER_SHARED"
# The build compiles the launcher's objects with no CUDA include path (preload/module.mk): what
# `make -n` would run for them in an empty build folder.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/gt_layering.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
objs=
for s in $launcher; do objs="$objs $scratch/obj/${s%.c}.o"; done
# shellcheck disable=SC2086
cmds=$(make --no-print-directory -n -B BUILD="$scratch" $objs 2>&1 | grep -e ' -c ')
[ -n "$cmds" ] || offence "make -n printed no compile command for the launcher's objects"
while read -r cmd; do
	[ -n "$cmd" ] || continue
	src=${cmd##* -c }
	src=${src%% *}
	for d in $cuda_dirs; do
		case " $cmd " in
		*" -I$d "*) offence "the build compiles $src with -I$d (preload/module.mk: LAUNCHER_OBJS get no CUDA path)" ;;
		esac
	done
done <<EOF
$cmds
EOF
queue='' seen=" "
for s in $launcher; do queue="$queue $s@$s"; done
while [ -n "$queue" ]; do
	# shellcheck disable=SC2086 # split on purpose: one "FILE@SOURCE" word per entry
	set -- $queue
	item=$1
	shift
	queue="$*"
	f=${item%@*} from=${item#*@}
	case $seen in *" $f "*) continue ;; esac
	seen="$seen$f "
	via=
	[ "$f" = "$from" ] || via=" (reached from $from)"
	list=$(includes "$f")
	while IFS=: read -r g l k name; do
		[ -n "$g" ] || continue
		r=
		[ "$k" = q ] && resolve "$g" "$name"
		include_line "$k" "$name"
		if [ -n "$r" ]; then
			queue="$queue $r@$from"
		elif is_cuda_header "$name"; then
			offence "$g:$l: $inc is a CUDA/CUPTI header in the launcher$via"
		fi
	done <<EOF
$list
EOF
done
# The compiler's word too: with no CUDA include path a CUDA header is an error, and one found on a
# default path (CPATH, /usr/include) shows in the dependency list.
for s in $launcher; do
	if ! deps=$(${CC:-cc} -std=c11 -D_GNU_SOURCE -I. -M "$s" 2>"$scratch/cc.err"); then
		offence "$s does not compile with -I. alone: $(head -n 3 "$scratch/cc.err")"
		continue
	fi
	for d in $(echo "$deps" | tr -d '\134'); do # the backslashes of make's continued lines
		case $d in *:) continue ;; esac
		is_cuda_header "${d##*/}" && offence "$s: the compiler reaches $d (a CUDA/CUPTI header)"
	done
done
rule_end "the launcher ($(echo "$launcher" | tr -s ' ' '\n' | paste -s -d ' ' -)) reaches no CUDA/CUPTI header (followed through $(echo "$seen" | wc -w | tr -d ' ') files; compiles with -I. alone, and so does the build)"

# --- linking: libcuda, libcupti and NVML are dlopen'ed, never NEEDED ----------------------------
needed() {
	if command -v readelf >/dev/null 2>&1; then
		readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
	else
		objdump -p "$1" | awk '$1 == "NEEDED" { print $2 }'
	fi
}
if command -v readelf >/dev/null 2>&1 || command -v objdump >/dev/null 2>&1; then
	for bin in "$B/gpuanalyze" "$B/gputrace" "$P/libgputrace.so"; do
		bad=0
		name=${bin#"$root"/}
		if [ ! -f "$bin" ]; then
			case $bin in
			*.so) echo "skip: $name not built (no CUPTI headers?)"; continue ;;
			*) offence "$name not built"; rule_end ""; continue ;;
			esac
		fi
		libs=$(needed "$bin")
		[ -n "$libs" ] || offence "$name: no NEEDED entry read (not an ELF file?)"
		for lib in $libs; do
			case $lib in
			libcuda* | libcupti* | libnvidia-ml*) offence "$name: NEEDED $lib (it must be loaded with dlopen, if at all)" ;;
			esac
		done
		rule_end "$name needs no libcuda, libcudart, libcupti or NVML (NEEDED: $(echo "$libs" | paste -s -d ' ' -))"
	done
else
	echo "skip: neither readelf nor objdump: the link side is not checked"
fi

[ "$broken" -eq 0 ] || exit 1
exit 0
