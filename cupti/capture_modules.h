/* capture_modules.h: the cubins of loaded modules that hold a selected kernel.
 *
 * CUPTI's MODULE_LOADED callback hands over the module's cubin, valid only during the callback. A
 * copy is kept when at least one of its kernels (one ".nv.info.<name>" section per kernel) is
 * selected by the pattern; identical images (the same module loaded in several contexts, or again)
 * are kept once. No public API maps a launched CUkernel to its module, so a kernel's module is the
 * newest kept image that has the kernel's .nv.info section and whose launch bounds admit the
 * launch's block (Triton loads variants of one name that differ in num_warps). The image is written to the trace once,
 * as a GT_BLOB_CUBIN blob, when the first capture of one of its kernels is written.
 *
 * Images are never freed while recording (captures point at them). The store is thread-safe.
 */
#ifndef GT_CUPTI_CAPTURE_MODULES_H
#define GT_CUPTI_CAPTURE_MODULES_H

#include <stddef.h>
#include <stdint.h>

struct capture_module {
	uint32_t module_id;      /* CUPTI's id of the first load of this image */
	uint32_t loads;          /* loads of this image seen */
	size_t size;
	uint8_t *image;
	uint64_t hash;
	uint64_t blob_id;        /* writer thread only: 0 until written */
	struct capture_module *next;
};

/* keep(ctx, mangled) says whether a kernel is selected. Copies the image when one of its kernels is
 * selected; returns 1 kept (or already kept), 0 not kept (nothing selected, not an ELF image),
 * -1 out of memory. */
int capture_modules_add(const void *image, size_t size, uint32_t module_id,
                        int (*keep)(void *ctx, const char *mangled), void *ctx);
/* The kept image that holds this kernel as launched, or NULL. Among images with a .nv.info
 * section for the name, the newest whose launch bounds admit block (nvinfo_block_fits; NULL block:
 * any), else the newest. *holding (when not NULL) is how many kept images have the section: more
 * than one means the choice was a guess (a JIT compiler's variants of one kernel name). */
struct capture_module *capture_modules_find(const char *mangled, const uint32_t *block, uint32_t *holding);
/* Counters for the trace's metadata. */
void capture_modules_stats(uint64_t *kept, uint64_t *kept_bytes, uint64_t *seen);
/* Frees every image (tests, and capture_setup starting over). Not while captures are in flight. */
void capture_modules_reset(void);
/* In a forked child: the lock may have been held by a thread that does not exist there. */
void capture_modules_after_fork_child(void);

#endif
