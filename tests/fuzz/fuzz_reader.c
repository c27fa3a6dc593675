/* fuzz_reader.c: the trace reader on arbitrary bytes.
 *
 * The input is the whole file. Mutations of valid traces (the seed corpus) reach the file header,
 * the chunk headers and the zstd frames; anything inside a frame is guarded by zstd's checksum, so
 * the decompressed side gets its own target, fuzz_chunks.c.
 */
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_read_trace(fuzz_file(data, size));
	return 0;
}
