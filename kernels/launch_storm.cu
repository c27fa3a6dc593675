/*
 * kernels/launch_storm.cu: many tiny kernels from several host threads into several streams, the
 * load under which a tracer's per-launch cost and its record-keeping show. T host threads each own
 * S streams; together they launch exactly N kernels (thread t launches N / T, the first N % T threads
 * one more), launch j of a thread going to stream j % S and kernel j % K among K distinct kernel
 * functions, so the trace sees several names and several streams.
 *
 * Every kernel adds one to its (thread, stream) counter with a single thread: launches in one stream
 * run in order, so no atomics are needed, and the counters read back at the end prove that every
 * launch ran exactly once. Host launch rate (launches per second of the launching loop, all threads
 * together, before the final synchronise) is the program's one measurement.
 */
#include "common.cuh"

#include <atomic>
#include <string>
#include <thread>

#define MAX_KERNELS 8

/*
 * Eight copies of the same body under eight names; a template would give one name with eight
 * template arguments, and the point is distinct names in the trace.
 */
#define TINY_KERNEL(name)                                                                       \
	__global__ void name(unsigned int *counters, int slot)                                  \
	{                                                                                        \
		if (threadIdx.x == 0 && blockIdx.x == 0)                                         \
			counters[slot] += 1u;                                                    \
	}
TINY_KERNEL(tiny_k0)
TINY_KERNEL(tiny_k1)
TINY_KERNEL(tiny_k2)
TINY_KERNEL(tiny_k3)
TINY_KERNEL(tiny_k4)
TINY_KERNEL(tiny_k5)
TINY_KERNEL(tiny_k6)
TINY_KERNEL(tiny_k7)

typedef void (*tiny_fn)(unsigned int *, int);
static const tiny_fn k_tiny[MAX_KERNELS] = {tiny_k0, tiny_k1, tiny_k2, tiny_k3,
					    tiny_k4, tiny_k5, tiny_k6, tiny_k7};
static const char *const k_tiny_name[MAX_KERNELS] = {"tiny_k0", "tiny_k1", "tiny_k2", "tiny_k3",
						     "tiny_k4", "tiny_k5", "tiny_k6", "tiny_k7"};

/*
 * A worker cannot exit() while the others launch, so it keeps its first failure here and stops;
 * main reports it in the usual voice after joining.
 */
struct Worker {
	int index = 0;
	uint64_t launches = 0;
	std::vector<cudaStream_t> streams;
	uint64_t launched = 0;
	std::string failed_call;
	cudaError_t err = cudaSuccess;
};

static bool ok(Worker *wk, cudaError_t err, const char *call)
{
	if (err == cudaSuccess)
		return true;
	if (wk->err == cudaSuccess) {
		wk->err = err;
		wk->failed_call = call;
	}
	return false;
}

static std::atomic<int> g_ready{0};
static std::atomic<bool> g_go{false};

static void run_worker(Worker *wk, int nstreams, int nkernels, unsigned int *counters)
{
	/* The current device is per host thread; set it rather than rely on the default. */
	if (!ok(wk, cudaSetDevice(0), "cudaSetDevice")) {
		g_ready++;
		return;
	}
	wk->streams.assign((size_t)nstreams, nullptr);
	for (int s = 0; s < nstreams; s++)
		if (!ok(wk, cudaStreamCreateWithFlags(&wk->streams[(size_t)s], cudaStreamNonBlocking),
			"cudaStreamCreateWithFlags"))
			break;
	/* Stream creation stays out of the timed loop: everyone starts launching together. */
	g_ready++;
	while (!g_go.load())
		std::this_thread::yield();
	if (wk->err != cudaSuccess)
		return;

	for (uint64_t j = 0; j < wk->launches; j++) {
		const int s = (int)(j % (uint64_t)nstreams), k = (int)(j % (uint64_t)nkernels);
		k_tiny[k]<<<1, 32, 0, wk->streams[(size_t)s]>>>(counters, wk->index * nstreams + s);
		if (!ok(wk, cudaGetLastError(), k_tiny_name[k]))
			return;
		wk->launched++;
	}
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: launch_storm [--launches N] [--threads T] [--streams S] [--kernels K]\n"
		"Launches N tiny kernels (<<<1, 32>>>) from T host threads, each with S non-blocking streams of\n"
		"its own, cycling through K distinct kernel functions tiny_k0..tiny_k<K-1>.\n"
		"  --launches N  total kernel launches, all threads together (default 100000)\n"
		"  --threads T   host threads (default 2, at most 64)\n"
		"  --streams S   streams per thread (default 2, at most 64)\n"
		"  --kernels K   distinct kernel functions used round-robin (default 4, at most 8)\n"
		"Exit: 0 ok, 1 CUDA error or a counter mismatch, 2 bad usage, 3 no CUDA device.\n");
}

int main(int argc, char **argv)
{
	g_prog = "launch_storm";
	uint64_t launches = 100000;
	int threads = 2, streams = 2, kernels = 4;
	parse_options(argc, argv, usage,
		      {{"--launches", &launches, 0, 1ull << 31}, /* per-stream counters are 32-bit */
		       {"--threads", &threads, 1, 64},
		       {"--streams", &streams, 1, 64},
		       {"--kernels", &kernels, 1, MAX_KERNELS}});

	open_device();
	printf("sizes launches=%" PRIu64 " threads=%d streams_per_thread=%d kernels=%d grid=1 block=32\n",
	       launches, threads, streams, kernels);

	/* The launch plan, computed before anything runs so that it can be printed and checked. */
	std::vector<Worker> workers((size_t)threads);
	std::vector<uint64_t> per_kernel((size_t)kernels, 0), per_slot((size_t)threads * (size_t)streams, 0);
	for (int t = 0; t < threads; t++) {
		Worker &wk = workers[(size_t)t];
		wk.index = t;
		wk.launches = launches / (uint64_t)threads + ((uint64_t)t < launches % (uint64_t)threads ? 1 : 0);
		for (int k = 0; k < kernels; k++)
			per_kernel[(size_t)k] += wk.launches / (uint64_t)kernels +
						 ((uint64_t)k < wk.launches % (uint64_t)kernels ? 1 : 0);
		for (int s = 0; s < streams; s++)
			per_slot[(size_t)(t * streams + s)] = wk.launches / (uint64_t)streams +
							      ((uint64_t)s < wk.launches % (uint64_t)streams ? 1 : 0);
	}
	printf("plan");
	for (int k = 0; k < kernels; k++)
		printf(" %s=%" PRIu64, k_tiny_name[k], per_kernel[(size_t)k]);
	printf("\n");

	const size_t nslots = (size_t)threads * (size_t)streams;
	const size_t counter_bytes = nslots * sizeof(unsigned int);
	unsigned int *d_counters = nullptr;
	CK(cudaMalloc((void **)&d_counters, counter_bytes));
	tally_memset(d_counters, 0, counter_bytes);
	/* The memset runs in the legacy default stream; the workers' streams do not wait for it. */
	CK(cudaDeviceSynchronize());

	std::vector<std::thread> pool;
	for (int t = 0; t < threads; t++)
		pool.emplace_back(run_worker, &workers[(size_t)t], streams, kernels, d_counters);
	while (g_ready.load() < threads)
		std::this_thread::yield();
	const double t0 = now_ms();
	g_go = true;
	for (std::thread &th : pool)
		th.join();
	const double t1 = now_ms();

	for (const Worker &wk : workers) {
		g_tally.kernels += wk.launched;
		if (wk.err != cudaSuccess) {
			fprintf(stderr, "%s: %s: %s\n", g_prog, wk.failed_call.c_str(), cudaGetErrorString(wk.err));
			return EXIT_CUDA_FAILED;
		}
	}
	CK(cudaDeviceSynchronize());
	const double t2 = now_ms();

	std::vector<unsigned int> counters(nslots);
	tally_memcpy(counters.data(), d_counters, counter_bytes, cudaMemcpyDeviceToHost);
	for (size_t slot = 0; slot < nslots; slot++) {
		if (counters[slot] != (unsigned int)per_slot[slot]) {
			fprintf(stderr, "%s: counter of thread %zu stream %zu is %u, expected %" PRIu64 "\n", g_prog,
				slot / (size_t)streams, slot % (size_t)streams, counters[slot], per_slot[slot]);
			return EXIT_CUDA_FAILED;
		}
	}
	printf("verify counters=%zu ok\n", nslots);

	const double launch_s = (t1 - t0) / 1e3;
	printf("rate launches=%" PRIu64 " launch_ms=%.3f launches_per_s=%.0f us_per_launch=%.3f "
	       "launch_plus_sync_ms=%.3f\n",
	       launches, t1 - t0, launch_s > 0 ? (double)launches / launch_s : 0.0,
	       launches ? (t1 - t0) * 1e3 / (double)launches : 0.0, t2 - t0);

	for (Worker &wk : workers)
		for (cudaStream_t s : wk.streams)
			CK(cudaStreamDestroy(s));
	CK(cudaFree(d_counters));
	g_tally.print();
	return 0;
}
