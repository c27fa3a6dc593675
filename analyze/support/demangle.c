/* demangle.c: finds __cxa_demangle once and calls it for names that look mangled.
 *
 * The lookup is common/demangler.h's: what the process has loaded first (a test linked with
 * libstdc++), otherwise libstdc++.so.6, which then stays loaded for the life of the process.
 *
 * A trace's names are untrusted: __cxa_demangle takes time and memory in the size of what it prints,
 * which a 300-byte name can make gigabytes. So each name is first checked against the caps of
 * common/mangled.h (16 KiB mangled, 64 KiB demangled as estimated from above, 256 levels deep) and
 * left mangled beyond them, with one warning per process naming the first such name.
 *
 * One name's cap is not enough: 40,000 distinct 113-byte names that each demangle to 26 KB (a
 * 132 KB trace) made summary hold 2.3 GB and print 1 GB. So the process also has a budget for all
 * the text it demangles (GT_DEMANGLE_MAX_TOTAL), charged before each call by the estimate; past
 * it, names stay mangled, with the same one warning.
 */
#include "analyze/support/demangle.h"

#include "common/demangler.h"
#include "analyze/support/failure.h"
#include "common/mangled.h"

#include <stdlib.h>
#include <string.h>

/* Looked up once (common/demangler.h): the analyzer asks for every name it prints. */
static gt_cxa_demangle_fn find_demangler(void)
{
	static int looked;
	static gt_cxa_demangle_fn fn;
	if (looked)
		return fn;
	looked = 1;
	fn = gt_demangler_find(GT_DEMANGLER_MAY_LOAD);
	return fn;
}

int gt_demangle_available(void) { return find_demangler() != NULL; }

/* Says once that names are being left mangled, so that it is never silent. The name is cut to 60
 * bytes (the command shows it whole, mangled, escaped for its format), and a byte that is not
 * printable ASCII becomes '?': the trace chose it, and the warning must stay one plain line. */
static void warn_refused(const char *name, const char *why)
{
	static int warned;
	if (warned)
		return;
	warned = 1;
	size_t len = strlen(name);
	char head[61];
	size_t n = len < 60 ? len : 60;
	for (size_t i = 0; i < n; i++)
		head[i] = name[i] >= 0x20 && name[i] < 0x7f ? name[i] : '?';
	head[n] = '\0';
	gt_fail_warn("kernel name '%s%s' (%zu bytes) left mangled: %s (gpuanalyze(1), DEMANGLING); "
	             "any other such name too",
	             head, len > 60 ? "..." : "", len, why);
}

/* Demangled bytes handed out so far, against GT_DEMANGLE_MAX_TOTAL. The analyzer demangles on one
 * thread; a caller that frees a name is still charged for it, which only errs on the safe side. */
static size_t demangled_total;

char *gt_demangle(const char *name)
{
	if (!name)
		return NULL;
	/* Itanium ABI names start with _Z; anything else (extern "C" kernels) is already readable. */
	size_t estimate = 0;
	enum gt_mangled_verdict v = gt_mangled_check(name, &estimate);
	if (v != GT_MANGLED_OK && v != GT_MANGLED_NOT_MANGLED)
		warn_refused(name, gt_mangled_verdict_text(v));
	if (v == GT_MANGLED_OK && estimate > GT_DEMANGLE_MAX_TOTAL - demangled_total) {
		warn_refused(name, "the run's demangled names would pass 64 MiB");
		v = GT_MANGLED_TOO_LARGE;
	}
	if (v == GT_MANGLED_OK) {
		gt_cxa_demangle_fn fn = find_demangler();
		if (fn) {
			int status = -1;
			char *d = fn(name, NULL, NULL, &status);
			if (d && status == 0) {
				size_t n = strlen(d);
				demangled_total += n < GT_DEMANGLE_MAX_TOTAL - demangled_total
				                           ? n
				                           : GT_DEMANGLE_MAX_TOTAL - demangled_total;
				return d;
			}
			free(d);
		}
	}
	return strdup(name);
}
