/* capture_select.h: which launches shadow capture takes: the name pattern, the per-kernel spread
 * rule and the byte budget. Pure C (no CUDA), so that every rule is unit-tested.
 *
 * Pattern (GPUTRACE_SHADOW): a glob (fnmatch, no flags), or a POSIX extended regex written between
 * slashes (/regex/, a search: anchor it with ^ and $ to match whole names). A kernel is selected
 * when the pattern matches any of three spellings of its name:
 *   - the mangled name, as CUDA reports it:        _Z5saxpyifPKfPf
 *   - the demangled signature:                     saxpy(int, float, float const*, float*)
 *   - the bare name: the signature without its parameter list and return type:   saxpy
 * so that GPUTRACE_SHADOW=saxpy selects saxpy and not saxpy_nobounds, 'saxpy*' both, and
 * '/^ns::k<float>$/' one instantiation of a template. Demangling needs __cxa_demangle, which is
 * looked up in the program (libstdc++); without it only the mangled name is matched (extern "C"
 * kernels' mangled name is their plain name).
 *
 * Spread (GPUTRACE_SHADOW_MAX = M): a kernel's launches are numbered 0, 1, 2, ... per kernel name.
 * Launch 0 is captured, then each launch whose index is at least twice the last captured one's:
 * 0, 1, 2, 4, 8, 16, ... until M captures of that kernel were taken. A launch that could not be
 * captured (its stream was being captured into a graph, the byte budget was short, ...) passes its
 * turn to the next launch of the kernel. So the first launches are always seen (cold caches, first
 * iteration) and later ones ever more sparsely; with M = 3 the captures are launches 0, 1 and 2,
 * with M = 10 they reach launch 256.
 *
 * Budget (GPUTRACE_SHADOW_BYTES): bytes of device memory copied by all captures together, counted
 * before and after each launch. A launch whose copies would pass the budget is not captured (and is
 * counted); a smaller one later may still fit.
 */
#ifndef GT_CUPTI_CAPTURE_SELECT_H
#define GT_CUPTI_CAPTURE_SELECT_H

#include "common/demangler.h"

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

/* __cxa_demangle's signature (common/demangler.h). */
typedef gt_cxa_demangle_fn capture_demangle_fn;

struct capture_pattern {
	int is_regex;
	int compiled;            /* regex compiled (regfree needed) */
	regex_t re;
	char glob[512];
};

/* Compiles GPUTRACE_SHADOW. 0, or -1 with the reason in why ("empty pattern", regerror's text). */
int capture_pattern_compile(struct capture_pattern *p, const char *text, char *why, size_t n);
void capture_pattern_free(struct capture_pattern *p);

/* The program's __cxa_demangle, or NULL when it has none (among what it loaded, never linked). */
capture_demangle_fn capture_find_demangler(void);

/* The bare name inside a demangled signature: "void ns::k<int, 2>(int*)" -> "ns::k<int, 2>".
 * Writes at most n bytes with the NUL; returns the bare name's length (which may be >= n when cut),
 * 0 when there is none. */
size_t capture_bare_name(const char *demangled, char *out, size_t n);

/* 1 when the pattern selects the kernel whose mangled name is given (see above), else 0. dm may be
 * NULL (match the mangled name only). */
int capture_pattern_match(const struct capture_pattern *p, const char *mangled, capture_demangle_fn dm);

/* ---- spread ---------------------------------------------------------------------------------- */

struct capture_spread {
	uint64_t launches;       /* launches of the kernel seen so far */
	uint64_t next;           /* first launch index that may be captured next */
	uint32_t captured;       /* captures finished (complete or not) */
	uint32_t inflight;       /* captures claimed and not finished */
};

/* Called once per launch of a selected kernel (under the caller's lock). 1 when this launch is to
 * be captured, with its launch index in *index; 0 otherwise. */
int capture_spread_claim(struct capture_spread *s, unsigned max, uint64_t *index);
/* Ends a claim: taken = 1 when a capture was written (complete or not), 0 when the launch could
 * not be captured after all (its turn passes to the next launch). */
void capture_spread_done(struct capture_spread *s, uint64_t index, int taken);

/* ---- budget ----------------------------------------------------------------------------------- */

struct capture_budget {
	uint64_t limit;          /* bytes; 0 = no device memory may be copied */
	uint64_t used;           /* reserved so far */
};

/* Reserves bytes (under the caller's lock): 1 when they fit the budget, 0 when they do not (then
 * nothing is reserved). */
int capture_budget_reserve(struct capture_budget *b, uint64_t bytes);
/* Gives back bytes reserved and not copied (a failed copy, a failed launch). */
void capture_budget_release(struct capture_budget *b, uint64_t bytes);

#endif
