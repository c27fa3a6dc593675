/* filter.c: --kernel REGEX, compiled once and matched against a kernel's two names. */
#include "analyze/support/filter.h"

#include "traces/gputrace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gt_name_filter_set(struct gt_name_filter *f, const char *pattern, char *err, size_t errlen)
{
	regex_t re;
	int rc = regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB);
	if (rc != 0) {
		if (err && errlen)
			regerror(rc, &re, err, errlen);
		return rc == REG_ESPACE ? GT_ERR_NOMEM : GT_ERR_ARG;
	}
	char *copy = strdup(pattern);
	if (!copy) {
		regfree(&re);
		if (err && errlen)
			snprintf(err, errlen, "out of memory");
		return GT_ERR_NOMEM;
	}
	gt_name_filter_release(f);
	f->re = re;
	f->pattern = copy;
	f->active = 1;
	return 0;
}

int gt_name_filter_match(const struct gt_name_filter *f, const char *mangled, const char *demangled)
{
	if (!f || !f->active)
		return 1;
	if (mangled && regexec(&f->re, mangled, 0, NULL, 0) == 0)
		return 1;
	return demangled && regexec(&f->re, demangled, 0, NULL, 0) == 0;
}

void gt_name_filter_release(struct gt_name_filter *f)
{
	if (!f || !f->active)
		return;
	regfree(&f->re);
	free(f->pattern);
	f->pattern = NULL;
	f->active = 0;
}
