/* test_analyze_escape.c: analyze/output/escape.c's rules, byte for byte, and a writer of hostile traces.
 *
 * The unit tests pin each format's rule on the strings that attack it: a newline followed by a
 * Markdown heading, a spreadsheet formula, terminal escape sequences, HTML, table pipes, backtick
 * fences, bytes that are not UTF-8 (a stray 0xff, a truncated sequence, an overlong form, a
 * surrogate, a code point beyond U+10FFFF), C1 controls and bidirectional overrides. They also run
 * output.h's table and notes in every format on such a cell.
 *
 * `test_analyze_escape write DIR` writes the traces of tests/cli/test_output_escaping.sh: three
 * hostile traces (hostile-a, -b, -c) whose every string the analyzer prints is hostile (kernel,
 * API, NVTX range and domain names, metadata keys and values, the device's name, a captured
 * kernel's name), and their twins (twin-a, -b, -c) with the same records under plain names. The
 * script runs every command in every format on both and compares the structure of the outputs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/output/escape.h"
#include "analyze/output/output.h"
#include "analyze/output/output_direct.h"
#include "traces/gputrace.h"
#include "tests/unit/test_shadow_synth.h"

#define FFFD "\xef\xbf\xbd"

/* ---- the strings ---------------------------------------------------------------------------- */

#define FORGE "\n## Correctness\n- passed"
#define FORMULA "=cmd|' /C calc'!A0"
#define TERMINAL "\x1b[2J\x1b]0;owned\x07\x1b[31mred"
#define HTML "<script>alert(1)</script> & <b>"
#define PIPES "a|b\\|c"
#define BAD_UTF8                                                                                   \
	"bad \xff\xfe trunc \xc3 \xe2\x82 overlong \xc0\xaf \xe0\x80\xaf surrogate \xed\xa0\x80 big "         \
	"\xf4\x90\x80\x80 end"
#define FENCES "```js `tick` ``x``"
#define MARKUP "+1 @at *em* _u_ [l](http://x) ![i](y) # h ~~s~~ \\ C1 \xc2\x9b[1m bidi \xe2\x80\xae tab\tcr\r"

static char *run_esc(gt_escaper *esc, const char *s)
{
	char *e = gt_esc_dup(esc, s);
	assert_non_null(e);
	return e;
}

static void expect(gt_escaper *esc, const char *in, const char *want)
{
	char *got = run_esc(esc, in);
	assert_string_equal(got, want);
	free(got);
}

static void test_utf8_validator(void **state)
{
	(void)state;
	uint32_t cp;
	assert_int_equal(gt_utf8_len((const unsigned char *)"a", &cp), 1);
	assert_int_equal(gt_utf8_len((const unsigned char *)"\xc2\xb5", &cp), 2);
	assert_int_equal(cp, 0xb5);
	assert_int_equal(gt_utf8_len((const unsigned char *)"\xe2\x82\xac", &cp), 3);
	assert_int_equal(cp, 0x20ac);
	assert_int_equal(gt_utf8_len((const unsigned char *)"\xf0\x9f\x98\x80", &cp), 4);
	assert_int_equal(cp, 0x1f600);
	static const char *const bad[] = { "\xff", "\xfe", "\x80", "\xc3", "\xc3(", "\xe2\x82", "\xc0\xaf",
		                           "\xc1\xbf", "\xe0\x80\xaf", "\xf0\x80\x80\xaf", "\xed\xa0\x80",
		                           "\xf4\x90\x80\x80", "\xf5\x80\x80\x80" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(gt_utf8_len((const unsigned char *)bad[i], &cp), 0);
}

static void test_text_rule(void **state)
{
	(void)state;
	expect(gt_esc_text, "composite(Splat const*, float*, int)", "composite(Splat const*, float*, int)");
	expect(gt_esc_text, FORGE, "\\n## Correctness\\n- passed");
	expect(gt_esc_text, TERMINAL, "\\x1b[2J\\x1b]0;owned\\x07\\x1b[31mred");
	expect(gt_esc_text, "del\x7f c1\xc2\x9b bidi\xe2\x80\xae iso\xe2\x81\xa6 tab\t cr\r",
	       "del\\x7f c1\\u009b bidi\\u202e iso\\u2066 tab\\t cr\\r");
	expect(gt_esc_text, BAD_UTF8,
	       "bad " FFFD FFFD " trunc " FFFD " " FFFD FFFD " overlong " FFFD FFFD " " FFFD FFFD FFFD
	       " surrogate " FFFD FFFD FFFD " big " FFFD FFFD FFFD FFFD " end");
	expect(gt_esc_text, "\xc2\xb5s \xe2\x86\x92 ok", "\xc2\xb5s \xe2\x86\x92 ok");
	assert_true(gt_esc_text_plain("\xc2\xb5s plain", 9));
	assert_false(gt_esc_text_plain("a\nb", 3));
	assert_false(gt_esc_text_plain("\xc2\x9b", 2));
	assert_false(gt_esc_text_plain("\xe2\x82\xac", 2)); /* a sequence cut by the length */
}

static void test_markdown_rule(void **state)
{
	(void)state;
	/* Running text: nothing can start a line, a heading or a list. */
	expect(gt_esc_md, FORGE, " \\#\\# Correctness - passed");
	expect(gt_esc_md, "- passed", "\\- passed");
	expect(gt_esc_md, "  + x", "  \\+ x");
	expect(gt_esc_md, "12. item", "12\\. item");
	expect(gt_esc_md, "1.5 ms", "1.5 ms");
	expect(gt_esc_md, HTML, "\\<script\\>alert(1)\\</script\\> \\& \\<b\\>");
	expect(gt_esc_md, "[l](x) ![i](y) *e* _u_ ~~s~~ a|b `c` \\",
	       "\\[l\\](x) !\\[i\\](y) \\*e\\* \\_u\\_ \\~\\~s\\~\\~ a\\|b \\`c\\` \\\\");
	expect(gt_esc_md, TERMINAL, "\\\\x1b\\[2J\\\\x1b\\]0;owned\\\\x07\\\\x1b\\[31mred");
	expect(gt_esc_md, "bad\xff", "bad" FFFD);
	/* A table cell: the same, but a '#' or a leading '-' is only text there. */
	expect(gt_esc_md_cell, "#", "#");
	expect(gt_esc_md_cell, "- x|y", "- x\\|y");
	expect(gt_esc_md_cell, "call->queued", "call-\\>queued");
	/* Code spans: longer fences than any run inside, '|' escaped only in a table. */
	expect(gt_esc_md_code, "composite(Splat const*, float*, int)", "`composite(Splat const*, float*, int)`");
	expect(gt_esc_md_code, FENCES, "```` ```js `tick` ``x`` ````");
	expect(gt_esc_md_code, "a|b\nc", "`a|b c`");
	expect(gt_esc_md_code_cell, "a|b\nc", "`a\\|b c`");
	/* GFM pairs backslashes before it splits cells: a name's own backslash before a pipe gets one
	 * more, so that the pipe stays escaped. */
	expect(gt_esc_md_code_cell, "a\\|b", "`a\\\\\\|b`");
	expect(gt_esc_md_code_cell, "a\\\\|b", "`a\\\\\\|b`");
	expect(gt_esc_md_code, "esc\x1b[0m\xff", "`esc\\x1b[0m" FFFD "`");
	expect(gt_esc_md_code, "", "");
}

static void test_csv_rule(void **state)
{
	(void)state;
	expect(gt_esc_csv, "plain", "plain");
	expect(gt_esc_csv, "a,b", "\"a,b\"");
	expect(gt_esc_csv, "say \"hi\"", "\"say \"\"hi\"\"\"");
	expect(gt_esc_csv, "two\nlines", "\"two\nlines\"");
	expect(gt_esc_csv, FORMULA, "'" FORMULA);
	expect(gt_esc_csv, "=1,2", "\"'=1,2\"");
	expect(gt_esc_csv, "+1", "'+1");
	expect(gt_esc_csv, "-1.5", "'-1.5"); /* a string that looks like a number is still a string */
	expect(gt_esc_csv, "@SUM(A1)", "'@SUM(A1)");
	expect(gt_esc_csv, "\tx", "'\tx");
	expect(gt_esc_csv, "\rx", "\"'\rx\"");
	expect(gt_esc_csv, "a=b-c", "a=b-c");
	expect(gt_esc_csv, "bad\xff\xc3", "bad" FFFD FFFD);
}

static void test_json_and_xml_rules(void **state)
{
	(void)state;
	expect(gt_esc_json, "q\"b\\s\x01\n\x1b", "\"q\\\"b\\\\s\\u0001\\n\\u001b\"");
	expect(gt_esc_json, "bad\xff\xc0\xaf", "\"bad\\ufffd\\ufffd\\ufffd\"");
	expect(gt_esc_xml, HTML, "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;");
	expect(gt_esc_xml, "'\"\t\n\x1b\x7f\xef\xbf\xbe\xff", "&apos;&quot;&#9;&#10;" FFFD FFFD FFFD FFFD);
}

/* A link target keeps the unreserved characters and / and percent-encodes every other byte, so a
 * file name with a space, ')' or '%' still names its file. */
static void test_link_rule(void **state)
{
	(void)state;
	expect(gt_esc_link, "out/REPORT-kernels.svg", "out/REPORT-kernels.svg");
	expect(gt_esc_link, "run 1-kernels.svg", "run%201-kernels.svg");
	expect(gt_esc_link, "a)b(c%d<e>\n\x7f\xc3\xa9~_", "a%29b%28c%25d%3Ce%3E%0A%7F%C3%A9~_");
	expect(gt_esc_link, "", "");
}

static void test_printf_escapes_only_arguments(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	gt_esc_printf(f, gt_esc_text, "%s|%5s|%-4s|%.3s|%d %lld %zu %5.2f %x %c %% %llu\n", "a\nb", "\x1b", "x",
	              "abcdef", -3, -4ll, (size_t)5, 1.5, 255u, 'z', 18446744073709551615ull);
	gt_esc_printf(f, gt_esc_md, "- %s: %*d\n", "*x*", 4, 7);
	fclose(f);
	assert_string_equal(buf, "a\\nb| \\x1b|x   |abc|-3 -4 5  1.50 ff z % 18446744073709551615\n- \\*x\\*:    7\n");
	free(buf);
}

/* ---- output.h on a hostile cell -------------------------------------------------------------- */

static char *table_in(enum gt_format fmt, const char *cell)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	struct gt_json j;
	gt_json_init(&j, f);
	struct gt_table *t = gt_table_new(fmt, f, &j);
	assert_non_null(t);
	gt_table_column(t, "name", "name", GT_COL_LEFT | GT_COL_CODE);
	gt_table_column(t, "label", "label", GT_COL_LEFT);
	gt_table_column(t, "v", "v", 0);
	gt_table_str(t, cell);
	gt_table_str(t, cell);
	gt_table_num(t, -1.5, 1);
	gt_table_end_row(t);
	assert_int_equal(gt_table_finish(t), 0);
	gt_table_free(t);
	if (fmt == GT_FMT_JSON)
		gt_json_finish(&j);
	gt_out_note(f, fmt, "note: %s", cell);
	fclose(f);
	return buf;
}

static void test_table_and_notes_escape_every_format(void **state)
{
	(void)state;
	const char *cell = FORGE " " FORMULA " " TERMINAL " " PIPES " " BAD_UTF8 " " MARKUP;
	char *text = table_in(GT_FMT_TEXT, cell);
	for (const unsigned char *p = (const unsigned char *)text; *p; p++)
		assert_true(*p >= 0x20 || *p == '\n');
	/* header, rule, one row, one note */
	size_t lines = 0;
	for (const char *p = text; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 4);
	assert_non_null(strstr(text, "\\n## Correctness\\n- passed"));
	free(text);

	char *md = table_in(GT_FMT_MD, cell);
	assert_null(strstr(md, "\n#"));
	assert_null(strstr(md, "\x1b"));
	assert_non_null(strstr(md, "\n- note:  \\#\\# Correctness - passed"));
	lines = 0;
	for (const char *p = md; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 4);
	free(md);

	char *csv = table_in(GT_FMT_CSV, FORMULA);
	assert_string_equal(csv, "name,label,v\n'" FORMULA ",'" FORMULA ",-1.5\n");
	free(csv);

	char *json = table_in(GT_FMT_JSON, "bad\xff");
	assert_non_null(strstr(json, "\"name\": \"bad\\ufffd\""));
	free(json);
}

/* ---- hostile traces -------------------------------------------------------------------------- */

#define NK 10
#define FRAMES 12
#define T0 1000000000ull
#define FRAME_NS 1000000ull

/* Every string a trace can carry to an output; the twin has plain ones in the same places. */
struct names {
	const char *kernel[NK];
	const char *api, *range, *inner, *domain, *domain_range, *mark, *device, *captured;
	const char *meta_key, *meta_value, *synthetic, *host, *rank_bad;
};

static const struct names hostile = {
	{ FORGE, FORMULA, TERMINAL, HTML, PIPES, BAD_UTF8, FENCES, MARKUP, "-1.5", "1. item" },
	"cudaLaunchKernel\x1b[2J" FORGE,
	FORGE,
	"<inner>|`x`" FORMULA,
	"=dom\x1b[0m|<d>\n# dom",
	"[range](http://evil) " BAD_UTF8,
	"mark\x1b]8;;http://evil\x1b\\link" FORGE,
	"NVIDIA \x1b[5mH200 <gpu> | `x`\n# dev " BAD_UTF8,
	"```" FORGE "\n```\n" TERMINAL,
	"evil.key\x1b[2J\n## Key|=",
	FORGE " " FORMULA " " TERMINAL " " HTML " " PIPES " " BAD_UTF8 " " FENCES,
	"=SYNTH" FORGE "\x1b[2J",
	"host\x1b[2J" FORGE "|<h>",
	"=1" FORGE "\x1b",
};

static const struct names twin = {
	{ "kernel_a", "kernel_b", "kernel_c", "kernel_d", "kernel_e", "kernel_f", "kernel_g", "kernel_h",
	  "kernel_i", "kernel_j" },
	"cudaLaunchKernel",
	"frame",
	"inner",
	"library",
	"library range",
	"mark",
	"NVIDIA H200",
	"captured_kernel",
	"plain.key",
	"plain value",
	"1",
	"plainhost",
	"one",
};

static const char *const meta_keys[] = {
	"process.name", "process.start_utc", "process.cmdline", "process.command_line", "host.cpu",
	"host.cpus", "host.os", "host.kernel", "cuda.driver", "cuda.driver_api", "cuda.runtime",
	"cupti.api_version", "tool.version", "tool.injected_by", "trace.activities", "trace.kernel_filter",
};

static int w_meta(struct gt_writer *w, const struct names *n, int which)
{
	int rc = 0;
	for (size_t i = 0; i < sizeof meta_keys / sizeof meta_keys[0] && !rc; i++)
		rc = gt_writer_meta(w, meta_keys[i], n->meta_value);
	if (!rc)
		rc = gt_writer_meta(w, n->meta_key, n->meta_value);
	if (!rc)
		rc = gt_writer_meta(w, "host.name", n->host);
	/* a and c claim one process (ranks warns, naming the host); b is another rank. */
	if (!rc)
		rc = gt_writer_meta(w, "process.pid", which == 1 ? "101" : "100");
	if (!rc)
		rc = gt_writer_meta(w, "process.rank", which == 2 ? n->rank_bad : which == 1 ? "1" : "0");
	if (!rc)
		rc = gt_writer_meta(w, "process.rank_from", n->meta_value);
	return rc;
}

static int w_device(struct gt_writer *w, const struct names *n)
{
	struct gt_device d;
	memset(&d, 0, sizeof d);
	d.sm_count = 132;
	d.cc_major = 9;
	d.global_mem_bytes = 150754820096ull;
	d.sm_clock_khz = 1980000;
	d.mem_clock_khz = 2619000;
	d.mem_bus_width_bits = 6144;
	d.pcie_gen = d.pcie_gen_current = 5;
	d.pcie_width = d.pcie_width_current = 16;
	d.l2_bytes = 62914560;
	d.max_threads_per_sm = 2048;
	for (int i = 0; i < 16; i++)
		d.uuid[i] = (uint8_t)(0x10 + i);
	return gt_writer_device(w, &d, n->device);
}

static int w_nvtx(struct gt_writer *w, const char *domain, const char *name, uint64_t start, uint64_t end,
                  uint32_t depth)
{
	struct gt_nvtx x;
	memset(&x, 0, sizeof x);
	x.start = start;
	x.end = end;
	x.thread_id = 1;
	x.depth = depth;
	x.kind = start == end ? GT_NVTX_MARK : GT_NVTX_PUSH_POP;
	if (!(x.name_id = gt_writer_intern(w, name)) || (domain && !(x.domain_id = gt_writer_intern(w, domain))))
		return GT_ERR_NOMEM;
	return gt_writer_add(w, GT_REC_NVTX, &x);
}

static int w_launch(struct gt_writer *w, const struct names *n, int k, uint64_t start, uint64_t ns, uint32_t corr)
{
	struct gt_api a;
	memset(&a, 0, sizeof a);
	a.start = start - 30000;
	a.end = start - 25000;
	a.thread_id = 1;
	a.correlation_id = corr;
	a.process_id = 100;
	a.domain = GT_API_RUNTIME;
	if (!(a.name_id = gt_writer_intern(w, n->api)))
		return GT_ERR_NOMEM;
	int rc = gt_writer_add(w, GT_REC_API, &a);
	struct gt_kernel x;
	memset(&x, 0, sizeof x);
	x.start = start;
	x.end = start + ns;
	x.correlation_id = corr;
	x.context_id = 1;
	x.stream_id = 7;
	x.grid_x = x.grid_y = x.grid_z = 1;
	x.block_x = 128;
	x.block_y = x.block_z = 1;
	x.registers = 32;
	if (!rc && !(x.name_id = gt_writer_intern(w, n->kernel[k])))
		return GT_ERR_NOMEM;
	return rc ? rc : gt_writer_add(w, GT_REC_KERNEL, &x);
}

/* One frame: a range around launches of every kernel, a synchronous pageable copy, a memset, a
 * device synchronisation, a range in a library's domain and a mark. */
static int w_frame(struct gt_writer *w, const struct names *n, int f, int slow)
{
	uint64_t s = T0 + (uint64_t)f * FRAME_NS;
	int rc = w_nvtx(w, NULL, n->range, s, s + FRAME_NS - 10000, 0);
	if (!rc)
		rc = w_nvtx(w, NULL, n->mark, s + 5000, s + 5000, 1);
	if (!rc)
		rc = w_nvtx(w, NULL, n->inner, s + 40000, s + 600000, 1);
	for (int k = 0; k < NK && !rc; k++) {
		uint64_t ns = 20000 + 1000 * (uint64_t)k + (uint64_t)(f % 3) * 100;
		if (slow && k < 3)
			ns = ns * 13 / 10;
		rc = w_launch(w, n, k, s + 50000 + 50000 * (uint64_t)k, ns, (uint32_t)(f * 100 + k + 1));
	}
	struct gt_memcpy m;
	memset(&m, 0, sizeof m);
	m.start = s + 700000;
	m.end = s + 800000;
	m.bytes = 1 << 20;
	m.context_id = 1;
	m.stream_id = 7;
	m.copy_kind = GT_COPY_HTOD;
	m.src_kind = GT_MEM_PAGEABLE;
	m.dst_kind = GT_MEM_DEVICE;
	if (!rc)
		rc = gt_writer_add(w, GT_REC_MEMCPY, &m);
	struct gt_memset ms;
	memset(&ms, 0, sizeof ms);
	ms.start = s + 810000;
	ms.end = s + 820000;
	ms.bytes = 4096;
	ms.stream_id = 7;
	ms.mem_kind = GT_MEM_DEVICE;
	if (!rc)
		rc = gt_writer_add(w, GT_REC_MEMSET, &ms);
	struct gt_sync y;
	memset(&y, 0, sizeof y);
	y.start = s + 900000;
	y.end = s + 950000;
	y.stream_id = 0xffffffffu;
	y.kind = GT_SYNC_CONTEXT;
	if (!rc)
		rc = gt_writer_add(w, GT_REC_SYNC, &y);
	if (!rc)
		rc = w_nvtx(w, n->domain, n->domain_range, s + 610000, s + 650000, 1);
	return rc;
}

/* A captured launch: no reference library has a kernel of that name, so shadow and report print it
 * (its name begins the first line of shadow's Markdown code block). */
static int w_capture(struct gt_writer *w, const struct names *n)
{
	static float before[4] = { 1, 2, 3, 4 }, after[4] = { 2, 3, 4, 5 };
	struct synth_launch l = { n->captured, 1, 0, { 1, 1, 1 }, { 4, 1, 1 }, 0, 0 };
	struct synth_param p[2] = { synth_i32(4), synth_ptr(0x7000000000ull, 0, sizeof before, before, after) };
	return synth_capture(w, &l, p, 2);
}

static int w_trace(const char *path, const struct names *n, int which)
{
	struct gt_writer *w = synth_open(path, n->synthetic, 0);
	if (!w)
		return GT_ERR_IO;
	int rc = w_meta(w, n, which);
	if (!rc)
		rc = w_device(w, n);
	struct gt_clock_sync cs = { T0, 1700000000000000000ull + T0, 50000000000ull + T0 };
	if (!rc)
		rc = gt_writer_add(w, GT_REC_CLOCK_SYNC, &cs);
	for (int f = 0; f < FRAMES && !rc; f++)
		rc = w_frame(w, n, f, which == 1);
	struct gt_dropped d = { T0 + 100, 3, GT_DROP_CUPTI, 0, 0, 0 };
	if (!rc)
		rc = gt_writer_add(w, GT_REC_DROPPED, &d);
	if (!rc)
		rc = w_capture(w, n);
	cs = (struct gt_clock_sync){ T0 + FRAMES * FRAME_NS, cs.realtime_ns + FRAMES * FRAME_NS,
		                     cs.monotonic_ns + FRAMES * FRAME_NS };
	if (!rc)
		rc = gt_writer_add(w, GT_REC_CLOCK_SYNC, &cs);
	if (rc) {
		gt_writer_abandon(w);
		return rc;
	}
	return gt_writer_close(w);
}

static int write_all(const char *dir)
{
	static const char *const which[] = { "a", "b", "c" };
	char path[4096];
	int rc = 0;
	for (int i = 0; i < 3 && !rc; i++) {
		snprintf(path, sizeof path, "%s/hostile-%s.gtrace", dir, which[i]);
		rc = w_trace(path, &hostile, i);
		snprintf(path, sizeof path, "%s/twin-%s.gtrace", dir, which[i]);
		if (!rc)
			rc = w_trace(path, &twin, i);
	}
	return rc;
}

static void test_hostile_traces_are_written(void **state)
{
	(void)state;
	char dir[] = "/tmp/gt_escape_XXXXXX";
	assert_non_null(mkdtemp(dir));
	assert_int_equal(write_all(dir), 0);
	char path[64];
	snprintf(path, sizeof path, "%s/hostile-a.gtrace", dir);
	struct gt_reader *r;
	char err[256];
	assert_int_equal(gt_reader_open(&r, path, err, sizeof err), 0);
	assert_int_equal(gt_reader_scan_definitions(r), 0);
	const char *v = gt_reader_meta(r, "host.name");
	assert_non_null(v);
	assert_string_equal(v, hostile.host); /* the reader keeps the bytes; escaping is the output's */
	gt_reader_close(r);
	static const char *const which[] = { "a", "b", "c" };
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof path, "%s/hostile-%s.gtrace", dir, which[i]);
		unlink(path);
		snprintf(path, sizeof path, "%s/twin-%s.gtrace", dir, which[i]);
		unlink(path);
	}
	rmdir(dir);
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "write") == 0) {
		if (mkdir(argv[2], 0777) != 0 && errno != EEXIST) {
			fprintf(stderr, "test_analyze_escape: cannot create '%s': %s\n", argv[2], strerror(errno));
			return 1;
		}
		int rc = write_all(argv[2]);
		if (rc)
			fprintf(stderr, "test_analyze_escape: cannot write the traces in '%s': %s\n", argv[2],
			        gt_strerror(rc));
		return rc ? 1 : 0;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8_validator),
		cmocka_unit_test(test_text_rule),
		cmocka_unit_test(test_markdown_rule),
		cmocka_unit_test(test_csv_rule),
		cmocka_unit_test(test_json_and_xml_rules),
		cmocka_unit_test(test_link_rule),
		cmocka_unit_test(test_printf_escapes_only_arguments),
		cmocka_unit_test(test_table_and_notes_escape_every_format),
		cmocka_unit_test(test_hostile_traces_are_written),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
