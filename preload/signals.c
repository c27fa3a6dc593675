/* signals.c: fatal-signal handlers that finish the trace first (see signals.h). */
#include "preload/signals.h"
#include "preload/log.h"
#include "preload/recorder.h"

#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT, SIGHUP,
	SIGQUIT };
#define NFATAL (sizeof fatal / sizeof fatal[0])
static struct sigaction previous[NFATAL];
static volatile sig_atomic_t installed[NFATAL];

static int slot(int sig)
{
	for (unsigned i = 0; i < NFATAL; i++)
		if (fatal[i] == sig)
			return (int)i;
	return -1;
}

/* With GPUTRACE_DEBUG=1: which signal, where and on which thread, and the stack, before the trace
 * is finished; so that a crash in a traced program says whether our code was on its stack.
 * snprintf and backtrace are not async-signal-safe by the letter; backtrace was called once at
 * install so that it loads nothing here, and this runs only when asked for. */
static void say_where(int sig, const siginfo_t *info)
{
	char line[160];
	int n = snprintf(line, sizeof line, "gputrace: fatal signal %d (code %d, address %p) on thread %ld; its stack:\n",
	                 sig, info ? info->si_code : 0, info ? info->si_addr : NULL, (long)syscall(SYS_gettid));
	if (n > 0 && write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1) < 0)
		return;
	void *frames[48];
	backtrace_symbols_fd(frames, backtrace(frames, 48), 2);
}

static void on_fatal(int sig, siginfo_t *info, void *uc)
{
	(void)uc;
	int i = slot(sig);
	if (gtp_debugging())
		say_where(sig, info);
	recorder_finish(RECORDER_END_SIGNAL, sig, 1);
	/* Back to what was there before us (the default), then let the signal act: a fault re-runs
	 * the faulting instruction on return; a sent signal is raised again and delivered when this
	 * handler returns, since it is blocked while we run. */
	if (i >= 0)
		sigaction(sig, &previous[i], NULL);
	else
		signal(sig, SIG_DFL);
	int fault = (sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL) && info &&
	            info->si_code > 0; /* raised by the CPU, not sent with kill() or raise() */
	if (!fault)
		raise(sig);
}

void signals_install(void)
{
	if (gtp_debugging()) {
		void *warm[1]; /* the unwinder's library loaded now, not in a handler */
		(void)backtrace(warm, 1);
	}
	for (unsigned i = 0; i < NFATAL; i++) {
		struct sigaction cur;
		if (sigaction(fatal[i], NULL, &cur) != 0)
			continue;
		/* Only where nobody else decided: the program's own handlers, and SIG_IGN inherited
		 * from a parent (nohup), are left alone. */
		if (!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler != SIG_DFL)
			continue;
		if (cur.sa_flags & SA_SIGINFO)
			continue;
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_fatal;
		sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
		sigemptyset(&sa.sa_mask);
		previous[i] = cur;
		if (sigaction(fatal[i], &sa, NULL) == 0)
			installed[i] = 1;
	}
}
