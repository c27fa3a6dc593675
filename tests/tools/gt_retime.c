/* gt_retime.c: copies a trace, stretching the GPU durations of one kernel by a factor.
 *
 * Makes the A/B fixtures of `gpuanalyze diff` (tests/data/diff/) from real recordings: every record
 * of the input is written to the output unchanged (strings, metadata, devices, blobs, captures,
 * events), except that each launch of the kernels whose mangled name contains --kernel gets
 * end = start + round((end - start) * factor). Start, queued and submitted times stay, so a
 * stretched kernel may now overlap the next launch on its stream: the copy is a fixture for
 * duration statistics, not a timeline. String ids are re-interned by the writer and remapped in
 * every record that holds one.
 *
 * The output says what it is: META trace.synthetic is set to a sentence naming the input, the
 * kernel and the factor (the analyzer prints it as SYNTHETIC), and trace.retimed_from names the
 * input file. Its END record carries the writer's own close time, so two runs differ in those
 * bytes only; their records are identical.
 *
 *   gt_retime -i IN -o OUT --kernel SUBSTRING --factor F
 */
#include "traces/gputrace.h"
#include "traces/schema.h"

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

struct map {
	uint32_t *id;            /* input string id -> output string id */
	size_t n;
};

static int map_set(struct map *m, uint32_t from, uint32_t to)
{
	if (from >= m->n) {
		size_t n = m->n ? m->n : 256;
		while (n <= from)
			n *= 2;
		uint32_t *p = realloc(m->id, n * sizeof *p);
		if (!p)
			return GT_ERR_NOMEM;
		memset(p + m->n, 0, (n - m->n) * sizeof *p);
		m->id = p;
		m->n = n;
	}
	m->id[from] = to;
	return 0;
}

static uint32_t remap(const struct map *m, uint32_t id) { return id && id < m->n ? m->id[id] : 0; }

struct ctx {
	struct gt_writer *w;
	struct map strings;
	const char *needle;
	double factor;
	uint8_t *stretch;        /* per input string id: 1 when that kernel name matches */
	size_t nstretch;
	uint64_t stretched;
};

static int on_string(struct ctx *c, const struct gt_event *ev)
{
	uint32_t id;
	const char *s;
	size_t len;
	int rc = gt_parse_string(ev, &id, &s, &len);
	if (rc)
		return rc;
	uint32_t nid = gt_writer_intern_n(c->w, s, len);
	if (!nid)
		return GT_ERR_NOMEM;
	if ((rc = map_set(&c->strings, id, nid)) != 0)
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

static int on_meta(struct ctx *c, const struct gt_event *ev)
{
	const char *k, *v;
	size_t kl, vl;
	int rc = gt_parse_meta(ev, &k, &kl, &v, &vl);
	if (rc)
		return rc;
	char *key = strndup(k, kl), *val = strndup(v, vl);
	if (!key || !val) {
		free(key);
		free(val);
		return GT_ERR_NOMEM;
	}
	/* Our own marks replace any the input had. */
	if (strcmp(key, "trace.synthetic") != 0 && strcmp(key, "trace.retimed_from") != 0)
		rc = gt_writer_meta(c->w, key, val);
	free(key);
	free(val);
	return rc;
}

static int on_capture(struct ctx *c, const struct gt_event *ev)
{
	struct gt_capture cap;
	const uint8_t *params_raw, *param_bytes;
	int rc = gt_capture_parse(ev, &cap, &params_raw, &param_bytes);
	if (rc)
		return rc;
	struct gt_capture_param *params = calloc(cap.nparams ? cap.nparams : 1, sizeof *params);
	if (!params)
		return GT_ERR_NOMEM;
	for (uint32_t i = 0; i < cap.nparams; i++)
		gt_capture_param_get(params_raw, i, &params[i]);
	cap.name_id = remap(&c->strings, cap.name_id);
	uint8_t *buf;
	size_t len;
	rc = gt_capture_encode(&cap, params, param_bytes, &buf, &len);
	free(params);
	if (rc)
		return rc;
	rc = gt_writer_add_var(c->w, GT_REC_CAPTURE, buf, len);
	free(buf);
	return rc;
}

/* An event copied with its string ids remapped: every string field of its kind (schema.h). */
static int copy_event(struct ctx *c, const struct gt_event *ev)
{
	const struct gt_record_schema *k = gt_kind(ev->type);
	if (!k)
		return 0; /* a type this build does not know: it cannot be copied faithfully */
	struct gt_event out = *ev;
	for (const struct gt_field *f = k->fields; f->member; f++)
		if (f->kind == GT_FIELD_STRING) {
			uint32_t id;
			memcpy(&id, (const unsigned char *)&ev->u + f->offset, sizeof id);
			id = remap(&c->strings, id);
			memcpy((unsigned char *)&out.u + f->offset, &id, sizeof id);
		}
	return gt_writer_add(c->w, ev->type, &out.u);
}

static int copy(struct ctx *c, struct gt_reader *r, const struct gt_event *ev)
{
	switch (ev->type) {
	case GT_REC_STRING: return on_string(c, ev);
	case GT_REC_META: return on_meta(c, ev);
	case GT_REC_DEVICE: {
		struct gt_device d;
		if (ev->u.var.len < sizeof d)
			return GT_ERR_CORRUPT;
		memcpy(&d, ev->u.var.data, sizeof d);
		const char *name = NULL;
		if (!gt_reader_device(r, d.device_id, &name))
			name = "";
		return gt_writer_device(c->w, &d, name);
	}
	case GT_REC_BLOB: return gt_writer_add_var(c->w, GT_REC_BLOB, ev->u.var.data, ev->u.var.len);
	case GT_REC_CAPTURE: return on_capture(c, ev);
	case GT_REC_END: return 0; /* the writer writes its own */
	case GT_REC_KERNEL: {
		struct gt_kernel k = ev->u.kernel;
		if (k.name_id < c->nstretch && c->stretch[k.name_id] && k.end >= k.start &&
		    !(k.flags & GT_KERNEL_BAD_TIMES)) {
			k.end = k.start + (uint64_t)llround((double)(k.end - k.start) * c->factor);
			c->stretched++;
		}
		struct gt_event out = *ev;
		out.u.kernel = k;
		return copy_event(c, &out);
	}
	default:
		return copy_event(c, ev);
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
	free(c.strings.id);
	free(c.stretch);
	if (rc) {
		fprintf(stderr, "gt_retime: failed: %s\n", gt_strerror(rc));
		return 1;
	}
	fprintf(stderr, "gt_retime: %llu launches stretched by %g\n", (unsigned long long)c.stretched, factor);
	return c.stretched ? 0 : 1;
}
