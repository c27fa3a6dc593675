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
#include "copies.cuh"

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

/* The second device's identity, in the `device` line's spelling. */
static void print_peer_device(int dev)
{
	cudaDeviceProp p;
	CK(cudaGetDeviceProperties(&p, dev));
	char pci[32];
	CK(cudaDeviceGetPCIBusId(pci, (int)sizeof pci, dev));
	char uuid[48];
	format_uuid(p, uuid);
	printf("peer_device id=%d name=\"%s\" uuid=%s cc=%d.%d pci=%s\n", dev, p.name, uuid, p.major, p.minor,
	       pci);
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
	parse_rounds_options(argc, argv, usage, &reps, &sizes);

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

	const size_t max_bytes = print_sizes_line(reps, sizes);
	printf("method timing=cudaEvent around each copy on a stream of its source device "
	       "gbps=bytes/1e9/seconds statistic=median of per-rep GB/s warmup=1 untimed round per size\n");

	unsigned char *h_pattern = nullptr, *h_back = nullptr, *a0 = nullptr, *b0 = nullptr, *a1 = nullptr;
	CK(cudaMallocHost((void **)&h_pattern, max_bytes));
	CK(cudaMallocHost((void **)&h_back, max_bytes));
	fill_pattern(h_pattern, max_bytes, 29, 3);
	memset(h_back, 0, max_bytes);

	cudaStream_t stream[2];
	EventPair ev[2];
	for (int d = 0; d < 2; d++) {
		CK(cudaSetDevice(d));
		CK(cudaStreamCreateWithFlags(&stream[d], cudaStreamNonBlocking));
		ev[d].create();
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
				CK(cudaEventRecord(ev[src].start, stream[src]));
				CK(cudaMemcpyPeerAsync(to, dst, from, src, bytes, stream[src]));
				g_tally.memcpy++; /* a peer copy: counted, its bytes in tally_peer */
				peer.copies[dir]++;
				peer.bytes[dir] += bytes;
				CK(cudaEventRecord(ev[src].stop, stream[src]));
				CK(cudaEventSynchronize(ev[src].stop));
				const double ms = ev[src].ms();
				if (rep >= 0)
					gbps[dir].push_back(copy_gbps(bytes, ms));
			}
		}
		for (int dir = 0; dir < 2; dir++) {
			printf("bw src=%d dst=%d", dir, 1 - dir);
			print_bw_median(bytes, reps, gbps[dir]);
		}
	}

	/* The last 1->0 copy brought a1 (a copy of a0) into b0, at the last size in the list. */
	const size_t last = sizes.back();
	CK(cudaSetDevice(0));
	tally_memcpy(h_back, b0, last, cudaMemcpyDeviceToHost);
	expect_equal(h_back, h_pattern, last, "peer round trip");
	printf("verify peer_round_trip=ok\n");

	for (int d = 0; d < 2; d++) {
		CK(cudaSetDevice(d));
		ev[d].destroy();
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
