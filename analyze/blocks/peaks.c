/* peaks.c: reads the measured-peaks file that `gputrace peak` appends to (format in peaks.h).
 *
 * A line is a list of key=value fields separated by blanks; a value may be double-quoted to hold
 * blanks (the device's name, a ceiling's method). Fields other than uuid, kind, the value and the
 * ceilings' fields are the device's description and are not needed to match. A line that cannot be used is counted, not fatal: the
 * file is appended to by hand-run probes over time and one bad line must not hide the others.
 */
#include "analyze/blocks/peaks.h"

#include "analyze/support/options.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const kind_names[GT_PEAK_NKINDS] = {
	"htod_pinned", "dtoh_pinned", "htod_pageable", "dtoh_pageable", "dtod",
};

static const char *const ceiling_names[GT_CEIL_NKINDS] = {
	"dram_read", "dram_copy", "dram_triad", "l2_read", "fp32_fma", "fp64_fma", "fp16_mma", "bf16_mma",
	"fp16_gemm", "bf16_gemm",
};

const char *gt_ceiling_kind_name(enum gt_ceiling_kind k)
{
	return (unsigned)k < GT_CEIL_NKINDS ? ceiling_names[k] : "?";
}

int gt_ceiling_is_flops(enum gt_ceiling_kind k)
{
	return k >= GT_CEIL_FP32_FMA && k < GT_CEIL_NKINDS;
}

int gt_ceiling_is_tensor(enum gt_ceiling_kind k)
{
	return k == GT_CEIL_FP16_MMA || k == GT_CEIL_BF16_MMA || k == GT_CEIL_FP16_GEMM || k == GT_CEIL_BF16_GEMM;
}

int gt_peaks_tensor_kind(const struct gt_peaks *pk)
{
	int best = -1;
	for (int k = 0; pk && pk->c && k < GT_CEIL_NKINDS; k++)
		if (gt_ceiling_is_tensor((enum gt_ceiling_kind)k) && pk->have_ceiling[k] && pk->c[k].value > 0 &&
		    (best < 0 || pk->c[k].value > pk->c[best].value))
			best = k;
	return best;
}

double gt_ceiling_theory(const struct gt_device *d, enum gt_ceiling_kind k)
{
	/* Per-SM rates per clock from the vendor's architecture whitepapers: FP32 and FP64 FMA lanes
	 * (2 flops each) and dense FP16/BF16 tensor flops with FP32 accumulation. sm_90 ("NVIDIA H100
	 * Tensor Core GPU Architecture", 2022): 128, 64, 4096; sm_80 (the A100's, 2020): 64, 32, 2048.
	 * kernels/ceilings.cuh holds the same rows for the probe, which links none of this library
	 * (kernels/ are unmodified programs): a change goes to both. */
	static const struct {
		uint32_t major, minor;
		double fp32_lanes, fp64_lanes, tensor_flops;
	} rates[] = { { 9, 0, 128, 64, 4096 }, { 8, 0, 64, 32, 2048 } };
	if (!d)
		return 0;
	switch (k) {
	case GT_CEIL_DRAM_READ:
	case GT_CEIL_DRAM_COPY:
	case GT_CEIL_DRAM_TRIAD:
		return gt_device_peak_mem_bw(d) / 1e9;
	case GT_CEIL_FP32_FMA:
	case GT_CEIL_FP64_FMA:
	case GT_CEIL_FP16_MMA:
	case GT_CEIL_BF16_MMA:
	case GT_CEIL_FP16_GEMM:
	case GT_CEIL_BF16_GEMM:
		break;
	default:
		return 0;
	}
	for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
		if (rates[i].major != d->cc_major || rates[i].minor != d->cc_minor)
			continue;
		double per_clock = k == GT_CEIL_FP32_FMA ? 2 * rates[i].fp32_lanes
		                   : k == GT_CEIL_FP64_FMA ? 2 * rates[i].fp64_lanes
		                                           : rates[i].tensor_flops;
		/* GFLOP/s: flops per clock x SMs x kHz x 10^3 / 10^9. */
		return per_clock * (double)d->sm_count * (double)d->sm_clock_khz / 1e6;
	}
	return 0;
}

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
	const char *gflops, *flops, *theory_gbps, *theory_gflops, *sm_mhz, *mem_mhz, *clocks, *method;
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
		static const struct {
			const char *key;
			size_t off;
		} keys[] = {
			{ "uuid", offsetof(struct fields, uuid) },
			{ "kind", offsetof(struct fields, kind) },
			{ "gbps", offsetof(struct fields, gbps) },
			{ "bytes", offsetof(struct fields, bytes) },
			{ "reps", offsetof(struct fields, reps) },
			{ "gflops", offsetof(struct fields, gflops) },
			{ "flops", offsetof(struct fields, flops) },
			{ "theory_gbps", offsetof(struct fields, theory_gbps) },
			{ "theory_gflops", offsetof(struct fields, theory_gflops) },
			{ "sm_mhz", offsetof(struct fields, sm_mhz) },
			{ "mem_mhz", offsetof(struct fields, mem_mhz) },
			{ "clocks", offsetof(struct fields, clocks) },
			{ "method", offsetof(struct fields, method) },
		};
		for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
			if (!strcmp(key, keys[k].key))
				*(const char **)((char *)f + keys[k].off) = val;
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

/* An optional field: absent (0 stored), or decimal digits that fit below max. -1 otherwise. */
static int parse_opt_u64(const char *s, uint64_t max, uint64_t *v)
{
	*v = 0;
	if (!s)
		return 0;
	if (*s < '0' || *s > '9')
		return -1;
	char *end;
	errno = 0;
	unsigned long long u = strtoull(s, &end, 10);
	if (*end || errno || u > max)
		return -1;
	*v = (uint64_t)u;
	return 0;
}

/* The ceiling kind a line names, or -1. */
static int ceiling_kind(const char *kind)
{
	for (int k = 0; kind && k < GT_CEIL_NKINDS; k++)
		if (!strcmp(kind, ceiling_names[k]))
			return k;
	return -1;
}

/* The fields of a ceiling line beside its value into c; -1 when one is given but is not what it must
 * be (peaks.h). */
static int parse_ceiling(const struct fields *fl, int flops, struct gt_ceiling *c)
{
	const char *theory = flops ? fl->theory_gflops : fl->theory_gbps;
	const char *amount = flops ? fl->flops : fl->bytes;
	uint64_t sm, mem;
	c->theory = 0;
	c->amount = 0;
	if (theory && strcmp(theory, "unknown") != 0 && parse_positive(theory, &c->theory))
		return -1;
	if (amount && parse_positive(amount, &c->amount))
		return -1;
	if (parse_opt_u64(fl->reps, UINT64_MAX, &c->reps) || parse_opt_u64(fl->sm_mhz, 1000000, &sm) ||
	    parse_opt_u64(fl->mem_mhz, 1000000, &mem))
		return -1;
	c->sm_mhz = (unsigned)sm;
	c->mem_mhz = (unsigned)mem;
	if (fl->clocks && strcmp(fl->clocks, "nvml") != 0 && strcmp(fl->clocks, "attribute") != 0)
		return -1;
	snprintf(c->clocks, sizeof c->clocks, "%s", fl->clocks ? fl->clocks : "");
	snprintf(c->method, sizeof c->method, "%s", fl->method ? fl->method : "");
	return 0;
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
		/* A copy kind or a memory ceiling gives gbps=, a compute ceiling gflops=; a kind this
		 * analyzer does not know, either. */
		int ck = ceiling_kind(fl.kind);
		int flops = ck >= 0 && gt_ceiling_is_flops((enum gt_ceiling_kind)ck);
		const char *value = flops ? fl.gflops : fl.gbps;
		if (kind < 0 && ck < 0 && !fl.gbps)
			value = fl.gflops;
		struct gt_ceiling c = { 0 };
		if (!fl.kind || parse_positive(value, &gbps) || (ck >= 0 && parse_ceiling(&fl, flops, &c))) {
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
		if (ck >= 0) {
			if (!pk->c && !(pk->c = calloc(GT_CEIL_NKINDS, sizeof *pk->c))) {
				free(buf);
				fclose(f);
				gt_peaks_release(pk);
				return GT_ERR_NOMEM;
			}
			c.value = gbps;
			c.line = pk->lines;
			pk->have_ceiling[ck] = 1;
			pk->c[ck] = c;
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
	free(pk->c);
	pk->c = NULL;
}
