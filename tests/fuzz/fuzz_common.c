/* fuzz_common.c: the shared half of the fuzz targets (see fuzz_common.h). */
#include "tests/fuzz/fuzz_common.h"

#include "traces/gputrace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int scratch_fd = -1;
static char scratch_path[64];

static void die(const char *what)
{
	perror(what);
	abort();
}

const char *fuzz_file(const uint8_t *data, size_t size)
{
	if (scratch_fd < 0) {
		scratch_fd = memfd_create("gt_fuzz", MFD_CLOEXEC);
		if (scratch_fd < 0)
			die("memfd_create");
		snprintf(scratch_path, sizeof scratch_path, "/proc/self/fd/%d", scratch_fd);
	}
	if (ftruncate(scratch_fd, 0) != 0)
		die("ftruncate");
	size_t off = 0;
	while (off < size) {
		ssize_t k = pwrite(scratch_fd, data + off, size - off, (off_t)off);
		if (k <= 0)
			die("pwrite");
		off += (size_t)k;
	}
	return scratch_path;
}

uint32_t fuzz_fnv1a(const uint8_t *p, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 16777619u;
	}
	return h;
}

/* The reader's promise for every error: "<path>: <what> (<detail> at byte <N>)". */
static void check_message(const char *path, const char *msg)
{
	size_t n = strlen(path);
	if (strncmp(msg, path, n) != 0 || strncmp(msg + n, ": ", 2) != 0 || !strstr(msg, " at byte ")) {
		fprintf(stderr, "fuzz: error message does not name the file and offset: '%s'\n", msg);
		abort();
	}
}

/* Uses what a record hands out, so that a bad pointer or length shows up under ASan here and not in
 * some analyzer later. */
static unsigned long touch(const struct gt_reader *r, const struct gt_event *ev)
{
	unsigned long sum = 0;
	const char *s, *k, *v;
	size_t len, kl, vl;
	uint32_t id;
	struct gt_blob_piece piece;
	const uint8_t *bytes;
	switch (ev->type) {
	case GT_REC_STRING:
		if (gt_parse_string(ev, &id, &s, &len) == 0 && len)
			sum += (unsigned char)s[len - 1] + id;
		break;
	case GT_REC_META:
		if (gt_parse_meta(ev, &k, &kl, &v, &vl) == 0)
			sum += (kl ? (unsigned char)k[kl - 1] : 0) + (vl ? (unsigned char)v[vl - 1] : 0);
		break;
	case GT_REC_BLOB:
		if (gt_parse_blob(ev, &piece, &bytes) == 0 && piece.piece_bytes)
			sum += bytes[piece.piece_bytes - 1];
		break;
	case GT_REC_CAPTURE: {
		struct gt_capture c;
		const uint8_t *params, *pbytes;
		if (gt_capture_parse(ev, &c, &params, &pbytes) != 0)
			break;
		sum += strlen(gt_reader_string(r, c.name_id));
		for (uint32_t i = 0; i < c.nparams; i++) {
			struct gt_capture_param q;
			gt_capture_param_get(params, i, &q);
			if (q.size)
				sum += pbytes[q.offset + q.size - 1]; /* the parser vouched for the bounds */
		}
		break;
	}
	case GT_REC_KERNEL:
		sum += strlen(gt_reader_string(r, ev->u.kernel.name_id));
		break;
	case GT_REC_API:
		sum += strlen(gt_reader_string(r, ev->u.api.name_id));
		break;
	case GT_REC_NVTX:
		sum += strlen(gt_reader_string(r, ev->u.nvtx.name_id)) +
		       strlen(gt_reader_string(r, ev->u.nvtx.domain_id));
		break;
	case GT_REC_MEMCPY:
		sum += strlen(gt_copy_kind_name(ev->u.memcpy.copy_kind)) +
		       strlen(gt_mem_kind_name(ev->u.memcpy.src_kind));
		break;
	case GT_REC_DROPPED:
		sum += strlen(gt_drop_reason_name((int)ev->u.dropped.reason));
		break;
	case GT_REC_SYNC:
		sum += strlen(gt_sync_kind_name(ev->u.sync.kind));
		break;
	default:
		if (ev->type < GT_REC_FIRST_FIXED && ev->u.var.len)
			sum += ev->u.var.data[ev->u.var.len - 1];
		break;
	}
	return sum + strlen(gt_rec_type_name(ev->type));
}

static unsigned long lookups(const struct gt_reader *r)
{
	unsigned long sum = 0;
	uint32_t ns = gt_reader_string_count(r);
	for (uint32_t i = 0; i <= ns + 1; i++)
		sum += strlen(gt_reader_string(r, i));
	size_t nm = gt_reader_meta_count(r);
	for (size_t i = 0; i <= nm; i++) {
		const char *k, *v;
		if (gt_reader_meta_at(r, i, &k, &v) == 0) {
			const char *back = gt_reader_meta(r, k);
			if (!back)
				abort(); /* a key the reader lists but cannot find */
			sum += strlen(v) + strlen(back);
		}
	}
	size_t nd = gt_reader_device_count(r);
	for (size_t i = 0; i <= nd; i++) {
		const char *name;
		const struct gt_device *d = gt_reader_device_at(r, i, &name);
		if (d) {
			sum += strlen(name) + (gt_reader_device(r, d->device_id, NULL) != NULL);
			sum += gt_device_peak_mem_bw(d) > 0;
			sum += gt_device_peak_pcie_bw(d) > 0;
		}
	}
	int major, minor;
	gt_reader_version(r, &major, &minor);
	return sum + (unsigned long)major + strlen(gt_reader_path(r));
}

/* One pass to the end. Returns records read or the error. */
static long pass(struct gt_reader *r, unsigned long *sum)
{
	struct gt_event ev;
	long n = 0;
	int rc;
	while ((rc = gt_reader_next(r, &ev)) > 0) {
		*sum += touch(r, &ev);
		n++;
	}
	return rc < 0 ? rc : n;
}

long fuzz_read_trace(const char *path)
{
	char err[512];
	struct gt_reader *r;
	int rc = gt_reader_open(&r, path, err, sizeof err);
	if (rc) {
		check_message(path, err);
		return rc;
	}
	unsigned long sum = 0;
	long n1 = pass(r, &sum);
	sum += lookups(r);
	struct gt_tail t1;
	gt_reader_tail(r, &t1);
	if (n1 < 0) {
		check_message(path, gt_reader_error(r));
		/* Errors are sticky: the reader does not resume after one. */
		struct gt_event ev;
		if (gt_reader_next(r, &ev) != n1 || gt_reader_rewind(r) != n1)
			abort();
		gt_reader_close(r);
		return n1;
	}
	if (t1.good_bytes + t1.lost_bytes != t1.file_bytes || (uint64_t)n1 != t1.records ||
	    t1.skipped_records > t1.records + t1.skipped_records) {
		fprintf(stderr, "fuzz: tail does not add up: good %llu + lost %llu != file %llu\n",
		        (unsigned long long)t1.good_bytes, (unsigned long long)t1.lost_bytes,
		        (unsigned long long)t1.file_bytes);
		abort();
	}
	/* A second pass must see exactly the same trace and keep the definitions as they were. */
	uint32_t ns = gt_reader_string_count(r);
	size_t nm = gt_reader_meta_count(r), nd = gt_reader_device_count(r);
	if (gt_reader_scan_definitions(r) != 0)
		abort();
	long n2 = pass(r, &sum);
	struct gt_tail t2;
	gt_reader_tail(r, &t2);
	if (n2 != n1 || t2.lost_bytes != t1.lost_bytes || t2.complete != t1.complete ||
	    gt_reader_string_count(r) != ns || gt_reader_meta_count(r) != nm ||
	    gt_reader_device_count(r) != nd) {
		fprintf(stderr, "fuzz: second pass differs: %ld vs %ld records\n", n2, n1);
		abort();
	}
	sum += lookups(r);
	gt_reader_close(r);
	/* Keep sum alive without printing it. */
	__asm__ volatile("" : : "r"(sum));
	return n1;
}
