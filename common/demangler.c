/* demangler.c: finds __cxa_demangle (demangler.h). */
#include "common/demangler.h"

#include <dlfcn.h>
#include <string.h>

gt_cxa_demangle_fn gt_demangler_find(enum gt_demangler_where where)
{
	void *sym = dlsym(RTLD_DEFAULT, "__cxa_demangle");
	if (!sym && where == GT_DEMANGLER_MAY_LOAD) {
		/* Never closed: a later call may need it, and unloading gains nothing. */
		void *lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
		if (lib)
			sym = dlsym(lib, "__cxa_demangle");
	}
	/* POSIX guarantees that a data pointer from dlsym converts to a function pointer; ISO C does
	 * not, so convert through memcpy. */
	gt_cxa_demangle_fn fn = NULL;
	if (sym)
		memcpy(&fn, &sym, sizeof fn);
	return fn;
}
