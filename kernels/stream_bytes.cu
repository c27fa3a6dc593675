/*
 * kernels/stream_bytes.cu: streaming kernels whose device-memory traffic is known exactly, the
 * subject against which sampled and replayed DRAM byte counters are checked. Two arrays of N
 * floats (1 GiB each by default, twenty times the H200's 50 MB L2, so almost nothing stays in L2
 * from one pass to the next) are set once; then R launches of `copy` (b[i] = a[i]: N*4 bytes read,
 * N*4 written) and R of `scale` (a[i] = s*b[i]: N*4 read, N*4 written),
 * alternating, with a pause before the first and after the last so that counter samples outside
 * the launches see an idle device. One line gives the analytic count:
 *   stream bytes_read=<R*2*N*4> bytes_written=<R*2*N*4> launches=<2R> n=<N>
 * A grid-stride loop over float4 makes every element read and written exactly once per launch.
 */
#include "common.cuh"

#include <thread>

__global__ void copy_kernel(const float4 *__restrict__ a, float4 *__restrict__ b, size_t n4)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x)
		b[i] = a[i];
}

__global__ void scale_kernel(const float4 *__restrict__ b, float4 *__restrict__ a, float s, size_t n4)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) {
		float4 v = b[i];
		a[i] = make_float4(v.x * s, v.y * s, v.z * s, v.w * s);
	}
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: stream_bytes [--mib M] [--reps R] [--pause-ms P]\n"
		"Streams two arrays of M MiB (default 1024) through R copy and R scale launches\n"
		"(default 10 each) and prints the bytes they read and write by construction.\n"
		"Exit: 0 ok, 1 CUDA error, 2 bad usage, 3 no CUDA device.\n");
}

int main(int argc, char **argv)
{
	g_prog = "stream_bytes";
	uint64_t mib = 1024, reps = 10, pause_ms = 100;
	parse_options(argc, argv, usage,
		      {{"--mib", &mib, 1, 32768}, {"--reps", &reps, 1, 100000}, {"--pause-ms", &pause_ms, 0, 60000}});
	cudaDeviceProp p = open_device();
	size_t bytes = (size_t)mib << 20, n4 = bytes / sizeof(float4);
	float4 *a = nullptr, *b = nullptr;
	CK(cudaMalloc((void **)&a, bytes));
	CK(cudaMalloc((void **)&b, bytes));
	tally_memset(a, 0, bytes);
	tally_memset(b, 0, bytes);
	CK(cudaDeviceSynchronize());
	int blocks = p.multiProcessorCount * 8, threads = 512;
	std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
	double t0 = now_ms();
	for (uint64_t r = 0; r < reps; r++) {
		copy_kernel<<<blocks, threads>>>(a, b, n4);
		tally_launch("copy_kernel");
		scale_kernel<<<blocks, threads>>>(b, a, 1.0f, n4);
		tally_launch("scale_kernel");
	}
	CK(cudaDeviceSynchronize());
	double ms = now_ms() - t0;
	std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
	unsigned long long moved = (unsigned long long)reps * 2ull * (unsigned long long)bytes;
	printf("stream bytes_read=%llu bytes_written=%llu launches=%llu n=%zu ms=%.3f gbps=%.1f\n", moved, moved,
	       (unsigned long long)reps * 2ull, n4 * 4, ms, 2.0 * (double)moved / 1e6 / ms);
	CK(cudaFree(a));
	CK(cudaFree(b));
	return 0;
}
