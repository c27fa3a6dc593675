/*
 * kernels/graph_launch.cu: kernels that run inside a CUDA graph, which a tracer sees differently
 * from ordinary launches (one cudaGraphLaunch call, many kernel records carrying a graph id, and no
 * per-kernel launch callback). The program captures a stream into a graph of K kernel nodes followed
 * by one memcpy node, instantiates it and launches it R times; before that it launches kernels the
 * ordinary way: one `graph_init`, then M launches of `graph_step`, the same function the graph's
 * kernel nodes run, so a trace holds one kernel name both inside and outside a graph.
 *
 * Kernel node j computes data[i] = data[i] * 0.5 + (j % 7 + 1): the multiply by one half is exact,
 * so the host can replay the whole sequence in float bit for bit, and because the steps do not
 * commute a node run out of order would show. The memcpy node copies the data into a snapshot
 * buffer (device to device) as the graph's last node.
 */
#include "common.cuh"

__global__ void graph_init(float *data, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		data[i] = (float)(i % 97);
}

__global__ void graph_step(float *data, int n, float add)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		data[i] = data[i] * 0.5f + add;
}

#define BLOCK 256

static float node_add(int j) { return (float)(j % 7 + 1); }

static void usage(FILE *f)
{
	fprintf(f,
		"usage: graph_launch [--nodes K] [--launches R] [--ordinary M] [--n N]\n"
		"Captures a stream into a CUDA graph of K graph_step kernel nodes and one device-to-device\n"
		"memcpy node, instantiates it and launches it R times, after one ordinary graph_init launch\n"
		"and M ordinary graph_step launches. Checks the result against a host replay.\n"
		"  --nodes K     kernel nodes in the graph (default 16)\n"
		"  --launches R  graph launches (default 50)\n"
		"  --ordinary M  ordinary graph_step launches before the graph (default 3)\n"
		"  --n N         floats per buffer (default 65536)\n"
		"Exit: 0 ok, 1 CUDA error or wrong result, 2 bad usage, 3 no CUDA device.\n");
}

int main(int argc, char **argv)
{
	g_prog = "graph_launch";
	int nodes = 16, launches = 50, ordinary = 3, n = 65536;
	parse_options(argc, argv, usage,
		      {{"--nodes", &nodes, 1, 10000},
		       {"--launches", &launches, 0, 10000000},
		       {"--ordinary", &ordinary, 0, 10000000},
		       {"--n", &n, 1, 1 << 28}});

	open_device();
	const size_t bytes = (size_t)n * sizeof(float);
	const unsigned grid = (unsigned)((n + BLOCK - 1) / BLOCK);
	printf("sizes nodes=%d launches=%d ordinary=%d n=%d bytes=%zu grid=%u block=%d\n", nodes, launches, ordinary,
	       n, bytes, grid, BLOCK);

	float *d_data = nullptr, *d_snap = nullptr;
	cudaStream_t stream;
	CK(cudaMalloc((void **)&d_data, bytes));
	CK(cudaMalloc((void **)&d_snap, bytes));
	CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

	/* Ordinary launches first, in the same stream the graph will run in. */
	graph_init<<<grid, BLOCK, 0, stream>>>(d_data, n);
	tally_launch("graph_init");
	for (int m = 0; m < ordinary; m++) {
		graph_step<<<grid, BLOCK, 0, stream>>>(d_data, n, 1.0f);
		tally_launch("graph_step");
	}

	/*
	 * Load graph_step now (CUDA 13 loads kernels lazily, at first use) so that module loading never
	 * has to happen inside the capture, even with --ordinary 0.
	 */
	cudaFuncAttributes attr;
	CK(cudaFuncGetAttributes(&attr, graph_step));

	/*
	 * Capture. Nothing is enqueued while capturing, so nothing is tallied here; the graph's work is
	 * tallied per cudaGraphLaunch below. Thread-local mode: only this thread's calls are captured.
	 */
	cudaGraph_t graph;
	cudaGraphExec_t exec;
	CK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
	for (int j = 0; j < nodes; j++) {
		graph_step<<<grid, BLOCK, 0, stream>>>(d_data, n, node_add(j));
		launch_check("graph_step");
	}
	CK(cudaMemcpyAsync(d_snap, d_data, bytes, cudaMemcpyDeviceToDevice, stream));
	CK(cudaStreamEndCapture(stream, &graph));
	size_t graph_nodes = 0;
	CK(cudaGraphGetNodes(graph, nullptr, &graph_nodes));
	CK(cudaGraphInstantiate(&exec, graph, 0));
	printf("graph nodes=%zu kernel_nodes=%d memcpy_nodes=1\n", graph_nodes, nodes);

	/* Each launch timed with events in the graph's stream: device time of the whole graph. */
	EventPair ev;
	ev.create();
	std::vector<double> graph_ms;
	const double t0 = now_ms();
	for (int r = 0; r < launches; r++) {
		CK(cudaEventRecord(ev.start, stream));
		CK(cudaGraphLaunch(exec, stream));
		g_tally.kernels += (uint64_t)nodes;
		g_tally.add_copy(cudaMemcpyDeviceToDevice, bytes);
		CK(cudaEventRecord(ev.stop, stream));
		CK(cudaEventSynchronize(ev.stop));
		graph_ms.push_back(ev.ms());
	}
	const double t1 = now_ms();
	printf("timing graph_launches=%d graph_ms_median=%.4f host_ms_total=%.3f\n", launches, median(graph_ms),
	       t1 - t0);

	/* Replay on the host, in float, the same operations in the same order. */
	std::vector<float> want((size_t)n), data((size_t)n), snap((size_t)n);
	for (int i = 0; i < n; i++) {
		float x = (float)(i % 97);
		for (int m = 0; m < ordinary; m++)
			x = x * 0.5f + 1.0f;
		for (int r = 0; r < launches; r++)
			for (int j = 0; j < nodes; j++)
				x = x * 0.5f + node_add(j);
		want[(size_t)i] = x;
	}
	tally_memcpy(data.data(), d_data, bytes, cudaMemcpyDeviceToHost);
	tally_memcpy(snap.data(), d_snap, bytes, cudaMemcpyDeviceToHost);
	for (int i = 0; i < n; i++) {
		/* Before the first graph launch the snapshot buffer was never written: skip it then. */
		const bool snap_bad = launches > 0 && snap[(size_t)i] != want[(size_t)i];
		if (data[(size_t)i] != want[(size_t)i] || snap_bad) {
			fprintf(stderr, "%s: wrong result at element %d: data=%.9g snapshot=%.9g expected=%.9g\n",
				g_prog, i, data[(size_t)i], snap[(size_t)i], want[(size_t)i]);
			return EXIT_CUDA_FAILED;
		}
	}
	printf("verify elements=%d ok\n", n);

	ev.destroy();
	CK(cudaGraphExecDestroy(exec));
	CK(cudaGraphDestroy(graph));
	CK(cudaStreamDestroy(stream));
	CK(cudaFree(d_data));
	CK(cudaFree(d_snap));
	g_tally.print();
	return 0;
}
