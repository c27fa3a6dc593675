/* config.h: the recorder's settings, read once from the environment.
 *
 * Every variable is validated; a value that does not parse is reported in one "gputrace:" line and
 * replaced by its documented default, never fatal. gputrace(1) documents each variable; `gputrace
 * --help` lists them from the same table (config_help()).
 */
#ifndef GT_PRELOAD_CONFIG_H
#define GT_PRELOAD_CONFIG_H

#include <stddef.h>
#include <stdio.h>

struct gtp_config {
	int disabled;               /* GPUTRACE_DISABLE=1 */
	char output[1024];          /* GPUTRACE_OUTPUT pattern */
	unsigned kinds;             /* GPUTRACE_ACTIVITIES (session_kind bits) */
	char kernel_filter[512];    /* GPUTRACE_KERNELS: POSIX ERE on mangled or demangled names */
	size_t buffer_bytes;        /* GPUTRACE_BUFFER_KB */
	unsigned buffers_max;       /* GPUTRACE_BUFFERS_MAX */
	unsigned flush_ms;          /* GPUTRACE_FLUSH_MS */
	unsigned sample_ms;         /* GPUTRACE_SAMPLE_MS, 0 = no clock sampling */
	int latency;                /* GPUTRACE_LATENCY: queued/submitted timestamps */
	unsigned window_on_ms;      /* GPUTRACE_WINDOW ON/PERIOD: recording windows; 0 = always on */
	unsigned window_period_ms;
	unsigned exit_timeout_ms;   /* GPUTRACE_EXIT_TIMEOUT_MS: bound on the final flush */
	int debug;                  /* GPUTRACE_DEBUG=1 */
	int quiet;                  /* GPUTRACE_QUIET=1: no lines on stderr except errors */
	char cupti_path[512];       /* GPUTRACE_CUPTI_PATH */
	char report_path[512];      /* GPUTRACE_REPORT: where the launcher wants the tally */
	/* shadow capture (launch capture for replay) */
	char shadow[512];           /* GPUTRACE_SHADOW: kernel name pattern */
	unsigned shadow_max;        /* GPUTRACE_SHADOW_MAX: launches captured per kernel */
	unsigned long long shadow_bytes; /* GPUTRACE_SHADOW_BYTES: byte cap for all captures */
	/* hardware counters (PM sampling) */
	char metrics[512];          /* GPUTRACE_METRICS: sets and metric names; empty = off */
	unsigned metrics_us;        /* GPUTRACE_METRICS_US: the sampling interval */
};

/* GPUTRACE_METRICS_US's default: the interval whose cost was measured (docs/METRICS.md). */
#define CONFIG_METRICS_US_DEFAULT 1000

/* Reads the environment into c. Problems are written (one line each) into msgs for the caller to
 * print; returns how many there were. */
int config_load(struct gtp_config *c, char *msgs, size_t n);
/* Comma-separated names of the kinds in a session_kind bit set. */
void config_kind_names(unsigned kinds, char *buf, size_t n);
/* The table of variables, defaults and meanings, for --help. */
void config_help(FILE *out);

#endif
