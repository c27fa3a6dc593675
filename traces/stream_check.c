/* stream_check.c: the checks of the file header and of a chunk header that need no more than the
 * header's own 32 bytes, for a trace that arrives as a stream (gputrace.h). They are the reader's
 * first checks of each (reader.c), so that a consumer of a pipe can stop holding a stream at the
 * first header the reader would refuse, and the reader, given what was held, refuses it with the
 * same words at the same offset.
 */
#include "traces/gputrace.h"

#include "traces/format.h"

#include <string.h>
#include <zstd.h>

int gt_stream_file_header(const uint8_t h[32], uint32_t *header_bytes)
{
	uint32_t hbytes = gt_ld32(h + 12);
	if (memcmp(h, GT_FILE_MAGIC, 8) != 0)
		return GT_ERR_MAGIC;
	if (gt_ld16(h + 8) != GT_FORMAT_MAJOR)
		return GT_ERR_VERSION;
	if (hbytes < GT_FILE_HEADER_BYTES || hbytes > 65536)
		return GT_ERR_CORRUPT;
	*header_bytes = hbytes;
	return 0;
}

int gt_stream_chunk_header(const uint8_t h[32], uint32_t *csize)
{
	uint32_t c = gt_ld32(h + 8), rsize = gt_ld32(h + 12);
	if (gt_ld32(h) != GT_CHUNK_MAGIC)
		return GT_ERR_MAGIC;
	if (gt_ld32(h + 28) != gt_header_check(h, 28))
		return GT_ERR_CHECKSUM;
	if (rsize > GT_MAX_CHUNK_RAW)
		return GT_ERR_TOO_LARGE;
	if (c > ZSTD_compressBound(rsize) + 64)
		return GT_ERR_CORRUPT;
	*csize = c;
	return 0;
}
