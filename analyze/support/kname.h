/* kname.h: a kernel's name shortened for tables, figures and sentences.
 *
 * The trace's name is the traced program's choice, so everything derived from it is built by one
 * length-carrying appender (kname.c) that grows its buffer before each write: no estimate of the
 * result's size, right or wrong, decides where a byte lands.
 */
#ifndef GT_KNAME_H
#define GT_KNAME_H

#include <stddef.h>

/* The demangled name without its parameter list and return type: "saxpy" for "saxpy(int, float,
 * float const*, float*)", "ns::f<int>" for "void ns::f<int>(int*)". When the name did not demangle,
 * the source names of a simple mangled name ("_Z5saxpyifPKfPf" -> "saxpy", "_ZN2ns1kEv" ->
 * "ns::k"). Malloc'd; NULL: no memory. */
char *gt_kernel_base_name(const char *mangled, const char *demangled);

/* A name short enough for a sentence: demangled, without return type, namespaces and parameter
 * list, template arguments elided ("void at::native::foo<float, 4>(int)" -> "foo<...>"), cut to
 * 100 bytes ("..." last); the demangled name when nothing is left, "(unnamed)" for "". Malloc'd;
 * NULL: no memory. */
char *gt_kernel_short_name(const char *mangled);

/* Labels for n kernels shown side by side (a table's rows, a figure's points): each its short name,
 * except where two short names are equal ("chain<...>" for chain<float> and chain<double>): those
 * get their base names ("chain<float>"), and where those are equal too, their demangled names. Rows
 * of the same kernel name keep one label. out[i] malloc'd for each i; 0, or -1 with no memory (and
 * nothing left allocated). O(n log n) comparisons. */
int gt_kernel_labels(const char *const *mangled, size_t n, char **out);

#endif
