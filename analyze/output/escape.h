/* escape.h: the one place where a string from a trace is made safe for the format it lands in.
 *
 * A trace is untrusted input: the traced program chooses its kernel, NVTX range and domain names,
 * and its metadata (command line, host and device names) can say anything. Each output format has
 * one rule here, and output.c (tables, notes, JSON), export.c, svg.c, junit.c and every command
 * that writes a line of its own go through it, so that no name can add structure to a document:
 *
 *   text (a terminal): printable UTF-8 as it is; C0 controls, DEL and C1 controls shown as visible
 *        escapes (\n, \t, \r, \x1b, \u009b), and the bidirectional overrides and isolates as
 *        \u202e, so a name can neither move the cursor, clear the screen, start a new line nor
 *        reorder what follows it. A backslash stays as it is (names are for eyes; no reader
 *        parses the text back).
 *   Markdown (GFM): inline text backslash-escapes \ ` * _ < > [ ] | # & ~, and a leading - + = or
 *        "1." / "1)" that would start a list or a rule; a table cell likewise, without # (a table
 *        cell holds inline content only); line breaks become spaces, other controls the text
 *        rule's visible escapes. A code span is fenced by more backticks than the longest run
 *        inside it, with | escaped inside a table. Nothing a name holds can start a line, so it
 *        can never open a heading, a list item, a table or a block.
 *   CSV: RFC 4180 (a field holding a comma, a double quote, CR or LF is quoted, quotes doubled;
 *        lines end in LF), and a string field beginning with = + - @ TAB CR or LF gets a leading
 *        single quote, as OWASP recommends against formula injection. Only string fields: the
 *        table writes numbers itself, so -1.5 stays a number.
 *   JSON: quotes, backslashes and every control character escaped; always valid JSON.
 *   UTF-8 (SQLite TEXT, where values are bound, never spliced into SQL): every valid character as
 *        it is, controls included; only the invalid bytes below are replaced.
 *   XML (SVG figures, JUnit): & < > " ' as entities, TAB LF CR as character references, the other
 *        characters XML 1.0 cannot hold (C0 controls, U+FFFE, U+FFFF) as U+FFFD.
 *   link target (a Markdown link's destination: a file name of ours, the user's -o): every byte
 *        but the unreserved characters of RFC 3986 (A-Z a-z 0-9 - . _ ~) and / percent-encoded,
 *        so that a space or a ) in the name still gives a link to that file.
 *
 * Everywhere else, a byte that does not begin a well-formed UTF-8 sequence (overlong forms, surrogates
 * and code points above U+10FFFF included) is replaced by U+FFFD, one per byte: JSON writes \ufffd,
 * the others the character itself.
 */
#ifndef GT_ESCAPE_H
#define GT_ESCAPE_H

#include "common/text_escape.h" /* the text rule, gt_utf8_len and gt_esc_text_plain: shared with gputrace */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* An escaper writes s (NULL: nothing) to f by one format's rule. */
typedef void gt_escaper(FILE *f, const char *s);

gt_escaper gt_esc_text;     /* a terminal */
gt_escaper gt_esc_md;       /* Markdown running text: a paragraph, a list item, a heading's tail */
gt_escaper gt_esc_md_cell;  /* a GFM table cell */
gt_escaper gt_esc_md_code;  /* a code span in running text */
gt_escaper gt_esc_md_code_cell; /* a code span in a GFM table cell */
gt_escaper gt_esc_csv;      /* a CSV string field */
gt_escaper gt_esc_json;     /* a JSON string, with its quotes */
gt_escaper gt_esc_xml;      /* XML character data or an attribute value (either quote) */
gt_escaper gt_esc_utf8;     /* well-formed UTF-8 only: a value stored as data (SQLite TEXT) */
gt_escaper gt_esc_link;     /* a Markdown link target, percent-encoded */

/* s through esc as a malloc'd string; NULL when out of memory. */
char *gt_esc_dup(gt_escaper *esc, const char *s);

/* printf whose format is ours and whose %s arguments are untrusted: each one goes through esc
 * (after its precision cuts it, before its width pads it), and so does %m's text; the other
 * conversions are printf's. %n and positional arguments (%1$s) are not supported. */
void gt_esc_printf(FILE *f, gt_escaper *esc, const char *format, ...) __attribute__((format(printf, 3, 4)));
void gt_esc_vprintf(FILE *f, gt_escaper *esc, const char *format, va_list ap);

#endif
