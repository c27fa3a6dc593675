/* writer.c: buffers records per type and writes them as independently compressed chunks.
 *
 * Each chunk is written with a single write() of header + zstd frame, so a process that dies leaves at
 * most one incomplete chunk at the end of the file, which the reader recognises and reports. Definitions
 * (strings, metadata, devices) go first in every chunk, before the events that may use them.
 * The writer is not thread-safe: the recorder gives it to one thread.
 */
#include "traces/format.h"
#include "traces/strtab.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#define VAR_TYPES GT_REC_FIRST_FIXED

struct typebuf {
	uint8_t *data;
	size_t len, cap;
	uint32_t count;
};

struct gt_writer {
	int fd;
	int failed;               /* first error; every later call returns it */
	ZSTD_CCtx *cctx;
	size_t chunk_bytes;
	size_t buffered;          /* raw bytes buffered, block headers included */
	struct typebuf var[VAR_TYPES];
	struct typebuf fixed[GT_REC_TYPE_MAX + 1 - GT_REC_FIRST_FIXED];
	uint8_t *raw, *out;
	size_t raw_cap, out_cap;
	struct gt_strtab strings;
	uint64_t records, chunks, bytes, next_blob_id;
	uint32_t chunk_records;
	uint64_t meta_bytes, nmeta, blob_bytes; /* against the reader's caps (format.h) */
};

static int grow(uint8_t **buf, size_t *cap, size_t need)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap : 4096;
	while (n < need)
		n *= 2;
	uint8_t *p = realloc(*buf, n);
	if (!p)
		return GT_ERR_NOMEM;
	*buf = p;
	*cap = n;
	return 0;
}

static int write_full(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return GT_ERR_IO;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int gt_writer_open_fd(struct gt_writer **out, int fd, const struct gt_writer_options *opt)
{
	if (!out || fd < 0)
		return GT_ERR_ARG;
	*out = NULL;
	struct gt_writer *w = calloc(1, sizeof *w);
	if (!w)
		return GT_ERR_NOMEM;
	w->fd = -1; /* fd becomes the writer's only once the header is written */
	w->chunk_bytes = opt && opt->chunk_bytes ? opt->chunk_bytes : (1u << 20);
	if (w->chunk_bytes > GT_MAX_CHUNK_RAW / 2)
		w->chunk_bytes = GT_MAX_CHUNK_RAW / 2;
	int level = opt && opt->compression_level ? opt->compression_level : 3;
	w->cctx = ZSTD_createCCtx();
	if (!w->cctx || gt_strtab_init(&w->strings) != 0) {
		gt_writer_abandon(w);
		return GT_ERR_NOMEM;
	}
	if (ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_contentSizeFlag, 1))) {
		gt_writer_abandon(w);
		return GT_ERR_ARG;
	}
	uint8_t hdr[GT_FILE_HEADER_BYTES] = { 0 };
	memcpy(hdr, GT_FILE_MAGIC, 8);
	gt_st16(hdr + 8, GT_FORMAT_MAJOR);
	gt_st16(hdr + 10, GT_FORMAT_MINOR);
	gt_st32(hdr + 12, GT_FILE_HEADER_BYTES);
	gt_st64(hdr + 16, 0); /* flags: none defined */
	gt_st64(hdr + 24, realtime_ns());
	int rc = write_full(fd, hdr, sizeof hdr);
	if (rc) {
		gt_writer_abandon(w);
		return rc;
	}
	w->fd = fd;
	w->bytes = sizeof hdr;
	w->next_blob_id = 1;
	*out = w;
	return 0;
}

int gt_writer_open(struct gt_writer **out, const char *path, unsigned flags,
                   const struct gt_writer_options *opt)
{
	if (!out || !path)
		return GT_ERR_ARG;
	*out = NULL;
	/* Never follow a symlink planted where the trace goes; O_EXCL refuses to clobber. */
	int oflags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW;
	oflags |= (flags & GT_WRITE_NO_CLOBBER) ? O_EXCL : O_TRUNC;
	int fd = open(path, oflags, 0666);
	if (fd < 0)
		return errno == EEXIST ? GT_ERR_EXISTS : GT_ERR_IO;
	int rc = gt_writer_open_fd(out, fd, opt);
	if (rc)
		close(fd);
	return rc;
}

static struct typebuf *buf_for(struct gt_writer *w, int type)
{
	if (type > 0 && type < VAR_TYPES)
		return &w->var[type];
	if (type >= GT_REC_FIRST_FIXED && type <= GT_REC_TYPE_MAX)
		return &w->fixed[type - GT_REC_FIRST_FIXED];
	return NULL;
}

static int maybe_flush(struct gt_writer *w)
{
	return w->buffered >= w->chunk_bytes ? gt_writer_flush(w) : 0;
}

int gt_writer_add(struct gt_writer *w, int type, const void *rec)
{
	if (!w || !rec)
		return GT_ERR_ARG;
	if (w->failed)
		return w->failed;
	const struct gt_fixed_desc *d = gt_fixed_desc(type);
	if (!d)
		return GT_ERR_ARG;
	struct typebuf *b = buf_for(w, type);
	if (grow(&b->data, &b->cap, b->len + d->size))
		return w->failed = GT_ERR_NOMEM;
	memcpy(b->data + b->len, rec, d->size);
	b->len += d->size;
	if (b->count++ == 0)
		w->buffered += GT_BLOCK_HEADER_BYTES;
	w->buffered += d->size;
	w->records++;
	return maybe_flush(w);
}

/* Appends a variable record made of two pieces (a header struct and its payload). */
static int add_var2(struct gt_writer *w, int type, const void *a, size_t alen, const void *b,
                    size_t blen)
{
	if (w->failed)
		return w->failed;
	struct typebuf *t = (type > 0 && type < VAR_TYPES) ? &w->var[type] : NULL;
	if (!t)
		return GT_ERR_ARG;
	size_t len = alen + blen;
	if (len > GT_MAX_VAR_RECORD)
		return GT_ERR_TOO_LARGE;
	/* A chunk must stay within what a reader accepts (GT_MAX_CHUNK_RAW): a large record that
	 * would push what is buffered past it goes into a chunk of its own. */
	if (w->buffered && w->buffered + GT_BLOCK_HEADER_BYTES + 4 + len > GT_MAX_CHUNK_RAW) {
		int rc = gt_writer_flush(w);
		if (rc)
			return rc;
	}
	if (grow(&t->data, &t->cap, t->len + 4 + len))
		return w->failed = GT_ERR_NOMEM;
	gt_st32(t->data + t->len, (uint32_t)len);
	if (alen)
		memcpy(t->data + t->len + 4, a, alen);
	if (blen)
		memcpy(t->data + t->len + 4 + alen, b, blen);
	t->len += 4 + len;
	if (t->count++ == 0)
		w->buffered += GT_BLOCK_HEADER_BYTES;
	w->buffered += 4 + len;
	w->records++;
	return maybe_flush(w);
}

int gt_writer_add_var(struct gt_writer *w, int type, const void *data, size_t len)
{
	if (!w || (!data && len))
		return GT_ERR_ARG;
	return add_var2(w, type, data, len, NULL, 0);
}

uint32_t gt_writer_intern_n(struct gt_writer *w, const char *s, size_t len)
{
	if (!w || !s || w->failed)
		return 0;
	/* Within what a reader accepts (format.h): a longer string is cut, and past the table's caps a
	 * new string gets no id (0, the empty name) rather than making the whole trace unreadable. */
	if (len > GT_MAX_STRING_LEN)
		len = GT_MAX_STRING_LEN;
	int added = 0;
	uint32_t id = gt_strtab_find(&w->strings, s, len);
	if (id)
		return id;
	if (w->strings.count >= GT_MAX_STRINGS || w->strings.bytes + len > GT_MAX_STRING_BYTES)
		return 0;
	id = gt_strtab_intern(&w->strings, s, len, &added);
	if (!id) {
		w->failed = GT_ERR_NOMEM;
		return 0;
	}
	if (added) {
		uint8_t idb[4];
		gt_st32(idb, id);
		if (add_var2(w, GT_REC_STRING, idb, 4, s, len) != 0)
			return 0;
	}
	return id;
}

uint32_t gt_writer_intern(struct gt_writer *w, const char *s)
{
	return s ? gt_writer_intern_n(w, s, strlen(s)) : 0;
}

int gt_writer_meta(struct gt_writer *w, const char *key, const char *value)
{
	if (!w || !key || !value)
		return GT_ERR_ARG;
	size_t kl = strlen(key), vl = strlen(value);
	/* Refused here rather than recorded: a reader refuses the whole trace past these caps. */
	if (kl + vl + 4 > GT_MAX_VAR_RECORD || w->nmeta >= GT_MAX_META ||
	    w->meta_bytes + kl + vl > GT_MAX_META_BYTES)
		return GT_ERR_TOO_LARGE;
	uint8_t *tmp = malloc(4 + kl + vl);
	if (!tmp)
		return GT_ERR_NOMEM;
	gt_st32(tmp, (uint32_t)kl);
	memcpy(tmp + 4, key, kl);
	memcpy(tmp + 4 + kl, value, vl);
	int rc = add_var2(w, GT_REC_META, tmp, 4 + kl + vl, NULL, 0);
	free(tmp);
	if (!rc) {
		w->nmeta++;
		w->meta_bytes += kl + vl;
	}
	return rc;
}

int gt_writer_device(struct gt_writer *w, const struct gt_device *d, const char *name)
{
	if (!w || !d)
		return GT_ERR_ARG;
	/* The struct has 4 bytes of tail padding (after uuid) that the format wants zero. Built in a
	 * byte buffer, not a struct: a store to any member leaves a struct's padding unspecified
	 * (C11 6.2.6.1), and GCC does copy the caller's padding bytes when the record is a struct. */
	uint8_t rec[sizeof(struct gt_device)];
	size_t nl = name ? strlen(name) : 0;
	if (nl > GT_MAX_DEVICE_NAME)
		nl = GT_MAX_DEVICE_NAME; /* cut: a longer name makes a reader refuse the trace */
	memset(rec, 0, sizeof rec);
	memcpy(rec, d, offsetof(struct gt_device, uuid) + sizeof d->uuid);
	gt_st32(rec + offsetof(struct gt_device, name_len), (uint32_t)nl);
	gt_st32(rec + offsetof(struct gt_device, reserved), 0);
	return add_var2(w, GT_REC_DEVICE, rec, sizeof rec, name, nl);
}

int64_t gt_writer_blob(struct gt_writer *w, uint32_t kind, const void *data, uint64_t len)
{
	if (!w || (!data && len))
		return GT_ERR_ARG;
	if (w->failed)
		return w->failed;
	/* A blob a reader would refuse, with the whole trace, is not written (format.h's caps). */
	if (len > GT_MAX_BLOB_BYTES || w->blob_bytes + len > GT_MAX_BLOBS_TOTAL)
		return GT_ERR_TOO_LARGE;
	w->blob_bytes += len;
	uint64_t id = w->next_blob_id++;
	uint64_t off = 0;
	do {
		uint64_t n = len - off < GT_BLOB_PIECE_BYTES ? len - off : GT_BLOB_PIECE_BYTES;
		struct gt_blob_piece p = { id, len, off, kind, (uint32_t)n };
		int rc = add_var2(w, GT_REC_BLOB, &p, sizeof p, (const uint8_t *)data + off, n);
		if (rc)
			return rc;
		off += n;
	} while (off < len);
	return (int64_t)id;
}

static size_t put_block(uint8_t *p, int type, int enc, uint32_t count, uint32_t rsize,
                        uint32_t payload)
{
	gt_st16(p, (uint16_t)type);
	gt_st16(p + 2, (uint16_t)enc);
	gt_st32(p + 4, count);
	gt_st32(p + 8, rsize);
	gt_st32(p + 12, payload);
	return GT_BLOCK_HEADER_BYTES;
}

int gt_writer_flush(struct gt_writer *w)
{
	if (!w)
		return GT_ERR_ARG;
	if (w->failed)
		return w->failed;
	if (w->buffered == 0)
		return 0;
	if (grow(&w->raw, &w->raw_cap, w->buffered))
		return w->failed = GT_ERR_NOMEM;
	size_t pos = 0;
	uint32_t blocks = 0, nrec = 0;
	for (int t = 1; t < VAR_TYPES; t++) {
		struct typebuf *b = &w->var[t];
		if (!b->count)
			continue;
		pos += put_block(w->raw + pos, t, GT_ENC_VAR, b->count, 0, (uint32_t)b->len);
		memcpy(w->raw + pos, b->data, b->len);
		pos += b->len;
		blocks++;
		nrec += b->count;
	}
	for (int t = GT_REC_FIRST_FIXED; t <= GT_REC_TYPE_MAX; t++) {
		struct typebuf *b = &w->fixed[t - GT_REC_FIRST_FIXED];
		if (!b->count)
			continue;
		const struct gt_fixed_desc *d = gt_fixed_desc(t);
		pos += put_block(w->raw + pos, t, GT_ENC_FIXED, b->count, d->size, (uint32_t)b->len);
		gt_encode_fixed(d, b->data, b->count, d->size, w->raw + pos);
		pos += b->len;
		blocks++;
		nrec += b->count;
	}
	size_t bound = ZSTD_compressBound(pos);
	if (grow(&w->out, &w->out_cap, GT_CHUNK_HEADER_BYTES + bound))
		return w->failed = GT_ERR_NOMEM;
	size_t csize = ZSTD_compress2(w->cctx, w->out + GT_CHUNK_HEADER_BYTES, bound, w->raw, pos);
	if (ZSTD_isError(csize))
		return w->failed = GT_ERR_NOMEM;
	uint8_t *h = w->out;
	gt_st32(h, GT_CHUNK_MAGIC);
	gt_st32(h + 4, 0);
	gt_st32(h + 8, (uint32_t)csize);
	gt_st32(h + 12, (uint32_t)pos);
	gt_st32(h + 16, nrec);
	gt_st32(h + 20, blocks);
	gt_st32(h + 24, (uint32_t)w->chunks);
	gt_st32(h + 28, gt_header_check(h, 28));
	int rc = write_full(w->fd, w->out, GT_CHUNK_HEADER_BYTES + csize);
	if (rc)
		return w->failed = rc;
	w->bytes += GT_CHUNK_HEADER_BYTES + csize;
	w->chunks++;
	for (int t = 0; t < VAR_TYPES; t++)
		w->var[t].len = w->var[t].count = 0;
	for (int t = 0; t <= GT_REC_TYPE_MAX - GT_REC_FIRST_FIXED; t++)
		w->fixed[t].len = w->fixed[t].count = 0;
	w->buffered = 0;
	return 0;
}

static void writer_free(struct gt_writer *w)
{
	for (int t = 0; t < VAR_TYPES; t++)
		free(w->var[t].data);
	for (int t = 0; t <= GT_REC_TYPE_MAX - GT_REC_FIRST_FIXED; t++)
		free(w->fixed[t].data);
	free(w->raw);
	free(w->out);
	gt_strtab_release(&w->strings);
	ZSTD_freeCCtx(w->cctx);
	free(w);
}

int gt_writer_close(struct gt_writer *w)
{
	if (!w)
		return 0;
	int rc = gt_writer_flush(w);
	if (!rc) {
		struct gt_end e = { w->records, w->chunks, realtime_ns() };
		rc = add_var2(w, GT_REC_END, &e, sizeof e, NULL, 0);
		if (!rc)
			rc = gt_writer_flush(w);
	}
	if (w->fd >= 0 && close(w->fd) != 0 && !rc)
		rc = GT_ERR_IO;
	writer_free(w);
	return rc;
}

void gt_writer_abandon(struct gt_writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	writer_free(w);
}

uint64_t gt_writer_bytes(const struct gt_writer *w) { return w ? w->bytes : 0; }
uint64_t gt_writer_records(const struct gt_writer *w) { return w ? w->records : 0; }
