/*
 * kernels/shadow_kernels.h: the exact semantics of the kernels in kernels/shadow_kernels.cu, written
 * for whoever writes their CPU references for shadow replay. A reference gets, per captured launch,
 * the launch configuration (grid, block, dynamic shared memory), the raw parameter values, and every
 * pointer parameter's whole allocation before and after the launch; from the "before" copies alone it
 * must reproduce the "after" copies. Everything a reference needs is below: parameter order, which
 * buffers are read and which written, the launch configuration the program uses, the order of every
 * floating-point operation where the order is fixed, and what each broken variant gets wrong and at
 * which element the first error is expected.
 *
 * Conventions for every kernel here:
 *   - 1-D grids and blocks; i = blockIdx.x * blockDim.x + threadIdx.x.
 *   - float data; "float add" means one IEEE binary32 addition, round to nearest even. The kernels are
 *     built without fast math (IEEE division and square root, denormals kept).
 *   - Compare the WHOLE allocation, not just the first n elements: the programs allocate padding on
 *     purpose so that a write past n shows up (saxpy_nobounds), and poison outputs (0xff bytes, a NaN)
 *     so that an element the kernel should have written and did not shows up as NaN.
 *   - A broken variant's reference is the correct kernel's: register the same CPU function under both
 *     names, so that the replay reports where the broken kernel departs from what it should compute.
 *
 * Plain C (C99 and C++17); the __global__ declarations are visible to nvcc only.
 */
#ifndef GPUTRACE_KERNELS_SHADOW_KERNELS_H
#define GPUTRACE_KERNELS_SHADOW_KERNELS_H

/* Launch configurations the program uses (the reference receives them anyway). */
#define SHADOW_SAXPY_BLOCK 256
#define SHADOW_REDUCE_BLOCK 512
#define SHADOW_HISTOGRAM_BLOCK 256
#define SHADOW_SOFTMAX_BLOCK 256

/* saxpy's padding past n: x holds SHADOW_PAD_X there and y holds SHADOW_PAD_Y. */
#define SHADOW_PAD_X 1.0f
#define SHADOW_PAD_Y 1234.5f

/* histogram's range and bin count as the program launches it. */
#define SHADOW_HISTOGRAM_LO (-4.0f)
#define SHADOW_HISTOGRAM_HI 4.0f
#define SHADOW_HISTOGRAM_BINS 64

/*
 * saxpy(int n, float a, const float *x, float *y)
 *   reads  x[0..n), y[0..n)
 *   writes y[i] = fmaf(a, x[i], y[i]) for 0 <= i < n: one fused multiply-add, one rounding (written
 *          as fmaf in the kernel, so it does not depend on the compiler's contraction); C's fmaf is
 *          correctly rounded, so a reference using it is bit-exact.
 *   leaves y[i] for i >= n unchanged.
 *   launch grid = ceil(n / 256), block = 256, no shared memory. The program allocates x and y with
 *          ceil(n / 256) * 256 floats and fills [n, end) with SHADOW_PAD_X / SHADOW_PAD_Y.
 *
 * saxpy_nobounds: the same parameters; the bounds check `if (i < n)` is missing, so every thread of
 *   the last block writes, including i in [n, grid * 256): y[i] = fmaf(a, SHADOW_PAD_X, SHADOW_PAD_Y)
 *   there. Inside the allocation, so it does not fault.
 *   First error: y[n] (the first padding element), when n is not a multiple of 256. The program
 *   launches with its default n = 100003 (not a multiple) and says so when --n is a multiple.
 *
 * reduce_sum(const float *in, float *partial, int n)
 *   B = blockDim.x (a power of two, 2..1024), b = blockIdx.x, t = threadIdx.x, base = b * 2 * B.
 *   dynamic shared memory: B floats, s[0..B).
 *   reads  in[0..n)
 *   writes partial[b] for 0 <= b < gridDim.x, and nothing else:
 *     s[t] = (base + t < n ? in[base + t] : 0.0f) + (base + t + B < n ? in[base + t + B] : 0.0f)
 *                                                        (one float add, even when a side is 0.0f)
 *     for (stride = B / 2; stride >= 1; stride /= 2)     (a barrier before every step)
 *       for every t < stride, simultaneously: s[t] = s[t] + s[t + stride]      (float add)
 *     partial[b] = s[0]
 *   This order is fixed, so a float reference that follows it is bit-exact.
 *   launch block = 512, grid = ceil(n / 1024), shared memory 2048 bytes. The program reduces to one
 *          value by launching the same kernel again on the partials (in = previous partial,
 *          n = previous grid), ping-ponging between two partial buffers, until grid is 1: with
 *          n = 100003 that is two launches (98 blocks, then 1). Partial buffers are poisoned (NaN)
 *          before the first launch of each repetition.
 *
 * reduce_sum_nosync: the same parameters and launch; the barrier between the store s[t] = ... and
 *   the first step is missing, so a thread t < B/2 may read s[t + B/2] before the thread that owns
 *   it (in another warp, with B = 512) has stored it: it then adds whatever the shared memory held
 *   (a value left by an earlier block on that SM, or uninitialised contents). A real race: which
 *   blocks go wrong depends on timing and may change from run to run. Expected: many partial[b]
 *   wrong in the first launch; the first error is the lowest b whose sum used a stale value, not a
 *   fixed index (typically low). compute-sanitizer --tool racecheck reports it.
 *
 * histogram(const float *values, int n, float lo, float hi, int bins, float *counts_weighted)
 *   reads  values[0..n), and counts_weighted[0..bins) (it accumulates into it)
 *   writes counts_weighted[k] = before[k] + (sum of v over the elements v = values[i], i < n, that
 *          fall in bin k), where an element falls in a bin only if lo <= v < hi (so NaN, infinities
 *          and out-of-range values are skipped), and its bin is computed in float exactly as
 *            scale = (float)bins / (hi - lo);  k = (int)((v - lo) * scale);  if (k > bins - 1) k = bins - 1;
 *          (hi - lo is one float subtraction, the division is IEEE, the cast truncates).
 *          The weight of an element is its own value v. The additions use float atomicAdd, so
 *          their order is the order in which threads arrive, different from run to run: the result
 *          is not bit-reproducible. (Float atomicAdd also flushes subnormal inputs and results to
 *          zero; the program's values never produce one.) A sound bound for bin k with m_k elements:
 *            |gpu - exact| <= (m_k - 1) * 2^-24 / (1 - (m_k - 1) * 2^-24) * (|before[k]| + sum |v|)
 *          (the standard bound for recursive summation in any order).
 *   launch grid = ceil(n / 256), block = 256, lo = -4, hi = 4, bins = 64. The program zeroes
 *          counts_weighted with cudaMemset before each launch. Inputs: values[1..7] are lo, hi, NaN,
 *          +inf, -inf, the largest float below hi ((v - lo) * scale rounds up to 64 there, so the
 *          clamp puts it in bin 63) and the largest float below lo; every values[i] with i % 997 == 0
 *          lies exactly on a bin edge; the rest are roughly bell-shaped over [-5, 5).
 *   There is no broken variant: its spread is the lesson (a tolerance must come from it).
 *
 * softmax_rows(const float *logits, const unsigned char *mask, float *out, int rows, int cols)
 *   Row-major [rows][cols]. mask[r * cols + c] != 0 means the element is valid; 0 means masked out.
 *   One block per row: r = blockIdx.x (grid = rows), B = blockDim.x (a power of two, <= 1024),
 *   dynamic shared memory B floats. For row r, with x_c = valid(c) ? logits[r*cols + c] : -INFINITY:
 *     m = max over c of x_c                               (exact, order does not matter)
 *     if m == -INFINITY: out[r*cols + c] = 0.0f for every c, and the row is done.
 *        DECLARED BEHAVIOUR: a fully masked row is an all-zero output row, not NaN. (A row whose
 *        valid logits are all -INFINITY is treated the same way.)
 *     else:
 *       e_c = expf(x_c - m)          (CUDA's expf, max 2 ulp error; expf(-INFINITY) = +0 exactly)
 *       thread t sums its columns in order: acc_t = 0.0f; for (c = t; c < cols; c += B) acc_t += e_c;
 *       then a tree over s[t] = acc_t exactly as in reduce_sum (stride B/2 down to 1): sum = s[0]
 *       out[r*cols + c] = e_c / sum   (IEEE division; masked elements are exactly +0.0f)
 *   reads  logits, mask; writes out[0..rows*cols) (every element). NaN logits are not supported.
 *   Not bit-exact against glibc's expf; the reference should compute in double and compare with a
 *   tolerance measured on correct runs. Properties that hold exactly: masked outputs are +0.0f,
 *   fully masked rows are all +0.0f, every output is finite and in [0, 1].
 *   launch grid = rows, block = 256, shared memory 1024 bytes; default rows = 64, cols = 1000
 *          (the program accepts rows >= 5, so that the special rows below are distinct).
 *          The program poisons out (NaN) before each launch. Row 0 holds the large logits 1000, 999,
 *          -1000 repeating (all valid); row 1 and the last row are fully masked; row 2 has exactly
 *          one valid element (at cols / 2, whose output is 1); row 3 repeats row 0's logits with every
 *          1000 masked out; the other rows are random logits in [-8, 8) with about a quarter masked.
 *
 * softmax_rows_badmask: the same parameters and launch; the fully masked case is forgotten (no test
 *   of m == -INFINITY), so a fully masked row computes expf(-INFINITY - -INFINITY) = expf(NaN) and
 *   writes NaN to every element of that row. Rows with a valid element are bit-identical to
 *   softmax_rows. First error: row 1, column 0, that is out[cols] (out[1000] with the defaults).
 */

#ifdef __CUDACC__
__global__ void saxpy(int n, float a, const float *x, float *y);
__global__ void saxpy_nobounds(int n, float a, const float *x, float *y);
__global__ void reduce_sum(const float *in, float *partial, int n);
__global__ void reduce_sum_nosync(const float *in, float *partial, int n);
__global__ void histogram(const float *values, int n, float lo, float hi, int bins, float *counts_weighted);
__global__ void softmax_rows(const float *logits, const unsigned char *mask, float *out, int rows, int cols);
__global__ void softmax_rows_badmask(const float *logits, const unsigned char *mask, float *out, int rows,
				     int cols);
#endif

#endif /* GPUTRACE_KERNELS_SHADOW_KERNELS_H */
