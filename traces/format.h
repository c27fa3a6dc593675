/* format.h: the on-disk layout shared by the writer and the reader (internal to traces/).
 *
 * gputrace-format(5) is the specification; this header is its transcription into constants and small
 * helpers. A file is a 32-byte file header followed by chunks; each chunk is a 32-byte chunk header and
 * one zstd frame (content size and checksum on) whose content is a sequence of blocks; a block holds
 * records of one type, either variable (u32 length + bytes each) or fixed (delta-encoded, then
 * byte-transposed so that zstd sees long runs of equal bytes).
 */
#ifndef GT_FORMAT_H
#define GT_FORMAT_H

#include "traces/gputrace.h"
#include "traces/schema.h"

#include <stdint.h>
#include <string.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "gputrace's trace library reads and writes records in host order and needs a little-endian host"
#endif

#define GT_FILE_MAGIC "GPUTRACE"
#define GT_FILE_HEADER_BYTES 32u
#define GT_CHUNK_MAGIC 0x4b435447u /* "GTCK" little-endian */
#define GT_CHUNK_HEADER_BYTES 32u
#define GT_BLOCK_HEADER_BYTES 16u

/* Limits a reader enforces before it allocates anything: the cost contract of gputrace-format(5)
 * ("LIMITS"). Each bounds what one hostile trace can make every reader of it hold, whatever its
 * compressed size: a 64 MiB chunk of one repeated byte compresses to a few KiB, so sizes on disk
 * bound nothing. */
#define GT_MAX_CHUNK_RAW (64u << 20)     /* raw (decompressed) bytes in one chunk */
#define GT_MAX_RECORD_SIZE 4096u         /* bytes of one fixed record */
#define GT_MAX_VAR_RECORD (48u << 20)    /* bytes of one variable record */
#define GT_MAX_STRING_LEN (1u << 20)     /* bytes of one string */
#define GT_MAX_STRING_BYTES (128u << 20) /* all strings of a trace together */
#define GT_MAX_STRINGS (1u << 20)        /* distinct strings (names) of a trace */
#define GT_MAX_META 65536u
#define GT_MAX_META_BYTES (16u << 20)    /* keys and values of all META records together */
#define GT_MAX_DEVICES 4096u
#define GT_MAX_DEVICE_NAME 1024u         /* bytes of one device's name */
#define GT_MAX_BLOB_BYTES (1ull << 30)   /* total_bytes of one blob */
#define GT_MAX_BLOBS_TOTAL (2ull << 30)  /* piece bytes of all BLOB records of a trace together */
#define GT_MAX_CAPTURE_BYTES (1ull << 30) /* one capture's allocations (each once), times 2 */
#define GT_BLOB_PIECE_BYTES (8u << 20)   /* the writer's blob piece size */
#define GT_MAX_CAPTURE_PARAMS 4096u      /* parameters of one CAPTURE record */

enum gt_block_encoding { GT_ENC_VAR = 0, GT_ENC_FIXED = 1 };

/* How a fixed record's fields are delta-encoded before transposition: the schema's gt_field.codec
 * gathered into offset lists (bytes), for the codec's per-record loops. */
#define GT_MAX_CODED_FIELDS 6
struct gt_fixed_desc {
	const struct gt_record_schema *schema; /* where this comes from */
	uint16_t size;                        /* sizeof the struct */
	uint8_t n_rel;                        /* u64 timestamps stored relative to the base (field 0) */
	uint8_t n_delta32;                    /* u32 fields stored as the difference to the previous record */
	uint16_t rel[GT_MAX_CODED_FIELDS];
	uint16_t delta32[GT_MAX_CODED_FIELDS];
};
const struct gt_fixed_desc *gt_fixed_desc(int type); /* NULL for types that are not fixed/known */

/* The bytes a capture's buffers take: each captured allocation once, before and after the launch
 * (compared with GT_MAX_CAPTURE_BYTES). 0, or GT_ERR_NOMEM. */
int gt_capture_bytes(const struct gt_capture *c, const uint8_t *params_raw, uint64_t *bytes);

/* Little-endian loads and stores at any alignment. */
static inline uint16_t gt_ld16(const void *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static inline uint32_t gt_ld32(const void *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t gt_ld64(const void *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline void gt_st16(void *p, uint16_t v) { memcpy(p, &v, 2); }
static inline void gt_st32(void *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void gt_st64(void *p, uint64_t v) { memcpy(p, &v, 8); }

static inline uint64_t gt_zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t gt_unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

/* FNV-1a over a chunk header's first 28 bytes: catches a corrupt size before it is trusted. */
uint32_t gt_header_check(const uint8_t *p, size_t n);

/* Encode n records of desc's type in place (deltas), then transpose them into out (n * size bytes). */
void gt_encode_fixed(const struct gt_fixed_desc *d, uint8_t *recs, uint32_t n, uint32_t size,
                     uint8_t *out);
/* The inverse: un-transpose in (n * size bytes) into out, then undo the deltas. */
void gt_decode_fixed(const struct gt_fixed_desc *d, const uint8_t *in, uint32_t n, uint32_t size,
                     uint8_t *out);

#endif
