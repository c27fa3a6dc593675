/* kname.h: a kernel's name shortened for tables, figures and sentences.
 *
 * The trace's name is the traced program's choice, so everything derived from it is built by one
 * length-carrying appender (kname.c) that grows its buffer before each write: no estimate of the
 * result's size, right or wrong, decides where a byte lands.
 */
#ifndef GT_KNAME_H
#define GT_KNAME_H

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

#endif
