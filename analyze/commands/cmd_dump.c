/* cmd_dump.c: `gpuanalyze dump`: every event of a trace, one per row, with names resolved.
 *
 * Events are the fixed records (kernels, copies, memsets, API calls, ...), in file order, which is
 * not time order. Every field is printed (the format's schema, traces/schema.h): string ids as their
 * strings, enumerations by name, kernels' demangled names beside the mangled ones. Definitions
 * (strings, metadata, devices) are what `gpuanalyze info` shows. CSV has one column per field name
 * over the types selected (a type without the field leaves it empty); JSON has one object per event
 * holding its own fields, in one array (one document for json.load) or, in JSON Lines, one object
 * per line and nothing else (for line-by-line readers: pandas.read_json(lines=True), DuckDB's
 * read_json, jq -c).
 */
#include "analyze/blocks/event_origin.h"
#include "analyze/commands/cmd_output.h"
#include "analyze/commands/commands.h"
#include "analyze/support/demangle.h"
#include "analyze/support/diag.h"
#include "traces/schema.h"
#include "analyze/support/load.h"
#include "analyze/support/options.h"
#include "analyze/output/output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COLS 128

struct dump {
	unsigned char want[GT_REC_TYPE_MAX + 1];
	struct gt_doc *doc;                 /* where the events go */
	struct gt_table *table;             /* csv: the events' table; NULL in JSON and JSON Lines */
	const char *cols[MAX_COLS];         /* csv column names after "type" */
	size_t ncols;
	int demangled_col;                  /* index of "demangled" in cols, -1 if none */
	/* per type: for each column, the field that fills it (NULL: empty) */
	const struct gt_field *colfield[GT_REC_TYPE_MAX + 1][MAX_COLS];
	char **demangled;                   /* by string id, filled as kernels need them */
	size_t ndemangled;
	/* JSON: each time's twin relative to the trace's origin ("start" -> "start_rel_ns"), made
	 * once per type and field as they are first shown */
	uint64_t origin;
	char **rel_name[GT_REC_TYPE_MAX + 1];
};

/* A field that holds a time on the trace's clock: an event's start or timestamp (the codec's
 * base) or a time coded relative to it (end, queued, ...). */
static int is_time(const struct gt_field *f)
{
	return f->kind == GT_FIELD_UINT && f->size == 8 &&
	       (f->codec == GT_CODEC_BASE || f->codec == GT_CODEC_REL);
}

/* The name of field i's relative twin: its own with a trailing "_ns" dropped, then "_rel_ns". */
static const char *rel_name(struct dump *d, int type, size_t i, size_t nf, const char *name)
{
	if (!d->rel_name[type] && !(d->rel_name[type] = calloc(nf, sizeof(char *))))
		return NULL;
	char **slot = &d->rel_name[type][i];
	if (!*slot) {
		size_t n = strlen(name);
		if (n > 3 && strcmp(name + n - 3, "_ns") == 0)
			n -= 3;
		if (!(*slot = malloc(n + sizeof "_rel_ns")))
			return NULL;
		memcpy(*slot, name, n);
		memcpy(*slot + n, "_rel_ns", sizeof "_rel_ns");
	}
	return *slot;
}

static int add_col(struct dump *d, const char *name)
{
	for (size_t i = 0; i < d->ncols; i++)
		if (strcmp(d->cols[i], name) == 0)
			return (int)i;
	if (d->ncols == MAX_COLS)
		return -1;
	d->cols[d->ncols] = name;
	return (int)d->ncols++;
}

/* The demangled name of kernel name id `id`, computed once per id. */
static const char *demangled(struct dump *d, const struct gt_reader *r, uint32_t id)
{
	if (id >= d->ndemangled) {
		size_t n = d->ndemangled ? d->ndemangled : 64;
		while (n <= id)
			n *= 2;
		if (id > gt_reader_string_count(r))
			return gt_reader_string(r, id); /* not a defined id: nothing to demangle */
		char **p = realloc(d->demangled, n * sizeof *p);
		if (!p)
			return NULL;
		memset(p + d->ndemangled, 0, (n - d->ndemangled) * sizeof *p);
		d->demangled = p;
		d->ndemangled = n;
	}
	if (!d->demangled[id])
		d->demangled[id] = gt_demangle(gt_reader_string(r, id));
	return d->demangled[id];
}

static int dump_record(void *ctx, const struct gt_reader *r, const struct gt_event *ev)
{
	struct dump *d = ctx;
	if (ev->type < GT_REC_FIRST_FIXED || ev->type > GT_REC_TYPE_MAX || !d->want[ev->type])
		return 0;
	size_t nf;
	const struct gt_field *fields = gt_fields_of(ev->type, &nf);
	if (!fields)
		return 0;
	const void *rec = &ev->u;
	char buf[64];
	const char *dm = NULL;
	if (ev->type == GT_REC_KERNEL && !(dm = demangled(d, r, ev->u.kernel.name_id)))
		return GT_ERR_NOMEM;
	if (!d->table) {
		/* JSON and JSON Lines: one object per event (in JSON Lines, its end ends its line). */
		struct gt_doc *doc = d->doc;
		gt_doc_object(doc, NULL);
		gt_doc_str(doc, "type", gt_rec_type_name(ev->type));
		for (size_t i = 0; i < nf; i++) {
			const struct gt_field *f = &fields[i];
			if (f->kind == GT_FIELD_UINT)
				gt_doc_u64(doc, f->name, gt_field_u64(f, rec));
			else if (f->kind == GT_FIELD_INT)
				gt_doc_i64(doc, f->name, gt_field_i64(f, rec));
			else if (f->kind == GT_FIELD_F64)
				gt_doc_num(doc, f->name, gt_field_f64(f, rec));
			else
				gt_doc_str(doc, f->name, gt_field_text(f, rec, r, buf, sizeof buf));
			if (dm && strcmp(f->name, "name") == 0)
				gt_doc_str(doc, "demangled", dm);
			if (is_time(f)) {
				/* Beside the absolute time, exact in a double-based reader: 0 is no time. */
				const char *rn = rel_name(d, ev->type, i, nf, f->name);
				uint64_t v = gt_field_u64(f, rec);
				if (!rn)
					return GT_ERR_NOMEM;
				gt_doc_i64_if(doc, rn, v != 0, (int64_t)(v - d->origin));
			}
		}
		gt_doc_end(doc);
		return 0;
	}
	struct gt_table *t = d->table;
	gt_table_str(t, gt_rec_type_name(ev->type));
	for (size_t c = 0; c < d->ncols; c++) {
		const struct gt_field *f = d->colfield[ev->type][c];
		if ((int)c == d->demangled_col)
			gt_table_str(t, dm);
		else if (!f)
			gt_table_str(t, NULL);
		else if (f->kind == GT_FIELD_UINT)
			gt_table_u64(t, gt_field_u64(f, rec));
		else if (f->kind == GT_FIELD_INT)
			gt_table_i64(t, gt_field_i64(f, rec));
		else if (f->kind == GT_FIELD_F64)
			gt_table_num(t, gt_field_f64(f, rec), 6);
		else
			gt_table_str(t, gt_field_text(f, rec, r, buf, sizeof buf));
	}
	return gt_table_end_row(t);
}

/* The event types: the schema's fixed records, in type order. */
#define FOR_EVENT_TYPES(ty)                                                                        \
	for (size_t ty##_i = 0; ty##_i < gt_schema_count; ty##_i++)                                  \
		for (int ty = gt_schema[ty##_i].type; ty >= GT_REC_FIRST_FIXED; ty = 0)

/* Parses --type "kernel,memcpy" into d->want; when list is NULL, every kind but the counters
 * (a kind that measures its device, schema.h): they come by the thousand with fields of their own,
 * and a CSV dump's columns are fixed before the trace is read, so by default they would widen
 * every dump, of traces without counters too. */
static int parse_types(struct dump *d, const char *list)
{
	if (!list) {
		FOR_EVENT_TYPES(ty)
			d->want[ty] = !gt_kind(ty)->measure;
		return 0;
	}
	const char *p = list;
	while (*p) {
		size_t len = strcspn(p, ",");
		int found = 0;
		FOR_EVENT_TYPES(ty) {
			const char *n = gt_rec_type_name(ty);
			if (strlen(n) == len && strncmp(n, p, len) == 0) {
				d->want[ty] = 1;
				found = 1;
			}
		}
		if (!found) {
			char known[512] = "";
			FOR_EVENT_TYPES(ty) {
				strncat(known, known[0] ? "," : "", sizeof known - strlen(known) - 1);
				strncat(known, gt_rec_type_name(ty), sizeof known - strlen(known) - 1);
			}
			return gt_cli_usage_error(&gt_gpuanalyze_tool, "dump", "option '--type' names unknown "
			                          "record type '%.*s' (known: %s)", (int)len, p, known);
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* The dump and the trace it streams. */
struct job {
	struct dump *d;
	struct gt_reader *r;
};

/* CSV's columns: "type", then the union of the selected types' fields, in type order. Each type's
 * fields are found in d->colfield. */
static size_t csv_columns(struct dump *d, struct gt_column *cols)
{
	FOR_EVENT_TYPES(ty) {
		if (!d->want[ty])
			continue;
		size_t nf;
		const struct gt_field *f = gt_fields_of(ty, &nf);
		for (size_t k = 0; k < nf; k++) {
			int c = add_col(d, f[k].name);
			if (c >= 0)
				d->colfield[ty][c] = &f[k];
			if (ty == GT_REC_KERNEL && strcmp(f[k].name, "name") == 0)
				d->demangled_col = add_col(d, "demangled");
		}
	}
	cols[0] = (struct gt_column){ "type", "type", GT_COL_LEFT };
	for (size_t c = 0; c < d->ncols; c++)
		cols[c + 1] = (struct gt_column){ d->cols[c], d->cols[c], 0 };
	return d->ncols + 1;
}

static int origin_record(void *ctx, const struct gt_reader *r, const struct gt_event *ev)
{
	(void)r;
	gt_event_origin(ctx, ev);
	return 0;
}

/* JSON's relative times count from the trace's origin, the earliest time of any event, as every
 * other command's "trace start" does: found by a first pass over the trace, which then starts
 * again. Its warnings (a trace cut short) are the second pass's to give. */
static int find_origin(const struct job *x)
{
	x->d->origin = 0;
	int rc = gt_load_stream_nowarn(x->r, origin_record, &x->d->origin);
	if (!rc && gt_reader_rewind(x->r) != 0)
		rc = gt_error("dump: cannot read trace '%s' again: %s", gt_reader_path(x->r),
		              gt_strerror(GT_ERR_IO));
	return rc;
}

/* gt_cmd_filler: streams the trace's records into the document: a table in CSV, objects in JSON
 * (one array) and JSON Lines (one a line). Every failure is reported here, in dump's words, so the
 * status returned is positive or 0. */
static int fill(struct gt_doc *doc, void *ctx)
{
	const struct job *x = ctx;
	struct dump *d = x->d;
	d->doc = doc;
	gt_doc_set_inline_depth(doc, 2);
	if (gt_doc_format(doc) == GT_FMT_CSV) {
		/* Only CSV has the table: JSON's events each hold their own fields. */
		struct gt_column cols[MAX_COLS + 1];
		size_t n = csv_columns(d, cols);
		if (!(d->table = gt_doc_table(doc, NULL, cols, n)))
			return gt_error("dump: out of memory");
	}
	int rc;
	if (!d->table && (rc = find_origin(x)) != 0)
		return rc;
	/* JSON's events are one array; a JSON Lines stream is its objects alone (doc.h). */
	int one_array = gt_doc_format(doc) != GT_FMT_JSONL;
	if (one_array)
		gt_doc_array(doc, NULL);
	rc = gt_load_stream(x->r, dump_record, d);
	if (rc) {
		/* The output ends where the trace stopped being readable, as it always has. */
		gt_doc_cut(doc);
		gt_table_free(d->table);
		d->table = NULL;
		return rc;
	}
	if (one_array)
		gt_doc_end(doc);
	if (d->table) {
		rc = gt_table_close(d->table);
		d->table = NULL;
		if (rc)
			rc = gt_error("dump: out of memory");
	}
	return rc;
}

static enum gt_format fmt;
static const char *types;
/* --type's help names the schema's event kinds (reset() writes it before any parse or --help). */
static char type_help[512];

static const struct gt_option options[] = {
	GT_OPT_FORMAT(&fmt, GT_FMT_CSV | GT_FMT_JSON | GT_FMT_JSONL),
	{ .kind = GT_OPT_STRING, .long_name = "type", .arg = "TYPE[,TYPE]...", .help = type_help,
	  .value = &types },
	GT_OPT_END_OF_LIST,
};

static void reset(void)
{
	fmt = GT_FMT_CSV;
	types = NULL;
	const char *sep = "only these event types: ";
	type_help[0] = '\0';
	FOR_EVENT_TYPES(ty) {
		size_t n = strlen(type_help);
		/* Cut short rather than overrun, should the schema outgrow the buffer; a test checks it. */
		snprintf(type_help + n, sizeof type_help - n, "%s%s", sep, gt_rec_type_name(ty));
		sep = ", ";
	}
}

static int run(const struct gt_cmd_call *call)
{
	struct dump *d = calloc(1, sizeof *d);
	if (!d)
		return GT_ERR_NOMEM;
	d->demangled_col = -1;
	int rc = parse_types(d, types);
	struct gt_reader *r = NULL;
	if (!rc && (rc = gt_load_open(&r, call->files[0])) == 0)
		rc = gt_cmd_render(call, fmt, fill, &(struct job){ d, r });
	gt_reader_close(r);
	for (size_t i = 0; i < d->ndemangled; i++)
		free(d->demangled[i]);
	for (size_t t = 0; t <= GT_REC_TYPE_MAX; t++) {
		size_t nf = 0;
		if (d->rel_name[t] && gt_fields_of((int)t, &nf))
			for (size_t i = 0; i < nf; i++)
				free(d->rel_name[t][i]);
		free(d->rel_name[t]);
	}
	free(d->demangled);
	free(d);
	return rc;
}

const struct gt_command gt_cmd_dump = {
	.name = "dump",
	.help = "every event, one per row, names resolved (csv, json)",
	.operands = "FILE",
	.min_operands = 1,
	.max_operands = 1,
	.description =
	"Every event of the trace, one per row in file order (not time order), with every field;\n"
	"string ids resolved to names, enumerations named, kernel names demangled beside the\n"
	"mangled ones. Default format csv; json is one array, jsonl (JSON Lines) one object per\n"
	"line and nothing else; in both, each time has a twin NAME_rel_ns counted from the\n"
	"trace's start, exact where readers hold numbers as doubles. Hardware-counter records\n"
	"(metric_sample, launch_metric) only when --type names them.",
	.options = options,
	.reset = reset,
	.run = run,
};
GT_COMMAND_ENTRY(dump)
