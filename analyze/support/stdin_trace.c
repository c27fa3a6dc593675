/* stdin_trace.c: standard input as a trace path that can be opened again (stdin_trace.h). */
#include "analyze/support/stdin_trace.h"

#include "analyze/support/failure.h"
#include "traces/gputrace.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static char path[64];

/* Reads up to n bytes of fd 0 into buf, to its end: the count read (< n at the end of input), or
 * -1 with the failure held. */
static ssize_t read_full(uint8_t *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(0, buf + got, n - got);
		if (r == 0)
			break;
		if (r < 0) {
			if (errno == EINTR)
				continue;
			gt_fail(GT_ERR_IO, "cannot read standard input: %s", strerror(errno));
			return -1;
		}
		got += (size_t)r;
	}
	return (ssize_t)got;
}

static int write_full(int fd, const uint8_t *p, size_t n)
{
	for (size_t done = 0; done < n;) {
		ssize_t w = write(fd, p + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			gt_fail(GT_ERR_NOMEM, "cannot hold standard input in memory: %s",
			        w < 0 ? strerror(errno) : "short write");
			return -1;
		}
		done += (size_t)w;
	}
	return 0;
}

/* Copies n bytes of fd 0 (fewer at its end) into fd: 1 when all came, 0 at the end of input, -1
 * with the failure held. */
static int copy_bytes(int fd, uint64_t n)
{
	static uint8_t buf[1 << 16];
	while (n) {
		size_t want = n < sizeof buf ? (size_t)n : sizeof buf;
		ssize_t got = read_full(buf, want);
		if (got < 0 || write_full(fd, buf, (size_t)got))
			return -1;
		if ((size_t)got < want)
			return 0;
		n -= (uint64_t)got;
	}
	return 1;
}

/* Copies fd 0 into a new memory file as it streams, checking each header as it arrives (the file
 * header, then every chunk's): at the first one the reader would refuse, or at the end of the
 * input, the copy stops, so that a stream that is not a trace, or stops being one, is never held
 * past that header (the reader, given what was held, refuses it with the same words). The
 * descriptor, or -1 with the failure held. */
static int copy_to_memfd(void)
{
	int fd = memfd_create("gpuanalyze-stdin", MFD_CLOEXEC);
	if (fd < 0) {
		gt_fail(GT_ERR_NOMEM, "cannot hold standard input in memory: %s", strerror(errno));
		return -1;
	}
	uint8_t h[32];
	uint32_t hbytes = 0, csize = 0;
	ssize_t got = read_full(h, sizeof h);
	if (got < 0 || write_full(fd, h, (size_t)got))
		goto fail;
	if (got < (ssize_t)sizeof h || gt_stream_file_header(h, &hbytes))
		return fd;
	int more = copy_bytes(fd, hbytes - sizeof h);
	while (more > 0) {
		if ((got = read_full(h, sizeof h)) < 0 || write_full(fd, h, (size_t)got))
			goto fail;
		if (got < (ssize_t)sizeof h || gt_stream_chunk_header(h, &csize))
			return fd;
		more = copy_bytes(fd, csize);
	}
	if (more == 0)
		return fd;
fail:
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
