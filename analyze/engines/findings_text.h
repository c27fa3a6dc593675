/* findings_text.h: the words of a finding, shared by every rule family: adding a finding with its
 * strings, times as offsets from the trace's start, plurals, and costs as a share of the GPU span.
 * Private to the findings engine (findings_text.c).
 */
#ifndef GT_FINDINGS_TEXT_H
#define GT_FINDINGS_TEXT_H

#include "analyze/engines/findings.h"
#include "analyze/engines/findings_rules.h"

#include <stddef.h>
#include <stdint.h>

/* A string printed as printf would, on the heap; NULL when out of memory (gt_fd_add then fails). */
char *gt_fd_fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
/* Adds a finding of the rule's id; the strings are taken (freed here on failure). 0 or
 * GT_ERR_NOMEM. The finding has no offset, no kernel, no stream and a count of 0 until set. */
int gt_fd_add(struct gt_findings *F, const struct findings_rule *rule, int sev, char *what, char *where, double cost,
              char *how, char *todo);
/* The finding added last. */
struct gt_finding *gt_fd_last(struct gt_findings *F);
const char *gt_fd_pl(uint64_t n, const char *one, const char *many);
/* Where: ts as an offset from origin, when it is one; and the stream (-1: none). */
void gt_fd_set_where(struct gt_finding *f, uint64_t ts, uint64_t origin, int64_t stream);
/* "at +12.345 ms" from the trace's start, or "at an unknown time"; into buf, returned. */
const char *gt_fd_at(uint64_t ts, uint64_t origin, char *buf, size_t len);
/* warning when cost >= warn_pct of the GPU span, else info. */
int gt_fd_sev_by_cost(const struct gt_findings *F, double cost);
/* "4.2% of the GPU span", or "no GPU span"; into buf, returned. */
const char *gt_fd_pct_of_span(const struct gt_findings *F, double cost, char *buf, size_t len);

#endif
