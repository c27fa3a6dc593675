/*
 * tests/gpu/progs/rel_cuda.cu: the nvcc-built CUDA program of the reliability tests (tests/gpu/
 * test_reliability_*.sh, test_load_*.sh). An unmodified CUDA program from the recorder's point of
 * view: the CUDA runtime (static cudart, nvcc's default) and libc, nothing of the project.
 *
 *   rel_cuda MODE [--kernels K] [--status S] [--settle-ms M] [--threads T] [--streams N]
 *                 [--seconds D] [--replays R] [--spin-ms MS] [--rss-file F]
 *
 * Every mode that is compared with and without the recorder prints only what is the same on every
 * run (no times, no addresses), and last its tally, "tally kernels=N", counted when each launch
 * returned success: what the trace must hold. K tiny kernels (<<<1, 32>>>, each adding one to a
 * counter, read back at the end: "verify counter=N ok") run on one created stream unless the mode
 * says otherwise; --settle-ms M sleeps M ms after the final synchronise and before the ending, so
 * that a periodic flush has put every record on disk (what an _exit or a SIGKILL keeps).
 *
 * Modes:
 *   return exit _exit abort segv raise-segv sigterm sigkill
 *                K kernels, synchronise, settle, end that way with status S (default 3)
 *   threads      T threads (16) launch K kernels each, round-robin over N streams (8) shared by all
 *   fork         forks before any CUDA call; the child launches K kernels and exits 0, then the
 *                parent (after waiting for it) launches K kernels itself and returns S
 *   exec         K kernels, settle, then replaces itself with "rel_cuda return --kernels K/2"
 *   thread-exit  K kernels, synchronise, then exit(S) from a second thread
 *   nosync       K kernels, then one kernel that spins MS ms (2000), and returns S without waiting
 *   nosync-thread the same, but exit(S) comes from a second thread while the kernel runs
 *   reset        K kernels, cudaDeviceReset (CUDA torn down before the recorder's exit hook), return S
 *   reset-launch K kernels, cudaDeviceReset, K more kernels (a new context), return S
 *   profiler     K kernels, cudaProfilerStop, K kernels, cudaProfilerStart, K kernels, return S;
 *                the tally counts all 3K ("tally kernels=") and says which were launched while the
 *                profiler was stopped ("profiler_stopped_kernels=K")
 *   graph        a graph of one tiny kernel, captured from a stream, launched R times (1000000);
 *                synchronised every 10000 launches; prints its VmHWM (below)
 *   progress     launches on one stream for D seconds (10); every 100 ms synchronises and prints
 *                "progress ms=<since start> done=<kernels completed>" (flushed), for the test that
 *                kills it with SIGKILL and compares the trace with the last line it printed
 *   long         T threads (8), each with its own stream, launch for D seconds (60), each
 *                synchronising every 4096 launches; every second the main thread prints "rss s=
 *                launched= vmrss_kb= vmhwm_kb="; at the end "rate launches_per_s=", the tally and
 *                "vmhwm_kb="
 * --rss-file F: the modes that print their memory (graph, long) also write "vmhwm_kb=N" to F.
 * No device: one line "rel_cuda: no CUDA device: <reason>" on stdout and exit 3 (so the output
 * is comparable whether or not a recorder is there). A CUDA failure: "rel_cuda: <call>: <reason>",
 * exit 1.
 */
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <pthread.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

static void check(cudaError_t e, const char *call)
{
	if (e == cudaSuccess)
		return;
	printf("rel_cuda: %s: %s\n", call, cudaGetErrorString(e));
	fflush(stdout);
	exit(1);
}
#define CK(x) check((x), #x)

__global__ void tick(unsigned int *counter)
{
	if (threadIdx.x == 0)
		atomicAdd(counter, 1u);
}

/* Spins for `cycles` SM clock cycles: a kernel that is still running when the program exits. */
__global__ void spin(long long cycles, unsigned int *counter)
{
	long long t0 = clock64();
	while (clock64() - t0 < cycles)
		;
	if (threadIdx.x == 0)
		atomicAdd(counter, 1u);
}

struct Opts {
	const char *mode = "return";
	uint64_t kernels = 1000;
	int status = 3;
	int settle_ms = 0;
	int threads = -1;
	int streams = 8;
	double seconds = -1;
	uint64_t replays = 1000000;
	int spin_ms = 2000;
	const char *rss_file = nullptr;
};
static Opts o;
static char **g_argv;
static unsigned int *d_counter;
static std::atomic<uint64_t> g_launched{0};

static double now_ms()
{
	using namespace std::chrono;
	return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

static void sleep_ms(int ms)
{
	if (ms > 0)
		std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

static long status_kb(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return -1;
	char line[256];
	long v = -1;
	size_t n = strlen(key);
	while (fgets(line, sizeof line, f))
		if (strncmp(line, key, n) == 0 && line[n] == ':')
			v = strtol(line + n + 1, nullptr, 10);
	fclose(f);
	return v;
}

static void write_rss_file()
{
	if (!o.rss_file)
		return;
	FILE *f = fopen(o.rss_file, "w");
	if (f) {
		fprintf(f, "vmhwm_kb=%ld\n", status_kb("VmHWM"));
		fclose(f);
	}
}

static void open_device()
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess || n <= 0) {
		printf("rel_cuda: no CUDA device: %s\n", e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
		fflush(stdout);
		exit(3);
	}
	CK(cudaSetDevice(0));
	CK(cudaMalloc((void **)&d_counter, sizeof(unsigned int)));
	CK(cudaMemset(d_counter, 0, sizeof(unsigned int)));
}

static unsigned int read_counter()
{
	unsigned int v = 0;
	CK(cudaMemcpy(&v, d_counter, sizeof v, cudaMemcpyDeviceToHost));
	return v;
}

/* K kernels on stream s; counted into the tally as each launch returns. */
static void launch(uint64_t k, cudaStream_t s)
{
	for (uint64_t i = 0; i < k; i++) {
		tick<<<1, 32, 0, s>>>(d_counter);
		CK(cudaGetLastError());
		g_launched++;
	}
}

static void verify_and_tally()
{
	CK(cudaDeviceSynchronize());
	unsigned int c = read_counter();
	printf("verify counter=%u %s\n", c, c == (unsigned int)g_launched.load() ? "ok" : "MISMATCH");
	printf("tally kernels=%" PRIu64 "\n", g_launched.load());
	fflush(stdout);
}

/* The endings of tests/cli/progs/endings.h, for a CUDA program. */
static void end_as(const char *how, int status)
{
	fflush(NULL);
	if (!strcmp(how, "return"))
		return;
	if (!strcmp(how, "exit"))
		exit(status);
	if (!strcmp(how, "_exit"))
		_exit(status);
	if (!strcmp(how, "abort"))
		abort();
	if (!strcmp(how, "segv")) {
		volatile int *volatile p = nullptr;
		*p = 1;
	}
	if (!strcmp(how, "raise-segv"))
		raise(SIGSEGV);
	if (!strcmp(how, "sigterm"))
		kill(getpid(), SIGTERM);
	if (!strcmp(how, "sigkill"))
		kill(getpid(), SIGKILL);
	_exit(99);
}

static void *exit_from_thread(void *)
{
	exit(o.status);
}

static void exit_in_thread()
{
	fflush(NULL);
	pthread_t t;
	if (pthread_create(&t, nullptr, exit_from_thread, nullptr) != 0)
		_exit(98);
	pthread_join(t, nullptr);
	_exit(97);
}

static int mode_threads()
{
	int nt = o.threads > 0 ? o.threads : 16;
	std::vector<cudaStream_t> st((size_t)o.streams);
	for (auto &s : st)
		CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	std::vector<std::thread> pool;
	for (int t = 0; t < nt; t++)
		pool.emplace_back([&st, t]() {
			CK(cudaSetDevice(0));
			for (uint64_t i = 0; i < o.kernels; i++) {
				tick<<<1, 32, 0, st[(size_t)((i + (uint64_t)t) % st.size())]>>>(d_counter);
				CK(cudaGetLastError());
				g_launched++;
			}
		});
	for (auto &th : pool)
		th.join();
	printf("threads=%d streams=%d kernels_per_thread=%" PRIu64 "\n", nt, o.streams, o.kernels);
	verify_and_tally();
	for (auto &s : st)
		CK(cudaStreamDestroy(s));
	return o.status;
}

static int mode_graph()
{
	cudaStream_t s;
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	cudaGraph_t g;
	cudaGraphExec_t ge;
	CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
	tick<<<1, 32, 0, s>>>(d_counter);
	CK(cudaGetLastError());
	CK(cudaStreamEndCapture(s, &g));
	CK(cudaGraphInstantiate(&ge, g, 0));
	for (uint64_t i = 0; i < o.replays; i++) {
		CK(cudaGraphLaunch(ge, s));
		g_launched++;
		if ((i + 1) % 10000 == 0)
			CK(cudaStreamSynchronize(s));
	}
	printf("graph nodes=1 replays=%" PRIu64 "\n", o.replays);
	verify_and_tally();
	CK(cudaGraphExecDestroy(ge));
	CK(cudaGraphDestroy(g));
	CK(cudaStreamDestroy(s));
	printf("vmhwm_kb=%ld\n", status_kb("VmHWM"));
	write_rss_file();
	return 0;
}

static int mode_progress(cudaStream_t s)
{
	double secs = o.seconds > 0 ? o.seconds : 10;
	double t0 = now_ms(), next = t0 + 100;
	for (;;) {
		launch(256, s);
		double t = now_ms();
		if (t >= next) {
			CK(cudaStreamSynchronize(s));
			printf("progress ms=%.0f done=%" PRIu64 "\n", now_ms() - t0, g_launched.load());
			fflush(stdout);
			next += 100;
			if (t - t0 >= secs * 1e3)
				break;
		}
	}
	verify_and_tally();
	return o.status;
}

static int mode_long()
{
	int nt = o.threads > 0 ? o.threads : 8;
	double secs = o.seconds > 0 ? o.seconds : 60;
	std::atomic<bool> stop{false};
	std::vector<std::thread> pool;
	std::atomic<int> failed{0};
	for (int t = 0; t < nt; t++)
		pool.emplace_back([&]() {
			if (cudaSetDevice(0) != cudaSuccess) {
				failed++;
				return;
			}
			cudaStream_t s;
			if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) {
				failed++;
				return;
			}
			uint64_t mine = 0;
			while (!stop.load(std::memory_order_relaxed)) {
				for (int i = 0; i < 4096; i++) {
					tick<<<1, 32, 0, s>>>(d_counter);
					if (cudaGetLastError() != cudaSuccess) {
						failed++;
						return;
					}
					mine++;
				}
				g_launched += 4096;
				cudaStreamSynchronize(s);
			}
			cudaStreamDestroy(s);
			(void)mine;
		});
	double t0 = now_ms();
	for (int sec = 1; sec <= (int)secs; sec++) {
		double wake = t0 + sec * 1e3;
		while (now_ms() < wake)
			sleep_ms(5);
		printf("rss s=%d launched=%" PRIu64 " vmrss_kb=%ld vmhwm_kb=%ld\n", sec, g_launched.load(),
		       status_kb("VmRSS"), status_kb("VmHWM"));
		fflush(stdout);
	}
	stop = true;
	for (auto &th : pool)
		th.join();
	double t1 = now_ms();
	if (failed.load()) {
		printf("rel_cuda: a launching thread failed\n");
		return 1;
	}
	printf("rate launches_per_s=%.0f seconds=%.3f threads=%d\n", (double)g_launched.load() / ((t1 - t0) / 1e3),
	       (t1 - t0) / 1e3, nt);
	verify_and_tally();
	printf("vmhwm_kb=%ld\n", status_kb("VmHWM"));
	write_rss_file();
	return 0;
}

static void usage_error(const char *what)
{
	fprintf(stderr, "rel_cuda: %s (see the comment at the top of rel_cuda.cu)\n", what);
	exit(2);
}

int main(int argc, char **argv)
{
	g_argv = argv;
	if (argc < 2)
		usage_error("no mode");
	o.mode = argv[1];
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		if (i + 1 >= argc)
			usage_error("an option without its value");
		const char *v = argv[++i];
		if (!strcmp(a, "--kernels"))
			o.kernels = strtoull(v, nullptr, 10);
		else if (!strcmp(a, "--status"))
			o.status = atoi(v);
		else if (!strcmp(a, "--settle-ms"))
			o.settle_ms = atoi(v);
		else if (!strcmp(a, "--threads"))
			o.threads = atoi(v);
		else if (!strcmp(a, "--streams"))
			o.streams = atoi(v) > 0 ? atoi(v) : 1;
		else if (!strcmp(a, "--seconds"))
			o.seconds = atof(v);
		else if (!strcmp(a, "--replays"))
			o.replays = strtoull(v, nullptr, 10);
		else if (!strcmp(a, "--spin-ms"))
			o.spin_ms = atoi(v);
		else if (!strcmp(a, "--rss-file"))
			o.rss_file = v;
		else
			usage_error("unknown option");
	}
	const char *m = o.mode;
	printf("rel_cuda %s\n", m);
	fflush(stdout);

	if (!strcmp(m, "fork")) {
		/* Before any CUDA call: the child may use CUDA, and has a recorder of its own. */
		pid_t pid = fork();
		if (pid < 0)
			return 96;
		open_device();
		launch(o.kernels, 0);
		if (pid == 0) {
			CK(cudaDeviceSynchronize());
			printf("child kernels=%" PRIu64 "\n", g_launched.load());
			fflush(stdout);
			exit(0);
		}
		int st;
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			return 95;
		printf("parent: child exited 0\n");
		verify_and_tally();
		return o.status;
	}

	open_device();
	if (!strcmp(m, "threads"))
		return mode_threads();
	if (!strcmp(m, "graph"))
		return mode_graph();
	if (!strcmp(m, "long"))
		return mode_long();
	cudaStream_t s;
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	if (!strcmp(m, "progress"))
		return mode_progress(s);

	launch(o.kernels, s);
	if (!strcmp(m, "nosync") || !strcmp(m, "nosync-thread")) {
		CK(cudaStreamSynchronize(s));
		int khz = 0;
		CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
		spin<<<1, 32, 0, s>>>((long long)khz * o.spin_ms, d_counter);
		CK(cudaGetLastError());
		g_launched++;
		printf("tally kernels=%" PRIu64 "\n", g_launched.load());
		if (!strcmp(m, "nosync-thread"))
			exit_in_thread();
		fflush(stdout);
		return o.status; /* the spinning kernel still runs */
	}
	if (!strcmp(m, "reset") || !strcmp(m, "reset-launch")) {
		CK(cudaStreamSynchronize(s));
		unsigned int c = read_counter();
		printf("verify counter=%u %s\n", c, c == (unsigned int)g_launched.load() ? "ok" : "MISMATCH");
		CK(cudaDeviceReset());
		printf("device reset\n");
		if (!strcmp(m, "reset-launch")) {
			CK(cudaMalloc((void **)&d_counter, sizeof(unsigned int)));
			CK(cudaMemset(d_counter, 0, sizeof(unsigned int)));
			launch(o.kernels, 0);
			CK(cudaDeviceSynchronize());
			c = read_counter();
			printf("verify counter=%u %s\n", c, c == (unsigned int)o.kernels ? "ok" : "MISMATCH");
		}
		printf("tally kernels=%" PRIu64 "\n", g_launched.load());
		fflush(stdout);
		return o.status;
	}
	if (!strcmp(m, "profiler")) {
		CK(cudaStreamSynchronize(s));
		CK(cudaProfilerStop());
		launch(o.kernels, s);
		CK(cudaStreamSynchronize(s));
		CK(cudaProfilerStart());
		launch(o.kernels, s);
		printf("profiler_stopped_kernels=%" PRIu64 "\n", o.kernels);
		verify_and_tally();
		return o.status;
	}
	verify_and_tally();
	sleep_ms(o.settle_ms);
	if (!strcmp(m, "thread-exit"))
		exit_in_thread();
	if (!strcmp(m, "exec")) {
		char k[32];
		snprintf(k, sizeof k, "%" PRIu64, o.kernels / 2);
		fflush(NULL);
		execl("/proc/self/exe", g_argv[0], "return", "--kernels", k, "--status", "0", (char *)nullptr);
		printf("rel_cuda: exec: %s\n", strerror(errno));
		return 94;
	}
	end_as(m, o.status);
	CK(cudaStreamDestroy(s));
	return o.status;
}
