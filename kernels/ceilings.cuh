/*
 * kernels/ceilings.cuh: the memory and compute ceilings that `gputrace peak` measures beside the copy
 * bandwidths (bwprobe.cu): device-memory bandwidth with streaming kernels (read, copy, triad), L2
 * bandwidth (a working set inside L2 read again and again), FP32 and FP64 FMA throughput, FP16 and
 * BF16 tensor-core throughput through mma.sync on register fragments, and last the rate of a
 * library GEMM (cuBLAS, ceilings_gemm.cuh), which on sm_90 passes mma.sync's.
 *
 * Each figure is the median over R timed launches (cudaEvent pairs around each launch) after W
 * untimed ones, and is printed as one "peak" line with its method, the clocks read through NVML while
 * the timed launches ran (or the device attributes' maximum clocks, said as clocks=attribute), and the
 * theoretical figure from the device attributes beside it ("unknown" where no rate is known):
 *   peak kind=dram_read gbps=4403.10 theory_gbps=4814.30 bytes=2147483648 reps=7 sm_mhz=1980
 *        mem_mhz=2619 clocks=nvml method="..."
 *   peak kind=fp32_fma gflops=60123.4 theory_gflops=66908.2 flops=... reps=7 ... method="..."
 * (one line each). Memory figures count bytes read plus bytes written, decimal GB/s; compute figures
 * count 2 flops per fused multiply-add, decimal GFLOP/s.
 *
 * Header-only, like common.cuh: bwprobe is one translation unit.
 */
#ifndef GPUTRACE_KERNELS_CEILINGS_CUH
#define GPUTRACE_KERNELS_CEILINGS_CUH

#include "common.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <dlfcn.h>

/* ---------------------------------------------------------------------------------------------- */
/* Clocks at the time of a measurement: NVML through dlopen, since the probe links nothing else.    */

class ClockReader {
public:
	/* Opens NVML for the device of this UUID; without it, read() gives the attribute clocks. */
	void open(const char *uuid, int attr_sm_khz, int attr_mem_khz)
	{
		attr_sm_mhz_ = (unsigned)(attr_sm_khz / 1000);
		attr_mem_mhz_ = (unsigned)(attr_mem_khz / 1000);
		void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
		if (!h)
			return;
		typedef int (*init_fn)(void);
		typedef int (*by_uuid_fn)(const char *, void **);
		init_fn init = (init_fn)dlsym(h, "nvmlInit_v2");
		by_uuid_fn by_uuid = (by_uuid_fn)dlsym(h, "nvmlDeviceGetHandleByUUID");
		clock_ = (clock_fn)dlsym(h, "nvmlDeviceGetClockInfo");
		if (!init || !by_uuid || !clock_ || init() != 0 || by_uuid(uuid, &dev_) != 0) {
			clock_ = nullptr;
			return;
		}
	}

	/* The SM and memory clocks now, in MHz; true when NVML gave both. */
	bool read(unsigned *sm_mhz, unsigned *mem_mhz) const
	{
		enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };
		unsigned sm = 0, mem = 0;
		if (clock_ && clock_(dev_, NVML_CLOCK_SM, &sm) == 0 && clock_(dev_, NVML_CLOCK_MEM, &mem) == 0 &&
		    sm && mem) {
			*sm_mhz = sm;
			*mem_mhz = mem;
			return true;
		}
		*sm_mhz = attr_sm_mhz_;
		*mem_mhz = attr_mem_mhz_;
		return false;
	}

private:
	typedef int (*clock_fn)(void *, int, unsigned *);
	clock_fn clock_ = nullptr;
	void *dev_ = nullptr;
	unsigned attr_sm_mhz_ = 0, attr_mem_mhz_ = 0;
};

/* ---------------------------------------------------------------------------------------------- */
/* Kernels. Every result feeds a store the compiler cannot prove dead, so no load or FMA is elided. */

#define CEIL_MAGIC 0x9e3779b9u

/* Reads n 16-byte words once; the XOR of all of them decides a store that never happens on the
 * probe's input (equal words XOR to zero) but that the compiler must keep. Four independent loads per step keep enough bytes in
 * flight per thread. */
__global__ void ceil_read(const uint4 *__restrict__ a, size_t n, unsigned *out)
{
	const size_t stride = (size_t)gridDim.x * blockDim.x;
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	unsigned acc = 0;
	for (; i + 3 * stride < n; i += 4 * stride) {
		uint4 v0 = a[i], v1 = a[i + stride], v2 = a[i + 2 * stride], v3 = a[i + 3 * stride];
		acc ^= v0.x ^ v0.y ^ v0.z ^ v0.w ^ v1.x ^ v1.y ^ v1.z ^ v1.w;
		acc ^= v2.x ^ v2.y ^ v2.z ^ v2.w ^ v3.x ^ v3.y ^ v3.z ^ v3.w;
	}
	for (; i < n; i += stride) {
		uint4 v = a[i];
		acc ^= v.x ^ v.y ^ v.z ^ v.w;
	}
	if (acc == CEIL_MAGIC)
		out[0] = acc;
}

/* b = a, 16 bytes per element. */
__global__ void ceil_copy(const float4 *__restrict__ a, float4 *__restrict__ b, size_t n)
{
	const size_t stride = (size_t)gridDim.x * blockDim.x;
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	for (; i + stride < n; i += 2 * stride) {
		float4 v0 = a[i], v1 = a[i + stride];
		b[i] = v0;
		b[i + stride] = v1;
	}
	for (; i < n; i += stride)
		b[i] = a[i];
}

/* a = b + s * c (STREAM's triad), 16 bytes per element of each array. */
__global__ void ceil_triad(float4 *__restrict__ a, const float4 *__restrict__ b, const float4 *__restrict__ c,
			   float s, size_t n)
{
	const size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		float4 x = b[i], y = c[i];
		a[i] = make_float4(x.x + s * y.x, x.y + s * y.y, x.z + s * y.z, x.w + s * y.w);
	}
}

/* One 16-byte load cached in L2 only (ld.global.cg: L1 is bypassed, so a re-read is an L2 hit rather
 * than an L1 one); volatile, so passes over the same words are neither merged nor hoisted. */
__device__ __forceinline__ uint4 ld_l2(const uint4 *p)
{
	uint4 v;
	asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];"
		     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
		     : "l"(p));
	return v;
}

/* Reads the n 16-byte words `passes` times; each thread reads the same words every pass, so with the
 * whole grid resident each word stays near the SM that reads it. */
__global__ void ceil_l2_read(const uint4 *__restrict__ a, size_t n, int passes, unsigned *out)
{
	const size_t stride = (size_t)gridDim.x * blockDim.x;
	const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	unsigned acc = 0;
	for (int p = 0; p < passes; p++) {
		size_t i = first;
		for (; i + 3 * stride < n; i += 4 * stride) {
			uint4 v0 = ld_l2(a + i), v1 = ld_l2(a + i + stride);
			uint4 v2 = ld_l2(a + i + 2 * stride), v3 = ld_l2(a + i + 3 * stride);
			acc ^= v0.x ^ v0.y ^ v0.z ^ v0.w ^ v1.x ^ v1.y ^ v1.z ^ v1.w;
			acc ^= v2.x ^ v2.y ^ v2.z ^ v2.w ^ v3.x ^ v3.y ^ v3.z ^ v3.w;
		}
		for (; i < n; i += stride) {
			uint4 v = ld_l2(a + i);
			acc ^= v.x ^ v.y ^ v.z ^ v.w;
		}
		acc += (unsigned)p;
	}
	if (acc == CEIL_MAGIC)
		out[0] = acc;
}

__device__ __forceinline__ float ceil_fma(float a, float b, float c) { return __fmaf_rn(a, b, c); }
__device__ __forceinline__ double ceil_fma(double a, double b, double c) { return __fma_rn(a, b, c); }

#define CEIL_FMA_CHAINS 8

/* CEIL_FMA_CHAINS independent chains a = a * x + y per thread, iters steps each; x < 1 so every chain
 * settles near y / (1 - x) and stays finite and normal. x and y are arguments, so nothing folds. */
template <typename T> __global__ void ceil_fma_chains(T x, T y, int iters, T *out)
{
	T a[CEIL_FMA_CHAINS];
#pragma unroll
	for (int j = 0; j < CEIL_FMA_CHAINS; j++)
		a[j] = (T)(threadIdx.x + j) * (T)1e-3;
#pragma unroll 16
	for (int i = 0; i < iters; i++) {
#pragma unroll
		for (int j = 0; j < CEIL_FMA_CHAINS; j++)
			a[j] = ceil_fma(a[j], x, y);
	}
	T s = 0;
#pragma unroll
	for (int j = 0; j < CEIL_FMA_CHAINS; j++)
		s += a[j];
	if (s == (T)-1)
		out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = s;
}

#define CEIL_MMA_CHAINS 8

/* One warp-wide m16n8k16 MMA with FP32 accumulators: D = A * B + D, A and B as four and two 32-bit
 * registers of packed 16-bit values (PTX ISA, "Matrix Fragments for mma.m16n8k16"). */
template <bool BF16> __device__ __forceinline__ void ceil_mma(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2])
{
	if constexpr (BF16)
		asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
		    "{%8,%9}, {%0,%1,%2,%3};"
		    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
		    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
	else
		asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
		    "{%8,%9}, {%0,%1,%2,%3};"
		    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
		    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* Packs two floats as two 16-bit values of the type the MMA reads. */
template <bool BF16> __device__ __forceinline__ unsigned ceil_pack(float lo, float hi)
{
	unsigned u;
	if constexpr (BF16) {
		__nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
		memcpy(&u, &v, sizeof u);
	} else {
		__half2 v = __floats2half2_rn(lo, hi);
		memcpy(&u, &v, sizeof u);
	}
	return u;
}

/* CEIL_MMA_CHAINS independent accumulator fragments per warp, each updated iters times with the same
 * A and B fragments: registers only, no memory traffic in the loop. Inputs are small non-zero values
 * derived from the argument, so the products are real work and the sums stay finite. */
template <bool BF16> __global__ void ceil_mma_chains(float seed, int iters, float *out)
{
	const float t = seed * (float)(threadIdx.x % 32 + 1);
	unsigned a[4], b[2];
#pragma unroll
	for (int k = 0; k < 4; k++)
		a[k] = ceil_pack<BF16>(t * (float)(k + 1), t * (float)(k + 2));
	b[0] = ceil_pack<BF16>(t * 0.5f, t * 0.25f);
	b[1] = ceil_pack<BF16>(t * 0.75f, t * 0.125f);
	float d[CEIL_MMA_CHAINS][4] = {};
	for (int i = 0; i < iters; i++) {
#pragma unroll
		for (int j = 0; j < CEIL_MMA_CHAINS; j++)
			ceil_mma<BF16>(d[j], a, b);
	}
	float s = 0;
#pragma unroll
	for (int j = 0; j < CEIL_MMA_CHAINS; j++)
		s += d[j][0] + d[j][1] + d[j][2] + d[j][3];
	if (s == -1.0f)
		out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = s;
}

/* ---------------------------------------------------------------------------------------------- */
/* Timing and the lines.                                                                           */

/* Per-SM rates per clock from the vendor's architecture documents, for the theoretical figures. */
struct SmRates {
	int fp32_fma;      /* FP32 FMA lanes */
	int fp64_fma;      /* FP64 FMA lanes */
	int f16_mma_flops; /* dense FP16/BF16 tensor flops with FP32 accumulation */
};

/* sm_90: "NVIDIA H100 Tensor Core GPU Architecture" whitepaper (2022): 128 FP32 and 64 FP64 cores per
 * SM; its fourth-generation tensor cores do twice A100's dense FP16 MMA per SM per clock, A100's
 * being 1024 FMA (2048 flops) per SM per clock ("NVIDIA A100 Tensor Core GPU Architecture", 2020),
 * so 4096 flops. sm_80 from the A100 whitepaper: 64 FP32, 32 FP64, 2048 tensor flops. Other devices:
 * unknown, rather than guessed. gpuanalyze holds the same rows (gt_ceiling_theory in
 * analyze/blocks/peaks.c) for traces without a peaks file: a change goes to both. */
inline SmRates sm_rates(int major, int minor)
{
	if (major == 9 && minor == 0)
		return {128, 64, 4096};
	if (major == 8 && minor == 0)
		return {64, 32, 2048};
	return {0, 0, 0};
}

struct Ceilings {
	cudaDeviceProp prop;
	int sm_khz = 0, mem_khz = 0, l2_bytes = 0;
	int reps = 7, warmup = 2;
	ClockReader clocks;
	std::vector<EventPair> ev_all; /* one pair per timed launch */
	cudaStream_t stream = nullptr;

	/* Runs launch() warmup times untimed and reps times between event pairs, reads the clocks while
	 * the timed launches are queued or running, and returns the milliseconds of each timed launch. */
	std::vector<double> time_launches(const std::function<void()> &launch, const char *name, unsigned *sm_mhz,
					  unsigned *mem_mhz, bool *nvml)
	{
		for (int i = 0; i < warmup; i++) {
			launch();
			tally_launch(name);
		}
		for (int i = 0; i < reps; i++) {
			CK(cudaEventRecord(ev_all[i].start, stream));
			launch();
			tally_launch(name);
			CK(cudaEventRecord(ev_all[i].stop, stream));
		}
		*nvml = clocks.read(sm_mhz, mem_mhz);
		CK(cudaStreamSynchronize(stream));
		std::vector<double> ms;
		for (int i = 0; i < reps; i++)
			ms.push_back(ev_all[i].ms());
		return ms;
	}

	/* One figure: "peak" and "detail" lines, value = amount / 1e9 / seconds per launch. */
	void report(const char *kind, const char *unit, double amount, const char *amount_key, double theory,
		    const std::function<void()> &launch, const char *method)
	{
		unsigned sm = 0, mem = 0;
		bool nvml = false;
		std::vector<double> ms = time_launches(launch, kind, &sm, &mem, &nvml);
		print_figure(kind, unit, amount, amount_key, theory, ms, sm, mem, nvml, method);
	}

	/* The lines of a figure from its launches' milliseconds and the clocks read while they ran. */
	void print_figure(const char *kind, const char *unit, double amount, const char *amount_key, double theory,
			  const std::vector<double> &ms, unsigned sm, unsigned mem, bool nvml, const char *method)
	{
		std::vector<double> v;
		for (double m : ms)
			v.push_back(m > 0 ? amount / 1e9 / (m / 1e3) : 0.0);
		char th[32];
		if (theory > 0)
			snprintf(th, sizeof th, "%.2f", theory / 1e9);
		else
			snprintf(th, sizeof th, "unknown");
		printf("peak kind=%s %s=%.2f theory_%s=%s %s=%.0f reps=%d sm_mhz=%u mem_mhz=%u clocks=%s "
		       "method=\"%s\"\n",
		       kind, unit, median(v), unit, th, amount_key, amount, reps, sm, mem, nvml ? "nvml" : "attribute",
		       method);
		printf("detail kind=%s %s_min=%.2f %s_max=%.2f warmup=%d\n", kind, unit,
		       *std::min_element(v.begin(), v.end()), unit, *std::max_element(v.begin(), v.end()), warmup);
		fflush(stdout);
	}

	void run()
	{
		const int sms = prop.multiProcessorCount;
		const int threads = 256;
		const int per_sm = std::max(1, prop.maxThreadsPerMultiProcessor / threads);
		const int blocks = sms * per_sm;
		const double mem_theory = 2.0 * mem_khz * 1e3 * prop.memoryBusWidth / 8.0;
		const SmRates r = sm_rates(prop.major, prop.minor);
		const double clock_hz = sm_khz * 1e3;
		char method[640];

		/* Device memory: each array at least 2 GiB (a launch long enough that its start and end
		 * hardly count) and 4x L2; fewer bytes only when memory is short. */
		size_t free_b = 0, total_b = 0;
		CK(cudaMemGetInfo(&free_b, &total_b));
		size_t arr = std::max<size_t>(2ull << 30, 4ull * (size_t)l2_bytes);
		while (arr > (64u << 20) && 3 * arr > free_b / 10 * 8)
			arr /= 2;
		arr &= ~(size_t)((1u << 20) - 1);
		const size_t n = arr / 16;
		void *a = nullptr, *b = nullptr, *c = nullptr;
		unsigned *sink = nullptr;
		CK(cudaMalloc(&a, arr));
		CK(cudaMalloc(&b, arr));
		CK(cudaMalloc(&c, arr));
		CK(cudaMalloc((void **)&sink, 1024 * 1024));
		/* Non-zero bytes (0x5a5a5a5a is a finite float), written before any kernel reads them. */
		tally_memset(a, 0x5a, arr);
		tally_memset(b, 0x5a, arr);
		tally_memset(c, 0x5a, arr);
		tally_memset(sink, 0, 1024 * 1024);
		CK(cudaDeviceSynchronize());
		const char *stat = "median of per-launch rates, cudaEvent pair around each launch";
		snprintf(method, sizeof method, "kernel XOR-reduces one %zu-byte array (16-byte loads, %d blocks x %d); "
			 "bytes read / time; %s", arr, blocks, threads, stat);
		report("dram_read", "gbps", (double)arr, "bytes", mem_theory,
		       [&] { ceil_read<<<blocks, threads, 0, stream>>>((const uint4 *)a, n, sink); }, method);
		snprintf(method, sizeof method, "kernel copies one %zu-byte array to another (16-byte words, %d blocks "
			 "x %d); bytes read + written / time; %s", arr, blocks, threads, stat);
		report("dram_copy", "gbps", 2.0 * (double)arr, "bytes", mem_theory,
		       [&] { ceil_copy<<<blocks, threads, 0, stream>>>((const float4 *)a, (float4 *)b, n); }, method);
		snprintf(method, sizeof method, "kernel a = b + s*c over three %zu-byte arrays (16-byte words, %d "
			 "blocks x %d); bytes read + written / time; %s", arr, blocks, threads, stat);
		report("dram_triad", "gbps", 3.0 * (double)arr, "bytes", mem_theory,
		       [&] {
			       ceil_triad<<<blocks, threads, 0, stream>>>((float4 *)a, (const float4 *)b,
									  (const float4 *)c, 3.0f, n);
		       },
		       method);

		/* L2: a quarter of it, read over and over with L1 bypassed; about 8 GiB read per launch. */
		const size_t l2_set = ((size_t)l2_bytes / 4) & ~(size_t)4095;
		if (l2_set >= 4096) {
			const size_t l2_n = l2_set / 16;
			const int passes = (int)std::max<size_t>(1, (8ull << 30) / l2_set);
			snprintf(method, sizeof method, "kernel reads a %zu-byte set (a quarter of the %d-byte L2) %d "
				 "times, ld.global.cg 16-byte loads (L1 bypassed), %d blocks x %d; bytes read / time; "
				 "no theoretical figure from device attributes; %s",
				 l2_set, l2_bytes, passes, blocks, threads, stat);
			report("l2_read", "gbps", (double)l2_n * 16.0 * passes, "bytes", 0.0,
			       [&] { ceil_l2_read<<<blocks, threads, 0, stream>>>((const uint4 *)a, l2_n, passes, sink); },
			       method);
		}

		/* FMA: full occupancy, CEIL_FMA_CHAINS independent chains per thread, 2 flops per FMA. */
		const double fma_threads = (double)blocks * threads;
		const int it32 = 32768, it64 = 16384;
		snprintf(method, sizeof method, "kernel: %d independent fmaf chains per thread x %d steps, %d blocks "
			 "x %d (full occupancy); 2 flops per FMA; theory SMs x %d lanes x 2 x max SM clock; %s",
			 CEIL_FMA_CHAINS, it32, blocks, threads, r.fp32_fma, stat);
		report("fp32_fma", "gflops", fma_threads * CEIL_FMA_CHAINS * it32 * 2.0, "flops",
		       (double)sms * r.fp32_fma * 2.0 * clock_hz,
		       [&] { ceil_fma_chains<float><<<blocks, threads, 0, stream>>>(0.9999f, 1e-4f, it32, (float *)sink); },
		       method);
		snprintf(method, sizeof method, "kernel: %d independent double fma chains per thread x %d steps, %d "
			 "blocks x %d (full occupancy); 2 flops per FMA; theory SMs x %d lanes x 2 x max SM clock; %s",
			 CEIL_FMA_CHAINS, it64, blocks, threads, r.fp64_fma, stat);
		report("fp64_fma", "gflops", fma_threads * CEIL_FMA_CHAINS * it64 * 2.0, "flops",
		       (double)sms * r.fp64_fma * 2.0 * clock_hz,
		       [&] { ceil_fma_chains<double><<<blocks, threads, 0, stream>>>(0.9999, 1e-4, it64, (double *)sink); },
		       method);

		/* Tensor cores: mma.sync m16n8k16 (4096 flops per warp instruction) on register fragments. */
		const int mma_blocks = sms * 4, itm = 16384;
		const double warps = (double)mma_blocks * threads / 32;
		for (int bf = 0; bf < 2; bf++) {
			const char *ty = bf ? "bf16" : "f16";
			snprintf(method, sizeof method, "kernel: mma.sync.aligned.m16n8k16.row.col.f32.%s.%s.f32 inline PTX, "
				 "%d independent accumulators per warp x %d steps on register fragments (no memory "
				 "traffic), %d blocks x %d; 4096 flops per mma; theory SMs x %d x max SM clock "
				 "(dense, H100 whitepaper; sm_90 reaches it with wgmma, not mma.sync); %s",
				 ty, ty, CEIL_MMA_CHAINS, itm, mma_blocks, threads, r.f16_mma_flops, stat);
			report(bf ? "bf16_mma" : "fp16_mma", "gflops", warps * CEIL_MMA_CHAINS * itm * 4096.0, "flops",
			       (double)sms * r.f16_mma_flops * clock_hz,
			       [&] {
				       if (bf)
					       ceil_mma_chains<true><<<mma_blocks, threads, 0, stream>>>(1e-3f, itm, (float *)sink);
				       else
					       ceil_mma_chains<false><<<mma_blocks, threads, 0, stream>>>(1e-3f, itm, (float *)sink);
			       },
			       method);
		}
		CK(cudaFree(a));
		CK(cudaFree(b));
		CK(cudaFree(c));
		CK(cudaFree(sink));
	}
};

#include "ceilings_gemm.cuh"

/* Measures every ceiling of device 0 (open_device() has run) and prints its lines. */
inline void measure_ceilings(const cudaDeviceProp &prop, cudaStream_t stream, int reps, int warmup)
{
	Ceilings c;
	c.prop = prop;
	c.stream = stream;
	c.reps = reps;
	c.warmup = warmup;
	c.ev_all.resize((size_t)reps);
	CK(cudaDeviceGetAttribute(&c.sm_khz, cudaDevAttrClockRate, 0));
	CK(cudaDeviceGetAttribute(&c.mem_khz, cudaDevAttrMemoryClockRate, 0));
	CK(cudaDeviceGetAttribute(&c.l2_bytes, cudaDevAttrL2CacheSize, 0));
	char uuid[48];
	format_uuid(prop, uuid);
	c.clocks.open(uuid, c.sm_khz, c.mem_khz);
	for (int i = 0; i < c.reps; i++)
		c.ev_all[i].create();
	c.run();
	measure_library_gemm(c, (double)prop.multiProcessorCount * sm_rates(prop.major, prop.minor).f16_mma_flops *
				       c.sm_khz * 1e3);
	for (int i = 0; i < c.reps; i++)
		c.ev_all[i].destroy();
}

#endif /* GPUTRACE_KERNELS_CEILINGS_CUH */
