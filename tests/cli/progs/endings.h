/* endings.h: the ways a test program can end, chosen on its command line.
 *
 * Shared by the plain C program and the CUDA programs in this folder, so that every CLI test can
 * compare the same endings with and without the recorder: "return" (from main, handled by the
 * caller), "exit", "_exit", "abort", "segv" (a real fault: a store through a null pointer),
 * "raise-segv", "sigterm" (sent to itself with kill), "sigkill". Each ends the process with the
 * status or signal the name says; an unknown name ends with status 99.
 */
#ifndef GT_TEST_ENDINGS_H
#define GT_TEST_ENDINGS_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A real fault: the pointer is read from a volatile so the compiler cannot see it is null. */
static void endings_fault(void)
{
	volatile int *volatile p = NULL;
	*p = 1;
}

/* Ends the process as `how` says (everything but "return"). */
static void endings_end(const char *how, int status)
{
	if (!strcmp(how, "exit"))
		exit(status);
	if (!strcmp(how, "_exit"))
		_exit(status);
	fflush(NULL); /* what was printed stays printed, whatever kills us next */
	if (!strcmp(how, "abort"))
		abort();
	if (!strcmp(how, "segv"))
		endings_fault();
	if (!strcmp(how, "raise-segv"))
		raise(SIGSEGV);
	if (!strcmp(how, "sigterm"))
		kill(getpid(), SIGTERM);
	if (!strcmp(how, "sigkill"))
		kill(getpid(), SIGKILL);
	if (!strcmp(how, "sigint"))
		kill(getpid(), SIGINT);
	_exit(99);
}

#ifdef __cplusplus
}
#endif
#endif
