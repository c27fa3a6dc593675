/* test_shadow_synth.h: synthetic captured launches for the shadow tests, written through the trace
 * library's writer API exactly as the recorder writes real ones: each pointer parameter's allocation
 * as two BLOB records (kind GT_BLOB_BUFFER, "before" and "after"), then the CAPTURE record
 * (gt_capture_encode + gt_writer_add_var) naming them. Header-only (static functions), shared by
 * test_shadow.c and test_shadow_refs.c. Every trace says META trace.synthetic, so a report made
 * from it says it was not recorded on a GPU.
 */
#ifndef TEST_SHADOW_SYNTH_H
#define TEST_SHADOW_SYNTH_H

#include "traces/gputrace.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct synth_param {
	uint32_t kind;           /* GT_PARAM_SCALAR or GT_PARAM_POINTER */
	uint32_t status;         /* GT_PARAM_OK unless a test says otherwise */
	uint32_t size;           /* bytes in the parameter buffer: 4 or 8 */
	uint64_t value;          /* scalar bits (little-endian), or the pointer's device address */
	uint64_t alloc_base, alloc_bytes;
	const void *before, *after; /* pointer: alloc_bytes each; NULL: no blob written (id 0) */
	int before_blob_missing;  /* name a blob id that the trace does not hold */
	uint64_t reuse_before, reuse_after; /* non-zero: name this existing blob instead of writing one */
	uint64_t *ids;           /* where to store the before and after blob ids (NULL: nowhere) */
};

static inline struct synth_param synth_i32(int32_t v)
{
	struct synth_param p = { .kind = GT_PARAM_SCALAR, .size = 4 };
	uint32_t u;
	memcpy(&u, &v, 4);
	p.value = u;
	return p;
}

static inline struct synth_param synth_f32(float v)
{
	struct synth_param p = { .kind = GT_PARAM_SCALAR, .size = 4 };
	uint32_t u;
	memcpy(&u, &v, 4);
	p.value = u;
	return p;
}

/* A pointer offset bytes into an allocation at base. */
static inline struct synth_param synth_ptr(uint64_t base, uint64_t offset, uint64_t bytes, const void *before,
                                           const void *after)
{
	struct synth_param p = { .kind = GT_PARAM_POINTER, .size = 8, .value = base + offset,
		                 .alloc_base = base, .alloc_bytes = bytes, .before = before, .after = after };
	return p;
}

struct synth_launch {
	const char *kernel;      /* mangled */
	uint64_t capture_id;
	uint32_t launch_index;
	uint32_t grid[3], block[3];
	uint32_t dynamic_smem;
	uint32_t flags;
};

/* Opens path for a synthetic trace; NULL on failure. chunk_bytes 0: the writer's default. */
static inline struct gt_writer *synth_open(const char *path, const char *what, size_t chunk_bytes)
{
	struct gt_writer *w;
	struct gt_writer_options opt = { .chunk_bytes = chunk_bytes };
	if (gt_writer_open(&w, path, 0, &opt) != 0)
		return NULL;
	if (gt_writer_meta(w, "trace.synthetic", what) != 0) {
		gt_writer_abandon(w);
		return NULL;
	}
	return w;
}

/* Writes one captured launch; 0 or a negative GT_ERR_*. */
static inline int synth_capture(struct gt_writer *w, const struct synth_launch *l, const struct synth_param *p,
                                uint32_t np)
{
	struct gt_capture c;
	memset(&c, 0, sizeof c);
	c.capture_id = l->capture_id;
	c.name_id = gt_writer_intern(w, l->kernel);
	if (!c.name_id)
		return GT_ERR_NOMEM;
	c.correlation_id = (uint32_t)l->capture_id;
	memcpy(c.grid, l->grid, sizeof c.grid);
	memcpy(c.block, l->block, sizeof c.block);
	c.dynamic_smem = l->dynamic_smem;
	c.nparams = np;
	c.flags = l->flags | GT_CAPTURE_STREAM_SYNCED | GT_CAPTURE_LAYOUT_NVINFO;
	c.launch_index = l->launch_index;
	struct gt_capture_param *cp = calloc(np ? np : 1, sizeof *cp);
	uint8_t *bytes = calloc(np ? np : 1, 8);
	if (!cp || !bytes) {
		free(cp);
		free(bytes);
		return GT_ERR_NOMEM;
	}
	uint32_t off = 0;
	for (uint32_t i = 0; i < np; i++) {
		off = (off + p[i].size - 1) / p[i].size * p[i].size; /* natural alignment, as the ABI lays out */
		cp[i].offset = off;
		cp[i].size = p[i].size;
		cp[i].kind = p[i].kind;
		cp[i].status = p[i].status;
		memcpy(bytes + off, &p[i].value, p[i].size);
		off += p[i].size;
		if (p[i].kind != GT_PARAM_POINTER)
			continue;
		cp[i].alloc_base = p[i].alloc_base;
		cp[i].alloc_bytes = p[i].alloc_bytes;
		if (p[i].reuse_before)
			cp[i].before_blob = p[i].reuse_before;
		if (p[i].reuse_after)
			cp[i].after_blob = p[i].reuse_after;
		if (p[i].before && !p[i].reuse_before) {
			int64_t id = gt_writer_blob(w, GT_BLOB_BUFFER, p[i].before, p[i].alloc_bytes);
			if (id < 0) {
				free(cp);
				free(bytes);
				return (int)id;
			}
			cp[i].before_blob = p[i].before_blob_missing ? 999999 : (uint64_t)id;
		}
		if (p[i].after && !p[i].reuse_after) {
			int64_t id = gt_writer_blob(w, GT_BLOB_BUFFER, p[i].after, p[i].alloc_bytes);
			if (id < 0) {
				free(cp);
				free(bytes);
				return (int)id;
			}
			cp[i].after_blob = (uint64_t)id;
		}
		if (p[i].ids) {
			p[i].ids[0] = cp[i].before_blob;
			p[i].ids[1] = cp[i].after_blob;
		}
	}
	c.param_bytes = off;
	uint8_t *rec;
	size_t len;
	int rc = gt_capture_encode(&c, cp, bytes, &rec, &len);
	free(cp);
	free(bytes);
	if (rc)
		return rc;
	rc = gt_writer_add_var(w, GT_REC_CAPTURE, rec, len);
	free(rec);
	return rc;
}

#endif
