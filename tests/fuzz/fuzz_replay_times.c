/* fuzz_replay_times.c: the timing table after `gputrace replay` (launcher_replay_times.c) on a
 * hostile run trace and replay trace (fuzz_replay.h).
 *
 * FUZZ_LIBS: libgtanalyze.a libgttrace.a -ldl
 */
#include "tests/fuzz/fuzz_replay.h"

#include "preload/launcher/launcher_replay_launched.c"
#include "preload/launcher/launcher_replay_times.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fa_quiet();
	const char *run, *replay;
	fr_traces(data, size, &run, &replay);
	FILE *out = fopen("/dev/null", "w");
	if (!out)
		fa_die("/dev/null");
	int rc = launcher_replay_times(run, replay, fr_results(data, size), out);
	fclose(out);
	if (rc != 0 && rc != -1) /* 0, or -1 having said what could not be read */
		abort();
	return 0;
}
