/* radix.c: the stable LSD radix sort of radix.h. */
#include "common/radix.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DIGIT_BITS 11
#define MAX_DIGITS (1u << MAX_DIGIT_BITS)

static inline uint64_t key_at(const char *base, size_t i, size_t size)
{
	if (size == 4) {
		uint32_t k;
		memcpy(&k, base + i * 4, sizeof k);
		return k;
	}
	uint64_t k;
	memcpy(&k, base + i * size, sizeof k);
	return k;
}

/* One scatter pass, with the record size a compile-time constant where it is a common one so that
 * the key load and the copy are a few moves rather than calls. */
#define SCATTER(SZ)                                                                                \
	for (size_t i = 0; i < n; i++) {                                                           \
		const char *r = src + i * (SZ);                                                    \
		size_t d = (size_t)(((key_at(src, i, (SZ)) - min) >> shift) & mask);               \
		memcpy(dst + pos[d]++ * (SZ), r, (SZ));                                            \
	}

static void scatter(const char *src, char *dst, size_t n, size_t size, uint64_t min, int shift,
                    uint64_t mask, size_t *pos)
{
	switch (size) {
	case 4: SCATTER(4) break;
	case 8: SCATTER(8) break;
	case 16: SCATTER(16) break;
	case 24: SCATTER(24) break;
	case 32: SCATTER(32) break;
	case 40: SCATTER(40) break;
	default: SCATTER(size) break;
	}
}

/* Counts every pass's digits in one read of the records. */
static void count_digits(const char *b, size_t n, size_t size, uint64_t min, int passes, int width,
                         size_t *hist)
{
	uint64_t mask = (1ull << width) - 1;
	for (size_t i = 0; i < n; i++) {
		uint64_t k = key_at(b, i, size) - min;
		for (int p = 0; p < passes; p++)
			hist[(size_t)p * MAX_DIGITS + ((k >> (p * width)) & mask)]++;
	}
}

int gt_radix_sort(void *base, size_t n, size_t size)
{
	if (size != 4 && (size < 8 || size % 8))
		return -1;
	if (n < 2)
		return 0;
	char *b = base;
	uint64_t min = key_at(b, 0, size), max = min, prev = min;
	int sorted = 1;
	for (size_t i = 1; i < n; i++) {
		uint64_t k = key_at(b, i, size);
		sorted &= k >= prev;
		prev = k;
		min = k < min ? k : min;
		max = k > max ? k : max;
	}
	if (sorted)
		return 0;
	int bits = 64 - __builtin_clzll(max - min); /* max > min: the array is not sorted */
	int passes = (bits + MAX_DIGIT_BITS - 1) / MAX_DIGIT_BITS;
	int width = (bits + passes - 1) / passes; /* balanced: 20 bits are two passes of 10 */
	size_t *hist = calloc((size_t)passes * MAX_DIGITS, sizeof *hist);
	char *scratch = n <= SIZE_MAX / size ? malloc(n * size) : NULL;
	if (!hist || !scratch) {
		free(hist);
		free(scratch);
		return -1;
	}
	count_digits(b, n, size, min, passes, width, hist);
	uint64_t mask = (1ull << width) - 1;
	char *src = b, *dst = scratch;
	size_t pos[MAX_DIGITS];
	for (int p = 0; p < passes; p++) {
		const size_t *h = hist + (size_t)p * MAX_DIGITS;
		int trivial = 0;
		size_t sum = 0;
		for (size_t d = 0; d <= mask; d++) {
			trivial |= h[d] == n; /* every record has this digit: the pass would change nothing */
			pos[d] = sum;
			sum += h[d];
		}
		if (trivial)
			continue;
		scatter(src, dst, n, size, min, p * width, mask, pos);
		char *t = src;
		src = dst;
		dst = t;
	}
	if (src != b)
		memcpy(b, src, n * size);
	free(hist);
	free(scratch);
	return 0;
}
