/* nvinfo.h: a kernel's parameter layout, read out of a cubin without libelf.
 *
 * A cubin (what CUPTI's MODULE_LOADED hands over) is a plain ELF64 little-endian image. For every
 * kernel it holds a section ".nv.info.<mangled name>": a list of attribute records that NVIDIA does
 * not document but that public reverse-engineering code and `cuobjdump -elf` agree on. Each record
 * starts with `u8 format, u8 attribute`; formats 1-3 are 4 bytes in all, format 4 is followed by a
 * `u16 length` and that many bytes. The parameter records are
 *   KPARAM_INFO    (0x17, 12 bytes): u32 index, u16 ordinal, u16 offset, u32 w (size = w >> 18)
 *   KPARAM_INFO_V2 (0x45, 12 bytes): u32 index, u16 ordinal, u16 offset, u16 size, u16 flags
 * usually in descending ordinal order, and CBANK_PARAM_SIZE (0x19, format 3) holds the total.
 * There is no type information: a pointer, a u64 and a double all read as "8 bytes".
 *
 * Pure C on byte buffers: everything here is checked against the buffer's length, so a truncated or
 * hostile image gives an error, never a read out of bounds. Unit-tested on hand-made sections and on
 * sections cut out of nvcc 13.0 cubins.
 */
#ifndef GT_CUPTI_NVINFO_H
#define GT_CUPTI_NVINFO_H

#include <stddef.h>
#include <stdint.h>

#define NVINFO_MAX_PARAMS 4096u /* the trace format's limit per capture */

enum nvinfo_err {
	NVINFO_ERR_FORMAT = -1, /* not an ELF64 LE image, or a record/section that does not parse */
	NVINFO_ERR_NOMEM = -2,
};

/* Attribute ids used here (EIATTR_* in NVIDIA's tools). */
#define NVINFO_ATTR_PARAM_CBANK 0x0a
#define NVINFO_ATTR_KPARAM_INFO 0x17
#define NVINFO_ATTR_CBANK_PARAM_SIZE 0x19
#define NVINFO_ATTR_KPARAM_INFO_V2 0x45
#define NVINFO_ATTR_MAX_THREADS 0x05 /* .maxntid / __launch_bounds__: u32 x, y, z */
#define NVINFO_ATTR_REQNTID 0x10     /* .reqntid: u32 x, y, z, the only block shape allowed */

struct nvinfo_param {
	uint32_t offset; /* in the parameter buffer */
	uint32_t size;   /* bytes */
};

/* A kernel's parameters in ordinal order (the order of the C declaration). */
struct nvinfo_layout {
	uint32_t nparams;
	uint32_t param_bytes;      /* end of the last parameter: max(offset + size) */
	uint32_t cbank_param_size; /* CBANK_PARAM_SIZE when the section had it, else 0 */
	struct nvinfo_param *params; /* malloc'ed, nparams entries (NULL when 0) */
};

/* 1 when the bytes start like an ELF64 little-endian image, else 0. */
int nvinfo_is_elf64(const void *image, size_t len);

/* Finds the section ".nv.info.<name>" (name_len bytes of name). 1 = found (*sec, *sec_len point
 * into image), 0 = no such section, NVINFO_ERR_FORMAT = the section table does not parse. */
int nvinfo_find_section(const void *image, size_t len, const char *name, size_t name_len,
                        const uint8_t **sec, size_t *sec_len);

/* Calls fn(ctx, name, name_len) for every ".nv.info.<name>" section, that is for every kernel of
 * the image, until fn returns non-zero (that value is returned). 0 when all were visited,
 * NVINFO_ERR_FORMAT when the section table does not parse. */
int nvinfo_for_each_kernel(const void *image, size_t len,
                           int (*fn)(void *ctx, const char *name, size_t name_len), void *ctx);

/* Parses the bytes of one .nv.info.<name> section. 0 with *out filled (free with nvinfo_free), or
 * NVINFO_ERR_*. A section without parameter records is a kernel without parameters (nparams 0).
 * Rejected: unknown record formats, records past the end, parameter records shorter than 12
 * bytes, ordinals missing or repeated, parameters that overlap or have size 0. */
int nvinfo_parse(const uint8_t *sec, size_t len, struct nvinfo_layout *out);

/* What a replay must know about a whole image before loading it. */
struct nvinfo_image {
	uint32_t sm;            /* the SASS it holds, as 10 * major + minor (90: sm_90); 0 if unknown */
	uint32_t state_sections;/* .nv.global, .nv.global.init and .nv.constant3 sections found */
	uint64_t state_bytes;   /* their sizes summed: __device__ and __constant__ variables */
};

/* Reads the ELF header's flags (CUDA's ABI 8 keeps the SM in bits 8-15, older ABIs in bits 0-7) and
 * the sections that hold module state. 0, or NVINFO_ERR_FORMAT. */
int nvinfo_image_facts(const void *image, size_t len, struct nvinfo_image *out);

/* Whether a launch with this block shape can run the kernel whose .nv.info section this is: with
 * REQNTID the block must be exactly that shape, with MAX_THREADS it may have at most that many
 * threads (checked against an nvcc 13.0 cubin's records and ptxas's .reqntid / .maxntid). JIT
 * compilers (Triton, through torch.compile) load several variants of one kernel name that differ
 * in these bounds, so this tells the variant that was launched from the others. 1 fits (or the
 * section states no bound), 0 does not, NVINFO_ERR_FORMAT when a record does not parse. */
int nvinfo_block_fits(const uint8_t *sec, size_t len, const uint32_t block[3]);

/* Same layout (count, offsets, sizes)? 1 yes, 0 no. */
int nvinfo_layout_equal(const struct nvinfo_layout *a, const struct nvinfo_layout *b);

void nvinfo_free(struct nvinfo_layout *l);

#endif
