/* stdin_trace.c: standard input as a trace path that can be opened again (stdin_trace.h). */
#include "analyze/support/stdin_trace.h"

#include "analyze/support/failure.h"
#include "gputrace.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static char path[64];

/* Copies all of fd 0 into a new memory file; its descriptor, or -1 with the failure held. */
static int copy_to_memfd(void)
{
	int fd = memfd_create("gpuanalyze-stdin", MFD_CLOEXEC);
	if (fd < 0) {
		gt_fail(GT_ERR_NOMEM, "cannot hold standard input in memory: %s", strerror(errno));
		return -1;
	}
	static char buf[1 << 16];
	for (;;) {
		ssize_t n = read(0, buf, sizeof buf);
		if (n == 0)
			return fd;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			gt_fail(GT_ERR_IO, "cannot read standard input: %s", strerror(errno));
			break;
		}
		for (ssize_t done = 0; done < n;) {
			ssize_t w = write(fd, buf + done, (size_t)(n - done));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				gt_fail(GT_ERR_NOMEM, "cannot hold standard input in memory: %s",
				        w < 0 ? strerror(errno) : "short write");
				close(fd);
				return -1;
			}
			done += w;
		}
	}
	close(fd);
	return -1;
}

const char *gt_stdin_trace_path(void)
{
	if (path[0])
		return path;
	struct stat st;
	if (fstat(0, &st) != 0) {
		gt_fail(GT_ERR_IO, "cannot read a trace from standard input ('-'): %s", strerror(errno));
		return NULL;
	}
	if (isatty(0)) {
		gt_fail(GT_ERR_ARG, "standard input is a terminal: pipe a trace into '-' or name the file");
		return NULL;
	}
	if (S_ISREG(st.st_mode)) {
		/* Opening /dev/stdin opens the file itself again, from its start, for every pass. */
		snprintf(path, sizeof path, "/dev/stdin");
		return path;
	}
	int fd = copy_to_memfd();
	if (fd < 0)
		return NULL;
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	return path; /* the descriptor stays open for the process's life: the path is the trace */
}
