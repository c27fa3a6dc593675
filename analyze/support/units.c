/* units.c: human-readable quantities (units.h). */
#include "analyze/support/units.h"

#include <stdio.h>

const char *gt_bytes_text(double bytes, double kb_from, char *buf, size_t len)
{
	if (bytes >= 1e9)
		snprintf(buf, len, "%.2f GB", bytes / 1e9);
	else if (bytes >= 1e6)
		snprintf(buf, len, "%.2f MB", bytes / 1e6);
	else if (bytes >= kb_from)
		snprintf(buf, len, "%.1f kB", bytes / 1e3);
	else
		snprintf(buf, len, "%.0f B", bytes);
	return buf;
}
