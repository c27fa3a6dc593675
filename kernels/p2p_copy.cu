/*
 * kernels/p2p_copy.cu: peer-to-peer copies between device 0 and device 1, both ways, at several
 * sizes, each timed with CUDA events, so that the trace's peer copies (copy kind PtoP, with both
 * devices) can be counted exactly and their GB/s set beside the program's own.
 *
 * Peer access is enabled both ways when the devices allow it (cudaDeviceCanAccessPeer); without it
 * cudaMemcpyPeerAsync still works, staged by the driver, and the `peer_access` line says so. Per
 * size: one untimed round (0->1, then 1->0) as warm-up, then --reps timed rounds; each copy is
 * cudaMemcpyPeerAsync on a stream of its source device, between events on that stream. Buffers:
 * a0 and b0 on device 0, a1 on device 1; 0->1 copies a0 into a1, 1->0 copies a1 into b0. Before the
 * copies a0 gets a byte pattern from pinned host memory (one cudaMemcpy H2D) and the three buffers
 * are cleared (cudaMemset); after them b0 comes back to the host (one cudaMemcpy D2H) and must hold
 * the pattern: both directions moved the right bytes.
 *
 * Output: the `device` line of device 0 (common.cuh), a `peer_device` line for device 1, the
 * `peer_access` line, one `bw` line per size and direction, `verify`, the tally line of common.cuh
 * (peer copies count in memcpy; their bytes are in no H2D/D2H/D2D column) and a `tally_peer` line:
 *   tally_peer copies_0to1=N bytes_0to1=B copies_1to0=N bytes_1to0=B
 * No CUDA device: "p2p_copy: no CUDA device: <reason>", exit 3; one device only: "p2p_copy: needs 2
 * GPUs: found 1", exit 3.
 */
#include "common.cuh"

#include <string>

static void usage(FILE *f)
{
	fprintf(f,
		"usage: p2p_copy [--reps R] [--sizes LIST]\n"
		"Copies between device 0 and device 1 (cudaMemcpyPeerAsync, both ways, peer access enabled\n"
		"where the devices allow it) at several sizes, timed with CUDA events after one untimed\n"
		"round per size, and prints the median GB/s (decimal) per size and direction.\n"
		"  --reps R      timed rounds per size (default 5)\n"
		"  --sizes LIST  comma-separated byte counts, K/M/G suffixes binary\n"
		"                (default 64K,1M,16M,256M)\n"
		"Exit: 0 ok, 1 CUDA error or wrong data, 2 bad usage, 3 no CUDA device or fewer than 2.\n");
}

static std::vector<size_t> parse_sizes(const char *list)
{
	std::vector<size_t> sizes;
	std::string all(list);
	size_t pos = 0;
	for (;;) {
		size_t comma = all.find(',', pos);
		std::string item = all.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
		uint64_t v = 0;
		if (!parse_count(item.c_str(), &v) || v == 0 || v > (16ull << 30))
			usage_error("invalid size in --sizes: '%s' (1..16G)", item.c_str());
		sizes.push_back((size_t)v);
		if (comma == std::string::npos)
			break;
		pos = comma + 1;
	}
	return sizes;
}

/* The second device's identity, in the `device` line's spelling. */
static void print_peer_device(int dev)
{
	cudaDeviceProp p;
	CK(cudaGetDeviceProperties(&p, dev));
	char pci[32];
	CK(cudaDeviceGetPCIBusId(pci, (int)sizeof pci, dev));
	const unsigned char *u = (const unsigned char *)p.uuid.bytes;
	printf("peer_device id=%d name=\"%s\" uuid=GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
	       "%02x%02x%02x%02x%02x%02x cc=%d.%d pci=%s\n",
	       dev, p.name, u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
	       u[13], u[14], u[15], p.major, p.minor, pci);
}

/* Peer access from `from` to `to`; an access already enabled (by an earlier call) is fine. */
static void enable_peer(int from, int to)
{
	CK(cudaSetDevice(from));
	cudaError_t err = cudaDeviceEnablePeerAccess(to, 0);
	if (err == cudaErrorPeerAccessAlreadyEnabled) {
		(void)cudaGetLastError(); /* clear it: the next launch check must not see it */
		return;
	}
	CK(err);
}

struct Peer {
	uint64_t copies[2] = {0, 0}; /* [0]: 0->1, [1]: 1->0 */
	uint64_t bytes[2] = {0, 0};
};

int main(int argc, char **argv)
{
	g_prog = "p2p_copy";
	int reps = 5;
	std::vector<size_t> sizes = parse_sizes("64K,1M,16M,256M");
	for (int i = 1; i < argc; i++) {
		Opt o(argc, argv, &i);
		if (o.flag("--help")) {
			usage(stdout);
			return 0;
		} else if (o.is("--reps"))
			reps = o.i32(1, 100000);
		else if (o.is("--sizes"))
			sizes = parse_sizes(o.str());
		else
			o.unknown();
	}

	/* Fewer than two devices is "no device" for this program: the same exit status, its own line. */
	int count = 0;
	cudaError_t cerr = cudaGetDeviceCount(&count);
	if (cerr != cudaSuccess)
		no_device(cudaGetErrorString(cerr));
	if (count == 0)
		no_device("cudaGetDeviceCount returned 0 devices");
	if (count < 2) {
		fprintf(stderr, "%s: needs 2 GPUs: found %d\n", g_prog, count);
		return EXIT_NO_DEVICE;
	}
	open_device();
	print_peer_device(1);
	int can01 = 0, can10 = 0;
	CK(cudaDeviceCanAccessPeer(&can01, 0, 1));
	CK(cudaDeviceCanAccessPeer(&can10, 1, 0));
	if (can01)
		enable_peer(0, 1);
	if (can10)
		enable_peer(1, 0);
	printf("peer_access 0to1=%d 1to0=%d%s\n", can01, can10,
	       can01 && can10 ? "" : " (without it the driver stages the copies)");

	const size_t max_bytes = *std::max_element(sizes.begin(), sizes.end());
	printf("sizes reps=%d warmup_rounds=1 max_bytes=%zu bytes=", reps, max_bytes);
	for (size_t k = 0; k < sizes.size(); k++)
		printf("%s%zu", k ? "," : "", sizes[k]);
	printf("\n");
	printf("method timing=cudaEvent around each copy on a stream of its source device "
	       "gbps=bytes/1e9/seconds statistic=median of per-rep GB/s warmup=1 untimed round per size\n");

	unsigned char *h_pattern = nullptr, *h_back = nullptr, *a0 = nullptr, *b0 = nullptr, *a1 = nullptr;
	CK(cudaMallocHost((void **)&h_pattern, max_bytes));
	CK(cudaMallocHost((void **)&h_back, max_bytes));
	for (size_t i = 0; i < max_bytes; i++)
		h_pattern[i] = (unsigned char)((i * 29 + 3 + (i >> 12)) & 0xffu);
	memset(h_back, 0, max_bytes);

	cudaStream_t stream[2];
	cudaEvent_t ev_start[2], ev_stop[2];
	for (int d = 0; d < 2; d++) {
		CK(cudaSetDevice(d));
		CK(cudaStreamCreateWithFlags(&stream[d], cudaStreamNonBlocking));
		CK(cudaEventCreate(&ev_start[d]));
		CK(cudaEventCreate(&ev_stop[d]));
		if (d == 0) {
			CK(cudaMalloc((void **)&a0, max_bytes));
			CK(cudaMalloc((void **)&b0, max_bytes));
			tally_memset(a0, 0, max_bytes);
			tally_memset(b0, 0, max_bytes);
			tally_memcpy(a0, h_pattern, max_bytes, cudaMemcpyHostToDevice);
		} else {
			CK(cudaMalloc((void **)&a1, max_bytes));
			tally_memset(a1, 0, max_bytes);
		}
		CK(cudaDeviceSynchronize());
	}

	Peer peer;
	for (size_t bytes : sizes) {
		std::vector<double> gbps[2];
		for (int rep = -1; rep < reps; rep++) {
			for (int dir = 0; dir < 2; dir++) {
				const int src = dir, dst = 1 - dir;
				unsigned char *to = dir == 0 ? a1 : b0;
				const unsigned char *from = dir == 0 ? a0 : a1;
				CK(cudaSetDevice(src));
				CK(cudaEventRecord(ev_start[src], stream[src]));
				CK(cudaMemcpyPeerAsync(to, dst, from, src, bytes, stream[src]));
				g_tally.memcpy++; /* a peer copy: counted, its bytes in tally_peer */
				peer.copies[dir]++;
				peer.bytes[dir] += bytes;
				CK(cudaEventRecord(ev_stop[src], stream[src]));
				CK(cudaEventSynchronize(ev_stop[src]));
				const double ms = event_ms(ev_start[src], ev_stop[src]);
				if (rep >= 0)
					gbps[dir].push_back(ms > 0 ? (double)bytes / 1e9 / (ms / 1e3) : 0.0);
			}
		}
		for (int dir = 0; dir < 2; dir++) {
			const double g = median(gbps[dir]);
			printf("bw src=%d dst=%d bytes=%zu reps=%d gbps_median=%.3f us_median=%.3f\n", dir, 1 - dir,
			       bytes, reps, g, g > 0 ? (double)bytes / g / 1e3 : 0.0);
		}
	}

	/* The last 1->0 copy brought a1 (a copy of a0) into b0, at the last size in the list. */
	const size_t last = sizes.back();
	CK(cudaSetDevice(0));
	tally_memcpy(h_back, b0, last, cudaMemcpyDeviceToHost);
	if (memcmp(h_back, h_pattern, last) != 0) {
		size_t i = 0;
		while (h_back[i] == h_pattern[i])
			i++;
		fprintf(stderr, "%s: peer round trip: wrong data at byte %zu of %zu: got 0x%02x, expected 0x%02x\n",
			g_prog, i, last, h_back[i], h_pattern[i]);
		return EXIT_CUDA_FAILED;
	}
	printf("verify peer_round_trip=ok\n");

	for (int d = 0; d < 2; d++) {
		CK(cudaSetDevice(d));
		CK(cudaEventDestroy(ev_start[d]));
		CK(cudaEventDestroy(ev_stop[d]));
		CK(cudaStreamDestroy(stream[d]));
	}
	CK(cudaFree(a0));
	CK(cudaFree(b0));
	CK(cudaFree(a1));
	CK(cudaFreeHost(h_pattern));
	CK(cudaFreeHost(h_back));
	g_tally.print();
	printf("tally_peer copies_0to1=%" PRIu64 " bytes_0to1=%" PRIu64 " copies_1to0=%" PRIu64
	       " bytes_1to0=%" PRIu64 "\n",
	       peer.copies[0], peer.bytes[0], peer.copies[1], peer.bytes[1]);
	return 0;
}
