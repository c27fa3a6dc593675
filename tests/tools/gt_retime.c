/* gt_retime.c: copies a trace, stretching the GPU durations of one kernel by a factor.
 *
 * Makes the A/B fixtures of `gpuanalyze diff` (tests/data/diff/) from real recordings: every record
 * of the input is written to the output unchanged (strings, metadata, devices, blobs, captures,
 * events), except that each launch of the kernels whose mangled name contains --kernel gets
 * end = start + round((end - start) * factor). Start, queued and submitted times stay, so a
 * stretched kernel may now overlap the next launch on its stream: the copy is a fixture for
 * duration statistics, not a timeline. The copy is traces/copy.h's: string ids are re-interned by
 * the writer and remapped in every record that holds one.
 *
 * The output says what it is: META trace.synthetic is set to a sentence naming the input, the
 * kernel and the factor (the analyzer prints it as SYNTHETIC), and trace.retimed_from names the
 * input file. Its END record carries the writer's own close time, so two runs differ in those
 * bytes only; their records are identical.
 *
 *   gt_retime -i IN -o OUT --kernel SUBSTRING --factor F
 */
#include "traces/copy.h"
#include "traces/gputrace.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	fputs("usage: gt_retime -i IN -o OUT --kernel SUBSTRING --factor F\n"
	      "  copies IN to OUT; launches of kernels whose mangled name contains SUBSTRING get their\n"
	      "  duration (end - start) multiplied by F (rounded to the nanosecond); OUT is marked\n"
	      "  synthetic (META trace.synthetic) and names IN (META trace.retimed_from)\n",
	      f);
}

struct ctx {
	struct gt_writer *w;
	struct gt_copy *copy;    /* every record but those changed here */
	const char *needle;
	double factor;
	uint8_t *stretch;        /* per input string id: 1 when that kernel name matches */
	size_t nstretch;
	uint64_t stretched;
};

/* A STRING copied, and whether its kernel name matches noted under its input id. */
static int on_string(struct ctx *c, struct gt_reader *r, const struct gt_event *ev)
{
	int rc = gt_copy_record(c->copy, r, ev);
	if (rc)
		return rc;
	uint32_t id;
	const char *s;
	size_t len;
	if ((rc = gt_parse_string(ev, &id, &s, &len)) != 0)
		return rc;
	if (id >= c->nstretch) {
		size_t n = c->nstretch ? c->nstretch : 256;
		while (n <= id)
			n *= 2;
		uint8_t *p = realloc(c->stretch, n);
		if (!p)
			return GT_ERR_NOMEM;
		memset(p + c->nstretch, 0, n - c->nstretch);
		c->stretch = p;
		c->nstretch = n;
	}
	/* The string may hold NULs in a hostile file: search only up to them. */
	char *z = strndup(s, len);
	if (!z)
		return GT_ERR_NOMEM;
	c->stretch[id] = strstr(z, c->needle) != NULL;
	free(z);
	return 0;
}

/* Our own marks replace any the input had (a key is compared up to a NUL in it, as it is written). */
static int is_our_mark(const struct gt_event *ev)
{
	const char *k, *v;
	size_t kl, vl;
	if (gt_parse_meta(ev, &k, &kl, &v, &vl))
		return 0; /* the copy says why */
	size_t n = strnlen(k, kl);
	return (n == strlen("trace.synthetic") && !memcmp(k, "trace.synthetic", n)) ||
	       (n == strlen("trace.retimed_from") && !memcmp(k, "trace.retimed_from", n));
}

static int copy(struct ctx *c, struct gt_reader *r, const struct gt_event *ev)
{
	switch (ev->type) {
	case GT_REC_STRING: return on_string(c, r, ev);
	case GT_REC_META: return is_our_mark(ev) ? 0 : gt_copy_record(c->copy, r, ev);
	case GT_REC_KERNEL: {
		struct gt_kernel k = ev->u.kernel;
		if (k.name_id < c->nstretch && c->stretch[k.name_id] && k.end >= k.start &&
		    !(k.flags & GT_KERNEL_BAD_TIMES)) {
			k.end = k.start + (uint64_t)llround((double)(k.end - k.start) * c->factor);
			c->stretched++;
		}
		struct gt_event out = *ev;
		out.u.kernel = k;
		return gt_copy_record(c->copy, r, &out);
	}
	default:
		return gt_copy_record(c->copy, r, ev);
	}
}

int main(int argc, char **argv)
{
	const char *in = NULL, *out = NULL, *needle = NULL;
	double factor = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		}
		if (!v) {
			fprintf(stderr, "gt_retime: %s needs a value (or is unknown)\n", a);
			return 2;
		}
		i++;
		if (!strcmp(a, "-i")) {
			in = v;
		} else if (!strcmp(a, "-o")) {
			out = v;
		} else if (!strcmp(a, "--kernel")) {
			needle = v;
		} else if (!strcmp(a, "--factor")) {
			char *end;
			errno = 0;
			factor = strtod(v, &end);
			if (errno || *end || !(factor > 0) || factor > 1000) {
				fprintf(stderr, "gt_retime: --factor wants a number in (0, 1000], not '%s'\n", v);
				return 2;
			}
		} else {
			fprintf(stderr, "gt_retime: unknown option '%s'\n", a);
			return 2;
		}
	}
	if (!in || !out || !needle || !*needle || factor == 0) {
		usage(stderr);
		return 2;
	}
	char err[512];
	struct gt_reader *r;
	int rc = gt_reader_open(&r, in, err, sizeof err);
	if (rc) {
		fprintf(stderr, "gt_retime: cannot open '%s': %s\n", in, err[0] ? err : gt_strerror(rc));
		return 2;
	}
	struct ctx c = { .needle = needle, .factor = factor };
	if ((rc = gt_writer_open(&c.w, out, 0, NULL)) != 0) {
		fprintf(stderr, "gt_retime: cannot write '%s': %s\n", out, gt_strerror(rc));
		gt_reader_close(r);
		return 2;
	}
	char note[1024];
	const char *base = strrchr(in, '/') ? strrchr(in, '/') + 1 : in;
	snprintf(note, sizeof note,
	         "retimed by tests/tools/gt_retime from %s: durations of kernels matching '%s' x %g", base,
	         needle, factor);
	rc = gt_copy_new(&c.copy, c.w);
	if (!rc)
		rc = gt_writer_meta(c.w, "trace.synthetic", note);
	if (!rc)
		rc = gt_writer_meta(c.w, "trace.retimed_from", base);
	struct gt_event ev;
	int n;
	while (!rc && (n = gt_reader_next(r, &ev)) > 0)
		rc = copy(&c, r, &ev);
	if (!rc && n < 0) {
		fprintf(stderr, "gt_retime: cannot read '%s': %s\n", in, gt_reader_error(r));
		rc = n;
	}
	if (!rc) {
		rc = gt_writer_close(c.w);
		c.w = NULL;
	}
	gt_writer_abandon(c.w);
	gt_reader_close(r);
	gt_copy_free(c.copy);
	free(c.stretch);
	if (rc) {
		fprintf(stderr, "gt_retime: failed: %s\n", gt_strerror(rc));
		return 1;
	}
	fprintf(stderr, "gt_retime: %llu launches stretched by %g\n", (unsigned long long)c.stretched, factor);
	return c.stretched ? 0 : 1;
}
