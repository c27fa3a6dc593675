/* peaks.c: reads the measured-peaks file that `gputrace peak` appends to (format in peaks.h).
 *
 * A line is a list of key=value fields separated by blanks; a value may be double-quoted to hold
 * blanks (the device's name). Fields other than uuid, kind, gbps, bytes and reps are the device's
 * description and are not needed to match. A line that cannot be used is counted, not fatal: the
 * file is appended to by hand-run probes over time and one bad line must not hide the others.
 */
#include "analyze/engines/peaks.h"

#include "analyze/support/options.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const kind_names[GT_PEAK_NKINDS] = {
	"htod_pinned", "dtoh_pinned", "htod_pageable", "dtoh_pageable", "dtod",
};

const char *gt_peak_kind_name(enum gt_peak_kind k)
{
	return (unsigned)k < GT_PEAK_NKINDS ? kind_names[k] : "?";
}

int gt_peak_kind_for(int copy_kind, int mem_kind)
{
	switch (copy_kind) {
	case GT_COPY_HTOD:
	case GT_COPY_HTOA:
		return mem_kind == GT_MEM_PINNED ? GT_PEAK_HTOD_PINNED
		       : mem_kind == GT_MEM_PAGEABLE ? GT_PEAK_HTOD_PAGEABLE : -1;
	case GT_COPY_DTOH:
	case GT_COPY_ATOH:
		return mem_kind == GT_MEM_PINNED ? GT_PEAK_DTOH_PINNED
		       : mem_kind == GT_MEM_PAGEABLE ? GT_PEAK_DTOH_PAGEABLE : -1;
	case GT_COPY_DTOD:
	case GT_COPY_DTOA:
	case GT_COPY_ATOD:
	case GT_COPY_ATOA: return GT_PEAK_DTOD;
	default: return -1;
	}
}

char *gt_device_uuid_string(const struct gt_device *d, char *buf, size_t len)
{
	const uint8_t *u = d->uuid;
	int zero = 1;
	for (int i = 0; i < 16; i++)
		zero &= u[i] == 0;
	if (zero) {
		if (len)
			buf[0] = '\0';
		return buf;
	}
	snprintf(buf, len, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
	         u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
	         u[15]);
	return buf;
}

/* The fields of one line that matter. Values point into the (modified) line. */
struct fields {
	const char *uuid, *kind, *gbps, *bytes, *reps;
};

static void parse_fields(char *s, struct fields *f)
{
	memset(f, 0, sizeof *f);
	while (*s) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		char *key = s;
		while (*s && *s != '=' && *s != ' ' && *s != '\t')
			s++;
		if (*s != '=') {
			/* a word without a value: skip it */
			while (*s && *s != ' ' && *s != '\t')
				s++;
			continue;
		}
		*s++ = '\0';
		char *val;
		if (*s == '"') {
			val = ++s;
			while (*s && *s != '"')
				s++;
		} else {
			val = s;
			while (*s && *s != ' ' && *s != '\t')
				s++;
		}
		if (*s)
			*s++ = '\0';
		if (!strcmp(key, "uuid"))
			f->uuid = val;
		else if (!strcmp(key, "kind"))
			f->kind = val;
		else if (!strcmp(key, "gbps"))
			f->gbps = val;
		else if (!strcmp(key, "bytes"))
			f->bytes = val;
		else if (!strcmp(key, "reps"))
			f->reps = val;
	}
}

/* A positive number and nothing after it. */
static int parse_positive(const char *s, double *v)
{
	double d;
	const char *end;
	if (gt_parse_number(s, &d, &end) || *end || !(d > 0))
		return -1;
	*v = d;
	return 0;
}

static uint64_t parse_u64(const char *s)
{
	if (!s || !*s)
		return 0;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	return *end || errno ? 0 : (uint64_t)v;
}

static FILE *refuse(int fd, char *err, size_t errlen, int *rc, int code, const char *why)
{
	if (fd >= 0)
		close(fd);
	if (err)
		snprintf(err, errlen, "%s", why);
	*rc = code;
	return NULL;
}

FILE *gt_peaks_open(const char *path, char *err, size_t errlen, int *rc)
{
	/* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return refuse(-1, err, errlen, rc, GT_ERR_IO, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0)
		return refuse(fd, err, errlen, rc, GT_ERR_IO, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return refuse(fd, err, errlen, rc, GT_ERR_ARG, "not a regular file");
	if (st.st_size > (off_t)GT_PEAKS_MAX_BYTES)
		return refuse(fd, err, errlen, rc, GT_ERR_ARG, "larger than the 1 MiB a peaks file may hold");
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0)
		return refuse(fd, err, errlen, rc, GT_ERR_IO, strerror(errno));
	FILE *f = fdopen(fd, "r");
	if (!f)
		return refuse(fd, err, errlen, rc, GT_ERR_IO, strerror(errno));
	return f;
}

int gt_peaks_load(struct gt_peaks *pk, const char *path, const char *uuid, char *err, size_t errlen)
{
	memset(pk, 0, sizeof *pk);
	snprintf(pk->uuid, sizeof pk->uuid, "%s", uuid ? uuid : "");
	if (err && errlen)
		err[0] = '\0';
	int orc = 0;
	FILE *f = gt_peaks_open(path, err, errlen, &orc);
	if (!f)
		return orc;
	if (!(pk->path = strdup(path))) {
		fclose(f);
		return GT_ERR_NOMEM;
	}
	char *buf = NULL;
	size_t cap = 0, total = 0;
	ssize_t n;
	errno = 0;
	while ((n = getline(&buf, &cap, f)) >= 0) {
		/* a file that grew past the cap while it is read is cut there */
		if ((total += (size_t)n) > GT_PEAKS_MAX_BYTES)
			break;
		pk->lines++;
		while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
			buf[--n] = '\0';
		const char *p = buf;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			continue;
		struct fields fl;
		parse_fields(buf, &fl);
		double gbps;
		int kind = -1;
		for (int k = 0; k < GT_PEAK_NKINDS && fl.kind; k++)
			if (!strcmp(fl.kind, kind_names[k]))
				kind = k;
		if (!fl.kind || parse_positive(fl.gbps, &gbps)) {
			pk->malformed++;
			continue;
		}
		if (!fl.uuid) {
			pk->no_uuid++;
			continue;
		}
		if (!pk->uuid[0] || strcasecmp(fl.uuid, pk->uuid) != 0) {
			pk->other_devices++;
			continue;
		}
		if (kind < 0)
			continue; /* a kind this analyzer does not know: a later probe's */
		pk->have[kind] = 1;
		pk->p[kind].gbps = gbps;
		pk->p[kind].bytes = parse_u64(fl.bytes);
		pk->p[kind].reps = parse_u64(fl.reps);
		pk->p[kind].line = pk->lines;
	}
	int rerr = ferror(f);
	int saved = errno;
	free(buf);
	fclose(f);
	if (rerr) {
		if (err)
			snprintf(err, errlen, "%s", strerror(saved ? saved : EIO));
		gt_peaks_release(pk);
		return GT_ERR_IO;
	}
	return 0;
}

void gt_peaks_release(struct gt_peaks *pk)
{
	if (!pk)
		return;
	free(pk->path);
	pk->path = NULL;
}
