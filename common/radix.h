/* common/radix.h: the one radix sort of the tool, stable, by an unsigned integer key.
 *
 * Two kinds of array are sorted without comparisons: the statistics' samples (stats.c: uint32_t or
 * uint64_t durations, millions per kernel) and the analyzer's records (analyze/blocks/timeline.c:
 * 16 to 40 bytes, each beginning with its uint64_t time). Both are "records of size bytes, sorted
 * by their leading key": a bare uint32_t array is records of 4 bytes keyed by themselves, anything
 * of 8 bytes or more (a multiple of 8) begins with a uint64_t key. One LSD radix sort serves both:
 * it sorts the key minus its minimum, over the bits that vary, in as few passes of at most 11-bit
 * digits as those bits need (a duration spread over 20 bits: two passes; a 10 s trace: four), all
 * digits counted in one read, and skips a pass whose digit is the same in every record. It moves
 * whole records, stably: equal keys keep their order, which the engines rely on.
 */
#ifndef GT_COMMON_RADIX_H
#define GT_COMMON_RADIX_H

#include <stddef.h>

/* Sorts n records of size bytes (4: uint32_t keys; else a multiple of 8 beginning with a uint64_t
 * key) ascending by key, stably. An array already in order costs one read. 0, or -1 when out of
 * memory for the scratch copy (n * size bytes) or size is not one of those: the array is then
 * unchanged. */
int gt_radix_sort(void *base, size_t n, size_t size);

#endif
