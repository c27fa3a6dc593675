/*
 * kernels/common.cuh: what every test program in kernels/ shares, and nothing else.
 *
 * These programs are the tracer's test subjects, so they must behave the same way on every run and
 * say exactly what they enqueued: the error voice ("<prog>: <call>: <reason>", exit 1), the no-device
 * rule ("<prog>: no CUDA device: <reason>", exit 3), option parsing (one table per program), a
 * fixed-seed LCG for inputs, the "device" line, the "tally" line that the tracer's tests compare
 * with a trace, and a start/stop event pair for device timings. Copies and memsets go through the
 * wrappers below so that the tally is counted in one place, after the call succeeded.
 *
 * Header-only on purpose: each program is one translation unit built straight from its .cu file.
 * Uses only the CUDA runtime and the C/C++ standard libraries, never the project's libraries.
 */
#ifndef GPUTRACE_KERNELS_COMMON_CUH
#define GPUTRACE_KERNELS_COMMON_CUH

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cinttypes>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <utility>
#include <vector>

/* Exit statuses the tests rely on. */
#define EXIT_CUDA_FAILED 1
#define EXIT_USAGE 2
#define EXIT_NO_DEVICE 3

/* Set once at the top of main(); every message starts with it. */
inline const char *g_prog = "kernels";

/*
 * Prints "<prog>: <call>: <reason>" and exits 1 when a CUDA call failed. `call` is the stringified
 * expression; only the function name before '(' is printed so that the line stays stable when the
 * arguments change.
 */
inline void cuda_check(cudaError_t err, const char *call)
{
	if (err == cudaSuccess)
		return;
	size_t len = strcspn(call, "( ");
	fprintf(stderr, "%s: %.*s: %s\n", g_prog, (int)len, call, cudaGetErrorString(err));
	exit(EXIT_CUDA_FAILED);
}
#define CK(call) cuda_check((call), #call)

/* A launch reports configuration errors only through cudaGetLastError; name the kernel in the line. */
inline void launch_check(const char *kernel)
{
	cudaError_t err = cudaGetLastError();
	if (err == cudaSuccess)
		return;
	fprintf(stderr, "%s: %s<<<>>>: %s\n", g_prog, kernel, cudaGetErrorString(err));
	exit(EXIT_CUDA_FAILED);
}

/* A bad command line: one line on stderr, exit 2. */
[[noreturn]] __attribute__((format(printf, 1, 2))) inline void usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", g_prog);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, " (try --help)\n");
	va_end(ap);
	exit(EXIT_USAGE);
}

/*
 * Parses a whole string as an unsigned decimal integer with an optional K, M or G suffix (binary:
 * 1K = 1024) so that byte counts read naturally ("256M"). False on anything else or on overflow.
 */
inline bool parse_count(const char *s, uint64_t *out)
{
	if (*s < '0' || *s > '9')
		return false;
	char *end = nullptr;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	uint64_t mul = 1;
	if (*end == 'K' || *end == 'k')
		mul = 1ull << 10;
	else if (*end == 'M' || *end == 'm')
		mul = 1ull << 20;
	else if (*end == 'G' || *end == 'g')
		mul = 1ull << 30;
	if (mul != 1)
		end++;
	if (errno != 0 || *end != '\0' || v > UINT64_MAX / mul)
		return false;
	*out = (uint64_t)v * mul;
	return true;
}

/* ---------------------------------------------------------------------------------------------- */
/* Options: "--name value" or "--name=value"; nothing else, so every program parses the same way.  */

class Opt {
public:
	Opt(int argc, char **argv, int *i) : argc_(argc), argv_(argv), i_(i), arg_(argv[*i]) {}

	/* True when the current argument is `name`, alone or as "name=value". */
	bool is(const char *name)
	{
		size_t n = strlen(name);
		if (strncmp(arg_, name, n) != 0)
			return false;
		if (arg_[n] == '\0') {
			name_ = name;
			inline_ = nullptr;
			return true;
		}
		if (arg_[n] == '=') {
			name_ = name;
			inline_ = arg_ + n + 1;
			return true;
		}
		return false;
	}

	/* A flag takes no value; "--flag=x" is an error rather than silently ignored. */
	bool flag(const char *name)
	{
		if (!is(name))
			return false;
		if (inline_)
			usage_error("option %s takes no value", name_);
		return true;
	}

	const char *str()
	{
		if (inline_)
			return inline_;
		if (*i_ + 1 >= argc_)
			usage_error("option %s needs a value", name_);
		return argv_[++*i_];
	}

	/* An unsigned integer in [lo, hi], with parse_count's optional K/M/G suffix. */
	uint64_t u64(uint64_t lo, uint64_t hi)
	{
		const char *s = str();
		uint64_t v = 0;
		if (!parse_count(s, &v))
			usage_error("invalid value for %s: '%s'", name_, s);
		if (v < lo || v > hi)
			usage_error("value out of range for %s: '%s' (allowed %" PRIu64 "..%" PRIu64 ")", name_,
				    s, lo, hi);
		return v;
	}

	int i32(int lo, int hi) { return (int)u64((uint64_t)lo, (uint64_t)hi); }

	[[noreturn]] void unknown() { usage_error("unknown option '%s'", arg_); }

private:
	int argc_;
	char **argv_;
	int *i_;
	const char *arg_;
	const char *name_ = nullptr;
	const char *inline_ = nullptr;
};

/*
 * One row of a program's option table: the option's name and where its value goes. An integer
 * option is checked against [lo, hi] (Opt::i32, Opt::u64); a flag takes no value; a string option
 * is handed to `take` as soon as it is read, so that a bad value is reported in command-line order.
 */
class OptDef {
public:
	OptDef(const char *name, int *dst, int lo, int hi)
		: name_(name), kind_(I32), i32_(dst), lo_((uint64_t)lo), hi_((uint64_t)hi) {}
	OptDef(const char *name, uint64_t *dst, uint64_t lo, uint64_t hi)
		: name_(name), kind_(U64), u64_(dst), lo_(lo), hi_(hi) {}
	OptDef(const char *name, bool *dst) : name_(name), kind_(FLAG), flag_(dst) {}
	OptDef(const char *name, std::function<void(const char *)> take)
		: name_(name), kind_(STR), take_(std::move(take)) {}

	/* True when the current argument is this option; its value (if any) is then stored. */
	bool match(Opt &o) const
	{
		if (kind_ == FLAG ? !o.flag(name_) : !o.is(name_))
			return false;
		switch (kind_) {
		case I32:
			*i32_ = o.i32((int)lo_, (int)hi_);
			break;
		case U64:
			*u64_ = o.u64(lo_, hi_);
			break;
		case FLAG:
			*flag_ = true;
			break;
		case STR:
			take_(o.str());
			break;
		}
		return true;
	}

private:
	enum Kind { I32, U64, FLAG, STR };
	const char *name_;
	Kind kind_;
	int *i32_ = nullptr;
	uint64_t *u64_ = nullptr;
	bool *flag_ = nullptr;
	std::function<void(const char *)> take_;
	uint64_t lo_ = 0, hi_ = 0;
};

/*
 * The command line of every program: --help prints `usage` on stdout and exits 0; each other
 * argument must be one of `defs`; anything else is a usage error (exit 2).
 */
inline void parse_options(int argc, char **argv, void (*usage)(FILE *), std::initializer_list<OptDef> defs)
{
	for (int i = 1; i < argc; i++) {
		Opt o(argc, argv, &i);
		if (o.flag("--help")) {
			usage(stdout);
			exit(0);
		}
		bool known = false;
		for (const OptDef &d : defs)
			if ((known = d.match(o)))
				break;
		if (!known)
			o.unknown();
	}
}

/* ---------------------------------------------------------------------------------------------- */
/* Deterministic inputs: a 64-bit LCG (Knuth's MMIX constants), high bits out. Never rand().        */

class Lcg {
public:
	explicit Lcg(uint64_t seed) : s_(seed ^ 0x9e3779b97f4a7c15ull) { next(); }

	uint32_t next()
	{
		s_ = s_ * 6364136223846793005ull + 1442695040888963407ull;
		return (uint32_t)(s_ >> 32);
	}

	/* Uniform in [0, 1) with 24 random bits: every value is an exact float. */
	float uniform() { return (float)(next() >> 8) * (1.0f / 16777216.0f); }

	float range(float lo, float hi) { return lo + (hi - lo) * uniform(); }

private:
	uint64_t s_;
};

/* ---------------------------------------------------------------------------------------------- */
/* The device: a missing or unusable one is exit 3 with one line, before any other CUDA call.       */

[[noreturn]] inline void no_device(const char *reason)
{
	fprintf(stderr, "%s: no CUDA device: %s\n", g_prog, reason);
	exit(EXIT_NO_DEVICE);
}

/*
 * The device's UUID in nvidia-smi's spelling ("GPU-xxxxxxxx-..."), so that measured peaks can be
 * matched to the device records of traces (gputrace peak, gpuanalyze bandwidth).
 */
inline void format_uuid(const cudaDeviceProp &p, char (&uuid)[48])
{
	const unsigned char *u = (const unsigned char *)p.uuid.bytes;
	snprintf(uuid, sizeof uuid,
	         "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
	         u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

/*
 * Selects device 0 (CUDA_VISIBLE_DEVICES picks which one that is) and prints the "device" line.
 * Since CUDA 12, cudaSetDevice creates the primary context, so a device that is present but
 * unusable (prohibited compute mode, busy) is caught here too and reported as "no CUDA device".
 */
inline cudaDeviceProp open_device()
{
	int count = 0;
	cudaError_t err = cudaGetDeviceCount(&count);
	if (err != cudaSuccess)
		no_device(cudaGetErrorString(err));
	if (count <= 0)
		no_device("cudaGetDeviceCount returned 0 devices");
	err = cudaSetDevice(0);
	if (err != cudaSuccess)
		no_device(cudaGetErrorString(err));

	cudaDeviceProp p;
	CK(cudaGetDeviceProperties(&p, 0));
	int clock_khz = 0, mem_clock_khz = 0, driver = 0, runtime = 0;
	CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
	CK(cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, 0));
	CK(cudaDriverGetVersion(&driver));
	CK(cudaRuntimeGetVersion(&runtime));
	char pci[32];
	CK(cudaDeviceGetPCIBusId(pci, (int)sizeof pci, 0));
	char uuid[48];
	format_uuid(p, uuid);
	printf("device name=\"%s\" uuid=%s cc=%d.%d sms=%d mem_bytes=%zu bus_width=%d clock_khz=%d "
	       "mem_clock_khz=%d pci=%s driver=%d runtime=%d\n",
	       p.name, uuid, p.major, p.minor, p.multiProcessorCount, p.totalGlobalMem, p.memoryBusWidth,
	       clock_khz, mem_clock_khz, pci, driver, runtime);
	return p;
}

/* ---------------------------------------------------------------------------------------------- */
/* The tally: what this program enqueued, counted when the call returned success.                  */

struct Tally {
	uint64_t kernels = 0;
	uint64_t memcpy = 0;
	uint64_t memset = 0;
	uint64_t bytes_htod = 0;
	uint64_t bytes_dtoh = 0;
	uint64_t bytes_dtod = 0;
	uint64_t bytes_memset = 0;

	void add_copy(cudaMemcpyKind kind, size_t bytes)
	{
		memcpy++;
		if (kind == cudaMemcpyHostToDevice)
			bytes_htod += bytes;
		else if (kind == cudaMemcpyDeviceToHost)
			bytes_dtoh += bytes;
		else if (kind == cudaMemcpyDeviceToDevice)
			bytes_dtod += bytes;
		else {
			/* The programs name every direction explicitly so the tally can be exact. */
			fprintf(stderr, "%s: internal error: copy kind %d not tallied\n", g_prog, (int)kind);
			exit(EXIT_CUDA_FAILED);
		}
	}

	/* One line, every key always present, in this order: the tests parse it. */
	void print() const
	{
		printf("tally kernels=%" PRIu64 " memcpy=%" PRIu64 " memset=%" PRIu64 " bytes_htod=%" PRIu64
		       " bytes_dtoh=%" PRIu64 " bytes_dtod=%" PRIu64 " bytes_memset=%" PRIu64 "\n",
		       kernels, memcpy, memset, bytes_htod, bytes_dtoh, bytes_dtod, bytes_memset);
	}
};

/* The program-wide tally; touched from the main thread only (launch_storm sums its threads' counts). */
inline Tally g_tally;

inline void tally_memcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind)
{
	CK(cudaMemcpy(dst, src, bytes, kind));
	g_tally.add_copy(kind, bytes);
}

inline void tally_memcpy_async(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
			       cudaStream_t stream)
{
	CK(cudaMemcpyAsync(dst, src, bytes, kind, stream));
	g_tally.add_copy(kind, bytes);
}

inline void tally_memset(void *dst, int value, size_t bytes)
{
	CK(cudaMemset(dst, value, bytes));
	g_tally.memset++;
	g_tally.bytes_memset += bytes;
}

inline void tally_memset_async(void *dst, int value, size_t bytes, cudaStream_t stream)
{
	CK(cudaMemsetAsync(dst, value, bytes, stream));
	g_tally.memset++;
	g_tally.bytes_memset += bytes;
}

/* Counts one launch after checking it was accepted. */
inline void tally_launch(const char *kernel)
{
	launch_check(kernel);
	g_tally.kernels++;
}

/* ---------------------------------------------------------------------------------------------- */
/* Small statistics and clocks.                                                                    */

/* Median by position in sorted order; the mean of the two middle values for an even count. */
inline double median(std::vector<double> v)
{
	if (v.empty())
		return 0.0;
	std::sort(v.begin(), v.end());
	size_t m = v.size() / 2;
	return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2.0;
}

inline double now_ms()
{
	using namespace std::chrono;
	return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

/* Milliseconds between two events that have completed. */
inline float event_ms(cudaEvent_t start, cudaEvent_t stop)
{
	float ms = 0.0f;
	CK(cudaEventElapsedTime(&ms, start, stop));
	return ms;
}

/*
 * A start and a stop event, created and destroyed together (in that order): the device time
 * between two points of one stream, read with ms() once the stop event has completed.
 */
struct EventPair {
	cudaEvent_t start = nullptr;
	cudaEvent_t stop = nullptr;

	void create()
	{
		CK(cudaEventCreate(&start));
		CK(cudaEventCreate(&stop));
	}

	void destroy()
	{
		CK(cudaEventDestroy(start));
		CK(cudaEventDestroy(stop));
	}

	float ms() const { return event_ms(start, stop); }
};

#endif /* GPUTRACE_KERNELS_COMMON_CUH */
