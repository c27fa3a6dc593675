/* test_analyze_export_sqlite.c: the SQLite export's index and NVTX parents (analyze/export/
 * export_sqlite*.c) on traces built through the writer API.
 *
 * The index on api_rows(correlation_id) is made as the rows come when their ids rise, and at the
 * end when they come far out of order: either way it exists, answers look-ups, and the schema lists
 * views and index in the same order (so sqlite3 .dump writes the same text). NVTX parents, on
 * random ranges of several threads (thread ids up to 2^32, equal starts, equal ranges, marks,
 * unclosed, start/end and reversed ranges), are those of the definition computed here the plain
 * way: a comparison sort by thread, start, longest first and file order, then one stack per
 * thread. (tests/cli/test_gpuanalyze_export_sqlite.sh checks the schema against the man page.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/export/export_sqlite.h"
#include "traces/gputrace.h"
#include "helpers/cmd_test.h"
#include "helpers/synth_trace.h"

#define T0 5000000000ull

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

static sqlite3 *export_db(const char *trace, const char *db_path)
{
	struct gt_sqlite_result res;
	assert_int_equal(gt_export_sqlite(trace, db_path, db_path, &res), 0);
	sqlite3 *db;
	assert_int_equal(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	return db;
}

/* The one integer a query returns. */
static int64_t query_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	int64_t v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* The names of the views and indexes in the schema's order, joined by spaces, into buf. */
static void views_and_indexes(sqlite3 *db, char *buf, size_t len)
{
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type IN ('view', 'index') "
	                                        "ORDER BY rowid", -1, &st, NULL), SQLITE_OK);
	size_t n = 0;
	buf[0] = '\0';
	while (sqlite3_step(st) == SQLITE_ROW) {
		int k = snprintf(buf + n, len - n, "%s ", (const char *)sqlite3_column_text(st, 0));
		assert_true(k > 0 && (size_t)k < len - n);
		n += (size_t)k;
	}
	sqlite3_finalize(st);
}

/* calls API calls, call i with correlation id corr(i), and a kernel; *ids gets the ids. */
static void api_trace(const char *path, int calls, int scattered, uint32_t *ids)
{
	struct gt_writer *w;
	assert_int_equal(synth_open(&w, path, 0), 0);
	assert_int_equal(synth_device(w), 0);
	uint32_t name = gt_writer_intern(w, "cudaLaunchKernel");
	for (int i = 0; i < calls; i++) {
		struct gt_api a;
		memset(&a, 0, sizeof a);
		a.start = T0 + (uint64_t)i * 1000;
		a.end = a.start + 500;
		a.name_id = name;
		a.thread_id = 77;
		a.process_id = 4242;
		a.domain = GT_API_RUNTIME;
		/* rising with a little jitter (another thread's calls), or anywhere in 2^31 */
		a.correlation_id = scattered ? rnd() >> 1 : (uint32_t)(i * 4 + (i % 3 == 1 ? 0 : 5));
		ids[i] = a.correlation_id;
		assert_int_equal(gt_writer_add(w, GT_REC_API, &a), 0);
	}
	assert_int_equal(synth_kernel(w, "_Z1kv", T0 + 100, T0 + 200, 0), 0);
	assert_int_equal(gt_writer_close(w), 0);
}

static void test_index_either_order(void **state)
{
	(void)state;
	enum { CALLS = 20000 };
	static uint32_t ids[2][CALLS];
	char order[2][1024];
	int64_t index_row[2], configs_row[2];
	for (int scattered = 0; scattered < 2; scattered++) {
		char *trace = temp("sqidx"), *db_path = temp("sqidxdb");
		api_trace(trace, CALLS, scattered, ids[scattered]);
		sqlite3 *db = export_db(trace, db_path);
		views_and_indexes(db, order[scattered], sizeof order[scattered]);
		index_row[scattered] = query_int(db, "SELECT rowid FROM sqlite_master WHERE name = 'api_rows_correlation'");
		configs_row[scattered] = query_int(db, "SELECT rowid FROM sqlite_master WHERE name = 'kernel_configs'");
		/* The index answers: the row of a call found by its correlation id is that call's. */
		for (int i = 0; i < CALLS; i += 997) {
			char sql[160];
			snprintf(sql, sizeof sql, "SELECT min(id) FROM api_rows INDEXED BY api_rows_correlation "
			         "WHERE correlation_id = %u", ids[scattered][i]);
			int64_t first = query_int(db, sql);
			assert_int_equal(ids[scattered][first - 1], ids[scattered][i]);
			assert_true(first <= i + 1);
		}
		assert_int_equal(query_int(db, "SELECT count(*) FROM api_rows INDEXED BY api_rows_correlation "
		                               "WHERE correlation_id >= 0"), CALLS);
		sqlite3_stmt *st;
		assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_string_equal((const char *)sqlite3_column_text(st, 0), "ok");
		sqlite3_finalize(st);
		sqlite3_close(db);
	}
	/* Rising ids: the index was made before the rows (before kernel_configs, made at the end);
	 * scattered ids: at the end. The views and the index in the same order either way. */
	assert_true(index_row[0] < configs_row[0]);
	assert_true(index_row[1] > configs_row[1]);
	assert_string_equal(order[0], order[1]);
	assert_non_null(strstr(order[0], "nvtx_ranges api_rows_correlation StringIds "));
}

/* ---- NVTX parents ------------------------------------------------------------------------------ */

struct range {
	uint64_t start, end;
	uint32_t thread, idx;
	int kind;
};

static int cmp_range(const void *pa, const void *pb)
{
	const struct range *a = pa, *b = pb;
	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end > b->end ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/* The definition (gputrace-sqlite(5), parent_id) the plain way: parent[i] is the 1-based index of
 * range i's parent, 0 for none. */
static void reference_parents(const struct range *all, size_t n, uint64_t *parent)
{
	struct range *k = malloc(n * sizeof *k);
	size_t *stack = malloc(n * sizeof *stack), m = 0, top = 0;
	assert_non_null(k);
	assert_non_null(stack);
	for (size_t i = 0; i < n; i++) {
		parent[i] = 0;
		const struct range *v = &all[i];
		if (v->kind == GT_NVTX_MARK || (v->kind == GT_NVTX_PUSH_POP && v->end && v->end >= v->start))
			k[m++] = *v;
	}
	qsort(k, m, sizeof *k, cmp_range);
	for (size_t i = 0; i < m; i++) {
		if (i && k[i].thread != k[i - 1].thread)
			top = 0;
		while (top && (k[stack[top - 1]].end < k[i].end || k[stack[top - 1]].end <= k[i].start))
			top--;
		if (top)
			parent[k[i].idx] = k[stack[top - 1]].idx + 1;
		if (k[i].kind != GT_NVTX_MARK)
			stack[top++] = i;
	}
	free(k);
	free(stack);
}

static void test_nvtx_parents_random(void **state)
{
	(void)state;
	enum { N = 30000 };
	static struct range r[N];
	static uint64_t want[N];
	const uint32_t threads[] = { 7, 8, 4000000000u, 123456 };
	char *trace = temp("sqnvtx"), *db_path = temp("sqnvtxdb");
	struct gt_writer *w;
	assert_int_equal(synth_open(&w, trace, 0), 0);
	uint32_t name = gt_writer_intern(w, "range");
	for (uint32_t i = 0; i < N; i++) {
		struct gt_nvtx v;
		memset(&v, 0, sizeof v);
		/* Few distinct starts and lengths: many equal starts and equal ranges, runs of one thread
		 * and start longer and shorter than 16. */
		uint32_t spread = i < N / 2 ? 40 : 4000;
		v.start = T0 + (rnd() % spread) * 100;
		v.end = v.start + (rnd() % 12) * 350;
		unsigned kind = rnd() % 10;
		v.kind = kind < 6 ? GT_NVTX_PUSH_POP : kind < 8 ? GT_NVTX_MARK : GT_NVTX_START_END;
		if (v.kind == GT_NVTX_MARK)
			v.end = v.start;
		else if (rnd() % 20 == 0)
			v.end = 0; /* never closed */
		else if (rnd() % 30 == 0)
			v.end = v.start - 50; /* ends before it starts */
		v.thread_id = threads[rnd() % 4];
		v.name_id = name;
		assert_int_equal(gt_writer_add(w, GT_REC_NVTX, &v), 0);
		r[i] = (struct range){ v.start, v.end, v.thread_id, i, v.kind };
	}
	assert_int_equal(gt_writer_close(w), 0);
	reference_parents(r, N, want);

	sqlite3 *db = export_db(trace, db_path);
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT id, coalesce(parent_id, 0) FROM nvtx_ranges ORDER BY id", -1,
	                                    &st, NULL), SQLITE_OK);
	size_t rows = 0, with_parent = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		assert_int_equal(id, (int64_t)rows + 1);
		assert_int_equal(sqlite3_column_int64(st, 1), (int64_t)want[rows]);
		with_parent += want[rows] != 0;
		rows++;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	assert_int_equal(rows, N);
	assert_true(with_parent > N / 4); /* the test means something: most ranges nest */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_index_either_order, temp_teardown),
		cmocka_unit_test_teardown(test_nvtx_parents_random, temp_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
