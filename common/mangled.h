/* mangled.h: what demangling a kernel name would cost, known before paying it (internal).
 *
 * A trace's kernel names are chosen by the traced program, and an Itanium C++ name can demangle to
 * exponentially more text than it has: each substitution (S_, S0_, ...) or template parameter
 * (T_, T0_, ...) stands for an earlier piece of the name, which may itself hold references, so a
 * 300-byte name whose pieces each refer twice to the one before demangles to gigabytes, and
 * __cxa_demangle builds all of it (time and memory) before it returns. The analyzer (a trace is
 * untrusted input) and the recorder (the program's own names, in its kernel filter) therefore ask
 * gt_mangled_demangle_ok first; it reads the name once and demangles nothing.
 *
 * The caps, and why these numbers:
 * - GT_DEMANGLE_MAX_MANGLED, 16 KiB of mangled name: the longest of the 14,063 kernel names
 *   measured (CUDA 13's libcublas/libcublasLt, the sample traces with PyTorch's) is 959 bytes,
 *   so the cap is 17 times that; a name beyond it stays mangled.
 * - GT_DEMANGLE_MAX_DEMANGLED, 64 KiB of demangled name, estimated from above: the same names
 *   expand 1.6 times (median), 4 (p99), 11 at most, the longest demangled is 9,225 bytes, and the
 *   estimate is at most 2.6 times the real length; 64 KiB leaves room for all of them while
 *   bounding one name's cost (a millisecond, 64 KiB of output) whatever the trace says.
 * - GT_DEMANGLE_MAX_TOTAL, 64 MiB of demangled text in one analyzer run (estimated before each
 *   name, counted after): every kernel name of CUDA 13's libcublas and libcublasLt together
 *   demangles to a small fraction of it, while 64 KiB per name times a million names would not
 *   be bounded at all.
 * - GT_DEMANGLE_MAX_DEPTH, 256 levels of nesting: deeper names are refused rather than walked
 *   recursively (libstdc++'s demangler has a limit of its own, 2048 components deep).
 * The analyzer states them in gpuanalyze(1) (DEMANGLING) and docs/RELIABILITY.md.
 */
#ifndef GT_MANGLED_H
#define GT_MANGLED_H

#include <stddef.h>

#define GT_DEMANGLE_MAX_MANGLED 16384u
#define GT_DEMANGLE_MAX_DEMANGLED 65536u
#define GT_DEMANGLE_MAX_DEPTH 256
#define GT_DEMANGLE_MAX_TOTAL (64u << 20)

/* Why a name may or may not be demangled. */
enum gt_mangled_verdict {
	GT_MANGLED_OK = 0,        /* within the caps: hand it to the demangler */
	GT_MANGLED_NOT_MANGLED,   /* no "_Z" prefix: nothing to demangle */
	GT_MANGLED_TOO_LONG,      /* over GT_DEMANGLE_MAX_MANGLED */
	GT_MANGLED_TOO_DEEP,      /* nested deeper than GT_DEMANGLE_MAX_DEPTH */
	GT_MANGLED_TOO_LARGE,     /* the estimated demangled form is over GT_DEMANGLE_MAX_DEMANGLED */
};

/* The verdict for the NUL-terminated name; GT_MANGLED_OK when it may be demangled. Reads the name
 * once (time linear in its length, 8 bytes of memory per byte of name) and demangles nothing. The
 * estimate of the demangled length is an upper bound of what libstdc++ prints, saturating at 2^40,
 * and goes to *estimate when that is not NULL (the name's length when it is not mangled or too
 * long). Where the reading meets grammar it does not know (expressions, decltype), it assumes that
 * every reference may double the name (length * 4 * 2^references), which refuses such names once
 * they hold more than a few references. Out of memory counts as GT_MANGLED_TOO_LARGE: refuse
 * rather than risk it. */
enum gt_mangled_verdict gt_mangled_check(const char *name, size_t *estimate);

/* The verdict in words, for a warning: "longer than 16384 bytes", ... */
const char *gt_mangled_verdict_text(enum gt_mangled_verdict v);

#endif
