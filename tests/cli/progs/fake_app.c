/* fake_app.c: a "CUDA program" for the fake driver (fake_cuda.c), to test the recorder's life
 * without a GPU.
 *
 *   fake_app HOW STATUS N1 SETTLE_MS N2
 *
 * Loads libcuda.so.1 with dlopen (the fake, through LD_LIBRARY_PATH), calls cuInit (where the
 * recorder starts, as with a real driver), "launches" N1 kernels and N1 copies of 1 MiB; with
 * SETTLE_MS > 0 it waits until a tool's periodic flush has taken those records (at most 20 s) and
 * then SETTLE_MS milliseconds more, so that they are surely on disk; launches N2 more kernels, and
 * ends as HOW says with STATUS: the endings of endings.h, and
 *   fork-after    a child forked after cuInit launches 5 kernels and exits 0; then return STATUS
 *   fork-before   forks before cuInit; parent and child each do the whole run; return STATUS
 *   exec          replaces itself with "fake_app return STATUS N2 0 0" (a second recorder)
 *   subscribe     calls cuptiSubscribe itself, as a second CUPTI client (torch.profiler) would,
 *                 prints what CUPTI answered, then returns STATUS
 *   register      before the N2 kernels, registers its own activity buffer callbacks, as a
 *                 CUPTI client that does not subscribe (Kineto) does: CUPTI then hands buffers
 *                 to it, the recorder's included; prints how many it got, returns STATUS
 *   thread-exit   calls exit(STATUS) from a second thread
 * Prints a line to stdout and one to stderr, so that output can be compared with and without the
 * recorder. Exits 90+ when the fake driver cannot be used.
 */
#include "tests/cli/progs/endings.h"

#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int (*kernels)(int, const char *);
static int (*copies)(int, unsigned long long);
static long (*delivered)(void);

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		;
}

/* cuInit and the first part of the work; returns 0 or an exit status. */
static int start_gpu(int n1)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
	if (!h) {
		fprintf(stderr, "fake_app: %s\n", dlerror());
		return 90;
	}
	int (*init)(unsigned) = (int (*)(unsigned))dlsym(h, "cuInit");
	kernels = (int (*)(int, const char *))dlsym(h, "fake_gpu_kernels");
	copies = (int (*)(int, unsigned long long))dlsym(h, "fake_gpu_memcpy");
	delivered = (long (*)(void))dlsym(h, "fake_gpu_delivered");
	if (!init || !kernels || !copies || !delivered) {
		fprintf(stderr, "fake_app: libcuda.so.1 is not the fake driver\n");
		return 91;
	}
	if (init(0) != 0)
		return 92;
	kernels(n1, "_Z6stepperPfi");
	copies(n1, 1u << 20);
	return 0;
}

static int exit_status;
static int buffers_got;

/* The other client's buffer callbacks. A buffer it did not hand out is not its to free. */
static void CUPTIAPI other_request(uint8_t **buffer, size_t *size, size_t *max_records)
{
	static uint64_t store[2][8192];
	static int next;
	*buffer = (uint8_t *)store[next++ & 1];
	*size = sizeof store[0];
	*max_records = 0;
}

static void CUPTIAPI other_complete(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                    size_t valid)
{
	(void)ctx;
	(void)stream;
	(void)buffer;
	(void)size;
	(void)valid;
	buffers_got++;
}

static void *exit_from_thread(void *arg)
{
	(void)arg;
	exit(exit_status);
}

int main(int argc, char **argv)
{
	if (argc < 6) {
		fprintf(stderr, "usage: fake_app HOW STATUS N1 SETTLE_MS N2\n");
		return 2;
	}
	const char *how = argv[1];
	int status = atoi(argv[2]), n1 = atoi(argv[3]), settle = atoi(argv[4]), n2 = atoi(argv[5]);
	printf("fake_app: %s, %d + %d kernels\n", how, n1, n2);
	fprintf(stderr, "fake_app: stderr line\n");
	fflush(NULL);
	if (!strcmp(how, "fork-before")) {
		pid_t pid = fork();
		if (pid < 0)
			return 93;
		int rc = start_gpu(n1);
		if (rc)
			return rc;
		kernels(n2, "_Z6stepperPfi");
		if (pid == 0)
			exit(0);
		int st;
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			return 94;
		return status;
	}
	int rc = start_gpu(n1);
	if (rc)
		return rc;
	if (settle > 0) {
		/* Without a tool nothing is ever delivered: no wait. */
		for (int waited = 0; waited < 20000 && delivered() >= 0 && delivered() < 2L * n1;
		     waited += 10)
			sleep_ms(10);
		sleep_ms(settle);
	}
	if (!strcmp(how, "register")) {
		CUptiResult (*reg)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc) =
			(CUptiResult (*)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc))
				dlsym(RTLD_DEFAULT, "cuptiActivityRegisterCallbacks");
		if (!reg || reg(other_request, other_complete) != CUPTI_SUCCESS)
			return 96;
		kernels(n2, "_Z6stepperPfi");
		CUptiResult (*flush)(uint32_t) =
			(CUptiResult (*)(uint32_t))dlsym(RTLD_DEFAULT, "cuptiActivityFlushAll");
		if (!flush)
			return 96;
		flush(0);
		printf("fake_app: the other client got %d buffer(s)\n", buffers_got);
		return status;
	}
	kernels(n2, "_Z6stepperPfi");
	if (!strcmp(how, "return"))
		return status;
	if (!strcmp(how, "fork-after")) {
		fflush(NULL);
		pid_t pid = fork();
		if (pid < 0)
			return 93;
		if (pid == 0) {
			kernels(5, "_Z5childv");
			exit(0);
		}
		int st;
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			return 94;
		return status;
	}
	if (!strcmp(how, "exec")) {
		char st[16], n[16];
		snprintf(st, sizeof st, "%d", status);
		snprintf(n, sizeof n, "%d", n2);
		fflush(NULL);
		execl("/proc/self/exe", argv[0], "return", st, n, "0", "0", (char *)NULL);
		return 95;
	}
	if (!strcmp(how, "subscribe")) {
		CUptiResult (*sub)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *) =
			(CUptiResult (*)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *))dlsym(
				RTLD_DEFAULT, "cuptiSubscribe");
		if (!sub)
			return 96;
		CUpti_SubscriberHandle s;
		CUptiResult r = sub(&s, NULL, NULL);
		printf("fake_app: cuptiSubscribe returned %d\n", (int)r);
		return status;
	}
	if (!strcmp(how, "thread-exit")) {
		pthread_t t;
		exit_status = status;
		if (pthread_create(&t, NULL, exit_from_thread, NULL) != 0)
			return 97;
		pthread_join(t, NULL);
		return 98;
	}
	endings_end(how, status);
	return 99;
}
