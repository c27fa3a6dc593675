/* launcher_extract.h: `gputrace replay --extract ID -o DIR TRACE`, one captured kernel launch
 * written out as a standalone reproducer (the module image, the parameter buffer, every buffer
 * before and after the launch, a generated C11 driver-API program, its Makefile and a README).
 *
 * Part of the launcher: no CUDA header is included here or in launcher_extract.c; the generated
 * program includes cuda.h when the user builds it, on their machine.
 */
#ifndef GT_LAUNCHER_EXTRACT_H
#define GT_LAUNCHER_EXTRACT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Writes the reproducer of the capture whose id is capture_id in trace into dir (created when
 * missing; refused when it exists and holds anything, unless replace, and then only the files this
 * writes are overwritten). Returns 0, or 2 after one line "gputrace replay: ..." on stderr. */
int launcher_extract(const char *trace, uint64_t capture_id, const char *dir, int replace);

/* The fixed part of repro.c (launcher_extract_template.c): it follows the generated block. */
extern const char launcher_extract_template[];


#endif
