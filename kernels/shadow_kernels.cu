/*
 * kernels/shadow_kernels.cu: small kernels whose launches shadow replay captures and checks against
 * CPU references: saxpy, a two-level tree reduction, a weighted histogram with float atomics, and a
 * masked row softmax; with --broken, deliberately wrong variants under their own names take the place
 * of the correct ones (saxpy_nobounds, reduce_sum_nosync, softmax_rows_badmask; histogram has none).
 * Their exact semantics, and where each broken variant's first error is expected, are written down in
 * kernels/shadow_kernels.h for the reference writer; keep the two files in step.
 *
 * Every parameter is a pointer or a scalar, so a capture of the raw parameter bytes plus the pointed-to
 * allocations is the whole input. Each repetition uses fresh deterministic inputs (the LCG seeded by
 * kernel and repetition). The program also checks every launch itself, on the host, from the inputs it
 * uploaded (or, for a later reduction level, from what the previous level wrote), so that a run on the
 * GPU machine shows at once whether the broken variants really went wrong there: bit-exact where the
 * semantics fix the order (saxpy, reduce_sum), a proven error bound for the atomics (histogram), and
 * exact properties for softmax (masked outputs zero, fully masked rows zero, outputs finite in [0, 1]).
 * A failed check of a correct kernel makes the exit status 1; a broken variant failing is expected.
 */
#include "common.cuh"
#include "shadow_kernels.h"

#include <cmath>
#include <limits>
#include <string>

/* ---------------------------------------------------------------------------------------------- */
/* The kernels. The broken variants share the correct kernels' code, minus one line each.          */

__global__ void saxpy(int n, float a, const float *x, float *y)
{
	const int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = fmaf(a, x[i], y[i]);
}

/* Broken: no bounds check, so the last block writes past n (into the padding the program allocated). */
__global__ void saxpy_nobounds(int n, float a, const float *x, float *y)
{
	(void)n;
	const int i = blockIdx.x * blockDim.x + threadIdx.x;
	y[i] = fmaf(a, x[i], y[i]);
}

/*
 * Stores v in s[threadIdx.x] and sums s[0..blockDim.x) as a tree (stride blockDim.x/2 down to 1,
 * a barrier after every step); returns the sum to every thread. `store_barrier` is false only in
 * reduce_sum_nosync: without it the first step reads partners that may not have been stored yet.
 */
__device__ __forceinline__ float block_tree_sum(float *s, float v, bool store_barrier)
{
	const unsigned t = threadIdx.x;
	s[t] = v;
	if (store_barrier)
		__syncthreads();
	for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
		if (t < stride)
			s[t] = s[t] + s[t + stride];
		__syncthreads();
	}
	return s[0];
}

__device__ __forceinline__ void reduce_block(const float *in, float *partial, int n, bool store_barrier)
{
	extern __shared__ float s[];
	const size_t un = n > 0 ? (size_t)n : 0, b = blockDim.x, t = threadIdx.x;
	const size_t base = (size_t)blockIdx.x * 2 * b;
	const float lo = base + t < un ? in[base + t] : 0.0f;
	const float hi = base + t + b < un ? in[base + t + b] : 0.0f;
	const float sum = block_tree_sum(s, lo + hi, store_barrier);
	if (t == 0)
		partial[blockIdx.x] = sum;
}

__global__ void reduce_sum(const float *in, float *partial, int n)
{
	reduce_block(in, partial, n, true);
}

/* Broken: the barrier between the shared-memory store and the first tree step is missing. */
__global__ void reduce_sum_nosync(const float *in, float *partial, int n)
{
	reduce_block(in, partial, n, false);
}

/* Each value in [lo, hi) adds itself to its bin; float atomics make the sums depend on arrival order. */
__global__ void histogram(const float *values, int n, float lo, float hi, int bins, float *counts_weighted)
{
	const int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	const float v = values[i];
	if (!(v >= lo && v < hi)) /* also skips NaN */
		return;
	const float scale = (float)bins / (hi - lo);
	int k = (int)((v - lo) * scale);
	if (k > bins - 1)
		k = bins - 1;
	atomicAdd(&counts_weighted[k], v);
}

/*
 * One block per row. Masked elements take the logit -INFINITY, so that they drop out of the maximum
 * and their exponential is exactly zero. A fully masked row then has maximum -INFINITY, and
 * -INFINITY - -INFINITY is NaN: the declared behaviour for that row is all zeros, which is what the
 * guard is for; softmax_rows_badmask is this code without it.
 */
__device__ __forceinline__ void softmax_row(const float *logits, const unsigned char *mask, float *out,
					    int cols, bool fully_masked_guard)
{
	extern __shared__ float s[];
	const int t = threadIdx.x, nthreads = blockDim.x;
	const size_t row = (size_t)blockIdx.x * (size_t)cols;
	const float *x = logits + row;
	const unsigned char *valid = mask + row;
	float *y = out + row;

	float mt = -INFINITY;
	for (int c = t; c < cols; c += nthreads)
		mt = fmaxf(mt, valid[c] ? x[c] : -INFINITY);
	s[t] = mt;
	__syncthreads();
	for (int stride = nthreads / 2; stride > 0; stride >>= 1) {
		if (t < stride)
			s[t] = fmaxf(s[t], s[t + stride]);
		__syncthreads();
	}
	const float m = s[0];
	/* Every thread has read m before s is reused for the sum. */
	__syncthreads();

	if (fully_masked_guard && m == -INFINITY) {
		for (int c = t; c < cols; c += nthreads)
			y[c] = 0.0f;
		return; /* m is the same in the whole block, so the whole block returns here */
	}
	float acc = 0.0f;
	for (int c = t; c < cols; c += nthreads)
		acc += expf((valid[c] ? x[c] : -INFINITY) - m);
	const float sum = block_tree_sum(s, acc, true);
	for (int c = t; c < cols; c += nthreads)
		y[c] = expf((valid[c] ? x[c] : -INFINITY) - m) / sum;
}

__global__ void softmax_rows(const float *logits, const unsigned char *mask, float *out, int rows, int cols)
{
	(void)rows; /* the grid has one block per row */
	softmax_row(logits, mask, out, cols, true);
}

/* Broken: forgets the fully masked row, which comes out NaN instead of zeros. */
__global__ void softmax_rows_badmask(const float *logits, const unsigned char *mask, float *out, int rows,
				     int cols)
{
	(void)rows;
	softmax_row(logits, mask, out, cols, false);
}

/* ---------------------------------------------------------------------------------------------- */
/* The host side.                                                                                  */

struct Options {
	std::string kernel = "all";
	bool broken = false;
	int n = 100003;
	int reps = 2;
	int rows = 64;
	int cols = 1000;
};

/* Self-check failures of correct kernels: any makes the exit status 1. */
static int g_failures;

static unsigned ceil_div(size_t a, size_t b) { return (unsigned)((a + b - 1) / b); }

static void print_launch(const char *name, int rep, unsigned grid, unsigned block, size_t shmem,
			 const char *args)
{
	printf("launch %s rep=%d grid=%u block=%u shmem=%zu %s\n", name, rep, grid, block, shmem, args);
}

/*
 * One "check" line per launch. For a broken variant a mismatch is the expected outcome, and a match
 * is reported as the defect not showing, never as a failure of the program.
 */
static void report(const char *name, int rep, bool broken, bool ok, const std::string &detail)
{
	const char *verdict = ok ? "ok" : "MISMATCH";
	const char *note = "";
	if (broken)
		note = ok ? " (broken variant: the defect did not show this time)" : " (broken variant: expected)";
	printf("check %s rep=%d %s %s%s\n", name, rep, verdict, detail.c_str(), note);
	if (!ok && !broken)
		g_failures++;
}

static uint32_t bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	return u;
}

/* Distance in units in the last place between two finite floats (the seeds' bit-pattern rule). */
static uint64_t ulps(float a, float b)
{
	auto key = [](float f) {
		uint32_t u = bits(f);
		int64_t m = u & 0x7fffffffu;
		return (u >> 31) ? -m : m;
	};
	int64_t d = key(a) - key(b);
	return (uint64_t)(d < 0 ? -d : d);
}

/* Finds the first element whose bits differ; returns false and fills `detail` if there is one. */
static bool same_bits(const float *got, const float *want, size_t count, std::string *detail)
{
	size_t first = count, bad = 0;
	for (size_t i = 0; i < count; i++) {
		if (bits(got[i]) != bits(want[i])) {
			if (first == count)
				first = i;
			bad++;
		}
	}
	char buf[256];
	if (bad == 0) {
		snprintf(buf, sizeof buf, "elements=%zu exact", count);
		*detail = buf;
		return true;
	}
	snprintf(buf, sizeof buf, "elements=%zu wrong=%zu first=%zu got=%.9g expected=%.9g", count, bad, first,
		 got[first], want[first]);
	*detail = buf;
	return false;
}

static void run_saxpy(const Options &o)
{
	const char *name = o.broken ? "saxpy_nobounds" : "saxpy";
	const int n = o.n;
	const unsigned block = SHADOW_SAXPY_BLOCK, grid = ceil_div((size_t)n, block);
	const size_t alloc = (size_t)grid * block, bytes = alloc * sizeof(float);
	if (o.broken && n % (int)block == 0)
		printf("note saxpy_nobounds: n=%d is a multiple of %u, so nothing is written past n\n", n, block);

	float *d_x = nullptr, *d_y = nullptr;
	CK(cudaMalloc((void **)&d_x, bytes));
	CK(cudaMalloc((void **)&d_y, bytes));
	std::vector<float> x(alloc), y(alloc), got(alloc), want(alloc);
	for (int rep = 0; rep < o.reps; rep++) {
		Lcg rng(1000 + (uint64_t)rep);
		const float a = 1.5f + 0.25f * (float)rep;
		for (size_t i = 0; i < alloc; i++) {
			const bool pad = i >= (size_t)n;
			x[i] = pad ? SHADOW_PAD_X : rng.range(-4.0f, 4.0f);
			y[i] = pad ? SHADOW_PAD_Y : rng.range(-4.0f, 4.0f);
			want[i] = pad ? y[i] : std::fmaf(a, x[i], y[i]);
		}
		tally_memcpy(d_x, x.data(), bytes, cudaMemcpyHostToDevice);
		tally_memcpy(d_y, y.data(), bytes, cudaMemcpyHostToDevice);

		char args[160];
		snprintf(args, sizeof args, "n=%d a=%.9g alloc_floats=%zu", n, a, alloc);
		print_launch(name, rep, grid, block, 0, args);
		if (o.broken)
			saxpy_nobounds<<<grid, block>>>(n, a, d_x, d_y);
		else
			saxpy<<<grid, block>>>(n, a, d_x, d_y);
		tally_launch(name);

		tally_memcpy(got.data(), d_y, bytes, cudaMemcpyDeviceToHost);
		std::string detail;
		bool ok = same_bits(got.data(), want.data(), alloc, &detail);
		report(name, rep, o.broken, ok, detail);
	}
	CK(cudaFree(d_x));
	CK(cudaFree(d_y));
}

/* One level of the reduction on the host, in float, in the kernel's documented order. */
static void host_reduce_level(const float *in, size_t n, unsigned block, std::vector<float> *partial)
{
	const unsigned grid = ceil_div(n, 2 * (size_t)block);
	std::vector<float> s(block);
	partial->assign(grid, 0.0f);
	for (unsigned b = 0; b < grid; b++) {
		const size_t base = (size_t)b * 2 * block;
		for (size_t t = 0; t < block; t++) {
			const float lo = base + t < n ? in[base + t] : 0.0f;
			const float hi = base + t + block < n ? in[base + t + block] : 0.0f;
			s[t] = lo + hi;
		}
		for (unsigned stride = block / 2; stride > 0; stride >>= 1)
			for (unsigned t = 0; t < stride; t++)
				s[t] = s[t] + s[t + stride];
		(*partial)[b] = s[0];
	}
}

static void run_reduce(const Options &o)
{
	const char *name = o.broken ? "reduce_sum_nosync" : "reduce_sum";
	const size_t n = (size_t)o.n;
	const unsigned block = SHADOW_REDUCE_BLOCK, grid1 = ceil_div(n, 2 * (size_t)block);
	const size_t shmem = block * sizeof(float);

	float *d_in = nullptr, *d_p[2] = {nullptr, nullptr};
	CK(cudaMalloc((void **)&d_in, n * sizeof(float)));
	CK(cudaMalloc((void **)&d_p[0], grid1 * sizeof(float)));
	CK(cudaMalloc((void **)&d_p[1], grid1 * sizeof(float)));
	std::vector<float> in(n), level_in, got, want;
	for (int rep = 0; rep < o.reps; rep++) {
		Lcg rng(2000 + (uint64_t)rep);
		double exact = 0.0;
		for (size_t i = 0; i < n; i++) {
			in[i] = rng.range(-2.0f, 2.0f);
			exact += in[i];
		}
		tally_memcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice);
		/* Poison (0xff bytes are a NaN) so that a partial the kernel failed to write shows. */
		tally_memset(d_p[0], 0xff, grid1 * sizeof(float));
		tally_memset(d_p[1], 0xff, grid1 * sizeof(float));

		/*
		 * Levels until one value is left, ping-ponging between the two partial buffers. Each level
		 * is checked from its own input as the GPU left it, as the replay would check it.
		 */
		const float *d_cur = d_in;
		size_t cur_n = n;
		level_in = in;
		int out = 0, level = 0;
		for (;;) {
			const unsigned grid = ceil_div(cur_n, 2 * (size_t)block);
			char args[160];
			snprintf(args, sizeof args, "n=%zu level=%d in=%s partial=p%d", cur_n, level,
				 level == 0 ? "input" : (out ? "p0" : "p1"), out);
			print_launch(name, rep, grid, block, shmem, args);
			if (o.broken)
				reduce_sum_nosync<<<grid, block, shmem>>>(d_cur, d_p[out], (int)cur_n);
			else
				reduce_sum<<<grid, block, shmem>>>(d_cur, d_p[out], (int)cur_n);
			tally_launch(name);

			got.resize(grid);
			tally_memcpy(got.data(), d_p[out], grid * sizeof(float), cudaMemcpyDeviceToHost);
			host_reduce_level(level_in.data(), cur_n, block, &want);
			std::string detail;
			bool ok = same_bits(got.data(), want.data(), grid, &detail);
			report(name, rep, o.broken, ok, "level=" + std::to_string(level) + " " + detail);

			level_in = got;
			d_cur = d_p[out];
			cur_n = grid;
			out ^= 1;
			level++;
			if (grid == 1)
				break;
		}
		printf("reduce rep=%d levels=%d result=%.9g ref_double=%.17g abs_err=%.3e\n", rep, level, level_in[0],
		       exact, std::fabs((double)level_in[0] - exact));
	}
	CK(cudaFree(d_in));
	CK(cudaFree(d_p[0]));
	CK(cudaFree(d_p[1]));
}

/* The kernel's bin rule, in float, identically. -1 for a value outside [lo, hi) or NaN. */
static int host_bin(float v, float lo, float hi, int bins)
{
	if (!(v >= lo && v < hi))
		return -1;
	const float scale = (float)bins / (hi - lo);
	int k = (int)((v - lo) * scale);
	return k > bins - 1 ? bins - 1 : k;
}

static void run_histogram(const Options &o)
{
	const char *name = "histogram";
	const int n = o.n, bins = SHADOW_HISTOGRAM_BINS;
	const float lo = SHADOW_HISTOGRAM_LO, hi = SHADOW_HISTOGRAM_HI;
	const unsigned block = SHADOW_HISTOGRAM_BLOCK, grid = ceil_div((size_t)n, block);
	const size_t bytes = (size_t)n * sizeof(float), count_bytes = (size_t)bins * sizeof(float);

	float *d_values = nullptr, *d_counts = nullptr;
	CK(cudaMalloc((void **)&d_values, bytes));
	CK(cudaMalloc((void **)&d_counts, count_bytes));
	std::vector<float> v((size_t)n), got((size_t)bins);
	for (int rep = 0; rep < o.reps; rep++) {
		Lcg rng(4000 + (uint64_t)rep);
		for (int i = 0; i < n; i++) {
			/* Roughly bell-shaped over [-5, 5): some values fall outside [lo, hi). */
			float u = rng.uniform() + rng.uniform() + rng.uniform() + rng.uniform();
			v[(size_t)i] = (u - 2.0f) * 2.5f;
			if (i % 997 == 0) /* exactly on a bin edge */
				v[(size_t)i] = lo + (float)(i / 997 % bins) * ((hi - lo) / (float)bins);
		}
		/* The edges of the contract, at fixed places. */
		const float special[] = {lo,
					 hi,
					 std::numeric_limits<float>::quiet_NaN(),
					 INFINITY,
					 -INFINITY,
					 std::nextafterf(hi, lo),
					 std::nextafterf(lo, -INFINITY)};
		for (size_t k = 0; k < sizeof special / sizeof special[0] && 1 + k < (size_t)n; k++)
			v[1 + k] = special[k];

		tally_memcpy(d_values, v.data(), bytes, cudaMemcpyHostToDevice);
		tally_memset(d_counts, 0, count_bytes);
		char args[160];
		snprintf(args, sizeof args, "n=%d lo=%.9g hi=%.9g bins=%d", n, lo, hi, bins);
		print_launch(name, rep, grid, block, 0, args);
		histogram<<<grid, block>>>(d_values, n, lo, hi, bins, d_counts);
		tally_launch(name);
		tally_memcpy(got.data(), d_counts, count_bytes, cudaMemcpyDeviceToHost);

		/*
		 * Against the exact sums: the bound for recursive summation in any order, gamma_(m-1) *
		 * sum |v| with u = 2^-24, plus the double reference's own rounding (m * 2^-52 * sum |v|).
		 * It is proven, not measured, so it is loose; a result outside it is wrong, not unlucky.
		 */
		std::vector<double> sum((size_t)bins, 0.0), sum_abs((size_t)bins, 0.0);
		std::vector<uint64_t> m((size_t)bins, 0);
		uint64_t in_range = 0;
		for (int i = 0; i < n; i++) {
			int k = host_bin(v[(size_t)i], lo, hi, bins);
			if (k < 0)
				continue;
			sum[(size_t)k] += v[(size_t)i];
			sum_abs[(size_t)k] += std::fabs(v[(size_t)i]);
			m[(size_t)k]++;
			in_range++;
		}
		int bad = 0, first = -1;
		for (int k = 0; k < bins; k++) {
			const double u = std::ldexp(1.0, -24), mk = (double)m[(size_t)k];
			const double gamma = mk > 1 ? (mk - 1) * u / (1 - (mk - 1) * u) : 0.0;
			const double bound = gamma * sum_abs[(size_t)k] + mk * std::ldexp(1.0, -52) * sum_abs[(size_t)k];
			const double err = std::fabs((double)got[(size_t)k] - sum[(size_t)k]);
			if (!(err <= bound)) { /* a NaN error fails too */
				if (first < 0)
					first = k;
				bad++;
			}
		}
		char detail[256];
		if (bad == 0)
			snprintf(detail, sizeof detail, "bins=%d in_range=%" PRIu64 " within_bound=all", bins, in_range);
		else
			snprintf(detail, sizeof detail,
				 "bins=%d in_range=%" PRIu64 " outside_bound=%d first_bin=%d got=%.9g exact=%.17g", bins,
				 in_range, bad, first, got[(size_t)first], sum[(size_t)first]);
		report(name, rep, false, bad == 0, detail);
	}
	CK(cudaFree(d_values));
	CK(cudaFree(d_counts));
}

static void run_softmax(const Options &o)
{
	const char *name = o.broken ? "softmax_rows_badmask" : "softmax_rows";
	const int rows = o.rows, cols = o.cols;
	const size_t count = (size_t)rows * (size_t)cols;
	const unsigned block = SHADOW_SOFTMAX_BLOCK;
	const size_t shmem = block * sizeof(float);

	float *d_logits = nullptr, *d_out = nullptr;
	unsigned char *d_mask = nullptr;
	CK(cudaMalloc((void **)&d_logits, count * sizeof(float)));
	CK(cudaMalloc((void **)&d_mask, count));
	CK(cudaMalloc((void **)&d_out, count * sizeof(float)));
	std::vector<float> logits(count), got(count);
	std::vector<unsigned char> mask(count);
	const float big[3] = {1000.0f, 999.0f, -1000.0f};
	for (int rep = 0; rep < o.reps; rep++) {
		Lcg rng(3000 + (uint64_t)rep);
		for (int r = 0; r < rows; r++) {
			for (int c = 0; c < cols; c++) {
				const size_t i = (size_t)r * (size_t)cols + (size_t)c;
				float x = rng.range(-8.0f, 8.0f);
				unsigned char keep = rng.next() % 4 != 0;
				if (r == 0 || r == 3) {
					x = big[c % 3];
					keep = r == 0 || c % 3 != 0; /* row 3: every 1000 masked out */
				} else if (r == 1 || r == rows - 1) {
					keep = 0; /* fully masked */
				} else if (r == 2) {
					keep = c == cols / 2; /* exactly one valid element */
				}
				logits[i] = x;
				mask[i] = keep;
			}
		}
		tally_memcpy(d_logits, logits.data(), count * sizeof(float), cudaMemcpyHostToDevice);
		tally_memcpy(d_mask, mask.data(), count, cudaMemcpyHostToDevice);
		tally_memset(d_out, 0xff, count * sizeof(float)); /* NaN poison: every element must be written */

		char args[160];
		snprintf(args, sizeof args,
			 "rows=%d cols=%d fully_masked_rows=1,%d single_valid_row=2 large_logit_rows=0,3", rows, cols,
			 rows - 1);
		print_launch(name, rep, (unsigned)rows, block, shmem, args);
		if (o.broken)
			softmax_rows_badmask<<<rows, block, shmem>>>(d_logits, d_mask, d_out, rows, cols);
		else
			softmax_rows<<<rows, block, shmem>>>(d_logits, d_mask, d_out, rows, cols);
		tally_launch(name);
		tally_memcpy(got.data(), d_out, count * sizeof(float), cudaMemcpyDeviceToHost);

		/*
		 * Exact properties decide the verdict: masked outputs and fully masked rows are +0.0f, and
		 * every output is finite and in [0, 1]. The distance from a double reference is printed for
		 * information only: a tolerance is the replay's to derive from measured correct runs.
		 */
		size_t first = count;
		float first_want = 0.0f;
		double worst_abs = 0.0, worst_row_sum = 0.0;
		uint64_t worst_ulp = 0;
		for (int r = 0; r < rows; r++) {
			const size_t row = (size_t)r * (size_t)cols;
			double mx = -INFINITY;
			for (int c = 0; c < cols; c++)
				if (mask[row + (size_t)c])
					mx = std::max(mx, (double)logits[row + (size_t)c]);
			double denom = 0.0;
			if (mx != -INFINITY)
				for (int c = 0; c < cols; c++)
					if (mask[row + (size_t)c])
						denom += std::exp((double)logits[row + (size_t)c] - mx);
			double row_sum = 0.0;
			for (int c = 0; c < cols; c++) {
				const size_t i = row + (size_t)c;
				const float g = got[i];
				const bool zero = !mask[i] || mx == -INFINITY;
				const double ref = zero ? 0.0 : std::exp((double)logits[i] - mx) / denom;
				const bool fine = zero ? bits(g) == 0 : std::isfinite(g) && g >= 0.0f && g <= 1.0f;
				if (!fine && first == count) {
					first = i;
					first_want = (float)ref;
				}
				if (!zero && std::isfinite(g)) {
					worst_abs = std::max(worst_abs, std::fabs((double)g - ref));
					worst_ulp = std::max(worst_ulp, ulps(g, (float)ref));
				}
				row_sum += g;
			}
			if (mx != -INFINITY && std::isfinite(row_sum))
				worst_row_sum = std::max(worst_row_sum, std::fabs(row_sum - 1.0));
		}
		char detail[320];
		if (first == count)
			snprintf(detail, sizeof detail,
				 "elements=%zu properties=hold worst_abs_err=%.3e worst_ulp=%" PRIu64 " worst_row_sum_err=%.3e",
				 count, worst_abs, worst_ulp, worst_row_sum);
		else
			snprintf(detail, sizeof detail, "elements=%zu first=%zu row=%zu col=%zu got=%.9g expected=%.9g",
				 count, first, first / (size_t)cols, first % (size_t)cols, got[first], first_want);
		report(name, rep, o.broken, first == count, detail);
	}
	CK(cudaFree(d_logits));
	CK(cudaFree(d_mask));
	CK(cudaFree(d_out));
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: shadow_kernels [--kernel all|saxpy|reduce|histogram|softmax] [--broken] [--n N]\n"
		"                      [--reps R] [--rows ROWS] [--cols COLS]\n"
		"Launches small kernels for shadow replay against CPU references, each R times with fresh\n"
		"deterministic inputs, and checks each launch on the host. Semantics: kernels/shadow_kernels.h.\n"
		"  --kernel K  which kernels (default all)\n"
		"  --broken    launch the broken variants instead: saxpy_nobounds, reduce_sum_nosync,\n"
		"              softmax_rows_badmask (histogram has none and runs as usual)\n"
		"  --n N       elements for saxpy, reduce and histogram (default 100003)\n"
		"  --reps R    launches of each kernel, inputs fresh each time (default 2)\n"
		"  --rows ROWS, --cols COLS  softmax shape (default 64 x 1000; rows >= 5)\n"
		"Exit: 0 ok (a broken variant going wrong is ok), 1 CUDA error or a correct kernel failed its\n"
		"check, 2 bad usage, 3 no CUDA device.\n");
}

int main(int argc, char **argv)
{
	g_prog = "shadow_kernels";
	Options o;
	const auto take_kernel = [&](const char *v) {
		o.kernel = v;
		if (o.kernel != "all" && o.kernel != "saxpy" && o.kernel != "reduce" &&
		    o.kernel != "histogram" && o.kernel != "softmax")
			usage_error("invalid value for --kernel: '%s'", o.kernel.c_str());
	};
	parse_options(argc, argv, usage,
		      {{"--kernel", take_kernel},
		       {"--broken", &o.broken},
		       {"--n", &o.n, 1, 1 << 28},
		       {"--reps", &o.reps, 1, 100000},
		       {"--rows", &o.rows, 5, 1 << 20},
		       {"--cols", &o.cols, 1, 1 << 20}});
	if ((uint64_t)o.rows * (uint64_t)o.cols > (1ull << 28))
		usage_error("softmax shape %s too large (rows * cols <= 2^28)", "rows x cols");

	open_device();
	printf("sizes kernel=%s broken=%s n=%d reps=%d rows=%d cols=%d\n", o.kernel.c_str(), o.broken ? "yes" : "no",
	       o.n, o.reps, o.rows, o.cols);

	const bool all = o.kernel == "all";
	if (all || o.kernel == "saxpy")
		run_saxpy(o);
	if (all || o.kernel == "reduce")
		run_reduce(o);
	if (all || o.kernel == "histogram")
		run_histogram(o);
	if (all || o.kernel == "softmax")
		run_softmax(o);

	g_tally.print();
	if (g_failures > 0) {
		fprintf(stderr, "%s: %d check(s) of correct kernels failed\n", g_prog, g_failures);
		return EXIT_CUDA_FAILED;
	}
	return 0;
}
