/* output.h: where a trace goes: the GPUTRACE_OUTPUT pattern, expanded, and a safe open.
 *
 * Patterns: %p pid, %h host name, %r rank (from the usual launcher variables, decimal numbers
 * only; "0" when none),
 * %n program name (basename of /proc/self/exe's command), %% a percent sign. A path that ends in
 * '/' or names a directory gets the default file name inside it. An existing file is never
 * replaced or followed through a symlink: ".1", ".2", ... is inserted before ".gtrace" instead.
 * Numbered names are made only beside a regular file or a symbolic link: an existing character
 * device (/dev/null) or FIFO at the name is written directly (nothing is created or removed), and
 * a block device, a socket or a link through /proc (/dev/stdout) is refused.
 */
#ifndef GT_PRELOAD_OUTPUT_H
#define GT_PRELOAD_OUTPUT_H

#include <stddef.h>

/* The most digits a rank may have. */
#define OUTPUT_RANK_DIGITS 9
/* The rank this process has under MPI, Slurm or torchrun, and the variable that said so (NULL):
 * the first of the launchers' variables that holds a decimal number. A variable that holds
 * anything else is refused (one line, once) and the next is looked at. */
const char *output_rank(const char **var);
/* The number of ranks, from the size variable of the launcher whose rank variable output_rank
 * named (WORLD_SIZE beside RANK, SLURM_NTASKS beside SLURM_PROCID, ...): digits only, or NULL. */
const char *output_world_size(const char *rank_var);
/* The program's name, as %n expands it. */
const char *output_program_name(void);
/* Expands pattern into out. 0, or -1 if the result does not fit. */
int output_expand(const char *pattern, char *out, size_t n);
/* Expands and opens for writing with O_EXCL|O_NOFOLLOW, trying numbered names if the file exists.
 * Returns the fd and fills path, or -1 with errno set. The fd is of a regular file exactly when
 * this call created it. */
int output_open(const char *pattern, char *path, size_t n);
/* The same, and on failure why (wn bytes) says why in words: strerror's, or the refusal of a name
 * that is not a place for a trace ("it is a block device; ..."). */
int output_open_why(const char *pattern, char *path, size_t n, char *why, size_t wn);

#endif
