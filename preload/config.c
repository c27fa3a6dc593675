/* config.c: GPUTRACE_* environment variables -> struct gtp_config, validated (see config.h).
 *
 * One table lists every variable with its default and meaning; --help prints it, and gputrace(1)
 * repeats it, so a test can check that the two agree.
 */
#include "preload/config.h"
#include "cupti/kinds.h" /* CUPTI-free: this file is also part of the gputrace launcher */
#include "cupti/metric_sets.h" /* CUPTI-free too */
#include "preload/log.h"

#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	unsigned bit;
} kind_names[] = {
	{ "kernel", SK_KERNEL }, { "memcpy", SK_MEMCPY }, { "memset", SK_MEMSET },
	{ "runtime", SK_RUNTIME }, { "driver", SK_DRIVER }, { "sync", SK_SYNC },
	{ "nvtx", SK_NVTX }, { "memory", SK_MEMORY }, { "overhead", SK_OVERHEAD },
	{ "graph", SK_GRAPH }, { "api-all", SK_API_ALL },
};
#define NKIND (sizeof kind_names / sizeof kind_names[0])

static const struct {
	const char *var, *def, *help;
} vars[] = {
	{ "GPUTRACE_OUTPUT", "%n-%p.gtrace",
	  "trace path; %p pid, %h host, %r rank, %n program, %% a percent sign. An existing file is "
	  "never replaced: .1, .2, ... is added" },
	{ "GPUTRACE_ACTIVITIES", "default",
	  "comma-separated kinds: kernel memcpy memset runtime driver sync nvtx memory overhead graph "
	  "api-all; 'default' (all but sync, overhead, graph and api-all), 'all', or +kind/-kind to change the default. "
	  "runtime and driver record only the calls that launch, copy, set memory, synchronise, record "
	  "or wait on events, allocate, free and launch graphs; api-all records every call" },
	{ "GPUTRACE_WINDOW", "", "record in windows: ON/PERIOD in ms (200/2000: 200 ms of every 2 s, "
	  "the first window at start); activity is off between windows; empty records all the time" },
	{ "GPUTRACE_KERNELS", "", "record only kernels whose mangled or demangled name matches this "
	  "POSIX extended regex; the rest are counted as filtered" },
	{ "GPUTRACE_BUFFER_KB", "4096", "size of each CUPTI activity buffer (64..262144)" },
	{ "GPUTRACE_BUFFERS_MAX", "256", "most activity buffers held at once (4..4096)" },
	{ "GPUTRACE_FLUSH_MS", "1000", "how often records are written to the file; a SIGKILL loses "
	  "at most about this much (10..600000)" },
	{ "GPUTRACE_SAMPLE_MS", "200", "how often GPU clocks and throttle reasons are sampled through "
	  "NVML; 0 turns sampling off" },
	{ "GPUTRACE_METRICS", "", "hardware counters sampled during the run (CUPTI PM sampling), "
	  "device-wide: comma-separated sets memory (DRAM bytes read and written, L2 bytes) and "
	  "compute (SM throughput, FMA/FP64/tensor pipes, issue), or CUPTI metric names; empty: off" },
	{ "GPUTRACE_METRICS_US", "1000", "the counters' sampling interval in microseconds (10..1000000)" },
	{ "GPUTRACE_LATENCY", "0", "record when each kernel was queued and submitted (0 or 1); costs about 1 us per launch" },
	{ "GPUTRACE_EXIT_TIMEOUT_MS", "10000", "longest wait for the final flush at exit" },
	{ "GPUTRACE_SHADOW", "", "capture launches of kernels whose name matches this pattern for "
	  "shadow replay (a glob, or a regex in /slashes/)" },
	{ "GPUTRACE_SHADOW_MAX", "3", "launches captured per kernel, spread over the run" },
	{ "GPUTRACE_SHADOW_BYTES", "1073741824", "bytes of device memory captured in all" },
	{ "GPUTRACE_CUPTI_PATH", "", "libcupti to load instead of the one found by soname" },
	{ "GPUTRACE_QUIET", "0", "1: print only errors" },
	{ "GPUTRACE_DEBUG", "0", "1: explain what the recorder does, and a fatal signal's stack" },
	{ "GPUTRACE_DISABLE", "0", "1: load but record nothing" },
};

void config_help(FILE *out)
{
	fprintf(out, "Environment (read by libgputrace.so):\n");
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
		fprintf(out, "  %-26s default %-14s\n      %s\n", vars[i].var,
		        vars[i].def[0] ? vars[i].def : "(none)", vars[i].help);
}

struct msgbuf {
	char *p;
	size_t n, used;
	int count;
};

static void note(struct msgbuf *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct msgbuf *m, const char *fmt, ...)
{
	m->count++;
	if (!m->p || m->used >= m->n)
		return;
	/* Values are quoted as the user set them: their control characters (a newline) are escaped
	 * here, so that each message stays one line of the buffer, and one line on stderr. */
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	if (vsnprintf(line, sizeof line, fmt, ap) < 0)
		line[0] = '\0';
	va_end(ap);
	gtp_escape(line, m->p + m->used, m->n - m->used);
	m->used += strlen(m->p + m->used);
	if (m->used + 1 < m->n) {
		m->p[m->used++] = '\n';
		m->p[m->used] = '\0';
	}
}

static unsigned long long get_num(struct msgbuf *m, const char *var, unsigned long long def,
                                  unsigned long long lo, unsigned long long hi)
{
	const char *s = getenv(var);
	if (!s || !*s)
		return def;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || *s == '-' || v < lo || v > hi) {
		note(m, "%s='%s' is not a number in %llu..%llu; using %llu", var, s, lo, hi, def);
		return def;
	}
	return v;
}

static void get_str(struct msgbuf *m, const char *var, const char *def, char *dst, size_t n)
{
	const char *s = getenv(var);
	if (!s)
		s = def;
	if (strlen(s) >= n) {
		note(m, "%s is longer than %zu bytes; using '%s'", var, n - 1, def);
		s = def;
	}
	snprintf(dst, n, "%s", s);
}

/* "default", "all", "kernel,memcpy", "+driver,-runtime". Unknown names are reported in one line
 * together, and a value that names nothing known falls back to the default in that same line. */
static unsigned parse_kinds(struct msgbuf *m, const char *s)
{
	if (!s || !*s)
		return SK_DEFAULT;
	unsigned kinds = 0;
	int relative = 0;
	char unknown[256] = "";
	size_t un = 0;
	const char *p = s;
	while (*p) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		int sign = 0;
		if (len && (*p == '+' || *p == '-')) {
			sign = *p == '+' ? 1 : -1;
			p++;
			len--;
			if (!relative && kinds == 0)
				kinds = SK_DEFAULT;
			relative = 1;
		}
		unsigned bit = 0;
		if (len == 7 && strncmp(p, "default", 7) == 0)
			bit = SK_DEFAULT;
		else if (len == 3 && strncmp(p, "all", 3) == 0)
			bit = SK_ALL;
		else
			for (size_t i = 0; i < NKIND; i++)
				if (strlen(kind_names[i].name) == len && strncmp(kind_names[i].name, p, len) == 0)
					bit = kind_names[i].bit;
		if (!bit && len) {
			int k = snprintf(unknown + un, sizeof unknown - un, "%s'%.*s'", un ? ", " : "",
			                 (int)len, p);
			if (k > 0 && (size_t)k < sizeof unknown - un)
				un += (size_t)k;
		}
		if (sign < 0)
			kinds &= ~bit;
		else
			kinds |= bit;
		if (!e)
			break;
		p = e + 1;
	}
	if (!(kinds & ~SK_API_ALL)) { /* api-all says which calls, not what to record */
		if (un)
			note(m, "GPUTRACE_ACTIVITIES='%s': unknown kind %s, nothing left to record; using the "
			     "default", s, unknown);
		else
			note(m, "GPUTRACE_ACTIVITIES='%s' leaves nothing to record; using the default", s);
		return SK_DEFAULT;
	}
	if (un)
		note(m, "GPUTRACE_ACTIVITIES: unknown kind %s ignored", unknown);
	return kinds;
}

/* "ON/PERIOD" in milliseconds, 10 <= ON < PERIOD <= 1 hour. Anything else: one line, no windows. */
static void parse_window(struct msgbuf *m, const char *s, unsigned *on, unsigned *period)
{
	*on = *period = 0;
	if (!s || !*s)
		return;
	char *end;
	errno = 0;
	unsigned long a = strtoul(s, &end, 10), b = 0;
	int ok = !errno && end != s && *s != '-' && *end == '/';
	if (ok) {
		const char *q = end + 1;
		b = strtoul(q, &end, 10);
		ok = !errno && end != q && *q != '-' && *end == '\0';
	}
	if (!ok || a < 10 || a >= b || b > 3600000) {
		note(m, "GPUTRACE_WINDOW='%s' is not ON/PERIOD in ms with 10 <= ON < PERIOD <= 3600000 "
		     "(e.g. 200/2000); recording all the time", s);
		return;
	}
	*on = (unsigned)a;
	*period = (unsigned)b;
}

int config_load(struct gtp_config *c, char *msgs, size_t n)
{
	struct msgbuf m = { msgs, n, 0, 0 };
	if (msgs && n)
		msgs[0] = '\0';
	memset(c, 0, sizeof *c);
	c->disabled = (int)get_num(&m, "GPUTRACE_DISABLE", 0, 0, 1);
	c->quiet = (int)get_num(&m, "GPUTRACE_QUIET", 0, 0, 1);
	c->debug = (int)get_num(&m, "GPUTRACE_DEBUG", 0, 0, 1);
	get_str(&m, "GPUTRACE_OUTPUT", "%n-%p.gtrace", c->output, sizeof c->output);
	if (!c->output[0]) {
		note(&m, "GPUTRACE_OUTPUT is empty; using '%%n-%%p.gtrace'");
		snprintf(c->output, sizeof c->output, "%%n-%%p.gtrace");
	}
	c->kinds = parse_kinds(&m, getenv("GPUTRACE_ACTIVITIES"));
	get_str(&m, "GPUTRACE_KERNELS", "", c->kernel_filter, sizeof c->kernel_filter);
	if (c->kernel_filter[0]) {
		regex_t re;
		if (regcomp(&re, c->kernel_filter, REG_EXTENDED | REG_NOSUB) != 0) {
			note(&m, "GPUTRACE_KERNELS='%s' is not a valid extended regex; recording all kernels",
			     c->kernel_filter);
			c->kernel_filter[0] = '\0';
		} else {
			regfree(&re);
		}
	}
	c->buffer_bytes = (size_t)get_num(&m, "GPUTRACE_BUFFER_KB", 4096, 64, 262144) << 10;
	c->buffers_max = (unsigned)get_num(&m, "GPUTRACE_BUFFERS_MAX", 256, 4, 4096);
	c->flush_ms = (unsigned)get_num(&m, "GPUTRACE_FLUSH_MS", 1000, 10, 600000);
	c->sample_ms = (unsigned)get_num(&m, "GPUTRACE_SAMPLE_MS", 200, 0, 600000);
	if (c->sample_ms && c->sample_ms < 10) {
		note(&m, "GPUTRACE_SAMPLE_MS=%u is below 10; using 10", c->sample_ms);
		c->sample_ms = 10;
	}
	c->latency = (int)get_num(&m, "GPUTRACE_LATENCY", 0, 0, 1);
	parse_window(&m, getenv("GPUTRACE_WINDOW"), &c->window_on_ms, &c->window_period_ms);
	c->exit_timeout_ms = (unsigned)get_num(&m, "GPUTRACE_EXIT_TIMEOUT_MS", 10000, 100, 600000);
	get_str(&m, "GPUTRACE_CUPTI_PATH", "", c->cupti_path, sizeof c->cupti_path);
	get_str(&m, "GPUTRACE_REPORT", "", c->report_path, sizeof c->report_path);
	get_str(&m, "GPUTRACE_SHADOW", "", c->shadow, sizeof c->shadow);
	c->shadow_max = (unsigned)get_num(&m, "GPUTRACE_SHADOW_MAX", 3, 1, 1000000);
	/* At most what a reader accepts of one capture and of blobs (GT_MAX_CAPTURE_BYTES, 1 GiB, of
	 * GT_MAX_BLOBS_TOTAL's 2 GiB, the rest left to cubins): a larger budget would record a trace
	 * that gpuanalyze refuses whole. */
	c->shadow_bytes = get_num(&m, "GPUTRACE_SHADOW_BYTES", 1ull << 30, 0, 1ull << 30);
	get_str(&m, "GPUTRACE_METRICS", "", c->metrics, sizeof c->metrics);
	if (c->metrics[0]) {
		struct metric_list ml = { 0 };
		char why[160];
		if (metric_sets_parse(c->metrics, &ml, why, sizeof why)) {
			note(&m, "GPUTRACE_METRICS: %s; recording without hardware counters", why);
			c->metrics[0] = '\0';
		}
	}
	c->metrics_us = (unsigned)get_num(&m, "GPUTRACE_METRICS_US", CONFIG_METRICS_US_DEFAULT, 10, 1000000);
	/* Between windows CUPTI is detached (cuptiFinalize), which ends PM sampling under the sampler. */
	if (c->metrics[0] && c->window_period_ms) {
		note(&m, "GPUTRACE_METRICS is not sampled with GPUTRACE_WINDOW (CUPTI is detached between "
		         "windows); recording without hardware counters");
		c->metrics[0] = '\0';
	}
	return m.count;
}

void config_kind_names(unsigned kinds, char *buf, size_t n)
{
	size_t pos = 0;
	if (n)
		buf[0] = '\0';
	for (size_t i = 0; i < NKIND; i++) {
		if (!(kinds & kind_names[i].bit))
			continue;
		int k = snprintf(buf + pos, n > pos ? n - pos : 0, "%s%s", pos ? "," : "",
		                 kind_names[i].name);
		if (k < 0 || (size_t)k >= n - pos)
			return;
		pos += (size_t)k;
	}
}
