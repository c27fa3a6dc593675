/* test_preload_signals.c: fatal signals finish the trace, then end the process as before
 * (preload/signals.c).
 *
 * Each case runs in a forked child that installs the handlers and then dies in one way: a real
 * fault, raise(), kill(), abort(). The recorder is replaced by a stub recorder_finish() that reports
 * its call through a pipe. Checked: the stub is called once, from the signal handler (in_signal = 1),
 * with RECORDER_END_SIGNAL and the signal's number; and the parent sees the child die of that same
 * signal, as it would without gputrace. Dispositions someone else chose (SIG_IGN inherited from a
 * parent, the program's own handler) are left alone.
 *
 * preload/signals.c is compiled into this test (it is not in any test archive).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "preload/signals.c"

/* Under AddressSanitizer, leave SIGSEGV, SIGBUS and SIGFPE to the code under test: ASan's own
 * handlers would otherwise be in place first and, rightly, ours would not be installed. */
__attribute__((visibility("default"), used)) const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0";
}

static int report_fd = -1;

struct finish_call {
	int how, status, in_signal;
};

/* The stub recorder: async-signal-safe, one write per call. */
void recorder_finish(int how, int status, int in_signal)
{
	struct finish_call c = { how, status, in_signal };
	ssize_t k = write(report_fd, &c, sizeof c);
	(void)k;
}

/* The recorder's GPUTRACE_DEBUG, stubbed: on in the child of test_debug_says_where. */
static int debugging;
int gtp_debugging(void) { return debugging; }
static int debug_out = -1;

/* Real faults, with the sanitizers' own checks off so the CPU raises them. */
__attribute__((noinline, no_sanitize("undefined", "address"))) static void fault_segv(void)
{
	volatile int *volatile p = NULL;
	*p = 1;
}

__attribute__((noinline, no_sanitize("undefined"))) static void fault_fpe(void)
{
	volatile int zero = 0, big = 1 << 20; /* not 1: GCC turns 1 / x into a comparison */
	volatile int r = big / zero;
	(void)r;
}

enum how_to_die {
	DIE_FAULT_SEGV, DIE_FAULT_FPE, DIE_RAISE, DIE_KILL, DIE_ABORT, DIE_EXIT, DIE_KILL9,
};

/* Forks a child that (after `prepare`) installs the handlers and dies as asked. Returns the wait
 * status; *calls gets the stub's calls. */
static int run_child(enum how_to_die how, int sig, void (*prepare)(void), struct finish_call *calls,
                     int *ncalls)
{
	int p[2];
	assert_int_equal(pipe(p), 0);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		report_fd = p[1];
		struct rlimit no_core = { 0, 0 }; /* the deaths are on purpose: no core files */
		setrlimit(RLIMIT_CORE, &no_core);
		/* A fresh program's dispositions: cmocka's own crash handlers are in place in the
		 * test process and would (rightly) keep ours out. */
		static const int all[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT };
		for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
			signal(all[i], SIG_DFL);
		if (prepare)
			prepare();
		signals_install();
		switch (how) {
		case DIE_FAULT_SEGV: fault_segv(); break;
		case DIE_FAULT_FPE: fault_fpe(); break;
		case DIE_RAISE: raise(sig); break;
		case DIE_KILL: kill(getpid(), sig); break;
		case DIE_ABORT: abort();
		case DIE_EXIT: exit(sig);
		case DIE_KILL9: kill(getpid(), SIGKILL); break;
		}
		_exit(42); /* still alive: the signal was ignored or handled */
	}
	close(p[1]);
	int status;
	while (waitpid(pid, &status, 0) < 0)
		assert_int_equal(errno, EINTR);
	*ncalls = 0;
	ssize_t k;
	while ((k = read(p[0], &calls[*ncalls], sizeof calls[0])) == (ssize_t)sizeof calls[0])
		if (++*ncalls == 8)
			break;
	close(p[0]);
	return status;
}

static void expect_death(enum how_to_die how, int sig, int expect_sig)
{
	struct finish_call calls[8];
	int n;
	int status = run_child(how, sig, NULL, calls, &n);
	if (!WIFSIGNALED(status) || WTERMSIG(status) != expect_sig)
		fail_msg("expected death by signal %d, got %s %d", expect_sig,
		         WIFSIGNALED(status) ? "signal" : "exit status",
		         WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	assert_int_equal(n, 1);
	assert_int_equal(calls[0].how, RECORDER_END_SIGNAL);
	assert_int_equal(calls[0].status, expect_sig);
	assert_int_equal(calls[0].in_signal, 1);
}

static void test_real_segv(void **state)
{
	(void)state;
	expect_death(DIE_FAULT_SEGV, 0, SIGSEGV);
}

static void test_real_fpe(void **state)
{
	(void)state;
	expect_death(DIE_FAULT_FPE, 0, SIGFPE);
}

static void test_raised_signals(void **state)
{
	(void)state;
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT };
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		expect_death(DIE_RAISE, sigs[i], sigs[i]);
}

static void test_killed_by_another_process(void **state)
{
	(void)state;
	expect_death(DIE_KILL, SIGTERM, SIGTERM);
	expect_death(DIE_KILL, SIGINT, SIGINT);
	expect_death(DIE_KILL, SIGSEGV, SIGSEGV);
}

static void test_abort(void **state)
{
	(void)state;
	expect_death(DIE_ABORT, 0, SIGABRT);
}

/* Signals outside the list, SIGKILL, and a plain exit never reach the recorder from here. */
static void test_other_endings_untouched(void **state)
{
	(void)state;
	struct finish_call calls[8];
	int n;
	int status = run_child(DIE_KILL9, 0, NULL, calls, &n);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);
	assert_int_equal(n, 0);
	status = run_child(DIE_RAISE, SIGUSR1, NULL, calls, &n);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGUSR1);
	assert_int_equal(n, 0);
	status = run_child(DIE_EXIT, 3, NULL, calls, &n);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 3);
	assert_int_equal(n, 0);
}

static void ignore_term(void)
{
	signal(SIGTERM, SIG_IGN);
}

/* SIGTERM ignored before we start (nohup, a parent's choice): still ignored afterwards. */
static void test_inherited_ignore_kept(void **state)
{
	(void)state;
	struct finish_call calls[8];
	int n;
	int status = run_child(DIE_RAISE, SIGTERM, ignore_term, calls, &n);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 42);
	assert_int_equal(n, 0);
}

static void own_handler(int sig)
{
	(void)sig;
	_exit(7);
}

static void install_own_handler(void)
{
	signal(SIGTERM, own_handler);
}

static void own_siginfo_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	_exit(8);
}

static void install_own_siginfo_handler(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = own_siginfo_handler;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTERM, &sa, NULL);
}

/* A program that installed its own handler before us keeps it (both handler styles). */
static void test_program_handler_kept(void **state)
{
	(void)state;
	struct finish_call calls[8];
	int n;
	int status = run_child(DIE_RAISE, SIGTERM, install_own_handler, calls, &n);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 7);
	assert_int_equal(n, 0);
	status = run_child(DIE_RAISE, SIGTERM, install_own_siginfo_handler, calls, &n);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 8);
	assert_int_equal(n, 0);
}

static void debug_on(void)
{
	debugging = 1;
	dup2(debug_out, 2);
}

/* With GPUTRACE_DEBUG=1 a fault says, before the trace is finished, which signal, where and on
 * which thread, and prints the stack (so that a crash in a traced program shows whether the
 * recorder was on it); the ending is the same as without. */
static void test_debug_says_where(void **state)
{
	(void)state;
	char path[] = "/tmp/gt_signals_XXXXXX";
	debug_out = mkstemp(path);
	assert_true(debug_out >= 0);
	struct finish_call calls[8];
	int n;
	int status = run_child(DIE_FAULT_SEGV, 0, debug_on, calls, &n);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
	assert_int_equal(n, 1);
	char text[8192];
	ssize_t k = pread(debug_out, text, sizeof text - 1, 0);
	close(debug_out);
	unlink(path);
	assert_true(k > 0);
	text[k] = '\0';
	assert_non_null(strstr(text, "gputrace: fatal signal 11 (code 1, address (nil)) on thread "));
	char *stack = strstr(text, "its stack:\n");
	assert_non_null(stack);
	assert_non_null(strstr(stack, "test_preload_signals")); /* a frame of this program */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_segv),
		cmocka_unit_test(test_real_fpe),
		cmocka_unit_test(test_raised_signals),
		cmocka_unit_test(test_killed_by_another_process),
		cmocka_unit_test(test_abort),
		cmocka_unit_test(test_other_endings_untouched),
		cmocka_unit_test(test_inherited_ignore_kept),
		cmocka_unit_test(test_program_handler_kept),
		cmocka_unit_test(test_debug_says_where),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
