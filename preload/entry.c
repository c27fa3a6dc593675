/* entry.c: the injected library's entry points, the only symbols it exports.
 *
 * - The constructor (LD_PRELOAD) does almost nothing: it reads the configuration, points CUDA's and
 *   NVTX's injection variables at this library, and checks that a CUDA driver exists. Recording
 *   starts later, inside the program's own cuInit, when libcuda calls InitializeInjection: by then
 *   the program's libraries (and any libcupti it brought) are loaded, and a program that never uses
 *   CUDA pays nothing.
 * - InitializeInjection: CUDA's injection entry (CUDA_INJECTION64_PATH), called by libcuda in cuInit.
 * - InitializeInjectionNvtx2: NVTX's injection entry (NVTX_INJECTION64_PATH), called at the first
 *   NVTX call; it starts recording (NVTX ranges may come before cuInit) and hands NVTX to CUPTI.
 * - The destructor finishes a trace whose exit hook did not run.
 */
#include "cupti/libs.h"
#include "preload/log.h"
#include "preload/recorder.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

EXPORT int InitializeInjection(void);
EXPORT int InitializeInjectionNvtx2(const void *(*get_export_table)(uint32_t));

static char self_path[PATH_MAX];

static void find_self(void)
{
	Dl_info info;
	if (!dladdr((void *)find_self, &info) || !info.dli_fname)
		return;
	if (!realpath(info.dli_fname, self_path))
		self_path[0] = '\0';
}

__attribute__((constructor)) static void gputrace_constructor(void)
{
	const struct gtp_config *c = recorder_config();
	if (c->disabled)
		return;
	find_self();
	recorder_install_fork_handlers();
	int own_injection = 0;
	if (self_path[0]) {
		const char *cur = getenv("CUDA_INJECTION64_PATH");
		if (!cur || !*cur) {
			own_injection = setenv("CUDA_INJECTION64_PATH", self_path, 1) == 0;
		} else {
			char real[PATH_MAX];
			own_injection = realpath(cur, real) && strcmp(real, self_path) == 0;
			if (!own_injection)
				gtp_log("CUDA_INJECTION64_PATH names another tool (%s); recording starts now "
				        "instead of at cuInit", cur);
		}
	}
	char why[512];
	if (libs_load_cuda(why, sizeof why) != 0) {
		/* Under the launcher, the launcher says it once for all processes. */
		if (!c->report_path[0])
			gtp_error("no CUDA driver (%s): nothing will be recorded", why);
		return;
	}
	/* NVTX is routed to us only where there is a driver: otherwise a program's first NVTX call
	 * would start a recorder after all, behind the line above (a second line, and a trace). */
	if (self_path[0]) {
		const char *nvtx = getenv("NVTX_INJECTION64_PATH");
		if (!nvtx || !*nvtx)
			setenv("NVTX_INJECTION64_PATH", self_path, 1);
	}
	if (!own_injection)
		recorder_start("LD_PRELOAD");
}

__attribute__((destructor)) static void gputrace_destructor(void)
{
	recorder_finish(RECORDER_END_UNLOAD, 0, 0);
}

EXPORT int InitializeInjection(void)
{
	const char *pre = getenv("LD_PRELOAD");
	recorder_start(pre && strstr(pre, "gputrace") ? "LD_PRELOAD" : "CUDA_INJECTION64_PATH");
	return 1;
}

EXPORT int InitializeInjectionNvtx2(const void *(*get_export_table)(uint32_t))
{
	recorder_start("NVTX_INJECTION64_PATH");
	if (!recorder_running() || !cupti_fn.InitializeInjectionNvtx2 || !recorder_nvtx_may_attach())
		return 0; /* NVTX then runs without a tool, as if none were set */
	return cupti_fn.InitializeInjectionNvtx2(get_export_table);
}
