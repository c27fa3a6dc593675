/* common/demangler.h: libstdc++'s __cxa_demangle, found at run time, never linked.
 *
 * The analyzer, the recorder, the capture selector and the replay worker are C programs or live in
 * one; none links the C++ runtime, yet all of them show or match C++ kernel names demangled. So
 * each asks here for the demangler: first among what the process has already loaded (a C++ program
 * brought libstdc++; a test linked it), then, where the caller may load it, from libstdc++.so.6.
 *
 * This is only the lookup. A trace's names are untrusted and the demangler's time and memory grow
 * with what it prints, so every caller checks a name first (common/mangled.h) as it always did.
 */
#ifndef GT_COMMON_DEMANGLER_H
#define GT_COMMON_DEMANGLER_H

#include <stddef.h>

/* __cxa_demangle's signature: a malloc'ed string and *status 0, or NULL and *status < 0. */
typedef char *(*gt_cxa_demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

enum gt_demangler_where {
	/* Only what the process has loaded (dlsym RTLD_DEFAULT). For code inside a traced program:
	 * loading libstdc++ into a program that did not bring it would run its constructors there. */
	GT_DEMANGLER_LOADED,
	/* That, else dlopen("libstdc++.so.6"), which then stays loaded for the life of the process. */
	GT_DEMANGLER_MAY_LOAD,
};

/* The demangler, or NULL when there is none. Looks it up on every call (no cache): a program may
 * load libstdc++ later, and callers that want one lookup keep the answer themselves. */
gt_cxa_demangle_fn gt_demangler_find(enum gt_demangler_where where);

#endif
