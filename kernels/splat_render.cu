/*
 * kernels/splat_render.cu: the demo renderer. N 2-D Gaussian splats are alpha-composited front to
 * back into a W x H float RGBA image, frame after frame, the way the seeds describe: upload the
 * splats from pinned memory on a created stream, run `composite`, download the image into pinned
 * memory, synchronise. Each frame is an NVTX range `render_frame` with `upload`, `composite` and
 * `download` nested inside, so the tracer can split a frame into its phases.
 *
 * Two timings per frame, because they answer different questions: CUDA events around the kernel
 * (device time of `composite` only) and a steady_clock wall time around upload + kernel + download +
 * synchronise (what a user waits for). Warm-up frames run first and are printed as "warmup" lines,
 * never as "frame" lines, and are left out of the summary (dropped by position).
 *
 * The exact definition of the image is in kernels/splat.h; --check compares pixels of the last frame
 * with its double-precision reference.
 */
#include "common.cuh"
#include "splat.h"

#include <nvtx3/nvToolsExt.h>

#include <cmath>

#define BLOCK_THREADS (SPLAT_TILE * SPLAT_TILE)
#define WARPS_PER_BLOCK (BLOCK_THREADS / 32)

/*
 * One 16x16 block per tile, one thread per pixel. The splats are walked in chunks of 256, in array
 * (front-to-back) order: each thread tests one splat of the chunk against the tile's bounds, the
 * survivors are packed into shared memory keeping their order (warp ballots plus a prefix over the
 * eight warps), and then every pixel composites the packed list. Keeping the order is the point:
 * an atomic append would be faster to write and would composite in a different order every run.
 * The parameters are only pointers and scalars so that launch capture can copy them as they are.
 */
__global__ void __launch_bounds__(BLOCK_THREADS)
composite(const Splat *splats, int n, float4 *image, int w, int h)
{
	/* Per kept splat: (x, y, 0.5 / sigma^2, opacity) and (r, g, b, unused). */
	__shared__ float4 geo[BLOCK_THREADS];
	__shared__ float4 col[BLOCK_THREADS];
	__shared__ int warp_kept[WARPS_PER_BLOCK];

	const int tid = threadIdx.y * SPLAT_TILE + threadIdx.x;
	const int lane = tid & 31, warp = tid >> 5;
	const int px = blockIdx.x * SPLAT_TILE + threadIdx.x;
	const int py = blockIdx.y * SPLAT_TILE + threadIdx.y;
	const bool inside = px < w && py < h;
	const float x0 = (float)(blockIdx.x * SPLAT_TILE), y0 = (float)(blockIdx.y * SPLAT_TILE);
	const float cx = px + 0.5f, cy = py + 0.5f;
	const float cut = (float)SPLAT_CUTOFF_G, inv_window = (float)(1.0 / (1.0 - SPLAT_CUTOFF_G));

	float cr = 0.0f, cg = 0.0f, cb = 0.0f, t = 1.0f;

	for (int base = 0; base < n; base += BLOCK_THREADS) {
		/*
		 * Cull: a splat can touch the tile only if its 3-sigma disc does; one pixel of slack
		 * keeps the test conservative under rounding (the window makes the weight of anything
		 * farther exactly zero anyway).
		 */
		const int i = base + tid;
		Splat s = {};
		bool keep = false;
		if (i < n) {
			s = splats[i];
			float r = (float)SPLAT_CUTOFF_SIGMAS * s.sigma + 1.0f;
			keep = s.x - r <= x0 + SPLAT_TILE && s.x + r >= x0 && s.y - r <= y0 + SPLAT_TILE &&
			       s.y + r >= y0;
		}
		const unsigned ballot = __ballot_sync(0xffffffffu, keep);
		if (lane == 0)
			warp_kept[warp] = __popc(ballot);
		__syncthreads();

		int slot = __popc(ballot & ((1u << lane) - 1u)), kept = 0;
		for (int k = 0; k < WARPS_PER_BLOCK; k++) {
			slot += k < warp ? warp_kept[k] : 0;
			kept += warp_kept[k];
		}
		if (keep) {
			geo[slot] = make_float4(s.x, s.y, 0.5f / (s.sigma * s.sigma), s.opacity);
			col[slot] = make_float4(s.r, s.g, s.b, 0.0f);
		}
		__syncthreads();

		if (inside) {
			for (int k = 0; k < kept; k++) {
				const float4 q = geo[k];
				const float dx = cx - q.x, dy = cy - q.y;
				const float wgt = (expf(-(dx * dx + dy * dy) * q.z) - cut) * inv_window;
				if (wgt > 0.0f) {
					const float4 c = col[k];
					const float alpha = q.w * wgt;
					cr += t * alpha * c.x;
					cg += t * alpha * c.y;
					cb += t * alpha * c.z;
					t *= 1.0f - alpha;
				}
			}
		}
		/* geo, col and warp_kept are rewritten by the next chunk. */
		__syncthreads();
	}
	if (inside)
		image[(size_t)py * w + px] = make_float4(cr, cg, cb, 1.0f - t);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: splat_render [--splats N] [--width W] [--height H] [--frames F] [--warmup K] [--check]\n"
		"Alpha-composites N 2-D Gaussian splats front to back into a W x H float RGBA image, F timed\n"
		"frames after K warm-up frames. Per frame: pinned H2D upload of the splats, the composite\n"
		"kernel, pinned D2H download of the image, stream synchronise; NVTX ranges render_frame >\n"
		"upload, composite, download.\n"
		"  --splats N   number of splats (default 16384)\n"
		"  --width W    image width in pixels (default 1280)\n"
		"  --height H   image height in pixels (default 720)\n"
		"  --frames F   timed frames, one 'frame' line each (default 20)\n"
		"  --warmup K   untimed frames run first, printed as 'warmup' lines (default 3)\n"
		"  --check      compare pixels of the last frame with a double-precision CPU reference\n"
		"Exit: 0 ok, 1 CUDA error, 2 bad usage, 3 no CUDA device.\n");
}

/*
 * The scene: positions uniform over the image, mostly small splats with a few large ones (sigma =
 * 1 + 15 u^3 pixels), then sorted front to back by depth. stable_sort keeps equal depths in
 * generation order so the array is the same on every run.
 */
static void make_scene(Splat *out, int n, int w, int h)
{
	std::vector<Splat> v((size_t)n);
	Lcg rng(42);
	for (Splat &s : v) {
		float u = rng.uniform();
		s.x = rng.range(0.0f, (float)w);
		s.y = rng.range(0.0f, (float)h);
		s.sigma = 1.0f + 15.0f * u * u * u;
		s.opacity = rng.range(0.3f, 0.95f);
		s.r = rng.uniform();
		s.g = rng.uniform();
		s.b = rng.uniform();
		s.depth = rng.uniform();
	}
	std::stable_sort(v.begin(), v.end(), [](const Splat &a, const Splat &b) { return a.depth < b.depth; });
	std::copy(v.begin(), v.end(), out);
}

/* Median absolute deviation from the median (raw, not scaled). */
static double mad(const std::vector<double> &v)
{
	double m = median(v);
	std::vector<double> d;
	for (double x : v)
		d.push_back(std::fabs(x - m));
	return median(d);
}

/* --check: a fixed set of pixels (corners, centre, 64 from the LCG) against splat_reference_pixel. */
static void check_pixels(const Splat *splats, int n, const float4 *image, int w, int h)
{
	std::vector<std::pair<int, int>> px = {{0, 0}, {w - 1, 0}, {0, h - 1}, {w - 1, h - 1}, {w / 2, h / 2}};
	Lcg rng(7);
	for (int k = 0; k < 64; k++)
		px.push_back({(int)(rng.next() % (uint32_t)w), (int)(rng.next() % (uint32_t)h)});

	double worst = -1.0, worst_gpu = 0.0, worst_ref = 0.0;
	int wx = 0, wy = 0, wc = 0;
	const char *chan = "rgba";
	for (auto [x, y] : px) {
		double ref[4];
		splat_reference_pixel(splats, n, x, y, ref);
		const float4 p = image[(size_t)y * w + x];
		const float gpu[4] = {p.x, p.y, p.z, p.w};
		for (int c = 0; c < 4; c++) {
			/* A NaN must never look small: it counts as an infinite error. */
			double err = std::isnan(gpu[c]) ? INFINITY : std::fabs((double)gpu[c] - ref[c]);
			if (err > worst) {
				worst = err;
				worst_gpu = gpu[c];
				worst_ref = ref[c];
				wx = x;
				wy = y;
				wc = c;
			}
		}
	}
	printf("check pixels=%zu worst_abs_err=%.3e at=(%d,%d) channel=%c gpu=%.9g ref=%.9g\n", px.size(),
	       worst, wx, wy, chan[wc], worst_gpu, worst_ref);
}

int main(int argc, char **argv)
{
	g_prog = "splat_render";
	int n = 16384, w = 1280, h = 720, frames = 20, warmup = 3;
	bool check = false;
	parse_options(argc, argv, usage,
		      {{"--splats", &n, 1, 1 << 26},
		       {"--width", &w, 1, 32768},
		       {"--height", &h, 1, 32768},
		       {"--frames", &frames, 1, 1000000},
		       {"--warmup", &warmup, 0, 1000000},
		       {"--check", &check}});

	open_device();
	const size_t splat_bytes = (size_t)n * sizeof(Splat);
	const size_t image_bytes = (size_t)w * (size_t)h * sizeof(float4);
	const dim3 block(SPLAT_TILE, SPLAT_TILE);
	const dim3 grid((unsigned)((w + SPLAT_TILE - 1) / SPLAT_TILE),
			(unsigned)((h + SPLAT_TILE - 1) / SPLAT_TILE));
	printf("sizes splats=%d width=%d height=%d frames=%d warmup=%d splat_bytes=%zu image_bytes=%zu "
	       "grid=%ux%u block=%ux%u\n",
	       n, w, h, frames, warmup, splat_bytes, image_bytes, grid.x, grid.y, block.x, block.y);
	printf("method kernel_ms=cudaEvent(composite only) e2e_ms=steady_clock(upload+composite+download+sync) "
	       "host_memory=pinned warmup=printed as 'warmup' lines, not in summary\n");

	Splat *h_splats = nullptr, *d_splats = nullptr;
	float4 *h_image = nullptr, *d_image = nullptr;
	cudaStream_t stream;
	EventPair kev; /* around composite only */
	CK(cudaMallocHost((void **)&h_splats, splat_bytes));
	CK(cudaMallocHost((void **)&h_image, image_bytes));
	CK(cudaMalloc((void **)&d_splats, splat_bytes));
	CK(cudaMalloc((void **)&d_image, image_bytes));
	CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
	kev.create();
	make_scene(h_splats, n, w, h);

	std::vector<double> kernel_ms, e2e_ms;
	for (int f = 0; f < warmup + frames; f++) {
		nvtxRangePushA("render_frame");
		const double t0 = now_ms();

		nvtxRangePushA("upload");
		tally_memcpy_async(d_splats, h_splats, splat_bytes, cudaMemcpyHostToDevice, stream);
		nvtxRangePop();

		nvtxRangePushA("composite");
		CK(cudaEventRecord(kev.start, stream));
		composite<<<grid, block, 0, stream>>>(d_splats, n, d_image, w, h);
		tally_launch("composite");
		CK(cudaEventRecord(kev.stop, stream));
		nvtxRangePop();

		/* The synchronise belongs to the download: it is where the host waits for the image. */
		nvtxRangePushA("download");
		tally_memcpy_async(h_image, d_image, image_bytes, cudaMemcpyDeviceToHost, stream);
		CK(cudaStreamSynchronize(stream));
		nvtxRangePop();

		const double t1 = now_ms();
		nvtxRangePop();

		const double k = kev.ms(), e = t1 - t0;
		if (f < warmup) {
			printf("warmup %d kernel_ms %.4f e2e_ms %.4f\n", f, k, e);
		} else {
			printf("frame %d kernel_ms %.4f e2e_ms %.4f\n", f - warmup, k, e);
			kernel_ms.push_back(k);
			e2e_ms.push_back(e);
		}
	}
	printf("summary frames=%d warmup_dropped=%d kernel_ms_median=%.4f kernel_ms_mad=%.4f "
	       "e2e_ms_median=%.4f e2e_ms_mad=%.4f\n",
	       frames, warmup, median(kernel_ms), mad(kernel_ms), median(e2e_ms), mad(e2e_ms));

	if (check)
		check_pixels(h_splats, n, h_image, w, h);

	kev.destroy();
	CK(cudaStreamDestroy(stream));
	CK(cudaFree(d_image));
	CK(cudaFree(d_splats));
	CK(cudaFreeHost(h_image));
	CK(cudaFreeHost(h_splats));
	g_tally.print();
	return 0;
}
