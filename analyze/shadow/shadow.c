/* shadow.c: loads reference libraries, walks a trace's captured launches with their buffers, runs
 * references on working copies and compares (the layers are described in shadow.h).
 *
 * Why two passes: a capture's buffers are BLOB records written before the CAPTURE record that names
 * them, so a single pass would have to keep every buffer blob until it knew whether a later capture
 * needed it. The first pass costs a second decompression of the file but lets the second keep only
 * the blobs that selected captures will use, each exactly as long as needed.
 */
#include "analyze/shadow/shadow.h"

#include "common/grow.h"
#include "common/slots.h"
#include "analyze/support/demangle.h"
#include "analyze/support/failure.h"
#include "analyze/support/load.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- reference libraries ------------------------------------------------------------------- */

#define MAX_REFS 100000u
#define MAX_OUTPUTS 1024u
#define MAX_ORDERS 1024u

static int tol_valid(const struct gt_ref_tol *t)
{
	/* NaN fails every comparison below; an infinite bound would accept any finite value. */
	return t->abs >= 0 && t->abs < INFINITY && t->rel >= 0 && t->rel < INFINITY;
}

static int check_table(const struct gt_ref_table *t, char *err, size_t errlen)
{
	if (!t) {
		snprintf(err, errlen, "gputrace_refs() returned NULL");
		return GT_ERR_ARG;
	}
	if (t->abi != GT_REF_ABI) {
		snprintf(err, errlen, "built for reference ABI %u; this gpuanalyze reads ABI %d (rebuild it "
		         "against this gputrace_ref.h)", (unsigned)t->abi, GT_REF_ABI);
		return GT_ERR_VERSION;
	}
	if (t->ref_size != sizeof(struct gt_ref)) {
		snprintf(err, errlen, "its struct gt_ref has %u bytes, this gpuanalyze's %zu (rebuild it "
		         "against this gputrace_ref.h)", (unsigned)t->ref_size, sizeof(struct gt_ref));
		return GT_ERR_VERSION;
	}
	if (t->count > MAX_REFS || (t->count && !t->refs)) {
		snprintf(err, errlen, "its table is malformed (%u references)", t->count);
		return GT_ERR_ARG;
	}
	for (unsigned i = 0; i < t->count; i++) {
		const struct gt_ref *r = &t->refs[i];
		if (!r->kernel || !*r->kernel) {
			snprintf(err, errlen, "reference %u names no kernel", i);
			return GT_ERR_ARG;
		}
		if (!r->run) {
			snprintf(err, errlen, "reference '%s' has no run function", r->kernel);
			return GT_ERR_ARG;
		}
		if (!r->noutputs || r->noutputs > MAX_OUTPUTS || !r->outputs) {
			snprintf(err, errlen, "reference '%s' declares no outputs (%u)", r->kernel, r->noutputs);
			return GT_ERR_ARG;
		}
		for (unsigned k = 0; k < r->noutputs; k++) {
			const struct gt_ref_output *o = &r->outputs[k];
			if (!gt_elem_size(o->type)) {
				snprintf(err, errlen, "reference '%s': output %u has unknown type %d", r->kernel, k,
				         (int)o->type);
				return GT_ERR_ARG;
			}
			if (r->nparams && o->param >= r->nparams) {
				snprintf(err, errlen, "reference '%s': output %u is parameter %u of %u", r->kernel, k,
				         o->param, r->nparams);
				return GT_ERR_ARG;
			}
			for (unsigned j = 0; j < k; j++)
				if (r->outputs[j].param == o->param) {
					snprintf(err, errlen, "reference '%s': parameter %u declared twice as an output",
					         r->kernel, o->param);
					return GT_ERR_ARG;
				}
			if (!tol_valid(&o->tol)) {
				snprintf(err, errlen, "reference '%s': output %u has a negative, NaN or infinite "
				         "tolerance", r->kernel, k);
				return GT_ERR_ARG;
			}
			if (!gt_elem_is_float(o->type) && gt_tol_any(&o->tol)) {
				snprintf(err, errlen, "reference '%s': output %u is %s, and integers compare exactly "
				         "(set its tolerance to 0)", r->kernel, k, gt_elem_type_name(o->type));
				return GT_ERR_ARG;
			}
			if (gt_tol_any(&o->tol) && (!o->reason || !*o->reason)) {
				snprintf(err, errlen, "reference '%s': output %u has a tolerance but no reason (a "
				         "tolerance is a claim: say where it comes from)", r->kernel, k);
				return GT_ERR_ARG;
			}
		}
		if (r->norders > MAX_ORDERS || (r->norders && (!r->order || !r->order_names))) {
			snprintf(err, errlen, "reference '%s' offers %u orders without an order function and "
			         "their names", r->kernel, r->norders);
			return GT_ERR_ARG;
		}
		for (unsigned k = 0; k < r->norders; k++)
			if (!r->order_names[k]) {
				snprintf(err, errlen, "reference '%s': order %u has no name", r->kernel, k);
				return GT_ERR_ARG;
			}
	}
	return 0;
}

int gt_refs_from_table(struct gt_refs **out, const struct gt_ref_table *t, char *err, size_t errlen)
{
	*out = NULL;
	int rc = check_table(t, err, errlen);
	if (rc)
		return rc;
	struct gt_refs *r = calloc(1, sizeof *r);
	if (!r) {
		snprintf(err, errlen, "out of memory");
		return GT_ERR_NOMEM;
	}
	r->table = t;
	*out = r;
	return 0;
}

int gt_refs_load(struct gt_refs **out, const char *path, char *err, size_t errlen)
{
	*out = NULL;
	/* dlopen searches LD_LIBRARY_PATH and the system directories for a name without a slash: the
	 * user named a file, so make it a path. */
	size_t n = strlen(path);
	char *p = malloc(n + 3);
	if (!p) {
		snprintf(err, errlen, "out of memory");
		return GT_ERR_NOMEM;
	}
	snprintf(p, n + 3, "%s%s", strchr(path, '/') ? "" : "./", path);
	dlerror();
	void *h = dlopen(p, RTLD_NOW | RTLD_LOCAL);
	free(p);
	if (!h) {
		const char *why = dlerror();
		snprintf(err, errlen, "not a loadable library: %s", why ? why : "dlopen failed");
		return GT_ERR_IO;
	}
	void *sym = dlsym(h, GT_REF_SYMBOL);
	if (!sym) {
		snprintf(err, errlen, "no %s() in it (is it a reference library built against "
		         "gputrace_ref.h?)", GT_REF_SYMBOL);
		dlclose(h);
		return GT_ERR_ARG;
	}
	gt_ref_entry_fn entry;
	memcpy(&entry, &sym, sizeof entry); /* POSIX: a dlsym result converts to a function pointer */
	const struct gt_ref_table *t = entry();
	int rc = gt_refs_from_table(out, t, err, errlen);
	if (rc) {
		dlclose(h);
		return rc;
	}
	(*out)->handle = h;
	(*out)->path = strdup(path);
	if (!(*out)->path) {
		gt_refs_free(*out);
		*out = NULL;
		snprintf(err, errlen, "out of memory");
		return GT_ERR_NOMEM;
	}
	return 0;
}

void gt_refs_free(struct gt_refs *r)
{
	if (!r)
		return;
	if (r->handle)
		dlclose(r->handle);
	free(r->path);
	free(r);
}

const struct gt_ref *gt_refs_find(const struct gt_refs *r, const char *mangled, const char *demangled)
{
	if (!r || !r->table || !mangled)
		return NULL;
	char *base = gt_kernel_base_name(mangled, demangled);
	const struct gt_ref *found = NULL;
	for (unsigned i = 0; i < r->table->count && !found; i++) {
		const char *k = r->table->refs[i].kernel;
		if (strcmp(k, mangled) == 0 || (demangled && strcmp(k, demangled) == 0) ||
		    (base && strcmp(k, base) == 0))
			found = &r->table->refs[i];
	}
	free(base);
	return found;
}

/* ---- blobs --------------------------------------------------------------------------------- */

struct blob {
	uint64_t id;                 /* never 0 (0 names no blob) */
	uint64_t total;              /* total_bytes of its first piece */
	uint64_t received;           /* pass 1: bytes of contiguous pieces seen */
	uint64_t got;                /* pass 2: bytes copied into data */
	uint8_t *data;
	uint32_t refs;               /* selected captures' references not yet visited */
	uint32_t kind;
	int bad;                     /* pieces disagree on size or kind, or arrive out of order */
};

struct blob_map {
	struct blob *b;              /* in order of first sight */
	size_t n, cap;
	struct gt_slots index;       /* id -> index in b */
};

static uint64_t hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

static int blob_is(const void *ctx, size_t i, const void *id)
{
	return ((const struct blob *)ctx)[i].id == *(const uint64_t *)id;
}

static uint64_t blob_hash(const void *ctx, size_t i) { return hash64(((const struct blob *)ctx)[i].id); }

static struct blob *map_find(const struct blob_map *m, uint64_t id)
{
	size_t i = id ? gt_slots_find(&m->index, hash64(id), blob_is, m->b, &id) : GT_SLOTS_NONE;
	return i == GT_SLOTS_NONE ? NULL : &m->b[i];
}

/* The blob with this id, inserted when new; NULL only when out of memory (id is never 0 here). */
static struct blob *map_get(struct blob_map *m, uint64_t id, int *created)
{
	*created = 0;
	struct blob *b = map_find(m, id);
	if (b)
		return b;
	if (!(b = gt_grow(m->b, &m->cap, m->n, sizeof *b, 64)))
		return NULL;
	m->b = b;
	if (gt_slots_add(&m->index, hash64(id), m->n, blob_hash, m->b))
		return NULL;
	b = &m->b[m->n++];
	*b = (struct blob){ .id = id };
	*created = 1;
	return b;
}

static void map_release(struct blob_map *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->b[i].data);
	free(m->b);
	m->b = NULL;
	m->n = m->cap = 0;
	gt_slots_release(&m->index);
}

static int blob_complete(const struct blob *b) { return b && !b->bad && b->received == b->total; }

/* ---- the walk ------------------------------------------------------------------------------ */

const char *gt_shadow_status_name(int s)
{
	switch (s) {
	case GT_SHADOW_PASS: return "pass";
	case GT_SHADOW_FAIL: return "fail";
	case GT_SHADOW_ERROR: return "error";
	case GT_SHADOW_INCOMPLETE: return "incomplete";
	case GT_SHADOW_NO_REF: return "no reference";
	}
	return "unknown";
}

static const char *param_status_text(uint32_t s)
{
	switch (s) {
	case GT_PARAM_OK: return "captured";
	case GT_PARAM_NOT_DEVICE: return "not a device address";
	case GT_PARAM_MANAGED: return "managed memory, not copied";
	case GT_PARAM_TOO_LARGE: return "over the capture's byte cap, not copied";
	case GT_PARAM_COPY_FAILED: return "the copy failed";
	case GT_PARAM_STRUCT: return "a by-value struct";
	case GT_PARAM_STRUCT_SCANNED: return "a by-value struct, its pointers followed";
	}
	return "unknown status";
}

struct selected {
	uint64_t capture_id;
	int uses_blobs;              /* pass 1 counted its blob references */
};

struct walk {
	const struct gt_refs *refs;
	const struct gt_name_filter *filter;
	struct gt_shadow_walk_info *info;
	struct blob_map blobs;
	struct selected *sel;
	size_t nsel, capsel, next_sel;
	uint64_t held;               /* pass 2: bytes of blob data held */
	int visitor_stopped;         /* the visitor's error ended the walk (its caller reports it) */
	struct gt_shadow_param *params;
	uint32_t params_cap;
};

/*
 * Resolves a capture's parameters into l and w->params and decides whether it can be replayed.
 * Everything here depends on the record alone, so both passes reach the same answer; blob checks
 * come later, in pass 2 only (resolve_blobs).
 */
static int resolve(struct walk *w, const struct gt_reader *r, const struct gt_capture *c,
                   const uint8_t *params_raw, const uint8_t *param_bytes, const struct gt_ref *ref,
                   struct gt_shadow_launch *l)
{
	memset(l, 0, sizeof *l);
	l->cap = *c;
	l->ref = ref;
	l->kernel = gt_reader_string(r, c->name_id);
	l->nparams = c->nparams;
	if (c->nparams > w->params_cap) {
		struct gt_shadow_param *p = realloc(w->params, (size_t)c->nparams * sizeof *p);
		if (!p)
			return GT_ERR_NOMEM;
		w->params = p;
		w->params_cap = c->nparams;
	}
	l->params = w->params;
	int incomplete = (c->flags & GT_CAPTURE_INCOMPLETE) != 0;
	int why_set = 0;
	for (uint32_t i = 0; i < c->nparams; i++) {
		struct gt_shadow_param *p = &w->params[i];
		memset(p, 0, sizeof *p);
		gt_capture_param_get(params_raw, i, &p->cp);
		p->value = param_bytes + p->cp.offset;
		p->group = (int)i;
		if (p->cp.kind != GT_PARAM_POINTER || p->cp.status == GT_PARAM_NOT_DEVICE ||
		    p->cp.status == GT_PARAM_STRUCT)
			continue;
		if (p->cp.status != GT_PARAM_OK) {
			incomplete = 1;
			if (!why_set++)
				snprintf(l->why, sizeof l->why, "parameter %u: %s", i, param_status_text(p->cp.status));
			continue;
		}
		if (!p->cp.before_blob || !p->cp.after_blob) {
			incomplete = 1;
			if (!why_set++)
				snprintf(l->why, sizeof l->why, "parameter %u: no %s copy of its allocation", i,
				         p->cp.before_blob ? "after" : "before");
			continue;
		}
		if (p->cp.size != 8) {
			l->status = GT_SHADOW_ERROR;
			snprintf(l->why, sizeof l->why, "parameter %u: a pointer of %u bytes", i, p->cp.size);
			return 0;
		}
		uint64_t addr;
		memcpy(&addr, p->value, 8);
		if (addr < p->cp.alloc_base || addr - p->cp.alloc_base > p->cp.alloc_bytes) {
			l->status = GT_SHADOW_ERROR;
			snprintf(l->why, sizeof l->why, "parameter %u: pointer 0x%llx outside its allocation "
			         "0x%llx + %llu", i, (unsigned long long)addr, (unsigned long long)p->cp.alloc_base,
			         (unsigned long long)p->cp.alloc_bytes);
			return 0;
		}
		p->pointer = 1;
		p->offset = addr - p->cp.alloc_base;
		for (uint32_t j = 0; j < i; j++)
			if (w->params[j].pointer && w->params[j].cp.alloc_base == p->cp.alloc_base) {
				if (w->params[j].cp.alloc_bytes != p->cp.alloc_bytes) {
					l->status = GT_SHADOW_ERROR;
					snprintf(l->why, sizeof l->why, "parameters %u and %u: one allocation, two sizes",
					         j, i);
					return 0;
				}
				p->group = (int)j;
				break;
			}
	}
	/* Pointers found inside by-value structs follow the declared parameters as extra entries
	 * (gputrace-format(5)); a reference is called with the declared ones only. */
	uint32_t declared = 0;
	while (declared < c->nparams && w->params[declared].cp.kind != GT_PARAM_INNER_POINTER)
		declared++;
	l->nparams = declared;
	if (!l->ref) {
		l->status = GT_SHADOW_NO_REF;
		snprintf(l->why, sizeof l->why, "no reference for this kernel in the library");
		return 0;
	}
	if (l->ref->nparams && l->ref->nparams != declared) {
		l->status = GT_SHADOW_ERROR;
		snprintf(l->why, sizeof l->why, "the reference expects %u parameters, the capture has %u",
		         l->ref->nparams, declared);
		return 0;
	}
	if (incomplete) {
		l->status = GT_SHADOW_INCOMPLETE;
		if (!why_set)
			snprintf(l->why, sizeof l->why, "the recorder marked the capture incomplete");
		return 0;
	}
	for (unsigned k = 0; k < l->ref->noutputs; k++) {
		unsigned pi = l->ref->outputs[k].param;
		if (pi >= declared || !w->params[pi].pointer) {
			l->status = GT_SHADOW_ERROR;
			snprintf(l->why, sizeof l->why, "output '%s' is parameter %u, which is not a captured "
			         "pointer", l->ref->outputs[k].name ? l->ref->outputs[k].name : "?", pi);
			return 0;
		}
	}
	l->ready = 1;
	return 0;
}

/* Pass 2: the launch's buffers, or why they are missing. */
static void resolve_blobs(struct walk *w, struct gt_shadow_launch *l)
{
	for (uint32_t i = 0; i < l->nparams && l->ready; i++) {
		struct gt_shadow_param *p = &w->params[i];
		if (!p->pointer)
			continue;
		const uint64_t ids[2] = { p->cp.before_blob, p->cp.after_blob };
		const char *what[2] = { "before", "after" };
		for (int k = 0; k < 2; k++) {
			struct blob *b = map_find(&w->blobs, ids[k]);
			const char *problem = NULL;
			if (!b)
				problem = "is not in the trace";
			else if (!blob_complete(b))
				problem = "is incomplete or corrupt in the trace";
			else if (b->kind != GT_BLOB_BUFFER)
				problem = "is not a buffer blob";
			else if (b->total != p->cp.alloc_bytes)
				problem = "does not have the allocation's size";
			else if (b->got != b->total)
				problem = "comes after the capture in the trace";
			if (problem) {
				l->ready = 0;
				l->status = GT_SHADOW_ERROR;
				snprintf(l->why, sizeof l->why, "parameter %u: the %s copy (blob %llu) %s", i, what[k],
				         (unsigned long long)ids[k], problem);
				break;
			}
			if (k == 0)
				p->before = b->data;
			else
				p->after = b->data;
		}
	}
}

/* Blob references of a launch that pass 1 counted: every pointer parameter captured OK. */
static void count_refs(struct walk *w, const struct gt_shadow_launch *l, int delta)
{
	for (uint32_t i = 0; i < l->nparams; i++) {
		const struct gt_shadow_param *p = &l->params[i];
		if (!p->pointer)
			continue;
		const uint64_t ids[2] = { p->cp.before_blob, p->cp.after_blob };
		for (int k = 0; k < 2; k++) {
			struct blob *b = map_find(&w->blobs, ids[k]);
			if (!b)
				continue;
			if (delta > 0) {
				b->refs++;
			} else if (b->refs && --b->refs == 0 && b->data) {
				free(b->data);
				b->data = NULL;
				w->held -= b->total;
			}
		}
	}
}

static int selected_by_filter(struct walk *w, const char *kernel, char **demangled)
{
	*demangled = gt_demangle(kernel);
	if (!*demangled)
		return GT_ERR_NOMEM;
	return gt_name_filter_match(w->filter, kernel, *demangled);
}

/* Pass 1: blob piece headers, and which captures are selected and which blobs they use. */
static int pass1(void *ctx, const struct gt_reader *r, const struct gt_event *ev)
{
	struct walk *w = ctx;
	if (ev->type == GT_REC_BLOB) {
		struct gt_blob_piece piece;
		const uint8_t *data;
		if (gt_parse_blob(ev, &piece, &data) != 0)
			return GT_ERR_CORRUPT;
		if (!piece.blob_id)
			return 0;
		int created;
		struct blob *b = map_get(&w->blobs, piece.blob_id, &created);
		if (!b)
			return GT_ERR_NOMEM;
		if (created) {
			b->total = piece.total_bytes;
			b->kind = piece.kind;
		}
		if (b->total != piece.total_bytes || b->kind != piece.kind || piece.offset != b->received)
			b->bad = 1;
		else
			b->received += piece.piece_bytes;
		return 0;
	}
	if (ev->type == GT_REC_DROPPED) {
		if (ev->u.dropped.reason == GT_DROP_CAPTURE)
			w->info->captures_dropped += ev->u.dropped.count;
		return 0;
	}
	if (ev->type != GT_REC_CAPTURE)
		return 0;
	struct gt_capture c;
	const uint8_t *params_raw, *param_bytes;
	int rc = gt_capture_parse(ev, &c, &params_raw, &param_bytes);
	if (rc)
		return GT_ERR_CORRUPT;
	w->info->captures++;
	char *dem;
	const char *kernel = gt_reader_string(r, c.name_id);
	rc = selected_by_filter(w, kernel, &dem);
	if (rc <= 0) {
		free(dem);
		return rc;
	}
	struct gt_shadow_launch l;
	rc = resolve(w, r, &c, params_raw, param_bytes, gt_refs_find(w->refs, kernel, dem), &l);
	free(dem);
	if (rc)
		return rc;
	struct selected *s = gt_grow(w->sel, &w->capsel, w->nsel, sizeof *s, 64);
	if (!s)
		return GT_ERR_NOMEM;
	w->sel = s;
	w->sel[w->nsel].capture_id = c.capture_id;
	w->sel[w->nsel].uses_blobs = l.ready;
	w->nsel++;
	if (l.ready)
		count_refs(w, &l, +1);
	return 0;
}

/* Pass 2: reassemble the blobs in use, hand each selected capture over, free what is done. */
static int pass2_blob(struct walk *w, const struct gt_event *ev)
{
	struct gt_blob_piece piece;
	const uint8_t *data;
	if (gt_parse_blob(ev, &piece, &data) != 0)
		return 0; /* pass 1 read the same record without complaint */
	struct blob *b = map_find(&w->blobs, piece.blob_id);
	if (!b || !b->refs || !blob_complete(b))
		return 0;
	if (!b->data) {
		if (b->got)
			return 0; /* freed already: a later piece of a blob whose captures are done */
		/* total equals the bytes the file holds for it (pass 1), so this is no hostile size. */
		b->data = malloc(b->total ? b->total : 1);
		if (!b->data)
			return GT_ERR_NOMEM;
		w->held += b->total;
		w->info->blob_bytes_read += b->total;
	}
	if (piece.offset != b->got || piece.piece_bytes > b->total - b->got)
		return 0;
	memcpy(b->data + b->got, data, piece.piece_bytes);
	b->got += piece.piece_bytes;
	return 0;
}

static uint64_t working_bytes(const struct gt_shadow_launch *l)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < l->nparams; i++)
		if (l->params[i].pointer && l->params[i].group == (int)i)
			n += l->params[i].cp.alloc_bytes;
	return n;
}

static int pass2_capture(struct walk *w, const struct gt_reader *r, const struct gt_event *ev,
                         gt_shadow_visit_fn fn, void *ctx)
{
	struct gt_capture c;
	const uint8_t *params_raw, *param_bytes;
	if (gt_capture_parse(ev, &c, &params_raw, &param_bytes) != 0)
		return GT_ERR_STATE;
	char *dem;
	const char *kernel = gt_reader_string(r, c.name_id);
	int rc = selected_by_filter(w, kernel, &dem);
	if (rc <= 0) {
		free(dem);
		return rc;
	}
	if (w->next_sel >= w->nsel || w->sel[w->next_sel].capture_id != c.capture_id) {
		free(dem);
		return GT_ERR_STATE; /* the file changed between the passes */
	}
	int uses_blobs = w->sel[w->next_sel++].uses_blobs;
	struct gt_shadow_launch l;
	rc = resolve(w, r, &c, params_raw, param_bytes, gt_refs_find(w->refs, kernel, dem), &l);
	if (rc) {
		free(dem);
		return rc;
	}
	l.demangled = dem;
	if (l.ready)
		resolve_blobs(w, &l);
	uint64_t peak = w->held + (l.ready ? working_bytes(&l) : 0);
	if (peak > w->info->peak_bytes)
		w->info->peak_bytes = peak;
	rc = fn ? fn(ctx, &l) : 0;
	if (rc)
		w->visitor_stopped = 1;
	if (uses_blobs)
		count_refs(w, &l, -1);
	free(dem);
	return rc;
}

void gt_shadow_walk_info_release(struct gt_shadow_walk_info *w)
{
	if (!w)
		return;
	free(w->synthetic);
	free(w->recorded_on);
	w->synthetic = NULL;
	w->recorded_on = NULL;
}

/* Where the captures come from, for the report: devices, driver and runtime as the trace names them. */
static char *recorded_on(const struct gt_reader *r)
{
	char buf[1024];
	size_t pos = 0;
	buf[0] = '\0';
	size_t nd = gt_reader_device_count(r);
	for (size_t i = 0; i < nd && i < 4 && pos < sizeof buf; i++) {
		const char *name;
		const struct gt_device *d = gt_reader_device_at(r, i, &name);
		if (d)
			pos += (size_t)snprintf(buf + pos, sizeof buf - pos, "%s%s (cc %u.%u)", pos ? ", " : "",
			                        name && *name ? name : "unnamed device", d->cc_major, d->cc_minor);
	}
	if (nd > 4 && pos < sizeof buf)
		pos += (size_t)snprintf(buf + pos, sizeof buf - pos, " and %zu more", nd - 4);
	static const char *const keys[][2] = { { "cuda.driver", "driver" }, { "cuda.runtime", "CUDA runtime" } };
	for (size_t k = 0; k < 2 && pos < sizeof buf; k++) {
		const char *v = gt_reader_meta(r, keys[k][0]);
		if (v && *v)
			pos += (size_t)snprintf(buf + pos, sizeof buf - pos, "%s%s %s", pos ? "; " : "", keys[k][1], v);
	}
	return pos ? strdup(buf) : NULL;
}

int gt_shadow_walk(const char *path, const struct gt_refs *refs, const struct gt_name_filter *filter,
                   gt_shadow_visit_fn fn, void *ctx, struct gt_shadow_walk_info *info)
{
	memset(info, 0, sizeof *info);
	struct walk w = { .refs = refs, .filter = filter, .info = info };
	struct gt_reader *r;
	int rc = gt_load_open(&r, path);
	if (rc)
		return rc;
	rc = gt_load_stream(r, pass1, &w);
	if (!rc) {
		info->selected = w.nsel;
		const char *syn = gt_load_synthetic(r);
		if (syn && !(info->synthetic = strdup(syn)))
			rc = GT_ERR_NOMEM;
		info->recorded_on = recorded_on(r);
		struct gt_tail t;
		gt_reader_tail(r, &t);
		info->complete = t.complete;
		info->lost_bytes = t.lost_bytes;
	}
	if (!rc && (rc = gt_reader_rewind(r)) != 0)
		rc = gt_fail(rc, "cannot read trace '%s': %s", path, gt_strerror(rc));
	/* Pass 2 reads what pass 1 read without error, so a failure here is the file changing under
	 * us or memory running out; both are reported here since gt_load_stream would warn twice. */
	struct gt_event ev;
	int more = 0;
	while (!rc && w.next_sel < w.nsel && (more = gt_reader_next(r, &ev)) > 0) {
		if (ev.type == GT_REC_BLOB)
			rc = pass2_blob(&w, &ev);
		else if (ev.type == GT_REC_CAPTURE)
			rc = pass2_capture(&w, r, &ev, fn, ctx);
	}
	if (!rc && more < 0) {
		const char *msg = gt_reader_error(r);
		rc = gt_fail(more, "cannot read trace '%s': %s", path,
		             msg[0] ? gt_load_reason(msg, path) : gt_strerror(more));
	}
	if (rc < 0 && !w.visitor_stopped && !gt_failed())
		rc = gt_fail(rc, "cannot read trace '%s': %s", path,
		             rc == GT_ERR_STATE ? "it changed while being read" : gt_strerror(rc));
	gt_reader_close(r);
	map_release(&w.blobs);
	free(w.sel);
	free(w.params);
	return rc;
}

/* ---- working copies ------------------------------------------------------------------------ */

int gt_shadow_call_init(struct gt_shadow_call *c, const struct gt_shadow_launch *l)
{
	memset(c, 0, sizeof *c);
	c->launch = l;
	uint32_t n = l->nparams;
	c->params = calloc(n ? n : 1, sizeof *c->params);
	c->base = calloc(n ? n : 1, sizeof *c->base);
	if (!c->params || !c->base) {
		gt_shadow_call_release(c);
		return GT_ERR_NOMEM;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct gt_shadow_param *p = &l->params[i];
		if (!p->pointer)
			continue;
		if (p->group == (int)i) {
			/* shared, so that what the reference writes in its child process is seen here */
			uint64_t bytes = p->cp.alloc_bytes;
			void *m = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
			if (m == MAP_FAILED) {
				gt_shadow_call_release(c);
				return GT_ERR_NOMEM;
			}
			c->base[i] = m;
			c->bytes += bytes;
		} else {
			c->base[i] = c->base[p->group];
		}
	}
	gt_shadow_call_reset(c);
	return 0;
}

/* The call as a reference receives it, from the launch and the working copies alone: a reference
 * may have written over any field of it (its pointers, counts, the parameter table), and none of
 * that may reach the comparison or the next evaluation order. */
static void fill_call(struct gt_shadow_call *c)
{
	const struct gt_shadow_launch *l = c->launch;
	memset(&c->call, 0, sizeof c->call);
	memset(c->params, 0, (l->nparams ? l->nparams : 1) * sizeof *c->params);
	for (uint32_t i = 0; i < l->nparams; i++) {
		const struct gt_shadow_param *p = &l->params[i];
		struct gt_ref_param *q = &c->params[i];
		q->size = p->cp.size;
		q->value = p->value;
		if (!p->pointer) {
			q->kind = GT_REF_PARAM_SCALAR;
			continue;
		}
		q->kind = GT_REF_PARAM_POINTER;
		q->data = c->base[i] + p->offset;
		q->offset = p->offset;
		q->bytes = p->cp.alloc_bytes - p->offset;
	}
	c->call.abi = GT_REF_ABI;
	c->call.kernel = l->kernel;
	c->call.capture_id = l->cap.capture_id;
	c->call.launch_index = l->cap.launch_index;
	memcpy(c->call.grid, l->cap.grid, sizeof c->call.grid);
	memcpy(c->call.block, l->cap.block, sizeof c->call.block);
	memcpy(c->call.cluster, l->cap.cluster, sizeof c->call.cluster);
	c->call.dynamic_smem = l->cap.dynamic_smem;
	c->call.nparams = l->nparams;
	c->call.params = c->params;
}

void gt_shadow_call_reset(struct gt_shadow_call *c)
{
	const struct gt_shadow_launch *l = c->launch;
	for (uint32_t i = 0; i < l->nparams; i++)
		if (l->params[i].pointer && l->params[i].group == (int)i && l->params[i].cp.alloc_bytes)
			memcpy(c->base[i], l->params[i].before, l->params[i].cp.alloc_bytes);
	fill_call(c);
}

/* The CPU seconds one run of a reference on c may take (shadow.h). */
static unsigned cpu_cap(const struct gt_shadow_call *c)
{
	const char *env = getenv("GPUTRACE_SHADOW_CPU");
	if (env && *env) {
		char *end;
		errno = 0;
		unsigned long v = strtoul(env, &end, 10);
		if (!errno && !*end && env[0] != '-' && v >= 1 && v <= 86400)
			return (unsigned)v;
	}
	uint64_t s = GT_SHADOW_CPU_BASE_S + c->bytes / GT_SHADOW_CPU_PER_BYTES;
	return s > 86400 ? 86400 : (unsigned)s;
}

struct run_result {
	int rc;
	char message[sizeof ((struct gt_ref_call *)0)->message];
};

int gt_shadow_call_run(struct gt_shadow_call *c, const struct gt_ref *ref, int order)
{
	c->stopped = 0;
	unsigned cap = cpu_cap(c);
	struct run_result *res = mmap(NULL, sizeof *res, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED) {
		c->stopped = 1;
		snprintf(c->call.message, sizeof c->call.message, "not run: no memory to share with it: %s",
		         strerror(errno));
		return -1;
	}
	memset(res, 0, sizeof *res);
	pid_t pid = fork();
	if (pid == 0) {
		struct rlimit core = { 0, 0 }, cpu = { cap, (rlim_t)cap + 1 };
		if (setrlimit(RLIMIT_CORE, &core) != 0 || setrlimit(RLIMIT_CPU, &cpu) != 0)
			_exit(126);
		int rc = order < 0 ? ref->run(&c->call) : ref->order(&c->call, (unsigned)order);
		res->rc = rc;
		memcpy(res->message, c->call.message, sizeof res->message);
		_exit(0);
	}
	int status = 0, rc = -1;
	pid_t w = -1;
	if (pid > 0)
		while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
			;
	if (pid < 0 || w < 0) {
		c->stopped = 1;
		snprintf(c->call.message, sizeof c->call.message, "not run: cannot start its process: %s",
		         strerror(errno));
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		rc = res->rc;
		memcpy(c->call.message, res->message, sizeof c->call.message);
	} else if (WIFSIGNALED(status) && (WTERMSIG(status) == SIGXCPU || WTERMSIG(status) == SIGKILL)) {
		c->stopped = 1;
		snprintf(c->call.message, sizeof c->call.message,
		         "stopped after %u s of CPU, its cap (%u s plus 1 s per MiB of the launch's captured "
		         "memory, or GPUTRACE_SHADOW_CPU): not checked",
		         cap, GT_SHADOW_CPU_BASE_S);
	} else {
		c->stopped = 1;
		if (WIFSIGNALED(status))
			snprintf(c->call.message, sizeof c->call.message, "it died of signal %d (%s): not checked",
			         WTERMSIG(status), strsignal(WTERMSIG(status)));
		else
			snprintf(c->call.message, sizeof c->call.message, "its process exited %d: not checked",
			         WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	}
	munmap(res, sizeof *res);
	/* The message is the reference's to fill, and may lack its terminating NUL. */
	c->call.message[sizeof c->call.message - 1] = '\0';
	return c->stopped ? -1 : rc;
}

void gt_shadow_call_release(struct gt_shadow_call *c)
{
	if (c->base && c->launch) {
		for (uint32_t i = 0; i < c->launch->nparams; i++)
			if (c->launch->params[i].pointer && c->launch->params[i].group == (int)i && c->base[i]) {
				uint64_t bytes = c->launch->params[i].cp.alloc_bytes;
				munmap(c->base[i], bytes ? bytes : 1);
			}
	}
	free(c->base);
	free(c->params);
	memset(c, 0, sizeof *c);
}

/* ---- the check ----------------------------------------------------------------------------- */

void gt_shadow_result_release(struct gt_shadow_result *res)
{
	if (!res)
		return;
	free(res->kernel);
	free(res->demangled);
	free(res->outputs);
	free(res->other);
	memset(res, 0, sizeof *res);
}

static const char *output_name(const struct gt_ref_output *o, char *buf, size_t len)
{
	if (o->name && *o->name)
		return o->name;
	snprintf(buf, len, "parameter %u", o->param);
	return buf;
}

int gt_shadow_check(const struct gt_shadow_launch *l, struct gt_shadow_result *res)
{
	memset(res, 0, sizeof *res);
	res->capture_id = l->cap.capture_id;
	res->launch_index = l->cap.launch_index;
	res->kernel = strdup(l->kernel ? l->kernel : "");
	res->demangled = strdup(l->demangled ? l->demangled : res->kernel ? res->kernel : "");
	res->ref = l->ref;
	memcpy(res->grid, l->cap.grid, sizeof res->grid);
	memcpy(res->block, l->cap.block, sizeof res->block);
	res->dynamic_smem = l->cap.dynamic_smem;
	if (!res->kernel || !res->demangled) {
		gt_shadow_result_release(res);
		return GT_ERR_NOMEM;
	}
	if (!l->ready) {
		res->status = l->status;
		snprintf(res->why, sizeof res->why, "%s", l->why);
		return 0;
	}
	const struct gt_ref *ref = l->ref;
	struct gt_shadow_call c;
	if (gt_shadow_call_init(&c, l) != 0) {
		gt_shadow_result_release(res);
		return GT_ERR_NOMEM;
	}
	if (gt_shadow_call_run(&c, ref, -1) != 0) {
		res->status = GT_SHADOW_ERROR;
		snprintf(res->why, sizeof res->why, "%s: %s",
		         c.stopped ? "the reference was stopped" : "the reference refused the launch",
		         c.call.message[0] ? c.call.message : "(no reason given)");
		gt_shadow_call_release(&c);
		return 0;
	}
	res->outputs = calloc(ref->noutputs, sizeof *res->outputs);
	res->other = calloc(l->nparams ? l->nparams : 1, sizeof *res->other);
	if (!res->outputs || !res->other) {
		gt_shadow_call_release(&c);
		gt_shadow_result_release(res);
		return GT_ERR_NOMEM;
	}
	res->noutputs = ref->noutputs;
	res->status = GT_SHADOW_PASS;
	for (unsigned k = 0; k < ref->noutputs; k++) {
		const struct gt_ref_output *o = &ref->outputs[k];
		const struct gt_shadow_param *p = &l->params[o->param];
		struct gt_shadow_output *so = &res->outputs[k];
		so->param = o->param;
		so->decl = o;
		gt_compare_buffers(o->type, p->after + p->offset, c.base[o->param] + p->offset,
		                   p->before + p->offset, p->cp.alloc_bytes - p->offset, &o->tol, &so->cmp);
		if (!gt_compare_passed(&so->cmp) && res->status == GT_SHADOW_PASS) {
			char nb[32], tb[96];
			res->status = GT_SHADOW_FAIL;
			if (so->cmp.mismatches)
				snprintf(res->why, sizeof res->why, "%s: %llu of %llu elements outside %s, first at "
				         "[%llu]", output_name(o, nb, sizeof nb), (unsigned long long)so->cmp.mismatches,
				         (unsigned long long)so->cmp.elements, gt_tol_describe(&o->tol, tb, sizeof tb),
				         (unsigned long long)so->cmp.first_mismatch);
			else
				snprintf(res->why, sizeof res->why, "%s: %llu bytes after the last whole element "
				         "differ", output_name(o, nb, sizeof nb),
				         (unsigned long long)so->cmp.tail_mismatches);
		}
	}
	/* Every byte of an allocation before the lowest declared output in it (all of it when it holds
	 * none) must be as the reference left it: unchanged, unless the reference wrote it. */
	for (uint32_t i = 0; i < l->nparams; i++) {
		const struct gt_shadow_param *p = &l->params[i];
		if (!p->pointer || p->group != (int)i)
			continue;
		uint64_t from = p->cp.alloc_bytes;
		for (unsigned k = 0; k < ref->noutputs; k++) {
			const struct gt_shadow_param *q = &l->params[ref->outputs[k].param];
			if (q->group == (int)i && q->offset < from)
				from = q->offset;
		}
		struct gt_shadow_other *ot = &res->other[res->nother++];
		ot->param = i;
		ot->bytes = from;
		ot->differing = gt_compare_bytes(p->after, c.base[i], from, &ot->first);
		if (ot->differing && res->status == GT_SHADOW_PASS) {
			res->status = GT_SHADOW_FAIL;
			snprintf(res->why, sizeof res->why, "parameter %u: %llu bytes of its allocation outside "
			         "the declared outputs changed, first at byte %llu", i,
			         (unsigned long long)ot->differing, (unsigned long long)ot->first);
		}
	}
	gt_shadow_call_release(&c);
	return 0;
}

/* ---- the command's engine ------------------------------------------------------------------ */

static int collect(void *ctx, const struct gt_shadow_launch *l)
{
	struct gt_shadow_report *rep = ctx;
	struct gt_shadow_result *grown = gt_grow(rep->launches, &rep->cap, rep->n, sizeof *grown, 16);
	if (!grown)
		return GT_ERR_NOMEM;
	rep->launches = grown;
	struct gt_shadow_result *res = &rep->launches[rep->n];
	int rc = gt_shadow_check(l, res);
	if (rc)
		return rc;
	rep->n++;
	rep->count[res->status]++;
	return 0;
}

int gt_shadow_run(const char *path, const struct gt_refs *refs, const struct gt_name_filter *filter,
                  struct gt_shadow_report *rep)
{
	memset(rep, 0, sizeof *rep);
	return gt_shadow_walk(path, refs, filter, collect, rep, &rep->info);
}

void gt_shadow_report_release(struct gt_shadow_report *rep)
{
	if (!rep)
		return;
	for (size_t i = 0; i < rep->n; i++)
		gt_shadow_result_release(&rep->launches[i]);
	free(rep->launches);
	gt_shadow_walk_info_release(&rep->info);
	memset(rep, 0, sizeof *rep);
}

int gt_shadow_all_passed(const struct gt_shadow_report *rep)
{
	return rep->n > 0 && rep->count[GT_SHADOW_PASS] == rep->n;
}
