/* outfile.h: the analyzer's output files, and the one rule that keeps the user's files safe.
 *
 * A command's outputs (the -o document, report's figures, export's files) are written under a
 * temporary name in their target's folder and renamed over the target only when the command has
 * succeeded: a failed command removes its temporaries and leaves the old file as it was, and a
 * reader never sees half a file. An output that is the same file as one of the command's inputs
 * (same device and inode, whatever links lead there) is refused in one line before anything is
 * written. Standard output ("-" or no -o), an existing name that is not a regular file (a device
 * node, a FIFO), and a symbolic link in /dev or /proc (/dev/stdout, /proc/self/fd/1: names of
 * open files) are written in place: they cannot be replaced by a rename.
 *
 * The runner (cmd_output.c) owns the sequence: gt_outfile_begin when a command starts, its inputs
 * named with gt_outfile_input, the outputs opened with gt_output_open (or gt_outfile_reserve for a
 * writer that opens by name, SQLite) and closed with gt_output_close, and gt_outfile_end when its
 * exit status is known.
 */
#ifndef GT_OUTFILE_H
#define GT_OUTFILE_H

#include <stdio.h>

/* Forgets the inputs of a previous command, and removes any temporary it left pending. */
void gt_outfile_begin(void);
/* Remembers the file at path as an input of the command (nothing when there is none). 0, or
 * GT_ERR_NOMEM. */
int gt_outfile_input(const char *path);
/* 0 when path (NULL or "-": standard output) is not the same file as an input; else GT_EXIT_USAGE
 * after one line. */
int gt_outfile_check(const char *path);

/* Output of a subcommand: stdout when path is NULL or "-"; else a temporary file beside the target
 * (the umask's permissions for a new file, the old file's for one it replaces), or the name itself
 * where it cannot be replaced (see above). What engines hold is said first. NULL after reporting
 * "cannot write 'path': ..." or the refusal of an input (the caller returns GT_EXIT_USAGE). */
FILE *gt_output_open(const char *path);
/* Says what engines hold, then flushes and closes (stdout is flushed, not closed); a write error
 * is reported and gives GT_EXIT_USAGE, otherwise 0. The file replaces its target only at
 * gt_outfile_end. */
int gt_output_close(FILE *f, const char *path);
/* For a writer that opens its file by name: the path of a new, empty temporary file beside path's
 * target, renamed over it at gt_outfile_end. The target must be a regular file or nothing: anything
 * else is refused ("cannot write 'path': not a regular file (why)"). NULL after one line. The path
 * stays valid until gt_outfile_end. */
const char *gt_outfile_reserve(const char *path, const char *why);

/* Ends the command's outputs: with commit, renames each temporary over its target (a failure is
 * reported, and the rest still done); without, removes them. 0, or GT_EXIT_USAGE after a failure. */
int gt_outfile_end(int commit);

#endif
