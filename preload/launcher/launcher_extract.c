/* launcher_extract.c: one captured launch written out as a standalone reproducer (see
 * launcher_extract.h). The trace is untrusted: everything is checked before the first file is
 * written, every string it supplies is escaped for where it lands, and each file is written under
 * a temporary name and renamed into place, so a failure leaves the user's files as they were. */
#define _POSIX_C_SOURCE 200809L
#include "preload/launcher/launcher_extract.h"

#include "traces/capture_set.h"
#include "preload/replay/captured_buffer.h"
#include "common/text_escape.h"
#include "cupti/nvinfo.h"
#include "traces/gputrace.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct xpatch {
	uint32_t param, param_offset, buffer;
	uint64_t offset;             /* into the buffer */
};

struct extract {
	const char *trace, *dir;
	const struct gt_captured_launch *l;
	struct captured_buffer *buf; /* the allocations pointer parameters point into */
	uint32_t nbuf;
	struct xpatch *patch;
	uint32_t npatch;
	int have_facts;
	struct nvinfo_image facts;
	uint32_t nstructs;           /* by-value struct parameters: written, their inner pointers stale */
	char *driver;                /* META cuda.driver, or NULL */
};

/* One line on stderr, every byte of it through the terminal text rule (the paths and names it
 * quotes are the user's and the trace's); returns 2. */
static int complain(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *msg = len < 0 ? NULL : malloc((size_t)len + 1);
	if (msg) {
		va_start(ap, fmt);
		if (vsnprintf(msg, (size_t)len + 1, fmt, ap) != len)
			msg[0] = '\0';
		va_end(ap);
	}
	gt_esc_line(stderr, "gputrace replay: %s", msg ? msg : "out of memory");
	free(msg);
	return 2;
}

/* ---- escaping ---------------------------------------------------------------------------------
 * Trace strings (kernel and device names, a path) are untrusted. Each escaper writes to f and
 * returns 0, or -1 when f reports an error.
 * extract_c_string: a C string literal, quotes included; only printable ASCII other than
 *   backslash, quote and '?' (trigraphs) appear as themselves, every other byte as a 3-digit octal
 *   escape; split into adjacent literals every 64 bytes so that no line grows without bound.
 * extract_md_text: Markdown inline text; every ASCII punctuation character backslash-escaped, any
 *   byte outside printable ASCII shown as the text \xHH.
 * extract_md_code: a Markdown code span: a backtick fence longer than the longest backtick run
 *   inside, padded with spaces; bytes outside printable ASCII shown as \xHH. */

static int extract_c_string(FILE *f, const char *s)
{
	size_t col = 0;
	if (fputc('"', f) == EOF)
		return -1;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		int c = *p, rc;
		if (col >= 64) {
			if (fputs("\"\n\t\"", f) == EOF)
				return -1;
			col = 0;
		}
		if (c == '\\' || c == '"' || c == '?')
			rc = fprintf(f, "\\%c", c);
		else if (c >= 0x20 && c < 0x7f)
			rc = fputc(c, f) == EOF ? -1 : 1;
		else
			rc = fprintf(f, "\\%03o", c); /* octal: always 3 digits, so the next byte is not taken in */
		if (rc < 0)
			return -1;
		col++;
	}
	return fputc('"', f) == EOF ? -1 : 0;
}

static int is_punct(int c)
{
	return (c >= 0x21 && c <= 0x2f) || (c >= 0x3a && c <= 0x40) || (c >= 0x5b && c <= 0x60) ||
	       (c >= 0x7b && c <= 0x7e);
}

static int extract_md_text(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		int c = *p, rc;
		if (is_punct(c))
			rc = fprintf(f, "\\%c", c);
		else if (c >= 0x20 && c < 0x7f)
			rc = fputc(c, f) == EOF ? -1 : 1;
		else
			rc = fprintf(f, "\\\\x%02X", (unsigned)c);
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int extract_md_code(FILE *f, const char *s)
{
	size_t run = 0, longest = 0;
	for (const char *p = s; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	for (size_t i = 0; i <= longest; i++)
		if (fputc('`', f) == EOF)
			return -1;
	if (fputc(' ', f) == EOF)
		return -1;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		int rc = *p >= 0x20 && *p < 0x7f ? (fputc(*p, f) == EOF ? -1 : 1) : fprintf(f, "\\x%02X", (unsigned)*p);
		if (rc < 0)
			return -1;
	}
	if (fputc(' ', f) == EOF)
		return -1;
	for (size_t i = 0; i <= longest; i++)
		if (fputc('`', f) == EOF)
			return -1;
	return 0;
}

/* ---- picking and checking the capture ---------------------------------------------------------- */

struct pick {
	uint64_t want, seen, lo, hi;
	int found;
};

static int pick_one(void *ctx, const struct gt_capture *c, const char *mangled)
{
	(void)mangled;
	struct pick *p = ctx;
	if (!p->seen || c->capture_id < p->lo)
		p->lo = c->capture_id;
	if (!p->seen || c->capture_id > p->hi)
		p->hi = c->capture_id;
	p->seen++;
	if (c->capture_id != p->want || p->found)
		return 0;
	p->found = 1;
	return 1;
}

/* Every reason not to write anything, said before anything is written; also fills buffers and
 * patches. 0 or 2 (said). */
static int check_capture(struct extract *x)
{
	const struct gt_captured_launch *l = x->l;
	uint64_t id = l->c.capture_id;
	if (!l->image)
		return complain("capture %" PRIu64 ": the module image is not in the trace%s", id,
		                l->c.cubin_blob_id ? " (its pieces are missing or cut short)" : "");
	x->have_facts = nvinfo_image_facts(l->image, (size_t)l->image_bytes, &x->facts) == 0;
	x->buf = calloc(l->c.nparams ? l->c.nparams : 1, sizeof *x->buf);
	x->patch = calloc(l->c.nparams ? l->c.nparams : 1, sizeof *x->patch);
	if (!x->buf || !x->patch)
		return complain("out of memory");
	for (uint32_t i = 0; i < l->c.nparams; i++) {
		const struct gt_captured_param *p = &l->params[i];
		const char *why = gt_captured_param_problem(l, i);
		if (why)
			return complain("capture %" PRIu64 " is not replayable: parameter %u (offset %u, %u bytes) %s", id, i,
			                p->p.offset, p->p.size, why);
		if (p->p.status == GT_PARAM_STRUCT)
			x->nstructs++;
		if (!GT_PARAM_IS_POINTER(p->p.kind) || p->p.status != GT_PARAM_OK)
			continue;
		uint32_t k = 0;
		while (k < x->nbuf && x->buf[k].base != p->p.alloc_base)
			k++;
		if (k == x->nbuf)
			x->buf[x->nbuf++] = captured_buffer_of(p, i);
		else if (x->buf[k].bytes != p->p.alloc_bytes)
			return complain("capture %" PRIu64 " is not replayable: parameters %u and %u disagree on the size of "
			                "their allocation", id, x->buf[k].param, i);
		uint64_t old;
		memcpy(&old, l->param_bytes + p->p.offset, 8);
		x->patch[x->npatch++] = (struct xpatch){ .param = i, .param_offset = p->p.offset, .buffer = k,
		                                         .offset = old - p->p.alloc_base };
	}
	return 0;
}

/* ---- the directory and its files ----------------------------------------------------------------- */

/* 0 when dir may be written (created here if missing), else 2 (said). */
static int prepare_dir(const char *dir, int replace)
{
	struct stat st;
	if (stat(dir, &st) != 0) {
		if (errno != ENOENT)
			return complain("%s: %s", dir, strerror(errno));
		if (mkdir(dir, 0777) != 0)
			return complain("cannot create %s: %s", dir, strerror(errno));
		return 0;
	}
	if (!S_ISDIR(st.st_mode))
		return complain("%s exists and is not a directory", dir);
	DIR *d = opendir(dir);
	if (!d)
		return complain("%s: %s", dir, strerror(errno));
	int empty = 1;
	struct dirent *e;
	errno = 0;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			empty = 0;
			break;
		}
	int rerr = errno;
	if (closedir(d) != 0 || (empty && rerr))
		return complain("%s: cannot list it: %s", dir, strerror(rerr ? rerr : errno));
	if (!empty && !replace)
		return complain("%s is not empty (-f overwrites the files the reproducer consists of, and only those)", dir);
	return 0;
}

/* Writes a file's contents: 0, or -1 on an error it saw. A fill may leave single fputs/fprintf
 * results unchecked: write_file tests the stream's error flag, then fclose, before renaming. */
typedef int (*fill_fn)(FILE *f, const struct extract *x, const void *arg);

/* Writes dir/name through fill: a temporary file in dir, renamed over name once complete. */
static int write_file(const struct extract *x, const char *name, fill_fn fill, const void *arg)
{
	char tmp[4096], path[4096];
	int a = snprintf(path, sizeof path, "%s/%s", x->dir, name);
	int b = snprintf(tmp, sizeof tmp, "%s/.%s.XXXXXX", x->dir, name);
	if (a < 0 || b < 0 || (size_t)a >= sizeof path || (size_t)b >= sizeof tmp)
		return complain("%s/%s: path too long", x->dir, name);
	int fd = mkstemp(tmp);
	if (fd < 0)
		return complain("cannot write in %s: %s", x->dir, strerror(errno));
	if (fchmod(fd, 0644) != 0) {
		int e = errno;
		close(fd);
		unlink(tmp);
		return complain("%s: %s", tmp, strerror(e));
	}
	FILE *f = fdopen(fd, "wb");
	if (!f) {
		int e = errno;
		close(fd);
		unlink(tmp);
		return complain("%s: %s", tmp, strerror(e));
	}
	errno = 0;
	int rc = fill(f, x, arg);
	int e = errno;
	if (ferror(f) && !rc)
		rc = -1;
	if (fclose(f) != 0 && !rc) {
		rc = -1;
		e = errno;
	}
	if (rc) {
		unlink(tmp);
		return complain("cannot write %s: %s", path, e ? strerror(e) : "write error");
	}
	if (rename(tmp, path) != 0) {
		e = errno;
		unlink(tmp);
		return complain("cannot write %s: %s", path, strerror(e));
	}
	return 0;
}

struct bytes {
	const uint8_t *p;
	uint64_t n;
};

static int fill_bytes(FILE *f, const struct extract *x, const void *arg)
{
	(void)x;
	const struct bytes *b = arg;
	return b->n && fwrite(b->p, 1, (size_t)b->n, f) != (size_t)b->n ? -1 : 0;
}

/* ---- repro.c -------------------------------------------------------------------------------------- */

static uint32_t dim(uint32_t v)
{
	return v ? v : 1;
}

static int clustered(const struct gt_capture *c)
{
	return c->cluster[0] > 1 || c->cluster[1] > 1 || c->cluster[2] > 1;
}

static int fill_repro(FILE *f, const struct extract *x, const void *arg)
{
	(void)arg;
	const struct gt_captured_launch *l = x->l;
	const struct gt_capture *c = &l->c;
	fprintf(f, "/* repro.c: GENERATED by `gputrace replay --extract %" PRIu64 "`: replays one captured kernel launch\n"
	        " * (see README.md). The block below is this capture's; the rest is the same in every reproducer.\n"
	        " *\n"
	        " *   cc -std=c11 -Wall -Wextra -Werror -O2 -I$CUDA_HOME/include repro.c -o repro -ldl\n"
	        " *   ./repro [-n N] [DIR]\n"
	        " *\n"
	        " * Exit status: 0 the replay's outputs are bit-exact with the run's, 1 they differ, 2 a file or\n"
	        " * CUDA error, 77 no usable GPU here (no driver, no device, another architecture). */\n",
	        c->capture_id);
	fputs("#define _POSIX_C_SOURCE 200809L\n#include <stddef.h>\n\n", f);
	/* An array, not a macro: the literal spans as many lines as the name needs. */
	fputs("/* The kernel, by its mangled name as the module knows it. */\n"
	      "static const char repro_kernel[] =\n\t", f);
	if (extract_c_string(f, l->name) != 0)
		return -1;
	fputs(";\n#define REPRO_KERNEL repro_kernel\n", f);
	fprintf(f, "/* The SASS architecture of module.cubin (10 * major + minor; 0: unknown). */\n#define REPRO_SM %u\n",
	        x->have_facts ? x->facts.sm : 0);
	fprintf(f, "\nstatic const unsigned repro_grid[3] = { %u, %u, %u };\n", dim(c->grid[0]), dim(c->grid[1]),
	        dim(c->grid[2]));
	fprintf(f, "static const unsigned repro_block[3] = { %u, %u, %u };\n", dim(c->block[0]), dim(c->block[1]),
	        dim(c->block[2]));
	fprintf(f, "/* Thread-block cluster dimensions; launched with cuLaunchKernelEx when REPRO_CLUSTERED. */\n"
	        "static const unsigned repro_cluster[3] = { %u, %u, %u };\n#define REPRO_CLUSTERED %d\n",
	        dim(c->cluster[0]), dim(c->cluster[1]), dim(c->cluster[2]), clustered(c));
	fprintf(f, "#define REPRO_DYNAMIC_SMEM %uu\n", c->dynamic_smem);
	fprintf(f, "\n/* params.bin: the parameter buffer as launched (%u bytes); each parameter's offset in it. */\n"
	        "#define REPRO_PARAM_BYTES %u\n#define REPRO_NPARAMS %u\n"
	        "static const unsigned repro_param_offset[REPRO_NPARAMS + 1] = {", c->param_bytes, c->param_bytes,
	        l->declared);
	/* The kernel's own parameters only: pointers found inside structs are patched, not passed. */
	for (uint32_t i = 0; i < l->declared; i++)
		fprintf(f, "%s%u", i == 0 ? "\n\t" : i % 16 ? ", " : ",\n\t", l->params[i].p.offset);
	fputs(l->declared ? ",\n\t0 /* end */\n};\n" : " 0 /* none */ };\n", f);
	fprintf(f, "\n/* One device allocation per buffer<K>.before.bin; changed: the kernel changed it in the run\n"
	        " * (its bytes after differ from those before), so it is restored before each launch and checked. */\n"
	        "struct repro_buffer {\n\tunsigned long long bytes;\n\tint changed;\n};\n#define REPRO_NBUFFERS %u\n"
	        "static const struct repro_buffer repro_buffer[REPRO_NBUFFERS + 1] = {\n", x->nbuf);
	for (uint32_t k = 0; k < x->nbuf; k++)
		fprintf(f, "\t{ %" PRIu64 "ull, %d }, /* buffer%u: first passed as parameter %u */\n", x->buf[k].bytes,
		        x->buf[k].changed, k, x->buf[k].param);
	fputs("\t{ 0, 0 } /* end */\n};\n", f);
	fprintf(f, "\n/* The pointer parameters: at param_offset in params.bin, rewritten to the new allocation of\n"
	        " * buffer, plus offset. */\n"
	        "struct repro_patch {\n\tunsigned param_offset, buffer;\n\tunsigned long long offset;\n};\n"
	        "#define REPRO_NPATCHES %u\n"
	        "static const struct repro_patch repro_patch[REPRO_NPATCHES + 1] = {\n", x->npatch);
	for (uint32_t p = 0; p < x->npatch; p++)
		fprintf(f, "\t{ %u, %u, %" PRIu64 "ull }, /* parameter %u */\n", x->patch[p].param_offset,
		        x->patch[p].buffer, x->patch[p].offset, x->patch[p].param);
	fputs("\t{ 0, 0, 0 } /* end */\n};\n", f);
	if (x->nstructs)
		fprintf(f, "\n/* NOTE: %u parameter(s) are by-value structs, passed with the run's bytes: any pointer inside\n"
		        " * them still holds the run's address, which means nothing in this process. */\n", x->nstructs);
	fputs("\n", f);
	return fputs(launcher_extract_template, f) == EOF ? -1 : 0;
}

/* ---- Makefile and README ------------------------------------------------------------------------------ */

static int fill_makefile(FILE *f, const struct extract *x, const void *arg)
{
	(void)x;
	(void)arg;
	fputs("# Makefile: builds and runs the reproducer (GENERATED by gputrace replay --extract).\n"
	      "CUDA_HOME ?= /usr/local/cuda\n"
	      "CC ?= cc\n"
	      "CFLAGS ?= -std=c11 -Wall -Wextra -Werror -O2\n"
	      "N ?= 100\n\n"
	      ".PHONY: all run clean\n"
	      "all: repro\n\n"
	      "repro: repro.c\n"
	      "\t$(CC) $(CFLAGS) -I$(CUDA_HOME)/include repro.c -o repro -ldl\n\n"
	      "run: repro\n"
	      "\t./repro -n $(N) .\n\n"
	      "clean:\n"
	      "\trm -f repro\n",
	      f);
	return 0;
}

static int fill_readme(FILE *f, const struct extract *x, const void *arg)
{
	(void)arg;
	const struct gt_captured_launch *l = x->l;
	const struct gt_capture *c = &l->c;
	fputs("# Reproducer of one captured kernel launch\n\nOne launch of the kernel ", f);
	if (extract_md_code(f, l->name) != 0)
		return -1;
	fputs(" (its mangled name), written by `gputrace replay --extract` from a trace recorded with shadow "
	      "capture.\n\n## Where it came from\n\n- Trace: ", f);
	if (extract_md_code(f, x->trace) != 0)
		return -1;
	fprintf(f, "\n- Capture id: %" PRIu64 "; launch %u of this kernel (0-based)\n- Device: ", c->capture_id,
	        c->launch_index);
	if (!l->device_name[0])
		fputs("unknown", f);
	else if (extract_md_text(f, l->device_name) != 0)
		return -1;
	if (l->cc_major)
		fprintf(f, ", compute capability %u.%u", l->cc_major, l->cc_minor);
	fputs("\n", f);
	if (x->driver) {
		fputs("- CUDA driver (the trace's cuda.driver): ", f);
		if (extract_md_text(f, x->driver) != 0)
			return -1;
		fputs("\n", f);
	}
	fprintf(f, "\n## Launch configuration\n\n- Grid: %u x %u x %u\n- Block: %u x %u x %u\n", dim(c->grid[0]),
	        dim(c->grid[1]), dim(c->grid[2]), dim(c->block[0]), dim(c->block[1]), dim(c->block[2]));
	if (clustered(c))
		fprintf(f, "- Cluster: %u x %u x %u (launched with cuLaunchKernelEx)\n", dim(c->cluster[0]),
		        dim(c->cluster[1]), dim(c->cluster[2]));
	fprintf(f, "- Dynamic shared memory: %u bytes\n- Parameters: %u, %u bytes (`params.bin`)", c->dynamic_smem,
	        l->declared, c->param_bytes);
	if (c->nparams > l->declared)
		fprintf(f, "; %u pointers inside by-value structs, found by the recorder and patched like the others",
		        c->nparams - l->declared);
	fputc('\n', f);
	fputs("\n## Buffers\n\nOne device allocation of the run each; every pointer parameter into it is moved to "
	      "the reproducer's own allocation, at the same offset.\n\n", f);
	if (!x->nbuf)
		fputs("None: the kernel takes no pointer to captured memory.\n", f);
	else
		fputs("| buffer | bytes | changed by the kernel | first parameter |\n|---|---|---|---|\n", f);
	for (uint32_t k = 0; k < x->nbuf; k++)
		fprintf(f, "| `buffer%u` | %" PRIu64 " | %s | %u |\n", k, x->buf[k].bytes,
		        x->buf[k].changed ? "yes (restored before each launch, checked)" : "no", x->buf[k].param);
	fputs("\n`buffer<K>.before.bin` holds the allocation's bytes before the launch, `buffer<K>.after.bin` after "
	      "it completed.\n\n## Build and run\n\n    make            # cc -std=c11 ... repro.c -o repro -ldl "
	      "(CUDA_HOME ?= /usr/local/cuda: only cuda.h is needed)\n    make run        # ./repro -n 100 .\n"
	      "    ./repro [-n N] [DIR]\n\n"
	      "It loads `module.cubin`, fills the buffers from the `.before.bin` files, launches once, compares every "
	      "changed buffer with its `.after.bin` bit for bit, then times N more launches (default 100) with CUDA "
	      "events, restoring the changed buffers before each, and prints the median, minimum and maximum in "
	      "microseconds. libcuda is opened with dlopen, so it builds and starts without a driver.\n\n"
	      "Exit status: 0 bit-exact with the run; 1 an output differs; 2 a missing or wrong file, or a CUDA "
	      "error; 77 no usable GPU here (no driver, no device, another architecture).\n\n## Limits\n\n", f);
	if (x->have_facts && x->facts.sm)
		fprintf(f, "- `module.cubin` holds SASS for sm_%u only (no PTX): it runs only on GPUs of compute "
		        "capability %u.x.\n", x->facts.sm, x->facts.sm / 10);
	else
		fputs("- The architecture of `module.cubin` could not be read: it is the binary the driver loaded, and "
		      "runs only on GPUs of the architecture it was built for.\n", f);
	fputs("- Pointers held inside by-value structs or inside device memory are not followed: only memory a "
	      "pointer parameter points into was captured.\n", f);
	if (x->nstructs)
		fprintf(f, "- This launch has %u by-value struct parameter(s): they are passed with the run's bytes, so "
		        "any pointer inside them is stale (it holds an address of the recorded process).\n", x->nstructs);
	if (x->have_facts && x->facts.state_sections)
		fprintf(f, "- The module has `__device__` or `__constant__` variables (%" PRIu64 " bytes in %u sections): "
		        "their values at the launch were not captured; the reproducer starts from the module's "
		        "initial values.\n", x->facts.state_bytes, x->facts.state_sections);
	else
		fputs("- `__device__` and `__constant__` variables (none found in this module) would start from their "
		      "initial values, not from those at the launch.\n", f);
	return fputs("- Textures and surfaces are not captured.\n", f) == EOF ? -1 : 0;
}

/* META cuda.driver, when the trace has it (a copy, or NULL). */
static char *driver_meta(const char *trace)
{
	struct gt_reader *r;
	if (gt_reader_open(&r, trace, NULL, 0) != 0)
		return NULL;
	char *v = NULL;
	if (gt_reader_scan_definitions(r) == 0) {
		const char *m = gt_reader_meta(r, "cuda.driver");
		if (m)
			v = strdup(m);
	}
	gt_reader_close(r);
	return v;
}

static int write_all(struct extract *x)
{
	const struct gt_captured_launch *l = x->l;
	struct bytes image = { l->image, l->image_bytes }, params = { l->param_bytes, l->c.param_bytes };
	if (write_file(x, "module.cubin", fill_bytes, &image) || write_file(x, "params.bin", fill_bytes, &params))
		return 2;
	for (uint32_t k = 0; k < x->nbuf; k++) {
		char name[64];
		struct bytes before = { x->buf[k].before, x->buf[k].bytes }, after = { x->buf[k].after, x->buf[k].bytes };
		snprintf(name, sizeof name, "buffer%u.before.bin", k);
		if (write_file(x, name, fill_bytes, &before))
			return 2;
		snprintf(name, sizeof name, "buffer%u.after.bin", k);
		if (write_file(x, name, fill_bytes, &after))
			return 2;
	}
	if (write_file(x, "repro.c", fill_repro, NULL) || write_file(x, "Makefile", fill_makefile, NULL) ||
	    write_file(x, "README.md", fill_readme, NULL))
		return 2;
	return 0;
}

int launcher_extract(const char *trace, uint64_t capture_id, const char *dir, int replace)
{
	struct gt_capture_set set;
	struct pick pick = { .want = capture_id };
	char err[512];
	if (gt_capture_set_load(&set, trace, pick_one, &pick, err, sizeof err) != 0)
		return complain("%s", err[0] ? err : "cannot read the trace");
	int rc;
	if (!set.n) {
		if (!pick.seen)
			rc = complain("%s holds no captured launch (record with shadow capture)", trace);
		else
			rc = complain("%s has no capture %" PRIu64 ": it holds %" PRIu64 " captures, ids %" PRIu64 " to %" PRIu64,
			              trace, capture_id, pick.seen, pick.lo, pick.hi);
		gt_capture_set_release(&set);
		return rc;
	}
	struct extract x = { .trace = trace, .dir = dir, .l = &set.launch[0] };
	rc = check_capture(&x);
	if (!rc)
		rc = prepare_dir(dir, replace);
	if (!rc) {
		x.driver = driver_meta(trace);
		rc = write_all(&x);
	}
	free(x.buf);
	free(x.patch);
	free(x.driver);
	gt_capture_set_release(&set);
	return rc;
}
