/* growbuf.h: growable memory for millions of samples, backed by huge pages once it is large.
 *
 * The analyzer keeps one duration per launch; for a trace of 10 M launches that is 40 MB written
 * once, and on a virtual machine the page faults of that first touch cost more than the stores
 * (measured here: 0.21 s for 40 MB in 4 KiB pages, 0.01 s in 2 MiB pages). Below 64 KiB a buffer is
 * ordinary heap memory; beyond, it is its own mapping, advised MADV_HUGEPAGE and grown with mremap,
 * so growth neither copies nor faults page by page. Where huge pages are off, it still works.
 */
#ifndef GT_GROWBUF_H
#define GT_GROWBUF_H

#include <stddef.h>

struct gt_growbuf {
	void *p;
	size_t cap;    /* bytes */
	int mapped;    /* p is a mapping (munmap), not heap memory (free) */
};

/* Makes room for at least bytes (capacity doubles); contents are kept. 0 or GT_ERR_NOMEM (the
 * buffer is unchanged). */
int gt_growbuf_reserve(struct gt_growbuf *b, size_t bytes);
void gt_growbuf_release(struct gt_growbuf *b);

#endif
