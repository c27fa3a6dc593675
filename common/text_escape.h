/* text_escape.h: the terminal text rule, shared by every program that shows a person a string it
 * did not choose (a kernel name from a trace, a path the user typed, a variable's value).
 *
 * Printable UTF-8 is written as it is; C0 controls, DEL and C1 controls as visible escapes (\n, \t,
 * \r, \x1b, \u009b), and the bidirectional marks, embeddings, overrides and isolates as \u202e, so
 * that a string can neither move the cursor, clear the screen, start a new line nor reorder what
 * follows it; a byte that does not begin a well-formed UTF-8 sequence (overlong forms, surrogates
 * and code points above U+10FFFF included) is replaced by U+FFFD, one per byte. A backslash stays
 * as it is: the text is for eyes, and nothing parses it back.
 *
 * gpuanalyze's text renderer (analyze/output/escape.h builds its other formats on the same
 * validator) and the gputrace launcher and replay worker use these, so both tools show one string
 * the same way.
 */
#ifndef GT_COMMON_TEXT_ESCAPE_H
#define GT_COMMON_TEXT_ESCAPE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Length of the well-formed UTF-8 sequence at s (1..4) and its code point in *cp (may be NULL),
 * or 0 when the bytes there are not UTF-8. s must be NUL-terminated (a NUL ends a sequence). */
int gt_utf8_len(const unsigned char *s, uint32_t *cp);

/* 1 for a character that steers a terminal or a renderer instead of showing (see above). */
int gt_text_is_control(uint32_t c);

/* Writes control c's visible form to f: \n \t \r, \xNN below 0x80, else \uNNNN. */
void gt_text_visible(FILE *f, uint32_t c);

/* Writes s (NULL: nothing) to f by the text rule. */
void gt_esc_text(FILE *f, const char *s);

/* 1 when gt_esc_text would write the n bytes at s unchanged (checked without writing anything). */
int gt_esc_text_plain(const char *s, size_t n);

/* One line for a person: fmt and its arguments formatted, the whole result written through the
 * text rule (so the words of fmt must be printable text, which the rule leaves as they are), then
 * a newline. Returns 0, or -1 when out of memory or f reports an error. */
int gt_esc_line(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
