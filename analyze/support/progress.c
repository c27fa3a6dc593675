/* progress.c: the progress line (progress.h). */
#include "analyze/support/progress.h"

#include "analyze/output/escape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define QUIET_FOR 1.0  /* seconds before the first line */
#define REDRAW 0.1     /* seconds between lines */

unsigned gt_progress_count;
int gt_progress_on;
static const char *command, *stage;
static uint64_t expected;
static double started, drawn;
static int shown;      /* characters on the line now */

static double now(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		return 0; /* cannot fail for CLOCK_MONOTONIC; no line is better than a wrong one */
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void gt_progress_start(const char *cmd, int quiet)
{
	gt_progress_on = !quiet && isatty(STDERR_FILENO) == 1;
	gt_progress_count = 0;
	command = cmd;
	stage = NULL;
	expected = 0;
	started = now();
	drawn = 0;
	shown = 0;
}

void gt_progress_tick_slow(const struct gt_reader *r)
{
	gt_progress_count = 0;
	double t = now();
	if (t - started < QUIET_FOR || t - drawn < REDRAW)
		return;
	struct gt_tail tail;
	gt_reader_tail(r, &tail);
	unsigned pct = expected                 ? (unsigned)(tail.records * 100 / expected)
	               : tail.file_bytes ? (unsigned)(tail.good_bytes * 100 / tail.file_bytes)
	                                 : 0;
	/* The path as every message shows it: escaped for a terminal (escape.h). */
	char *path = gt_esc_dup(gt_esc_text, gt_reader_path(r) ? gt_reader_path(r) : "");
	char line[512];
	int n = snprintf(line, sizeof line, "gpuanalyze: %s: %s: %s%s%3u%%", command, path ? path : "",
	                 stage ? stage : "", stage ? " " : "", pct > 100 ? 100 : pct);
	free(path);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof line)
		n = sizeof line - 1;
	/* A shorter line than the last leaves its end: blank it. */
	if (fprintf(stderr, "\r%s%*s", line, n < shown ? shown - n : 0, "") < 0 || fflush(stderr) != 0) {
		gt_progress_on = 0; /* a terminal that cannot take it: no more lines */
		return;
	}
	if (n > shown)
		shown = n;
	drawn = t;
}

void gt_progress_stage(const char *what, uint64_t records)
{
	stage = what;
	expected = records;
}

void gt_progress_clear(void)
{
	if (!shown)
		return;
	int width = shown;
	shown = 0;
	if (fprintf(stderr, "\r%*s\r", width, "") < 0 || fflush(stderr) != 0)
		gt_progress_on = 0;
}

void gt_progress_done(void)
{
	gt_progress_clear();
	gt_progress_on = 0;
}
