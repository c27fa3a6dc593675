/* nvinfo.c: finds a kernel's .nv.info section in a cubin and reads its parameter layout (nvinfo.h).
 *
 * The ELF64 section table is walked by hand (the preload must not depend on libelf). Every offset
 * read from the image is checked against the image's length before use, with the arithmetic done
 * in 64 bits so that a huge offset cannot wrap around.
 */
#include "cupti/nvinfo.h"

#include <stdlib.h>
#include <string.h>

static uint16_t ld16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static uint32_t ld32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static uint64_t ld64(const uint8_t *p) { return (uint64_t)ld32(p) | ((uint64_t)ld32(p + 4) << 32); }

#define EHDR_BYTES 64u
#define SHDR_MIN_BYTES 64u
#define SHN_XINDEX 0xffffu
#define SHT_NOBITS 8u

static const char NVINFO_PREFIX[] = ".nv.info.";
#define NVINFO_PREFIX_LEN (sizeof NVINFO_PREFIX - 1)

struct elf_view {
	const uint8_t *b;
	size_t len;
	uint64_t shoff;
	uint64_t shnum;
	uint64_t shentsize;
	const uint8_t *names;   /* the section-name string table */
	uint64_t names_len;
};

int nvinfo_is_elf64(const void *image, size_t len)
{
	const uint8_t *b = image;
	return image && len >= EHDR_BYTES && b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F' &&
	       b[4] == 2 /* ELFCLASS64 */ && b[5] == 1 /* ELFDATA2LSB */;
}

/* Bytes [off, off + n) lie inside the image. */
static int in_image(const struct elf_view *v, uint64_t off, uint64_t n)
{
	return off <= v->len && n <= v->len - off;
}

static const uint8_t *shdr(const struct elf_view *v, uint64_t i)
{
	return v->b + v->shoff + i * v->shentsize;
}

static int elf_open(struct elf_view *v, const void *image, size_t len)
{
	memset(v, 0, sizeof *v);
	if (!nvinfo_is_elf64(image, len))
		return NVINFO_ERR_FORMAT;
	v->b = image;
	v->len = len;
	v->shoff = ld64(v->b + 0x28);
	v->shentsize = ld16(v->b + 0x3a);
	v->shnum = ld16(v->b + 0x3c);
	uint64_t strndx = ld16(v->b + 0x3e);
	if (v->shoff == 0)
		return NVINFO_ERR_FORMAT; /* no section table at all */
	if (v->shentsize < SHDR_MIN_BYTES || !in_image(v, v->shoff, SHDR_MIN_BYTES))
		return NVINFO_ERR_FORMAT;
	/* More than 0xff00 sections: the real count and string-table index live in section 0. */
	if (v->shnum == 0)
		v->shnum = ld64(shdr(v, 0) + 32);
	if (strndx == SHN_XINDEX)
		strndx = ld32(shdr(v, 0) + 40);
	if (v->shnum == 0 || v->shnum > (v->len - v->shoff) / v->shentsize)
		return NVINFO_ERR_FORMAT;
	if (strndx >= v->shnum)
		return NVINFO_ERR_FORMAT;
	const uint8_t *s = shdr(v, strndx);
	uint64_t off = ld64(s + 24), size = ld64(s + 32);
	if (ld32(s + 4) == SHT_NOBITS || !in_image(v, off, size))
		return NVINFO_ERR_FORMAT;
	v->names = v->b + off;
	v->names_len = size;
	return 0;
}

/* The name of section i, and its length; NULL when the name offset is out of the table or the
 * name is not terminated inside it. */
static const char *section_name(const struct elf_view *v, uint64_t i, size_t *nlen)
{
	uint64_t at = ld32(shdr(v, i));
	if (at >= v->names_len)
		return NULL;
	const uint8_t *z = memchr(v->names + at, 0, (size_t)(v->names_len - at));
	if (!z)
		return NULL;
	*nlen = (size_t)(z - (v->names + at));
	return (const char *)(v->names + at);
}

int nvinfo_find_section(const void *image, size_t len, const char *name, size_t name_len,
                        const uint8_t **sec, size_t *sec_len)
{
	struct elf_view v;
	if (!name || elf_open(&v, image, len) != 0)
		return NVINFO_ERR_FORMAT;
	for (uint64_t i = 1; i < v.shnum; i++) {
		size_t nl;
		const char *n = section_name(&v, i, &nl);
		if (!n || nl != NVINFO_PREFIX_LEN + name_len || memcmp(n, NVINFO_PREFIX, NVINFO_PREFIX_LEN) ||
		    memcmp(n + NVINFO_PREFIX_LEN, name, name_len))
			continue;
		const uint8_t *s = shdr(&v, i);
		uint64_t off = ld64(s + 24), size = ld64(s + 32);
		if (ld32(s + 4) == SHT_NOBITS || !in_image(&v, off, size))
			return NVINFO_ERR_FORMAT;
		*sec = v.b + off;
		*sec_len = (size_t)size;
		return 1;
	}
	return 0;
}

int nvinfo_image_facts(const void *image, size_t len, struct nvinfo_image *out)
{
	struct elf_view v;
	memset(out, 0, sizeof *out);
	if (elf_open(&v, image, len) != 0)
		return NVINFO_ERR_FORMAT;
	uint32_t flags = ld32(v.b + 0x30);
	uint32_t abi = v.b[8];
	uint32_t sm = abi >= 8 ? (flags >> 8) & 0xffu : flags & 0xffu;
	out->sm = sm >= 10 ? sm : 0;
	static const char *const state[] = { ".nv.global", ".nv.global.init", ".nv.constant3" };
	for (uint64_t i = 1; i < v.shnum; i++) {
		size_t nl;
		const char *n = section_name(&v, i, &nl);
		for (size_t k = 0; n && k < sizeof state / sizeof state[0]; k++) {
			if (nl == strlen(state[k]) && memcmp(n, state[k], nl) == 0) {
				uint64_t sz = ld64(shdr(&v, i) + 32);
				out->state_sections++;
				out->state_bytes = sz > UINT64_MAX - out->state_bytes ? UINT64_MAX : out->state_bytes + sz;
			}
		}
	}
	return 0;
}

int nvinfo_for_each_kernel(const void *image, size_t len,
                           int (*fn)(void *ctx, const char *name, size_t name_len), void *ctx)
{
	struct elf_view v;
	if (elf_open(&v, image, len) != 0)
		return NVINFO_ERR_FORMAT;
	for (uint64_t i = 1; i < v.shnum; i++) {
		size_t nl;
		const char *n = section_name(&v, i, &nl);
		if (!n || nl <= NVINFO_PREFIX_LEN || memcmp(n, NVINFO_PREFIX, NVINFO_PREFIX_LEN))
			continue;
		int r = fn(ctx, n + NVINFO_PREFIX_LEN, nl - NVINFO_PREFIX_LEN);
		if (r)
			return r;
	}
	return 0;
}

/* A walk over a section's attribute records, one at a time. */
struct records {
	const uint8_t *sec;
	size_t len, at;        /* the section, and where the next record starts */
	uint8_t fmt, attr;     /* the current record's format and attribute */
	const uint8_t *val;    /* its value's bytes */
	size_t vl;
};

/* Moves to the next record: 1, 0 past the last one, or NVINFO_ERR_FORMAT for an unknown format or
 * a record past the end. */
static int next_record(struct records *w)
{
	if (w->at >= w->len)
		return 0;
	const uint8_t *p = w->sec + w->at;
	size_t n = w->len - w->at;
	if (n < 4)
		return NVINFO_ERR_FORMAT;
	w->fmt = p[0];
	w->attr = p[1];
	switch (w->fmt) {
	case 1: /* EIFMT_NVAL: no value */
	case 2: /* EIFMT_BVAL: one byte */
	case 3: /* EIFMT_HVAL: one u16 */
		w->val = p + 2;
		w->vl = 2;
		w->at += 4;
		return 1;
	case 4: { /* EIFMT_SVAL: u16 length, then the bytes */
		size_t l = ld16(p + 2);
		if (l > n - 4)
			return NVINFO_ERR_FORMAT;
		w->val = p + 4;
		w->vl = l;
		w->at += 4 + l;
		return 1;
	}
	default:
		return NVINFO_ERR_FORMAT;
	}
}

/* a * b, saturating at UINT64_MAX. */
static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	return a && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}

int nvinfo_block_fits(const uint8_t *sec, size_t len, const uint32_t block[3])
{
	uint64_t threads = mul_sat(mul_sat(block[0], block[1]), block[2]);
	int fits = 1, more;
	struct records w = { .sec = sec, .len = len };
	while ((more = next_record(&w)) > 0) {
		if ((w.attr == NVINFO_ATTR_REQNTID || w.attr == NVINFO_ATTR_MAX_THREADS) && w.fmt == 4 && w.vl >= 12) {
			uint32_t x = ld32(w.val), y = ld32(w.val + 4), z = ld32(w.val + 8);
			if (w.attr == NVINFO_ATTR_REQNTID && (x != block[0] || y != block[1] || z != block[2]))
				fits = 0;
			if (w.attr == NVINFO_ATTR_MAX_THREADS && threads > mul_sat(mul_sat(x, y), z))
				fits = 0;
		}
	}
	return more < 0 ? NVINFO_ERR_FORMAT : fits;
}

int nvinfo_parse(const uint8_t *sec, size_t len, struct nvinfo_layout *out)
{
	memset(out, 0, sizeof *out);
	if (!sec && len)
		return NVINFO_ERR_FORMAT;
	/* First pass: check every record and count the parameter records. */
	uint32_t count = 0, cbank = 0;
	int more;
	struct records w = { .sec = sec, .len = len };
	while ((more = next_record(&w)) > 0) {
		if (w.attr == NVINFO_ATTR_KPARAM_INFO || w.attr == NVINFO_ATTR_KPARAM_INFO_V2) {
			if (w.fmt != 4 || w.vl < 12)
				return NVINFO_ERR_FORMAT;
			if (++count > NVINFO_MAX_PARAMS)
				return NVINFO_ERR_FORMAT;
		} else if (w.attr == NVINFO_ATTR_CBANK_PARAM_SIZE && w.fmt == 3) {
			cbank = ld16(w.val);
		}
	}
	if (more < 0)
		return NVINFO_ERR_FORMAT;
	out->cbank_param_size = cbank;
	if (count == 0)
		return 0;
	struct nvinfo_param *p = calloc(count, sizeof *p);
	uint8_t *seen = calloc(count, 1);
	if (!p || !seen) {
		free(p);
		free(seen);
		return NVINFO_ERR_NOMEM;
	}
	/* Second pass: place each parameter at its ordinal; every ordinal 0..count-1 exactly once. */
	int rc = 0;
	w = (struct records){ .sec = sec, .len = len };
	/* next_record cannot fail here: the first pass checked every record. */
	while (rc == 0 && next_record(&w) > 0) {
		if (w.attr == NVINFO_ATTR_KPARAM_INFO || w.attr == NVINFO_ATTR_KPARAM_INFO_V2) {
			uint32_t ord = ld16(w.val + 4), off = ld16(w.val + 6);
			uint32_t size = w.attr == NVINFO_ATTR_KPARAM_INFO ? ld32(w.val + 8) >> 18 : ld16(w.val + 8);
			if (ord >= count || seen[ord] || size == 0) {
				rc = NVINFO_ERR_FORMAT;
			} else {
				seen[ord] = 1;
				p[ord].offset = off;
				p[ord].size = size;
			}
		}
	}
	free(seen);
	if (rc) {
		free(p);
		return rc;
	}
	/* Parameters follow one another in declaration order, each at or after the previous one's
	 * end (alignment padding shows as a gap). Anything else means we misread the records. */
	uint32_t end = 0;
	for (uint32_t i = 0; i < count; i++) {
		if (i && p[i].offset < p[i - 1].offset + p[i - 1].size) {
			free(p);
			return NVINFO_ERR_FORMAT;
		}
		if (p[i].offset + p[i].size > end)
			end = p[i].offset + p[i].size;
	}
	out->nparams = count;
	out->param_bytes = end;
	out->params = p;
	return 0;
}

int nvinfo_layout_equal(const struct nvinfo_layout *a, const struct nvinfo_layout *b)
{
	if (a->nparams != b->nparams)
		return 0;
	for (uint32_t i = 0; i < a->nparams; i++)
		if (a->params[i].offset != b->params[i].offset || a->params[i].size != b->params[i].size)
			return 0;
	return 1;
}

void nvinfo_free(struct nvinfo_layout *l)
{
	if (!l)
		return;
	free(l->params);
	memset(l, 0, sizeof *l);
}
