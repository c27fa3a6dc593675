/* doc.c: a document's parts handed to its format's renderer (doc.h says what a command may
 * write, render.h who writes it). Facts go through output.h's JSON writer, cases into a junit.h
 * suite written at the close, tables to output.h's gt_table; the human parts to the renderer. A
 * document of gt_doc_open_string writes to a memory stream of its own, closed with it. */
#include "analyze/output/doc.h"

#include "analyze/output/escape.h"
#include "analyze/output/json_member.h"
#include "analyze/output/output_direct.h"
#include "analyze/output/render.h"
#include "traces/gputrace.h"

#include <stdarg.h>
#include <stdlib.h>

struct gt_doc {
	const struct gt_renderer *r;
	FILE *out;
	struct gt_json json;
	struct gt_junit *junit; /* JUnit: the suite, made by gt_doc_suite */
	int error;
	int cut; /* gt_doc_cut: the close writes nothing more */
	/* gt_doc_open_string: out is a memory stream that writes these two, and is the document's */
	int in_memory;
	char *mem;
	size_t mem_len;
};

/* A note or a formatted line is cut at this length, as output.h's notes always were. */
#define LINE_MAX_BYTES 4096

/* A document in fmt, not yet on an output; NULL when out of memory or fmt names no format. */
static struct gt_doc *doc_new(enum gt_format fmt)
{
	const struct gt_renderer *r = gt_renderer_of(fmt);
	struct gt_doc *d = r ? calloc(1, sizeof *d) : NULL;
	if (d)
		d->r = r;
	return d;
}

static void doc_start(struct gt_doc *d, FILE *out)
{
	d->out = out;
	gt_json_init(&d->json, out);
	if (d->r->fmt == GT_FMT_JSONL)
		d->json.inline_depth = 1;
}

struct gt_doc *gt_doc_open(enum gt_format fmt, FILE *out)
{
	struct gt_doc *d = doc_new(fmt);
	if (d)
		doc_start(d, out);
	return d;
}

struct gt_doc *gt_doc_open_string(enum gt_format fmt)
{
	struct gt_doc *d = doc_new(fmt);
	if (!d)
		return NULL;
	FILE *m = open_memstream(&d->mem, &d->mem_len);
	if (!m) {
		free(d);
		return NULL;
	}
	d->in_memory = 1;
	doc_start(d, m);
	return d;
}

/* The end of the format's document (a JSON document's newline, a JUnit suite); the first error
 * the document met, or the end's. */
static int finish(struct gt_doc *d)
{
	int rc = d->error;
	if (d->r->fmt == GT_FMT_JSON) {
		int jrc = gt_json_finish(&d->json);
		if (!rc)
			rc = jrc;
	} else if (d->r->fmt == GT_FMT_JSONL && !rc) {
		rc = d->json.error;
	} else if (d->r->fmt == GT_FMT_JUNIT) {
		int jrc = d->junit ? gt_junit_finish(d->junit, d->out) : GT_ERR_STATE;
		if (!rc)
			rc = jrc;
	}
	return rc;
}

/* What closing does to either kind of document, its FILE aside. A cut document was left as it
 * stood on purpose: nothing to end, nothing to check. */
static int doc_finish(struct gt_doc *d)
{
	int rc = d->cut ? d->error : finish(d);
	gt_junit_free(d->junit);
	d->junit = NULL;
	return rc;
}

int gt_doc_close(struct gt_doc *d)
{
	if (d->in_memory) {
		int rc;
		free(gt_doc_close_string(d, &rc));
		return rc;
	}
	int rc = doc_finish(d);
	free(d);
	return rc;
}

char *gt_doc_close_string(struct gt_doc *d, int *rc)
{
	if (!d->in_memory) { /* an output's document: its FILE is the caller's, not ours to close */
		*rc = gt_doc_close(d);
		*rc = *rc ? *rc : GT_ERR_STATE;
		return NULL;
	}
	*rc = doc_finish(d);
	/* A memory stream fails only for memory: a write that failed, or the flush of the close. */
	int werr = ferror(d->out);
	if (fclose(d->out) != 0 || werr)
		*rc = *rc ? *rc : GT_ERR_NOMEM;
	char *s = d->mem;
	if (*rc) {
		free(s);
		s = NULL;
	}
	free(d);
	return s;
}

void gt_doc_cut(struct gt_doc *d) { d->cut = 1; }

enum gt_format gt_doc_format(const struct gt_doc *d) { return d->r->fmt; }

int gt_doc_for_people(const struct gt_doc *d) { return (d->r->carries & GT_RENDER_HUMAN) != 0; }

/* ---- human parts -------------------------------------------------------------------------- */

static int human(const struct gt_doc *d) { return (d->r->carries & GT_RENDER_HUMAN) != 0; }

void gt_doc_title(struct gt_doc *d, const char *format, ...)
{
	if (!human(d) || !d->r->title)
		return;
	char buf[LINE_MAX_BYTES];
	va_list ap;
	va_start(ap, format);
	vsnprintf(buf, sizeof buf, format, ap);
	va_end(ap);
	d->r->title(d->out, buf);
}

void gt_doc_heading(struct gt_doc *d, int level, const char *title)
{
	if (human(d))
		d->r->heading(d->out, level, title);
}

void gt_doc_vnote(struct gt_doc *d, const char *format, va_list ap)
{
	if (!human(d))
		return;
	char buf[LINE_MAX_BYTES];
	vsnprintf(buf, sizeof buf, format, ap);
	d->r->note(d->out, buf);
}

void gt_doc_note(struct gt_doc *d, const char *format, ...)
{
	va_list ap;
	va_start(ap, format);
	gt_doc_vnote(d, format, ap);
	va_end(ap);
}

void gt_doc_words(struct gt_doc *d, const char *format, ...)
{
	if (!human(d))
		return;
	va_list ap;
	va_start(ap, format);
	vfprintf(d->out, format, ap);
	va_end(ap);
}

void gt_doc_words_by_format(struct gt_doc *d, const char *md, const char *text)
{
	const char *w = d->r->fmt == GT_FMT_MD ? md : d->r->fmt == GT_FMT_TEXT ? text : NULL;
	if (w)
		fputs(w, d->out);
}

void gt_doc_printf(struct gt_doc *d, const char *format, ...)
{
	if (!human(d))
		return;
	va_list ap;
	va_start(ap, format);
	gt_esc_vprintf(d->out, d->r->prose, format, ap);
	va_end(ap);
}

void gt_doc_printf_plain(struct gt_doc *d, const char *format, ...)
{
	if (!human(d))
		return;
	va_list ap;
	va_start(ap, format);
	gt_esc_vprintf(d->out, gt_esc_text, format, ap);
	va_end(ap);
}

void gt_doc_name(struct gt_doc *d, const char *name)
{
	if (human(d))
		d->r->name(d->out, name);
}

void gt_doc_prose(struct gt_doc *d, const char *s)
{
	if (human(d))
		d->r->prose(d->out, s);
}

void gt_doc_item(struct gt_doc *d, const char *label, const char *text)
{
	if (human(d))
		d->r->item(d->out, label, text);
}

/* ---- facts -------------------------------------------------------------------------------- */

/* The JSON writer when the format carries facts, positioned after key; NULL otherwise. */
static struct gt_json *fact(struct gt_doc *d, const char *key)
{
	if (!(d->r->carries & GT_RENDER_FACTS))
		return NULL;
	if (key)
		gt_json_key(&d->json, key);
	return &d->json;
}

void gt_doc_object(struct gt_doc *d, const char *key)
{
	struct gt_json *j = fact(d, key);
	if (j)
		gt_json_object_begin(j);
}

void gt_doc_array(struct gt_doc *d, const char *key)
{
	struct gt_json *j = fact(d, key);
	if (j)
		gt_json_array_begin(j);
}

void gt_doc_end(struct gt_doc *d)
{
	struct gt_json *j = fact(d, NULL);
	if (!j)
		return;
	if (j->depth > 0 && j->object[j->depth])
		gt_json_object_end(j);
	else
		gt_json_array_end(j);
	/* JSON Lines: each top-level value is a document of its own, on its line. */
	if (d->r->fmt == GT_FMT_JSONL && j->depth == 0) {
		int rc = gt_json_finish(j);
		if (rc && !d->error)
			d->error = rc;
		gt_json_init(j, d->out);
		j->inline_depth = 1;
	}
}

/* The typed facts: each is a JSON value under its key, where the format carries facts. */
#define DOC_FACT(name, type, json_put)                                                            \
	void gt_doc_##name(struct gt_doc *d, const char *key, type v)                                \
	{                                                                                            \
		struct gt_json *j = fact(d, key);                                                    \
		if (j)                                                                               \
			json_put(j, v);                                                              \
	}
DOC_FACT(str, const char *, gt_json_str)
DOC_FACT(u64, uint64_t, gt_json_u64)
DOC_FACT(i64, int64_t, gt_json_i64)
DOC_FACT(num, double, gt_json_num)
DOC_FACT(bool, int, gt_json_bool)
#undef DOC_FACT

void gt_doc_null(struct gt_doc *d, const char *key)
{
	struct gt_json *j = fact(d, key);
	if (j)
		gt_json_null(j);
}

void gt_doc_u64_if(struct gt_doc *d, const char *key, int known, uint64_t v)
{
	if (known)
		gt_doc_u64(d, key, v);
	else
		gt_doc_null(d, key);
}

void gt_doc_i64_if(struct gt_doc *d, const char *key, int known, int64_t v)
{
	if (known)
		gt_doc_i64(d, key, v);
	else
		gt_doc_null(d, key);
}

void gt_doc_set_inline_depth(struct gt_doc *d, int depth)
{
	if (d->r->fmt != GT_FMT_JSONL) /* a JSON Lines value is one line, whatever its depth */
		d->json.inline_depth = depth;
}

struct gt_json *gt_doc_json(struct gt_doc *d) { return fact(d, NULL); }


/* ---- cases -------------------------------------------------------------------------------- */

static int cases(const struct gt_doc *d) { return (d->r->carries & GT_RENDER_CASES) != 0; }

static void case_error(struct gt_doc *d, int rc)
{
	if (rc && !d->error)
		d->error = rc;
}

void gt_doc_suite(struct gt_doc *d, const char *name)
{
	if (!cases(d) || d->junit)
		return;
	d->junit = gt_junit_new(name);
	case_error(d, d->junit ? 0 : GT_ERR_NOMEM);
}

void gt_doc_property(struct gt_doc *d, const char *name, const char *value)
{
	if (cases(d))
		case_error(d, d->junit ? gt_junit_property(d->junit, name, value) : GT_ERR_STATE);
}

void gt_doc_case(struct gt_doc *d, const char *classname, const char *name, double time_s,
                 enum gt_junit_result result, const char *message, const char *text)
{
	if (cases(d))
		case_error(d, d->junit ? gt_junit_case(d->junit, classname, name, time_s, result, message, text)
		                       : GT_ERR_STATE);
}

/* ---- tables ------------------------------------------------------------------------------- */

struct gt_table *gt_doc_table(struct gt_doc *d, const char *key, const struct gt_column *cols, size_t n)
{
	struct gt_json *j = fact(d, key);
	return gt_table_open(d->r->fmt, d->out, j ? j : &d->json, cols, n);
}
