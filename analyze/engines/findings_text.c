/* findings_text.c: the words of findings (findings_text.h), and the public names findings.h
 * gives severities and clock reasons. One place, so that every rule family words times, plurals
 * and shares of the GPU span the same way.
 */
#include "analyze/engines/findings_text.h"

#include "common/grow.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *gt_severity_name(int sev)
{
	static const char *const n[] = { "info", "warning", "error" };
	return sev >= 0 && sev <= 2 ? n[sev] : "?";
}

char *gt_clock_reasons_text(uint64_t mask, char *buf, size_t len)
{
	static const char *const names[] = {
		"GpuIdle", "ApplicationsClocksSetting", "SwPowerCap", "HwSlowdown", "SyncBoost",
		"SwThermalSlowdown", "HwThermalSlowdown", "HwPowerBrakeSlowdown", "DisplayClockSetting",
	};
	size_t n = 0;
	if (len)
		buf[0] = '\0';
	for (int b = 0; b < 64 && n < len; b++) {
		if (!(mask >> b & 1))
			continue;
		if (b < (int)(sizeof names / sizeof names[0]))
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", names[b]);
		else
			n += (size_t)snprintf(buf + n, len - n, "%s0x%llx", n ? ", " : "", 1ull << b);
	}
	return buf;
}

char *gt_fd_fmt(const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	char *s = NULL;
	if (vasprintf(&s, f, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

int gt_fd_add(struct gt_findings *F, const struct findings_rule *rule, int sev, char *what, char *where, double cost,
              char *how, char *todo)
{
	struct gt_finding *f = NULL;
	if (what && where && how && todo && !gt_grow_zeroed(&F->f, &F->cap, F->n + 1, sizeof *F->f, 16))
		f = &F->f[F->n];
	if (!f) {
		free(what);
		free(where);
		free(how);
		free(todo);
		return GT_ERR_NOMEM;
	}
	memset(f, 0, sizeof *f);
	snprintf(f->id, sizeof f->id, "%s", rule->id);
	f->severity = sev;
	f->what = what;
	f->where = where;
	f->cost_ns = cost;
	f->cost_how = how;
	f->todo = todo;
	f->stream = -1;
	F->n++;
	return 0;
}

struct gt_finding *gt_fd_last(struct gt_findings *F) { return &F->f[F->n - 1]; }

const char *gt_fd_pl(uint64_t n, const char *one, const char *many) { return n == 1 ? one : many; }

void gt_fd_set_where(struct gt_finding *f, uint64_t ts, uint64_t origin, int64_t stream)
{
	if (ts && ts >= origin) {
		f->has_offset = 1;
		f->offset_ns = ts - origin;
	}
	f->stream = stream;
}

const char *gt_fd_at(uint64_t ts, uint64_t origin, char *buf, size_t len)
{
	if (!ts || ts < origin)
		snprintf(buf, len, "at an unknown time");
	else
		snprintf(buf, len, "at +%.3f ms", (double)(ts - origin) / 1e6);
	return buf;
}

static double span(const struct gt_findings *F)
{
	return F->gpu_last > F->gpu_first ? (double)(F->gpu_last - F->gpu_first) : 0;
}

int gt_fd_sev_by_cost(const struct gt_findings *F, double cost)
{
	double s = span(F);
	return s > 0 && cost >= F->opt.warn_pct / 100 * s ? GT_SEV_WARNING : GT_SEV_INFO;
}

const char *gt_fd_pct_of_span(const struct gt_findings *F, double cost, char *buf, size_t len)
{
	double s = span(F);
	if (s > 0)
		snprintf(buf, len, "%.1f%% of the GPU span", 100 * cost / s);
	else
		snprintf(buf, len, "no GPU span");
	return buf;
}
