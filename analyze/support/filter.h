/* filter.h: which kernels a --kernel REGEX selects.
 *
 * A POSIX extended regular expression (regex.h), unanchored, matched against both the name the trace
 * holds (mangled: "_Z9compositePK5SplatPfi") and its demangled form ("composite(Splat const*, float*,
 * int)"): a kernel is selected when either matches, so users can type what they see in either form.
 */
#ifndef GT_FILTER_H
#define GT_FILTER_H

#include <regex.h>
#include <stddef.h>

struct gt_name_filter {
	int active;      /* 0: selects everything */
	char *pattern;
	regex_t re;
};

/* Compiles pattern (replacing an earlier one). 0, or GT_ERR_ARG with regerror()'s text in err, or
 * GT_ERR_NOMEM. */
int gt_name_filter_set(struct gt_name_filter *f, const char *pattern, char *err, size_t errlen);
/* 1 when f is inactive or matches either name (demangled may be NULL). */
int gt_name_filter_match(const struct gt_name_filter *f, const char *mangled, const char *demangled);
void gt_name_filter_release(struct gt_name_filter *f);

#endif
