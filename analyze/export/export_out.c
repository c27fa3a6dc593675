/* export_out.c: the out-of-line half of export's output buffer (export_out.h): the flush to a
 * FILE or a gzip stream, and the slow way of put for what does not fit. Separate from the emitters
 * because it is the only part that writes to the file. */
#include "analyze/export/export_out.h"

#include "traces/gputrace.h"
#include "analyze/support/gzwrite.h"

void gt_ex_out_flush(struct out *o)
{
	if (!o->len || o->err) {
		o->len = 0;
		return;
	}
	if (o->gz) {
		int e = gt_gzw_write(o->gz, o->buf, o->len);
		if (e)
			o->err = e;
	} else if (fwrite(o->buf, 1, o->len, o->f) != o->len) {
		o->err = GT_ERR_IO;
	}
	o->bytes += o->len;
	o->len = 0;
}

void gt_ex_put_slow(struct out *o, const char *s, size_t n)
{
	gt_ex_out_flush(o);
	if (n > OUT_BUF) {
		/* Longer than the buffer (a huge name): written through. */
		if (!o->err && o->gz)
			o->err = gt_gzw_write(o->gz, s, n);
		else if (!o->err && fwrite(s, 1, n, o->f) != n)
			o->err = GT_ERR_IO;
		o->bytes += n;
		return;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}
