/* test_preload_config.c: GPUTRACE_* environment variables -> struct gtp_config (preload/config.c).
 *
 * The promises under test: with nothing set, every setting has the default that `gputrace --help`
 * (config_help's table) prints; setting a variable to its printed default changes nothing; every
 * value that does not parse gives exactly one message naming the variable and the value used
 * instead, and that fallback is applied; the activity list's grammar (names, "default", "all",
 * +kind/-kind) does what the help says; messages never overflow the caller's buffer.
 *
 * preload/config.c is compiled into this test (it is not in any test archive), so its static
 * helpers are reachable too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload/config.c"

extern char **environ;

/* Removes every GPUTRACE_* variable, so each test starts from the documented defaults. */
static int clean_env(void **state)
{
	(void)state;
	for (;;) {
		char name[256] = "";
		for (char **e = environ; *e; e++) {
			if (strncmp(*e, "GPUTRACE_", 9) == 0) {
				size_t n = strcspn(*e, "=");
				if (n < sizeof name) {
					memcpy(name, *e, n);
					name[n] = '\0';
				}
				break;
			}
		}
		if (!name[0])
			return 0;
		unsetenv(name);
	}
}

static int count_lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* With nothing set: the defaults config.h and gputrace(1) document, and no message. */
static void test_defaults(void **state)
{
	(void)state;
	struct gtp_config c;
	char msgs[1024];
	assert_int_equal(config_load(&c, msgs, sizeof msgs), 0);
	assert_string_equal(msgs, "");
	assert_int_equal(c.disabled, 0);
	assert_string_equal(c.output, "%n-%p.gtrace");
	assert_int_equal(c.kinds, SK_DEFAULT);
	assert_string_equal(c.kernel_filter, "");
	assert_int_equal(c.buffer_bytes, 4096u << 10);
	assert_int_equal(c.buffers_max, 256);
	assert_int_equal(c.flush_ms, 1000);
	assert_int_equal(c.sample_ms, 200);
	assert_int_equal(c.latency, 0);
	assert_int_equal(c.exit_timeout_ms, 10000);
	assert_int_equal(c.debug, 0);
	assert_int_equal(c.quiet, 0);
	assert_string_equal(c.cupti_path, "");
	assert_string_equal(c.report_path, "");
	assert_string_equal(c.shadow, "");
	assert_int_equal(c.shadow_max, 3);
	assert_int_equal(c.shadow_bytes, 1ull << 30);
	assert_string_equal(c.metrics, "");
	assert_int_equal(c.metrics_us, CONFIG_METRICS_US_DEFAULT);
	/* The default kinds are all but sync, overhead, graph and api-all, as the help says. */
	assert_int_equal(SK_DEFAULT, SK_ALL & ~(SK_SYNC | SK_OVERHEAD | SK_GRAPH | SK_API_ALL));
}

/* Every variable that config_help prints, set to the default it prints, gives the same config as
 * leaving it unset, with no message: the help (and so the man page) cannot drift from the code. */
static void test_help_defaults_match_code(void **state)
{
	(void)state;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	config_help(f);
	assert_int_equal(fclose(f), 0);
	struct gtp_config base, c;
	assert_int_equal(config_load(&base, NULL, 0), 0);
	int vars = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char var[64], def[256];
		if (sscanf(line, " %63s default %255s", var, def) != 2 || strncmp(var, "GPUTRACE_", 9))
			continue;
		vars++;
		if (strcmp(def, "(none)") == 0)
			strcpy(def, "");
		assert_int_equal(setenv(var, def, 1), 0);
		char msgs[512];
		int n = config_load(&c, msgs, sizeof msgs);
		if (n != 0 || memcmp(&c, &base, sizeof c) != 0)
			fail_msg("%s=%s (its documented default) changes the configuration: %s", var, def,
			         msgs);
		unsetenv(var);
	}
	free(text);
	/* Every variable of the table was seen (16 today; more is fine, fewer means a parse miss). */
	assert_true(vars >= 16);
}

struct bad_case {
	const char *var, *value, *fallback;
};

/* Each unparsable number: exactly one line, naming the variable and the value used instead. */
static void test_invalid_numbers(void **state)
{
	(void)state;
	static const struct bad_case cases[] = {
		{ "GPUTRACE_FLUSH_MS", "abc", "using 1000" },
		{ "GPUTRACE_FLUSH_MS", "5", "using 1000" },          /* below 10 */
		{ "GPUTRACE_FLUSH_MS", "600001", "using 1000" },     /* above 600000 */
		{ "GPUTRACE_FLUSH_MS", "-100", "using 1000" },
		{ "GPUTRACE_FLUSH_MS", "12ms", "using 1000" },
		{ "GPUTRACE_FLUSH_MS", "0x20", "using 1000" },
		{ "GPUTRACE_FLUSH_MS", "99999999999999999999999", "using 1000" }, /* overflows */
		{ "GPUTRACE_BUFFER_KB", "63", "using 4096" },
		{ "GPUTRACE_BUFFER_KB", "262145", "using 4096" },
		{ "GPUTRACE_BUFFERS_MAX", "3", "using 256" },
		{ "GPUTRACE_BUFFERS_MAX", "4097", "using 256" },
		{ "GPUTRACE_SAMPLE_MS", "x", "using 200" },
		{ "GPUTRACE_LATENCY", "2", "using 0" },
		{ "GPUTRACE_LATENCY", "yes", "using 0" },
		{ "GPUTRACE_EXIT_TIMEOUT_MS", "99", "using 10000" },
		{ "GPUTRACE_DISABLE", "true", "using 0" },
		{ "GPUTRACE_QUIET", "2", "using 0" },
		{ "GPUTRACE_DEBUG", "on", "using 0" },
		{ "GPUTRACE_SHADOW_MAX", "0", "using 3" },
		{ "GPUTRACE_SHADOW_BYTES", "1099511627777", "using 1073741824" },
	};
	struct gtp_config base;
	assert_int_equal(config_load(&base, NULL, 0), 0);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		assert_int_equal(setenv(cases[i].var, cases[i].value, 1), 0);
		struct gtp_config c;
		char msgs[1024];
		int n = config_load(&c, msgs, sizeof msgs);
		if (n != 1 || count_lines(msgs) != 1)
			fail_msg("%s='%s': %d messages: %s", cases[i].var, cases[i].value, n, msgs);
		if (!strstr(msgs, cases[i].var) || !strstr(msgs, cases[i].fallback) ||
		    !strstr(msgs, cases[i].value))
			fail_msg("%s='%s': message does not name the variable, value and fallback: %s",
			         cases[i].var, cases[i].value, msgs);
		/* The fallback is what is used: the same as not setting the variable. */
		if (memcmp(&c, &base, sizeof c) != 0)
			fail_msg("%s='%s': the fallback was not applied", cases[i].var, cases[i].value);
		unsetenv(cases[i].var);
	}
}

/* Values at the ends of each range are accepted as given; an empty value is "unset". */
static void test_valid_numbers(void **state)
{
	(void)state;
	struct gtp_config c;
	char msgs[512];
	setenv("GPUTRACE_FLUSH_MS", "10", 1);
	setenv("GPUTRACE_BUFFER_KB", "64", 1);
	setenv("GPUTRACE_BUFFERS_MAX", "4096", 1);
	setenv("GPUTRACE_EXIT_TIMEOUT_MS", "600000", 1);
	setenv("GPUTRACE_LATENCY", "1", 1);
	setenv("GPUTRACE_DISABLE", "1", 1);
	setenv("GPUTRACE_QUIET", "1", 1);
	setenv("GPUTRACE_DEBUG", "1", 1);
	setenv("GPUTRACE_SHADOW_BYTES", "0", 1);
	setenv("GPUTRACE_SAMPLE_MS", "", 1);
	assert_int_equal(config_load(&c, msgs, sizeof msgs), 0);
	assert_int_equal(c.flush_ms, 10);
	assert_int_equal(c.buffer_bytes, 64u << 10);
	assert_int_equal(c.buffers_max, 4096);
	assert_int_equal(c.exit_timeout_ms, 600000);
	assert_int_equal(c.latency, 1);
	assert_int_equal(c.disabled, 1);
	assert_int_equal(c.quiet, 1);
	assert_int_equal(c.debug, 1);
	assert_int_equal(c.shadow_bytes, 0);
	assert_int_equal(c.sample_ms, 200);
	setenv("GPUTRACE_FLUSH_MS", "600000", 1);
	setenv("GPUTRACE_BUFFER_KB", "262144", 1);
	assert_int_equal(config_load(&c, msgs, sizeof msgs), 0);
	assert_int_equal(c.flush_ms, 600000);
	assert_int_equal(c.buffer_bytes, 262144ull << 10);
}

/* GPUTRACE_METRICS: sets expand to their metrics in order, each once; a CUPTI metric name is
 * taken as given; a word that is neither is one message naming it, and no counters. */
static void test_metrics(void **state)
{
	(void)state;
	struct metric_list ml = { 0 };
	char why[160] = "";
	assert_int_equal(metric_sets_parse("memory,compute,memory", &ml, why, sizeof why), 0);
	assert_int_equal(ml.n, 15); /* 3 memory metrics, 5 compute members under 12 names */
	assert_string_equal(ml.names[0], "dram__bytes_read.sum");
	assert_string_equal(ml.names[1], "dram__bytes_write.sum");
	assert_string_equal(ml.names[3], "TPC.TriageCompute.sm__cycles_active.avg.pct_of_peak_sustained_elapsed");
	assert_string_equal(ml.names[4], "sm__cycles_active.avg.pct_of_peak_sustained_elapsed");
	static const uint8_t alt[15] = { 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 1, 0, 1, 1 };
	assert_memory_equal(ml.alt, alt, sizeof alt);
	/* A group-qualified name, as CUPTI spells it, is a metric name. */
	struct metric_list q = { 0 };
	assert_int_equal(metric_sets_parse("TPC.TriageCompute.sm__cycles_active.avg", &q, why, sizeof why), 0);
	assert_int_equal(q.n, 1);
	assert_int_equal(q.alt[0], 0);
	struct metric_list raw = { 0 };
	assert_int_equal(metric_sets_parse("dram__bytes_read.sum,,memory,l1tex__t_bytes.sum", &raw, why, sizeof why), 0);
	assert_int_equal(raw.n, 4);
	assert_string_equal(raw.names[3], "l1tex__t_bytes.sum");
	static const char *const bad[] = { "bogus", "memory,Compute", "dram__", "__x", "dram__bytes;rm",
		"dram__bytes.", "memory,x y" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct metric_list l = { 0 };
		why[0] = '\0';
		assert_int_equal(metric_sets_parse(bad[i], &l, why, sizeof why), -1);
		assert_non_null(strstr(why, "neither a metric set"));
	}
	struct gtp_config c;
	char msgs[512];
	setenv("GPUTRACE_METRICS", "memory,bogus", 1);
	assert_int_equal(config_load(&c, msgs, sizeof msgs), 1);
	assert_string_equal(c.metrics, "");
	assert_non_null(strstr(msgs, "GPUTRACE_METRICS: 'bogus'"));
	assert_non_null(strstr(msgs, "without hardware counters"));
	setenv("GPUTRACE_METRICS", "compute", 1);
	setenv("GPUTRACE_METRICS_US", "5", 1);
	assert_int_equal(config_load(&c, msgs, sizeof msgs), 1);
	assert_string_equal(c.metrics, "compute");
	assert_non_null(strstr(msgs, "GPUTRACE_METRICS_US"));
	setenv("GPUTRACE_METRICS_US", "250", 1);
	assert_int_equal(config_load(&c, msgs, sizeof msgs), 0);
	assert_int_equal(c.metrics_us, 250);
	/* Windows detach CUPTI, which would end sampling under the sampler: no counters, one line. */
	setenv("GPUTRACE_WINDOW", "200/2000", 1);
	assert_int_equal(config_load(&c, msgs, sizeof msgs), 1);
	assert_string_equal(c.metrics, "");
	assert_non_null(strstr(msgs, "GPUTRACE_WINDOW"));
}

/* GPUTRACE_SAMPLE_MS: 0 turns sampling off silently; 1..9 is raised to 10 with a message. */
static void test_sample_ms(void **state)
{
	(void)state;
	struct gtp_config c;
	char msgs[512];
	setenv("GPUTRACE_SAMPLE_MS", "0", 1);
	assert_int_equal(config_load(&c, msgs, sizeof msgs), 0);
	assert_int_equal(c.sample_ms, 0);
	setenv("GPUTRACE_SAMPLE_MS", "5", 1);
	assert_int_equal(config_load(&c, msgs, sizeof msgs), 1);
	assert_int_equal(c.sample_ms, 10);
	assert_non_null(strstr(msgs, "GPUTRACE_SAMPLE_MS"));
	assert_non_null(strstr(msgs, "using 10"));
	setenv("GPUTRACE_SAMPLE_MS", "10", 1);
	assert_int_equal(config_load(&c, msgs, sizeof msgs), 0);
	assert_int_equal(c.sample_ms, 10);
}

static unsigned kinds_of(const char *value, int *nmsgs, char *msgs, size_t n)
{
	setenv("GPUTRACE_ACTIVITIES", value, 1);
	struct gtp_config c;
	*nmsgs = config_load(&c, msgs, n);
	unsetenv("GPUTRACE_ACTIVITIES");
	return c.kinds;
}

/* The activity list: names, "default", "all", relative +kind/-kind on top of the default. */
static void test_activities_grammar(void **state)
{
	(void)state;
	static const struct { const char *value; unsigned kinds; } cases[] = {
		{ "", SK_DEFAULT },
		{ "default", SK_DEFAULT },
		{ "all", SK_ALL },
		{ "kernel", SK_KERNEL },
		{ "kernel,memcpy", SK_KERNEL | SK_MEMCPY },
		{ "memcpy,kernel,", SK_KERNEL | SK_MEMCPY },
		{ "kernel,,memcpy", SK_KERNEL | SK_MEMCPY },
		{ "+driver", SK_DEFAULT },
		{ "+sync,+overhead,+graph,+api-all", SK_ALL },
		{ "-driver", SK_DEFAULT & ~SK_DRIVER },
		{ "kernel,runtime,api-all", SK_KERNEL | SK_RUNTIME | SK_API_ALL },
		{ "-runtime", SK_DEFAULT & ~SK_RUNTIME },
		{ "-runtime,-nvtx,-memory", SK_DEFAULT & ~(SK_RUNTIME | SK_NVTX | SK_MEMORY) },
		{ "+api-all,-nvtx", (SK_DEFAULT | SK_API_ALL) & ~SK_NVTX },
		{ "all,-driver", SK_ALL & ~SK_DRIVER },
		{ "kernel,+driver", SK_KERNEL | SK_DRIVER },
		{ "default,graph", SK_DEFAULT | SK_GRAPH },
		{ "kernel,memcpy,memset,runtime,driver,sync,nvtx,memory,overhead,graph,api-all", SK_ALL },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int n;
		char msgs[512];
		unsigned k = kinds_of(cases[i].value, &n, msgs, sizeof msgs);
		if (k != cases[i].kinds || n != 0)
			fail_msg("GPUTRACE_ACTIVITIES='%s': kinds %#x (expected %#x), %d messages: %s",
			         cases[i].value, k, cases[i].kinds, n, msgs);
	}
}

/* An unknown kind is named in one message and ignored; a list that leaves nothing falls back to
 * the default with a message saying so. */
static void test_activities_errors(void **state)
{
	(void)state;
	int n;
	char msgs[512];
	unsigned k = kinds_of("kernel,kernal,memcpy", &n, msgs, sizeof msgs);
	assert_int_equal(k, SK_KERNEL | SK_MEMCPY);
	assert_int_equal(n, 1);
	assert_non_null(strstr(msgs, "GPUTRACE_ACTIVITIES"));
	assert_non_null(strstr(msgs, "'kernal'"));
	/* Nothing known: one line says both what was unknown and that the default is used. */
	k = kinds_of("nonsense", &n, msgs, sizeof msgs);
	assert_int_equal(k, SK_DEFAULT);
	assert_int_equal(n, 1);
	assert_int_equal(count_lines(msgs), 1);
	assert_non_null(strstr(msgs, "'nonsense'"));
	assert_non_null(strstr(msgs, "using the default"));
	k = kinds_of("-kernel,-memcpy,-memset,-runtime,-driver,-sync,-nvtx,-memory,-overhead", &n, msgs,
	             sizeof msgs);
	assert_int_equal(k, SK_DEFAULT);
	assert_int_equal(n, 1);
	assert_non_null(strstr(msgs, "leaves nothing to record"));
	/* api-all says which calls, not what to record: alone it records nothing. */
	k = kinds_of("api-all", &n, msgs, sizeof msgs);
	assert_int_equal(k, SK_DEFAULT);
	assert_int_equal(n, 1);
	assert_non_null(strstr(msgs, "leaves nothing to record"));
}

/* GPUTRACE_KERNELS: a valid ERE is kept; an invalid one is reported and recording keeps all. */
static void test_kernel_filter(void **state)
{
	(void)state;
	struct gtp_config c;
	char msgs[512];
	setenv("GPUTRACE_KERNELS", "gemm|conv[0-9]+", 1);
	assert_int_equal(config_load(&c, msgs, sizeof msgs), 0);
	assert_string_equal(c.kernel_filter, "gemm|conv[0-9]+");
	setenv("GPUTRACE_KERNELS", "gemm(", 1);
	assert_int_equal(config_load(&c, msgs, sizeof msgs), 1);
	assert_string_equal(c.kernel_filter, "");
	assert_non_null(strstr(msgs, "GPUTRACE_KERNELS='gemm('"));
	assert_non_null(strstr(msgs, "recording all kernels"));
}

/* Strings: an empty GPUTRACE_OUTPUT falls back to the default pattern; a value longer than its
 * field falls back to the default rather than being cut (a cut path would write somewhere else). */
static void test_string_limits(void **state)
{
	(void)state;
	struct gtp_config c;
	char msgs[512];
	setenv("GPUTRACE_OUTPUT", "", 1);
	assert_int_equal(config_load(&c, msgs, sizeof msgs), 1);
	assert_string_equal(c.output, "%n-%p.gtrace");
	assert_non_null(strstr(msgs, "GPUTRACE_OUTPUT"));
	char longval[2000];
	memset(longval, 'a', sizeof longval - 1);
	longval[sizeof longval - 1] = '\0';
	setenv("GPUTRACE_OUTPUT", longval, 1);
	assert_int_equal(config_load(&c, msgs, sizeof msgs), 1);
	assert_string_equal(c.output, "%n-%p.gtrace");
	assert_non_null(strstr(msgs, "GPUTRACE_OUTPUT is longer than 1023 bytes"));
	unsetenv("GPUTRACE_OUTPUT");
	setenv("GPUTRACE_CUPTI_PATH", longval, 1);
	assert_int_equal(config_load(&c, msgs, sizeof msgs), 1);
	assert_string_equal(c.cupti_path, "");
	unsetenv("GPUTRACE_CUPTI_PATH");
	/* Exactly at the limit is accepted. */
	longval[sizeof c.output - 1] = '\0';
	setenv("GPUTRACE_OUTPUT", longval, 1);
	assert_int_equal(config_load(&c, msgs, sizeof msgs), 0);
	assert_int_equal(strlen(c.output), sizeof c.output - 1);
}

/* Many problems at once: each counted, the buffer never overrun however small, and a NULL
 * buffer is allowed. */
static void test_message_buffer(void **state)
{
	(void)state;
	setenv("GPUTRACE_FLUSH_MS", "x", 1);
	setenv("GPUTRACE_BUFFER_KB", "x", 1);
	setenv("GPUTRACE_BUFFERS_MAX", "x", 1);
	setenv("GPUTRACE_LATENCY", "x", 1);
	setenv("GPUTRACE_ACTIVITIES", "x", 1);
	struct gtp_config c;
	char big[4096];
	assert_int_equal(config_load(&c, big, sizeof big), 5);
	assert_int_equal(count_lines(big), 5);
	for (size_t n = 1; n < 64; n++) {
		char *small = malloc(n); /* exact size, so a sanitizer sees any overrun */
		assert_non_null(small);
		assert_int_equal(config_load(&c, small, n), 5);
		assert_true(strlen(small) < n);
		assert_int_equal(strncmp(small, big, strlen(small)), 0);
		free(small);
	}
	assert_int_equal(config_load(&c, NULL, 0), 5);
	assert_int_equal(c.flush_ms, 1000);
}

/* A value quoted in a message has its control characters escaped: a newline in it cannot split
 * its message into a second line (that could pass for any other gputrace: line). */
static void test_message_values_escaped(void **state)
{
	(void)state;
	setenv("GPUTRACE_FLUSH_MS", "1\ngputrace: forged\x1b[2J", 1);
	setenv("GPUTRACE_KERNELS", "(\n", 1);
	setenv("GPUTRACE_ACTIVITIES", "kernal\r\n", 1);
	setenv("GPUTRACE_WINDOW", "1/\t2", 1);
	struct gtp_config c;
	char msgs[4096];
	assert_int_equal(config_load(&c, msgs, sizeof msgs), 4);
	assert_int_equal(count_lines(msgs), 4);
	assert_non_null(strstr(msgs, "GPUTRACE_FLUSH_MS='1\\ngputrace: forged\\x1b[2J' is not a number"));
	assert_non_null(strstr(msgs, "GPUTRACE_KERNELS='(\\n'"));
	assert_non_null(strstr(msgs, "'kernal\\r\\n'"));
	assert_non_null(strstr(msgs, "GPUTRACE_WINDOW='1/\\t2'"));
	for (const char *p = msgs; *p; p++)
		assert_true((unsigned char)*p >= 0x20 || *p == '\n');
}

/* GPUTRACE_WINDOW: ON/PERIOD in ms is taken; anything else is one line and no windows. */
static void test_window(void **state)
{
	(void)state;
	struct gtp_config c;
	char msgs[512];
	assert_int_equal(config_load(&c, msgs, sizeof msgs), 0);
	assert_int_equal(c.window_on_ms, 0);
	assert_int_equal(c.window_period_ms, 0);
	setenv("GPUTRACE_WINDOW", "200/2000", 1);
	assert_int_equal(config_load(&c, msgs, sizeof msgs), 0);
	assert_int_equal(c.window_on_ms, 200);
	assert_int_equal(c.window_period_ms, 2000);
	setenv("GPUTRACE_WINDOW", "10/3600000", 1);
	assert_int_equal(config_load(&c, msgs, sizeof msgs), 0);
	assert_int_equal(c.window_on_ms, 10);
	assert_int_equal(c.window_period_ms, 3600000);
	static const char *const bad[] = { "200", "200/", "/2000", "2000/200", "200/200", "9/100",
		"100/3600001", "-1/100", "100/-1", "100/2000x", "a/b", "100 / 2000",
		"99999999999999999999/1" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		setenv("GPUTRACE_WINDOW", bad[i], 1);
		if (config_load(&c, msgs, sizeof msgs) != 1 || c.window_on_ms || c.window_period_ms ||
		    !strstr(msgs, "GPUTRACE_WINDOW") || !strstr(msgs, "recording all the time") ||
		    count_lines(msgs) != 1)
			fail_msg("GPUTRACE_WINDOW='%s': window %u/%u, messages: %s", bad[i], c.window_on_ms,
			         c.window_period_ms, msgs);
	}
}

static void test_kind_names(void **state)
{
	(void)state;
	char buf[256];
	config_kind_names(SK_DEFAULT, buf, sizeof buf);
	assert_string_equal(buf, "kernel,memcpy,memset,runtime,driver,nvtx,memory");
	config_kind_names(SK_ALL, buf, sizeof buf);
	assert_string_equal(buf, "kernel,memcpy,memset,runtime,driver,sync,nvtx,memory,overhead,graph,api-all");
	config_kind_names(0, buf, sizeof buf);
	assert_string_equal(buf, "");
	config_kind_names(SK_DRIVER | SK_GRAPH, buf, sizeof buf);
	assert_string_equal(buf, "driver,graph");
	/* Every name it prints parses back to the same bits. */
	for (unsigned bit = 1; bit <= SK_GRAPH; bit <<= 1) {
		config_kind_names(bit, buf, sizeof buf);
		int n;
		char msgs[256];
		assert_int_equal(kinds_of(buf, &n, msgs, sizeof msgs), bit);
		assert_int_equal(n, 0);
	}
	/* A short buffer stays terminated and within bounds. */
	for (size_t n = 1; n < 24; n++) {
		char *small = malloc(n);
		assert_non_null(small);
		config_kind_names(SK_ALL, small, n);
		assert_true(strlen(small) < n);
		free(small);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_defaults, clean_env),
		cmocka_unit_test_setup(test_help_defaults_match_code, clean_env),
		cmocka_unit_test_setup(test_invalid_numbers, clean_env),
		cmocka_unit_test_setup(test_valid_numbers, clean_env),
		cmocka_unit_test_setup(test_sample_ms, clean_env),
		cmocka_unit_test_setup(test_activities_grammar, clean_env),
		cmocka_unit_test_setup(test_activities_errors, clean_env),
		cmocka_unit_test_setup(test_kernel_filter, clean_env),
		cmocka_unit_test_setup(test_string_limits, clean_env),
		cmocka_unit_test_setup(test_message_buffer, clean_env),
		cmocka_unit_test_setup(test_message_values_escaped, clean_env),
		cmocka_unit_test_setup(test_kind_names, clean_env),
		cmocka_unit_test_setup(test_window, clean_env),
		cmocka_unit_test_setup(test_metrics, clean_env),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
