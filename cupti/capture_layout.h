/* capture_layout.h: a kernel's parameter layout for capture, and the launch's parameter bytes.
 *
 * Two sources: the cubin's .nv.info section (nvinfo.h) and the driver (cuKernelGetParamInfo for a
 * CUkernel, cuFuncGetParamInfo for a CUfunction). When both answer they are compared; on a
 * disagreement the driver's layout is used and the capture says so (GT_CAPTURE_LAYOUT_MISMATCH).
 * With the layout, the launch's parameter buffer is rebuilt from what the program passed:
 * kernelParams (one pointer per parameter) or extra (CU_LAUNCH_PARAM_BUFFER_POINTER, sliced with
 * the same offsets).
 */
#ifndef GT_CUPTI_CAPTURE_LAYOUT_H
#define GT_CUPTI_CAPTURE_LAYOUT_H

#include "cupti/nvinfo.h"

#include <stdint.h>

struct capture_layout {
	struct nvinfo_layout l;  /* the layout used */
	uint32_t flags;          /* GT_CAPTURE_LAYOUT_NVINFO / _DRIVER / _MISMATCH */
};

/* Chooses the layout from the two sources (either may be NULL: not available). 0 with *out filled
 * (its params are a copy: free with capture_layout_free), -1 when neither source answered,
 * NVINFO_ERR_NOMEM. Both agree: flags NVINFO|DRIVER. They disagree: DRIVER|MISMATCH, the driver's
 * layout. One source: that source's flag. */
int capture_layout_choose(const struct nvinfo_layout *nv, const struct nvinfo_layout *drv,
                          struct capture_layout *out);
void capture_layout_free(struct capture_layout *l);

/* Asks the driver: handle is a CUkernel when is_kernel, else a CUfunction. 0 with *out filled,
 * -1 when the driver has no such call or refused the handle, NVINFO_ERR_NOMEM. */
int capture_layout_from_driver(void *handle, int is_kernel, struct nvinfo_layout *out);

/* Writes the launch's parameter buffer (l->param_bytes bytes, zero where there is padding) into
 * out. kernel_params (cuLaunchKernel's kernelParams) wins when not NULL; else extra is searched for
 * CU_LAUNCH_PARAM_BUFFER_POINTER and _SIZE. Returns 0 when every parameter was filled, 1 when some
 * were not (extra's buffer shorter than the layout: those bytes stay 0), -1 when neither source
 * was given although the kernel has parameters. */
int capture_layout_pack(const struct nvinfo_layout *l, void *const *kernel_params, void *const *extra,
                        uint8_t *out);

#endif
