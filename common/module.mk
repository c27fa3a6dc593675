# common/: libc-only helpers below every stage, each defined once for the whole tool: the
# statistics (stats.c), ULP distances between floats (ulp.c), FNV-1a hashing (fnv.h, inline),
# growing an array by doubling (grow.c), the hash index over a caller's array that every keyed
# table uses (slots.c), the stable radix sort of integers and of records by a leading key (radix.c:
# stats.c's durations, the analyzer's timelines), the terminal text escaping that gpuanalyze and
# gputrace both show untrusted strings through (text_escape.c), what demangling a name would cost
# before paying it (mangled.c, asked by the recorder, the replay worker and the analyzer), the peaks
# file's place (peaks_path.c, shared by gputrace peak and the analyzer), finding libstdc++'s
# __cxa_demangle at run time (demangler.c, dlsym/dlopen: libc's dlfcn, so a binary that uses it
# links -ldl as the analyzer, the recorder, the replay worker and the tests do), and the
# command-line library that gpuanalyze and the gputrace launcher share (cli.c: option tables,
# --help, usage errors, running a child). Their objects go into libgttrace.a,
# the one archive that the recorder, the launcher, the analyzer and the tests all link, so no
# binary needs a second library; common/ itself includes nothing of the project.
TRACE_SRCS += $(wildcard common/*.c)
