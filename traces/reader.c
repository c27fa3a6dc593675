/* reader.c: streams a trace file chunk by chunk, validating every size before it is trusted.
 *
 * Memory stays bounded by one chunk (GT_MAX_CHUNK_RAW) plus the definitions seen so far, and those by
 * the caps of format.h, checked here and nowhere else: the cost contract of gputrace-format(5). A
 * file cut
 * off anywhere is read up to its last complete chunk and the loss is reported through gt_reader_tail();
 * anything else that is wrong (bad magic, checksum, inconsistent sizes) is an error whose message names
 * the file and the byte offset of the chunk where it was found.
 */
#include "common/grow.h"
#include "traces/format.h"
#include "traces/strtab.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>

struct meta_kv {
	char *key, *value;
};

struct dev_entry {
	struct gt_device dev;
	char *name;
};

struct gt_reader {
	char *path;
	int fd;
	uint64_t file_size;
	int major, minor;
	uint64_t first_chunk;     /* offset after the file header */
	uint64_t pos;             /* offset of the next chunk to load */
	int err;                  /* sticky error */
	char errmsg[512];

	ZSTD_DCtx *dctx;
	uint8_t *cbuf, *raw, *dec;
	size_t ccap, rcap, dcap;

	/* the chunk being read */
	uint64_t chunk_off;
	size_t raw_len, raw_pos;  /* raw_pos: next block header */
	/* the block being read */
	int btype, benc, bknown;
	uint32_t bcount, bidx, brsize;
	const uint8_t *bpayload;
	size_t bvar_pos;

	/* definitions */
	struct gt_strtab strings;
	struct meta_kv *meta;
	size_t nmeta, metacap;
	struct dev_entry *devs;
	size_t ndevs, devcap;
	uint64_t defs_absorbed, defs_this_pass;
	uint32_t strings_this_pass;
	uint64_t meta_bytes;          /* keys and values kept */
	uint64_t blob_bytes_this_pass; /* BLOB piece bytes read in this pass */

	/* tail */
	int complete, at_end;
	uint64_t good_bytes, lost_bytes, chunks, records, skipped;
};

static int fail(struct gt_reader *r, int code, uint64_t off, const char *fmt, ...)
{
	char detail[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(detail, sizeof detail, fmt, ap);
	va_end(ap);
	snprintf(r->errmsg, sizeof r->errmsg, "%s: %s (%s at byte %llu)", r->path, gt_strerror(code),
	         detail, (unsigned long long)off);
	r->err = code;
	return code;
}

/* For failures before any byte was read: no offset to name. */
static int fail_plain(struct gt_reader *r, int code, const char *fmt, ...)
{
	char detail[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(detail, sizeof detail, fmt, ap);
	va_end(ap);
	snprintf(r->errmsg, sizeof r->errmsg, "%s: %s", r->path, detail);
	r->err = code;
	return code;
}

static int read_at(struct gt_reader *r, void *buf, size_t n, uint64_t off)
{
	uint8_t *p = buf;
	while (n) {
		ssize_t k = pread(r->fd, p, n, (off_t)off);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return fail(r, GT_ERR_IO, off, "read failed: %s", strerror(errno));
		}
		if (k == 0)
			return fail(r, GT_ERR_IO, off, "file shrank while being read");
		p += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

static int grow(uint8_t **buf, size_t *cap, size_t need)
{
	if (need <= *cap)
		return 0;
	uint8_t *p = realloc(*buf, need);
	if (!p)
		return GT_ERR_NOMEM;
	*buf = p;
	*cap = need;
	return 0;
}

/* One decompression context kept per thread between readers. Creating one costs ~100 KiB of fresh
 * pages each time, which dominated opening many small traces (diff and ranks over many runs, the
 * fuzzers' ~12 opens per input); a reset context decompresses exactly as a new one. */
static _Thread_local ZSTD_DCtx *spare_dctx;

static ZSTD_DCtx *take_dctx(void)
{
	ZSTD_DCtx *d = spare_dctx;
	spare_dctx = NULL;
	return d ? d : ZSTD_createDCtx();
}

static void give_back_dctx(ZSTD_DCtx *d)
{
	if (d && !spare_dctx && !ZSTD_isError(ZSTD_DCtx_reset(d, ZSTD_reset_session_and_parameters)))
		spare_dctx = d;
	else
		ZSTD_freeDCtx(d);
}

int gt_reader_open(struct gt_reader **out, const char *path, char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (!out || !path)
		return GT_ERR_ARG;
	*out = NULL;
	struct gt_reader *r = calloc(1, sizeof *r);
	if (!r || !(r->path = strdup(path))) {
		free(r);
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path, gt_strerror(GT_ERR_NOMEM));
		return GT_ERR_NOMEM;
	}
	r->fd = -1;
	gt_strtab_init(&r->strings);
	int rc = 0;
	struct stat st;
	uint8_t hdr[GT_FILE_HEADER_BYTES];
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		rc = fail_plain(r, GT_ERR_IO, "%s", strerror(errno));
	} else if (fstat(r->fd, &st) != 0) {
		rc = fail_plain(r, GT_ERR_IO, "cannot stat: %s", strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		rc = fail_plain(r, GT_ERR_ARG, "not a regular file");
	} else if ((r->file_size = (uint64_t)st.st_size) < GT_FILE_HEADER_BYTES) {
		rc = fail(r, GT_ERR_EMPTY, 0, "%llu bytes, shorter than the %u-byte file header",
		          (unsigned long long)r->file_size, GT_FILE_HEADER_BYTES);
	} else if ((rc = read_at(r, hdr, sizeof hdr, 0)) == 0) {
		uint32_t hbytes = gt_ld32(hdr + 12);
		r->major = gt_ld16(hdr + 8);
		r->minor = gt_ld16(hdr + 10);
		if (memcmp(hdr, GT_FILE_MAGIC, 8) != 0)
			rc = fail(r, GT_ERR_MAGIC, 0, "bad file magic");
		else if (r->major != GT_FORMAT_MAJOR)
			rc = fail(r, GT_ERR_VERSION, 8, "format %d.%d, this reader knows %d.x", r->major,
			          r->minor, GT_FORMAT_MAJOR);
		else if (hbytes < GT_FILE_HEADER_BYTES || hbytes > 65536 || hbytes > r->file_size)
			rc = fail(r, GT_ERR_CORRUPT, 12, "file header size %u", hbytes);
		else
			r->first_chunk = r->pos = r->good_bytes = hbytes;
	}
	if (!rc && !(r->dctx = take_dctx()))
		rc = fail(r, GT_ERR_NOMEM, 0, "zstd context");
	if (rc) {
		if (err && errlen)
			snprintf(err, errlen, "%s", r->errmsg);
		gt_reader_close(r);
		return rc;
	}
	*out = r;
	return 0;
}

void gt_reader_close(struct gt_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	give_back_dctx(r->dctx);
	free(r->cbuf);
	free(r->raw);
	free(r->dec);
	gt_strtab_release(&r->strings);
	for (size_t i = 0; i < r->nmeta; i++) {
		free(r->meta[i].key);
		free(r->meta[i].value);
	}
	free(r->meta);
	for (size_t i = 0; i < r->ndevs; i++)
		free(r->devs[i].name);
	free(r->devs);
	free(r->path);
	free(r);
}

/* Checks the structure of the decompressed chunk: every block and variable record inside bounds,
 * counts as the chunk header says. After this the iterator trusts the sizes. */
static int validate_chunk(struct gt_reader *r, uint32_t nrec, uint32_t nblocks)
{
	size_t p = 0;
	uint64_t recs = 0, blocks = 0;
	while (p < r->raw_len) {
		if (r->raw_len - p < GT_BLOCK_HEADER_BYTES)
			return fail(r, GT_ERR_CORRUPT, r->chunk_off, "block header past the chunk's end");
		const uint8_t *b = r->raw + p;
		uint32_t enc = gt_ld16(b + 2), count = gt_ld32(b + 4), rsize = gt_ld32(b + 8);
		uint64_t payload = gt_ld32(b + 12);
		p += GT_BLOCK_HEADER_BYTES;
		if (payload > r->raw_len - p)
			return fail(r, GT_ERR_CORRUPT, r->chunk_off, "block of %llu bytes past the chunk's end",
			            (unsigned long long)payload);
		if (enc == GT_ENC_FIXED) {
			if (rsize == 0 || rsize > GT_MAX_RECORD_SIZE || (uint64_t)count * rsize != payload)
				return fail(r, GT_ERR_CORRUPT, r->chunk_off,
				            "fixed block of %u records of %u bytes in %llu bytes", count, rsize,
				            (unsigned long long)payload);
		} else if (enc == GT_ENC_VAR) {
			uint64_t q = 0;
			for (uint32_t i = 0; i < count; i++) {
				if (payload - q < 4)
					return fail(r, GT_ERR_CORRUPT, r->chunk_off, "variable record past its block");
				uint32_t len = gt_ld32(b + GT_BLOCK_HEADER_BYTES + q);
				q += 4;
				if (len > payload - q)
					return fail(r, GT_ERR_CORRUPT, r->chunk_off,
					            "variable record of %u bytes past its block", len);
				q += len;
			}
			if (q != payload)
				return fail(r, GT_ERR_CORRUPT, r->chunk_off, "variable block has trailing bytes");
		}
		/* Unknown encodings are skipped whole: their size is known. */
		p += payload;
		recs += count;
		blocks++;
	}
	if (recs != nrec || blocks != nblocks)
		return fail(r, GT_ERR_CORRUPT, r->chunk_off,
		            "chunk header says %u records in %u blocks, found %llu in %llu", nrec, nblocks,
		            (unsigned long long)recs, (unsigned long long)blocks);
	return 0;
}

/* Loads the chunk at r->pos. Returns 1 when loaded, 0 at the end (clean or truncated), < 0 on error. */
static int load_chunk(struct gt_reader *r)
{
	uint64_t off = r->pos, left = r->file_size - off;
	if (left == 0)
		return 0;
	if (left < GT_CHUNK_HEADER_BYTES) {
		r->lost_bytes = left;
		return 0;
	}
	uint8_t h[GT_CHUNK_HEADER_BYTES];
	int rc = read_at(r, h, sizeof h, off);
	if (rc)
		return rc;
	if (gt_ld32(h) != GT_CHUNK_MAGIC)
		return fail(r, GT_ERR_MAGIC, off, "bad chunk magic");
	if (gt_ld32(h + 28) != gt_header_check(h, 28))
		return fail(r, GT_ERR_CHECKSUM, off, "chunk header check");
	uint32_t csize = gt_ld32(h + 8), rsize = gt_ld32(h + 12);
	uint32_t nrec = gt_ld32(h + 16), nblocks = gt_ld32(h + 20);
	if (rsize > GT_MAX_CHUNK_RAW)
		return fail(r, GT_ERR_TOO_LARGE, off, "chunk of %u raw bytes, limit %u", rsize,
		            GT_MAX_CHUNK_RAW);
	if (csize > ZSTD_compressBound(rsize) + 64)
		return fail(r, GT_ERR_CORRUPT, off, "compressed size %u for %u raw bytes", csize, rsize);
	if ((uint64_t)csize > left - GT_CHUNK_HEADER_BYTES) {
		/* The writer died inside this chunk: everything before it is good. */
		r->lost_bytes = left;
		return 0;
	}
	if (grow(&r->cbuf, &r->ccap, csize ? csize : 1))
		return fail(r, GT_ERR_NOMEM, off, "chunk buffers");
	if ((rc = read_at(r, r->cbuf, csize, off + GT_CHUNK_HEADER_BYTES)) != 0)
		return rc;
	/* A zstd frame: magic, then the descriptor byte whose bit 2 is the content checksum flag. The
	 * format requires the checksum, so a frame without one is not ours. */
	if (csize < 6 || gt_ld32(r->cbuf) != ZSTD_MAGICNUMBER || !(r->cbuf[4] & 0x04) ||
	    ZSTD_getFrameContentSize(r->cbuf, csize) != rsize)
		return fail(r, GT_ERR_CORRUPT, off, "zstd frame header does not match the chunk header");
	/* Exactly one frame: zstd's decoder would also run through a skippable frame after it. A
	 * frame it cannot measure is left for the decompression to name. */
	size_t fsize = ZSTD_findFrameCompressedSize(r->cbuf, csize);
	if (!ZSTD_isError(fsize) && fsize != csize)
		return fail(r, GT_ERR_CORRUPT, off, "%zu bytes after the zstd frame", csize - fsize);
	/* The raw buffer only now: a few bytes claiming 64 MiB get nothing until the frame agrees. */
	if (grow(&r->raw, &r->rcap, rsize ? rsize : 1))
		return fail(r, GT_ERR_NOMEM, off, "chunk buffers");
	size_t got = ZSTD_decompressDCtx(r->dctx, r->raw, rsize, r->cbuf, csize);
	if (ZSTD_isError(got)) {
		int code = ZSTD_getErrorCode(got) == ZSTD_error_checksum_wrong ? GT_ERR_CHECKSUM
		                                                                : GT_ERR_CORRUPT;
		return fail(r, code, off, "zstd: %s", ZSTD_getErrorName(got));
	}
	if (got != rsize)
		return fail(r, GT_ERR_CORRUPT, off, "chunk decompressed to %zu bytes, expected %u", got, rsize);
	r->chunk_off = off;
	r->raw_len = rsize;
	r->raw_pos = 0;
	if ((rc = validate_chunk(r, nrec, nblocks)) != 0)
		return rc;
	r->pos = off + GT_CHUNK_HEADER_BYTES + csize;
	if (r->pos > r->good_bytes)
		r->good_bytes = r->pos;
	r->chunks++;
	return 1;
}

/* Starts the block at raw_pos. Fixed blocks of known types are decoded whole into r->dec. */
static int start_block(struct gt_reader *r)
{
	const uint8_t *b = r->raw + r->raw_pos;
	r->btype = gt_ld16(b);
	r->benc = gt_ld16(b + 2);
	r->bcount = gt_ld32(b + 4);
	r->brsize = gt_ld32(b + 8);
	uint32_t payload = gt_ld32(b + 12);
	r->bpayload = b + GT_BLOCK_HEADER_BYTES;
	r->raw_pos += GT_BLOCK_HEADER_BYTES + payload;
	r->bidx = 0;
	r->bvar_pos = 0;
	r->bknown = 0;
	if (r->benc == GT_ENC_FIXED) {
		const struct gt_fixed_desc *d = gt_fixed_desc(r->btype);
		if (d) {
			if (grow(&r->dec, &r->dcap, payload ? payload : 1))
				return fail(r, GT_ERR_NOMEM, r->chunk_off, "decode buffer of %u bytes", payload);
			gt_decode_fixed(d, r->bpayload, r->bcount, r->brsize, r->dec);
			r->bknown = 1;
		}
	} else if (r->benc == GT_ENC_VAR) {
		r->bknown = r->btype >= GT_REC_STRING && r->btype <= GT_REC_END;
	}
	if (!r->bknown)
		r->skipped += r->bcount;
	return 0;
}

static char *dupn(const void *p, size_t n)
{
	char *s = malloc(n + 1);
	if (s) {
		memcpy(s, p, n);
		s[n] = '\0';
	}
	return s;
}

/* A blob's claimed size, and all blob bytes of the trace, within the caps: whoever reassembles a
 * blob (shadow) holds it whole, and the bytes are cheap to make (a chunk of zeros compresses to
 * almost nothing). A piece that does not parse is left to its consumer to report, as before. */
static int check_blob(struct gt_reader *r, const struct gt_event *ev)
{
	struct gt_blob_piece piece;
	const uint8_t *data;
	if (gt_parse_blob(ev, &piece, &data) != 0)
		return 0;
	if (piece.total_bytes > GT_MAX_BLOB_BYTES)
		return fail(r, GT_ERR_TOO_LARGE, r->chunk_off, "blob %llu of %llu bytes, limit %llu",
		            (unsigned long long)piece.blob_id, (unsigned long long)piece.total_bytes,
		            (unsigned long long)GT_MAX_BLOB_BYTES);
	r->blob_bytes_this_pass += piece.piece_bytes;
	if (r->blob_bytes_this_pass > GT_MAX_BLOBS_TOTAL)
		return fail(r, GT_ERR_TOO_LARGE, r->chunk_off, "more than %llu bytes of blobs",
		            (unsigned long long)GT_MAX_BLOBS_TOTAL);
	return 0;
}

/* A capture's buffers within the cap: a replay holds each allocation before, after and as a
 * working copy, and many parameters may claim one blob under different allocation bases. */
static int check_capture(struct gt_reader *r, const struct gt_event *ev)
{
	struct gt_capture c;
	const uint8_t *params_raw;
	if (gt_capture_parse(ev, &c, &params_raw, NULL) != 0)
		return 0;
	uint64_t bytes;
	if (gt_capture_bytes(&c, params_raw, &bytes) != 0)
		return fail(r, GT_ERR_NOMEM, r->chunk_off, "capture");
	if (bytes > GT_MAX_CAPTURE_BYTES)
		return fail(r, GT_ERR_TOO_LARGE, r->chunk_off,
		            "capture %llu of %llu buffer bytes, limit %llu", (unsigned long long)c.capture_id,
		            (unsigned long long)bytes, (unsigned long long)GT_MAX_CAPTURE_BYTES);
	return 0;
}

/* Keeps STRING, META and DEVICE definitions. A second pass after a rewind does not add them twice. */
static int absorb(struct gt_reader *r, const struct gt_event *ev)
{
	const uint8_t *d = ev->u.var.data;
	uint32_t len = ev->u.var.len;
	if (ev->type == GT_REC_STRING) {
		if (len < 4)
			return fail(r, GT_ERR_CORRUPT, r->chunk_off, "string record of %u bytes", len);
		/* Ids run 1, 2, 3, ... in file order on every pass; a repeat is as corrupt as a gap. */
		uint32_t id = gt_ld32(d), want = r->strings_this_pass + 1;
		if (id != want)
			return fail(r, GT_ERR_CORRUPT, r->chunk_off, "string id %u out of sequence (expected %u)",
			            id, want);
		r->strings_this_pass++;
		if (id <= r->strings.count)
			return 0; /* kept on an earlier pass, before a rewind */
		if (len - 4 > GT_MAX_STRING_LEN)
			return fail(r, GT_ERR_TOO_LARGE, r->chunk_off, "string %u of %u bytes, limit %u", id,
			            len - 4, GT_MAX_STRING_LEN);
		if (r->strings.count >= GT_MAX_STRINGS)
			return fail(r, GT_ERR_TOO_LARGE, r->chunk_off, "more than %u strings", GT_MAX_STRINGS);
		if (r->strings.bytes + (len - 4) > GT_MAX_STRING_BYTES)
			return fail(r, GT_ERR_TOO_LARGE, r->chunk_off, "more than %u bytes of strings",
			            GT_MAX_STRING_BYTES);
		if (!gt_strtab_append(&r->strings, (const char *)d + 4, len - 4))
			return fail(r, GT_ERR_NOMEM, r->chunk_off, "string table");
		return 0;
	}
	if (ev->type == GT_REC_BLOB)
		return check_blob(r, ev);
	if (ev->type == GT_REC_CAPTURE)
		return check_capture(r, ev);
	if (ev->type != GT_REC_META && ev->type != GT_REC_DEVICE)
		return 0;
	if (++r->defs_this_pass <= r->defs_absorbed)
		return 0;
	r->defs_absorbed++;
	if (ev->type == GT_REC_META) {
		const char *k, *v;
		size_t kl, vl;
		if (gt_parse_meta(ev, &k, &kl, &v, &vl) != 0)
			return fail(r, GT_ERR_CORRUPT, r->chunk_off, "metadata record");
		if (r->nmeta >= GT_MAX_META)
			return fail(r, GT_ERR_TOO_LARGE, r->chunk_off, "more than %u metadata records",
			            GT_MAX_META);
		if (r->meta_bytes + kl + vl > GT_MAX_META_BYTES)
			return fail(r, GT_ERR_TOO_LARGE, r->chunk_off, "more than %u bytes of metadata",
			            GT_MAX_META_BYTES);
		r->meta_bytes += kl + vl;
		struct meta_kv *m = gt_grow(r->meta, &r->metacap, r->nmeta, sizeof *m, 32);
		if (!m)
			return fail(r, GT_ERR_NOMEM, r->chunk_off, "metadata");
		r->meta = m;
		char *ks = dupn(k, kl), *vs = dupn(v, vl);
		if (!ks || !vs) {
			free(ks);
			free(vs);
			return fail(r, GT_ERR_NOMEM, r->chunk_off, "metadata");
		}
		r->meta[r->nmeta++] = (struct meta_kv){ ks, vs };
		return 0;
	}
	struct gt_device dev;
	if (len < sizeof dev)
		return fail(r, GT_ERR_CORRUPT, r->chunk_off, "device record of %u bytes", len);
	memcpy(&dev, d, sizeof dev);
	/* The name is the record's last name_len bytes; a later minor version may append fields to the
	 * struct before it, which this reader skips. */
	if (dev.name_len > len - sizeof dev)
		return fail(r, GT_ERR_CORRUPT, r->chunk_off, "device name of %u bytes in a %u-byte record",
		            dev.name_len, len);
	if (dev.name_len > GT_MAX_DEVICE_NAME)
		return fail(r, GT_ERR_TOO_LARGE, r->chunk_off, "device name of %u bytes, limit %u",
		            dev.name_len, GT_MAX_DEVICE_NAME);
	uint32_t fixed = len - dev.name_len;
	if (r->ndevs >= GT_MAX_DEVICES)
		return fail(r, GT_ERR_TOO_LARGE, r->chunk_off, "more than %u devices", GT_MAX_DEVICES);
	struct dev_entry *e = gt_grow(r->devs, &r->devcap, r->ndevs, sizeof *e, 8);
	if (!e)
		return fail(r, GT_ERR_NOMEM, r->chunk_off, "devices");
	r->devs = e;
	char *name = dupn(d + fixed, dev.name_len);
	if (!name)
		return fail(r, GT_ERR_NOMEM, r->chunk_off, "devices");
	r->devs[r->ndevs++] = (struct dev_entry){ dev, name };
	return 0;
}

int gt_reader_next(struct gt_reader *r, struct gt_event *ev)
{
	if (!r || !ev)
		return GT_ERR_ARG;
	if (r->err)
		return r->err;
	for (;;) {
		if (r->at_end)
			return 0;
		/* Within a block of a known type: hand out the next record. */
		if (r->bknown && r->bidx < r->bcount) {
			ev->type = r->btype;
			ev->offset = r->chunk_off;
			if (r->benc == GT_ENC_FIXED) {
				const struct gt_fixed_desc *d = gt_fixed_desc(r->btype);
				const uint8_t *src = r->dec + (size_t)r->bidx * r->brsize;
				if (r->brsize == d->size) {
					memcpy(&ev->u, src, d->size);
				} else {
					/* Another minor version: copy what both know, zero the rest. */
					size_t n = r->brsize < d->size ? r->brsize : d->size;
					memset(&ev->u, 0, d->size);
					memcpy(&ev->u, src, n);
				}
			} else {
				const uint8_t *p = r->bpayload + r->bvar_pos;
				uint32_t len = gt_ld32(p);
				ev->u.var.data = p + 4;
				ev->u.var.len = len;
				r->bvar_pos += 4 + (size_t)len;
				int rc = absorb(r, ev);
				if (rc)
					return rc;
				if (ev->type == GT_REC_END)
					r->complete = 1;
			}
			r->bidx++;
			r->records++;
			return 1;
		}
		/* Next block of this chunk, or the next chunk. */
		if (r->raw_pos < r->raw_len) {
			int rc = start_block(r);
			if (rc)
				return rc;
			continue;
		}
		int rc = load_chunk(r);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			r->at_end = 1;
			return 0;
		}
	}
}

int gt_reader_rewind(struct gt_reader *r)
{
	if (!r)
		return GT_ERR_ARG;
	if (r->err)
		return r->err;
	r->pos = r->first_chunk;
	r->raw_len = r->raw_pos = 0;
	r->bknown = 0;
	r->bidx = r->bcount = 0;
	r->at_end = 0;
	r->defs_this_pass = 0;
	r->strings_this_pass = 0;
	r->blob_bytes_this_pass = 0;
	r->chunks = r->records = r->skipped = 0;
	r->lost_bytes = 0;
	return 0;
}

int gt_reader_scan_definitions(struct gt_reader *r)
{
	struct gt_event ev;
	int rc;
	while ((rc = gt_reader_next(r, &ev)) > 0)
		;
	if (rc < 0)
		return rc;
	return gt_reader_rewind(r);
}

const char *gt_reader_error(const struct gt_reader *r) { return r ? r->errmsg : ""; }
const char *gt_reader_path(const struct gt_reader *r) { return r ? r->path : ""; }

void gt_reader_tail(const struct gt_reader *r, struct gt_tail *t)
{
	memset(t, 0, sizeof *t);
	if (!r)
		return;
	t->complete = r->complete;
	t->file_bytes = r->file_size;
	t->good_bytes = r->good_bytes;
	t->lost_bytes = r->lost_bytes;
	t->chunks = r->chunks;
	t->records = r->records;
	t->skipped_records = r->skipped;
}

int gt_reader_version(const struct gt_reader *r, int *major, int *minor)
{
	if (!r)
		return GT_ERR_ARG;
	if (major)
		*major = r->major;
	if (minor)
		*minor = r->minor;
	return 0;
}

const char *gt_reader_string(const struct gt_reader *r, uint32_t id)
{
	const char *s = r ? gt_strtab_get(&r->strings, id) : NULL;
	return s ? s : "";
}

uint32_t gt_reader_string_count(const struct gt_reader *r) { return r ? r->strings.count : 0; }

const char *gt_reader_meta(const struct gt_reader *r, const char *key)
{
	if (!r || !key)
		return NULL;
	for (size_t i = r->nmeta; i-- > 0;)
		if (strcmp(r->meta[i].key, key) == 0)
			return r->meta[i].value;
	return NULL;
}

size_t gt_reader_meta_count(const struct gt_reader *r) { return r ? r->nmeta : 0; }

int gt_reader_meta_at(const struct gt_reader *r, size_t i, const char **key, const char **value)
{
	if (!r || i >= r->nmeta)
		return GT_ERR_ARG;
	if (key)
		*key = r->meta[i].key;
	if (value)
		*value = r->meta[i].value;
	return 0;
}

size_t gt_reader_device_count(const struct gt_reader *r) { return r ? r->ndevs : 0; }

const struct gt_device *gt_reader_device_at(const struct gt_reader *r, size_t i, const char **name)
{
	if (!r || i >= r->ndevs)
		return NULL;
	if (name)
		*name = r->devs[i].name;
	return &r->devs[i].dev;
}

const struct gt_device *gt_reader_device(const struct gt_reader *r, uint32_t device_id,
                                         const char **name)
{
	if (!r)
		return NULL;
	for (size_t i = r->ndevs; i-- > 0;)
		if (r->devs[i].dev.device_id == device_id)
			return gt_reader_device_at(r, i, name);
	return NULL;
}

/* ---- parsers for variable records --------------------------------------------------------- */

int gt_parse_string(const struct gt_event *ev, uint32_t *id, const char **s, size_t *len)
{
	if (!ev || ev->type != GT_REC_STRING || ev->u.var.len < 4)
		return GT_ERR_ARG;
	if (id)
		*id = gt_ld32(ev->u.var.data);
	if (s)
		*s = (const char *)ev->u.var.data + 4;
	if (len)
		*len = ev->u.var.len - 4;
	return 0;
}

int gt_parse_meta(const struct gt_event *ev, const char **key, size_t *key_len, const char **value,
                  size_t *value_len)
{
	if (!ev || ev->type != GT_REC_META || ev->u.var.len < 4)
		return GT_ERR_ARG;
	uint32_t kl = gt_ld32(ev->u.var.data);
	if (kl > ev->u.var.len - 4)
		return GT_ERR_CORRUPT;
	*key = (const char *)ev->u.var.data + 4;
	*key_len = kl;
	*value = *key + kl;
	*value_len = ev->u.var.len - 4 - kl;
	return 0;
}

int gt_parse_blob(const struct gt_event *ev, struct gt_blob_piece *piece, const uint8_t **data)
{
	if (!ev || ev->type != GT_REC_BLOB || ev->u.var.len < sizeof *piece)
		return GT_ERR_ARG;
	memcpy(piece, ev->u.var.data, sizeof *piece);
	if (piece->piece_bytes != ev->u.var.len - sizeof *piece || piece->offset > piece->total_bytes ||
	    piece->piece_bytes > piece->total_bytes - piece->offset)
		return GT_ERR_CORRUPT;
	*data = ev->u.var.data + sizeof *piece;
	return 0;
}
