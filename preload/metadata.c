/* metadata.c: host, process and toolchain facts as META records (see metadata.h). */
#include "preload/metadata.h"
#include "cupti/libs.h"
#include "preload/nvml.h"
#include "preload/output.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* Reads a small /proc or /etc file; "" if unreadable. */
static void slurp(const char *path, char *buf, size_t n)
{
	buf[0] = '\0';
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t k = read(fd, buf, n - 1);
	close(fd);
	buf[k > 0 ? k : 0] = '\0';
}

/* The value after "key" up to the end of its line, in a "key: value" or key="value" text. */
static void field(const char *text, const char *key, char *out, size_t n)
{
	out[0] = '\0';
	const char *p = strstr(text, key);
	if (!p)
		return;
	p += strlen(key);
	while (*p == ' ' || *p == '\t' || *p == ':' || *p == '=' || *p == '"')
		p++;
	size_t i = 0;
	while (p[i] && p[i] != '\n' && p[i] != '"' && i + 1 < n) {
		out[i] = p[i];
		i++;
	}
	out[i] = '\0';
}

static int meta_u(struct gt_writer *w, const char *k, unsigned long long v)
{
	char b[32];
	snprintf(b, sizeof b, "%llu", v);
	return gt_writer_meta(w, k, b);
}

int metadata_write(struct gt_writer *w, const char *via)
{
	char buf[8192], val[512];
	int rc = 0;
	rc |= gt_writer_meta(w, "tool.name", "gputrace");
	rc |= gt_writer_meta(w, "tool.version", GT_TOOL_VERSION);
	rc |= gt_writer_meta(w, "tool.injected_by", via);

	if (gethostname(val, sizeof val) == 0) {
		val[sizeof val - 1] = '\0';
		rc |= gt_writer_meta(w, "host.name", val);
	}
	struct utsname u;
	if (uname(&u) == 0) {
		snprintf(buf, sizeof buf, "%s %s %s", u.sysname, u.release, u.machine);
		rc |= gt_writer_meta(w, "host.kernel", buf);
	}
	slurp("/etc/os-release", buf, sizeof buf);
	field(buf, "PRETTY_NAME", val, sizeof val);
	if (val[0])
		rc |= gt_writer_meta(w, "host.os", val);
	slurp("/proc/cpuinfo", buf, sizeof buf);
	field(buf, "model name", val, sizeof val);
	if (val[0])
		rc |= gt_writer_meta(w, "host.cpu", val);
	rc |= meta_u(w, "host.cpus", (unsigned long long)sysconf(_SC_NPROCESSORS_ONLN));
	rc |= gt_writer_meta(w, "host.glibc", gnu_get_libc_version());

	rc |= meta_u(w, "process.pid", (unsigned long long)getpid());
	rc |= meta_u(w, "process.ppid", (unsigned long long)getppid());
	rc |= gt_writer_meta(w, "process.name", output_program_name());
	/* The command line: arguments joined by spaces (NULs in /proc/self/cmdline). */
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t k = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (k > 0) {
		for (ssize_t i = 0; i < k - 1; i++)
			if (buf[i] == '\0')
				buf[i] = ' ';
		buf[k] = '\0';
		rc |= gt_writer_meta(w, "process.cmdline", buf);
	}
	ssize_t n = readlink("/proc/self/exe", val, sizeof val - 1);
	if (n > 0) {
		val[n] = '\0';
		rc |= gt_writer_meta(w, "process.exe", val);
	}
	if (getcwd(val, sizeof val))
		rc |= gt_writer_meta(w, "process.cwd", val);
	const char *rank_var;
	const char *rank = output_rank(&rank_var);
	if (rank) {
		rc |= gt_writer_meta(w, "process.rank", rank);
		rc |= gt_writer_meta(w, "process.rank_from", rank_var);
		const char *world = output_world_size(rank_var);
		if (world)
			rc |= gt_writer_meta(w, "process.world_size", world);
	}
	time_t now = time(NULL);
	struct tm tm;
	if (gmtime_r(&now, &tm) && strftime(val, sizeof val, "%Y-%m-%dT%H:%M:%SZ", &tm))
		rc |= gt_writer_meta(w, "process.start_utc", val);

	int drv = 0;
	if (cuda_fn.cuDriverGetVersion && cuda_fn.cuDriverGetVersion(&drv) == CUDA_SUCCESS) {
		snprintf(val, sizeof val, "%d.%d", drv / 1000, (drv % 1000) / 10);
		rc |= gt_writer_meta(w, "cuda.driver_api", val);
	}
	if (nvml_driver_version()[0])
		rc |= gt_writer_meta(w, "cuda.driver", nvml_driver_version());
	/* The runtime's version is known only where libcudart is a shared library (PyTorch, CuPy);
	 * a program linked with the static cudart (nvcc's default) does not export it. */
	int (*rt)(int *) = (int (*)(int *))dlsym(RTLD_DEFAULT, "cudaRuntimeGetVersion");
	int rtv = 0;
	if (rt && rt(&rtv) == 0 && rtv > 0)
		snprintf(val, sizeof val, "%d.%d", rtv / 1000, (rtv % 1000) / 10);
	else
		snprintf(val, sizeof val, "unknown (static cudart)");
	rc |= gt_writer_meta(w, "cuda.runtime", val);
	uint32_t cv = 0;
	if (cupti_fn.cuptiGetVersion && cupti_fn.cuptiGetVersion(&cv) == CUPTI_SUCCESS)
		rc |= meta_u(w, "cupti.api_version", cv);
	if (cupti_fn.path[0])
		rc |= gt_writer_meta(w, "cupti.path", cupti_fn.path);
	rc |= meta_u(w, "cupti.built_with_api_version", CUPTI_API_VERSION);
	return rc ? GT_ERR_IO : 0;
}
