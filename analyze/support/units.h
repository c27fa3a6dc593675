/* units.h: quantities as people read them in text and Markdown ("6.82 MB"), one rule for every
 * command that prints them.
 *
 * Machine formats never use these: JSON and CSV carry the exact integer or double.
 */
#ifndef GT_UNITS_H
#define GT_UNITS_H

#include <stddef.h>

/* A byte count in decimal units: "1.23 GB", "6.82 MB", "504.0 kB", "512 B". Values from kb_from
 * up (1e3 or 1e4: a command that prints sizes of 1000 to 9999 bytes as bytes passes 1e4) are in
 * kB; from 1e6 in MB, from 1e9 in GB. Returns buf. */
const char *gt_bytes_text(double bytes, double kb_from, char *buf, size_t len);

#endif
