/* capture_layout.c: choosing a kernel's parameter layout and rebuilding a launch's parameter bytes
 * (capture_layout.h). Only capture_layout_from_driver calls the driver. */
#include "cupti/capture_layout.h"
#include "traces/gputrace.h"
#include "cupti/libs.h"

#include <cuda.h>
#include <stdlib.h>
#include <string.h>

static int copy_layout(const struct nvinfo_layout *src, struct nvinfo_layout *dst)
{
	*dst = *src;
	dst->params = NULL;
	if (src->nparams) {
		dst->params = malloc((size_t)src->nparams * sizeof *dst->params);
		if (!dst->params)
			return NVINFO_ERR_NOMEM;
		memcpy(dst->params, src->params, (size_t)src->nparams * sizeof *dst->params);
	}
	return 0;
}

int capture_layout_choose(const struct nvinfo_layout *nv, const struct nvinfo_layout *drv,
                          struct capture_layout *out)
{
	memset(out, 0, sizeof *out);
	const struct nvinfo_layout *use;
	if (nv && drv) {
		if (nvinfo_layout_equal(nv, drv)) {
			out->flags = GT_CAPTURE_LAYOUT_NVINFO | GT_CAPTURE_LAYOUT_DRIVER;
		} else {
			/* The section's format is undocumented and may change between toolkits; the driver
			 * is the authority on how it lays out what it launches. */
			out->flags = GT_CAPTURE_LAYOUT_DRIVER | GT_CAPTURE_LAYOUT_MISMATCH;
		}
		use = drv;
	} else if (drv) {
		out->flags = GT_CAPTURE_LAYOUT_DRIVER;
		use = drv;
	} else if (nv) {
		out->flags = GT_CAPTURE_LAYOUT_NVINFO;
		use = nv;
	} else {
		return -1;
	}
	int rc = copy_layout(use, &out->l);
	if (rc)
		out->flags = 0;
	return rc;
}

void capture_layout_free(struct capture_layout *l)
{
	if (!l)
		return;
	nvinfo_free(&l->l);
	l->flags = 0;
}

int capture_layout_from_driver(void *handle, int is_kernel, struct nvinfo_layout *out)
{
	memset(out, 0, sizeof *out);
	if (is_kernel ? !cuda_fn.cuKernelGetParamInfo : !cuda_fn.cuFuncGetParamInfo)
		return -1;
	size_t cap = 0;
	struct nvinfo_param *p = NULL;
	uint32_t n = 0, end = 0;
	for (;;) {
		size_t off = 0, size = 0;
		CUresult r = is_kernel ? cuda_fn.cuKernelGetParamInfo((CUkernel)handle, n, &off, &size)
		                       : cuda_fn.cuFuncGetParamInfo((CUfunction)handle, n, &off, &size);
		if (r == CUDA_ERROR_INVALID_VALUE)
			break; /* past the last parameter (at 0 for a kernel without any) */
		if (r != CUDA_SUCCESS || size == 0 || off > UINT32_MAX - size || n >= NVINFO_MAX_PARAMS) {
			free(p);
			return -1; /* a CUfunction handed to the CUkernel call, or a layout we cannot hold */
		}
		if (n == cap) {
			size_t nc = cap ? 2 * cap : 16;
			struct nvinfo_param *q = realloc(p, nc * sizeof *q);
			if (!q) {
				free(p);
				return NVINFO_ERR_NOMEM;
			}
			p = q;
			cap = nc;
		}
		p[n].offset = (uint32_t)off;
		p[n].size = (uint32_t)size;
		if (off + size > end)
			end = (uint32_t)(off + size);
		n++;
	}
	out->nparams = n;
	out->param_bytes = end;
	out->params = p;
	return 0;
}

int capture_layout_pack(const struct nvinfo_layout *l, void *const *kernel_params, void *const *extra,
                        uint8_t *out)
{
	if (l->param_bytes)
		memset(out, 0, l->param_bytes);
	if (l->nparams == 0)
		return 0;
	if (kernel_params) {
		for (uint32_t i = 0; i < l->nparams; i++) {
			if (!kernel_params[i])
				return -1;
			memcpy(out + l->params[i].offset, kernel_params[i], l->params[i].size);
		}
		return 0;
	}
	if (!extra)
		return -1;
	const uint8_t *buf = NULL;
	size_t size = 0;
	int have_size = 0;
	/* Pairs of (key, value), ended by CU_LAUNCH_PARAM_END (NULL). */
	for (size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
		if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) {
			buf = extra[i + 1];
		} else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE) {
			if (extra[i + 1]) {
				size = *(const size_t *)extra[i + 1];
				have_size = 1;
			}
		} else {
			break; /* a key we do not know: its value's shape is unknown too */
		}
	}
	if (!buf || !have_size)
		return -1;
	int partial = 0;
	for (uint32_t i = 0; i < l->nparams; i++) {
		const struct nvinfo_param *q = &l->params[i];
		if ((uint64_t)q->offset + q->size > size) {
			partial = 1;
			continue;
		}
		memcpy(out + q->offset, buf + q->offset, q->size);
	}
	return partial;
}
