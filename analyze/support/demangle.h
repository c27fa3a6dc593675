/* demangle.h: C++ kernel names as a person reads them.
 *
 * The trace keeps the mangled name ("_Z9compositePK5SplatPfi"), which is exact and what json/csv
 * print; text and Markdown show the demangled form ("composite(Splat const*, float*, int)"). The
 * demangler is libstdc++'s __cxa_demangle, found at run time (dlopen of libstdc++.so.6) so that the
 * analyzer, a C program, does not link the C++ runtime; without it names stay mangled.
 */
#ifndef GT_DEMANGLE_H
#define GT_DEMANGLE_H

/* A malloc'd string: the demangled name, or a copy of name when it is not a mangled C++ name, does
 * not demangle, no demangler is available, or demangling it would cost more than the caps of
 * common/mangled.h allow (then one warning per process says so). NULL only when out of memory. */
char *gt_demangle(const char *name);
/* 1 when a demangler was found (for tests and for the documentation's promise). */
int gt_demangle_available(void);

#endif
