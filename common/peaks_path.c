/* peaks_path.c: the one rule for the measured-peaks file's place (peaks_path.h). */
#include "common/peaks_path.h"

#include <stdio.h>
#include <stdlib.h>

static const char *fits(char *buf, size_t len, int n)
{
	return n < 0 || (size_t)n >= len ? NULL : buf;
}

const char *gt_peaks_default_path(char *buf, size_t len, int *in_cache)
{
	if (in_cache)
		*in_cache = 0;
	const char *env = getenv("GPUTRACE_PEAKS");
	if (env && *env)
		return fits(buf, len, snprintf(buf, len, "%s", env));
	if (in_cache)
		*in_cache = 1;
	const char *xdg = getenv("XDG_CACHE_HOME");
	if (xdg && xdg[0] == '/')
		return fits(buf, len, snprintf(buf, len, "%s/gputrace/peaks", xdg));
	const char *home = getenv("HOME");
	if (!home || !*home)
		return NULL;
	return fits(buf, len, snprintf(buf, len, "%s/.cache/gputrace/peaks", home));
}
