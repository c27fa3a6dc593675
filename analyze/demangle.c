/* demangle.c: finds __cxa_demangle once and calls it for names that look mangled.
 *
 * dlsym(RTLD_DEFAULT) first, in case the process already has libstdc++ (a test linked with it);
 * otherwise dlopen("libstdc++.so.6") and look the symbol up there. The library stays loaded for the
 * life of the process: unloading it while a later call may need it gains nothing.
 */
#include "demangle.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

typedef char *(*cxa_demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

static cxa_demangle_fn find_demangler(void)
{
	static int looked;
	static cxa_demangle_fn fn;
	if (looked)
		return fn;
	looked = 1;
	void *sym = dlsym(RTLD_DEFAULT, "__cxa_demangle");
	if (!sym) {
		void *lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
		if (lib)
			sym = dlsym(lib, "__cxa_demangle");
	}
	/* POSIX guarantees that a data pointer from dlsym converts to a function pointer; ISO C does
	 * not, so convert through memcpy. */
	if (sym)
		memcpy(&fn, &sym, sizeof fn);
	return fn;
}

int gt_demangle_available(void) { return find_demangler() != NULL; }

char *gt_demangle(const char *name)
{
	if (!name)
		return NULL;
	/* Itanium ABI names start with _Z; anything else (extern "C" kernels) is already readable. */
	if (strncmp(name, "_Z", 2) == 0) {
		cxa_demangle_fn fn = find_demangler();
		if (fn) {
			int status = -1;
			char *d = fn(name, NULL, NULL, &status);
			if (d && status == 0)
				return d;
			free(d);
		}
	}
	return strdup(name);
}
