/* fuzz_replay.h: what the targets of `gputrace replay`'s report share (fuzz_replay_times.c,
 * fuzz_replay_metrics.c): the launcher's readers of a run's trace and of the replay trace, fed
 * hostile traces in either form of fuzz_analyze.h (the input split at "GTSECOND": the run's trace
 * before it, the replay trace after; without the marker both are the same), with the worker's
 * results and values files made from the input's first bytes, so that the cut into captures, the
 * profiler's kernels left out (launcher_replay_launched.c) and the placing of values are reached
 * with counts that both agree and disagree with the traces. The launcher's sources are compiled
 * into the target itself (they live in no archive). Header-only, as fuzz_analyze.h.
 */
#ifndef GT_FUZZ_REPLAY_H
#define GT_FUZZ_REPLAY_H

#include "tests/fuzz/fuzz_analyze.h"

#include <fcntl.h>

/* The run's trace and the replay trace for this input. */
static inline void fr_traces(const uint8_t *data, size_t size, const char **run, const char **replay)
{
	const uint8_t *second = memmem(data, size, FA_SECOND_MARKER, FA_MARKER_LEN);
	if (second) {
		*run = fa_trace(0, data, (size_t)(second - data));
		second += FA_MARKER_LEN;
		*replay = fa_trace(1, second, (size_t)(data + size - second));
	} else {
		*run = *replay = fa_trace(0, data, size);
	}
}

/* Byte i of the input, 0 past its end. */
static inline unsigned fr_byte(const uint8_t *data, size_t size, size_t i) { return i < size ? data[i] : 0; }

/* Writes text into a memfd of this process (one per slot) and returns its path. */
static inline const char *fr_text(int slot, const char *text)
{
	static int fd[2] = { -1, -1 };
	static char path[2][64];
	if (fd[slot] < 0) {
		fd[slot] = memfd_create(slot ? "gt_fuzz_values" : "gt_fuzz_results", MFD_CLOEXEC);
		if (fd[slot] < 0)
			fa_die("memfd_create");
		snprintf(path[slot], sizeof path[slot], "/proc/self/fd/%d", fd[slot]);
	}
	size_t n = strlen(text);
	if (ftruncate(fd[slot], 0) != 0 || pwrite(fd[slot], text, n, 0) != (ssize_t)n)
		fa_die("writing a text file");
	return path[slot];
}

/* The worker's results file ("ID LAUNCHES VERDICT CORRELATION PROFILED" per capture): up to 4
 * captures whose launches, correlation ids and profiled counts come from the input. */
static inline const char *fr_results(const uint8_t *data, size_t size)
{
	char text[512];
	size_t n = 0, ncap = 1 + fr_byte(data, size, 0) % 4;
	for (size_t i = 0; i < ncap; i++)
		n += (size_t)snprintf(text + n, sizeof text - n, "%zu %u %d %u %u\n", i + 1,
		                      fr_byte(data, size, 1 + i) % 12, (int)(fr_byte(data, size, 5 + i) % 6) - 1,
		                      fr_byte(data, size, 9 + i), fr_byte(data, size, 13 + i) % 4);
	return fr_text(0, text);
}

#endif
