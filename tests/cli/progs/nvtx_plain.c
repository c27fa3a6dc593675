/* nvtx_plain.c: a C program that marks NVTX ranges and never uses CUDA.
 *
 *   nvtx_plain [STATUS]
 *
 * NVTX (header-only, nvtx3) looks for a tool in NVTX_INJECTION64_PATH at the first call; the
 * recorder sets that variable. Without a CUDA driver nothing can be recorded: the program's output
 * and status must be unchanged and no trace file may appear.
 */
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int status = argc > 1 ? atoi(argv[1]) : 0;
	nvtxRangePushA("outer");
	nvtxMarkA("mark");
	nvtxRangePushA("inner");
	printf("nvtx_plain: inside two ranges\n");
	nvtxRangePop();
	nvtxRangePop();
	fprintf(stderr, "nvtx_plain: done\n");
	return status;
}
