/* cuda_probe.cu: the smallest CUDA program, for the preload and launcher tests.
 *
 *   cuda_probe [STATUS [HOW]]   HOW: return (default), exit, _exit, abort, segv, raise-segv, sigterm
 *
 * Calls cudaGetDeviceCount, prints its result (on a machine without a driver: the error), then
 * ends with STATUS (default 0) as HOW says. Built by nvcc with the static cudart, like most CUDA
 * programs: a preload must not change its output or its ending, driver or not.
 */
#include "endings.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

int main(int argc, char **argv)
{
	int status = argc > 1 ? atoi(argv[1]) : 0;
	const char *how = argc > 2 ? argv[2] : "return";
	int n = -1;
	cudaError_t e = cudaGetDeviceCount(&n);
	printf("cuda_probe: cudaGetDeviceCount: %s (%s), %d device(s)\n", cudaGetErrorName(e),
	       cudaGetErrorString(e), e == cudaSuccess ? n : 0);
	fprintf(stderr, "cuda_probe: ending with %s %d\n", how, status);
	fflush(stdout); /* even an _exit ending shows what the probe found */
	if (!strcmp(how, "return"))
		return status;
	endings_end(how, status);
	return 99;
}
