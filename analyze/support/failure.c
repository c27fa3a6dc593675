/* failure.c: the messages engines hold for the command to say (failure.h).
 *
 * One queue in the order the messages were held, failures and warnings together, because the order
 * on stderr is the order they happened in (a trace's "ends early" warning, then the next trace's
 * failure). The text is formatted and escaped when it is held: the arguments (a path in a buffer
 * the engine frees, errno's words) are gone by the time the command says it.
 */
#include "analyze/support/failure.h"

#include "analyze/output/escape.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

struct held {
	struct held *next;
	int warning;
	char *text;
};

static struct held *head, **tail = &head;
static size_t nheld, nfailures, nsaid_failures;

/* Stands for the messages that could not be held (out of memory); in the queue at most once, and
 * never freed. */
static char lost_text[] = "out of memory";
static struct held lost = { NULL, 1, lost_text };

static void append(struct held *h)
{
	h->next = NULL;
	*tail = h;
	tail = &h->next;
	nheld++;
	nfailures += !h->warning;
}

/* The lost stand-in: queued once, and a failure as soon as one lost message was. */
static void hold_lost(int warning)
{
	int queued = 0;
	for (struct held *h = head; h; h = h->next)
		queued |= h == &lost;
	if (!queued) {
		lost.warning = warning;
		append(&lost);
	} else if (lost.warning && !warning) {
		lost.warning = 0;
		nfailures++;
	}
}

static void hold(int warning, const char *fmt, va_list ap)
{
	struct held *h = malloc(sizeof *h);
	char *text = NULL;
	size_t len = 0;
	FILE *m = h ? open_memstream(&text, &len) : NULL;
	if (m) {
		gt_esc_vprintf(m, gt_esc_text, fmt, ap);
		if (fclose(m) != 0) {
			free(text);
			text = NULL;
		}
	}
	if (!text) {
		free(h);
		hold_lost(warning);
		return;
	}
	h->warning = warning;
	h->text = text;
	append(h);
}

int gt_fail(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	hold(0, fmt, ap);
	va_end(ap);
	return code;
}

void gt_fail_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	hold(1, fmt, ap);
	va_end(ap);
}

int gt_failed(void) { return nfailures > 0; }

size_t gt_fail_count(void) { return nsaid_failures + nfailures; }

size_t gt_fail_mark(void) { return nheld; }

/* Unlinks the first held message and returns it. */
static struct held *pop(void)
{
	struct held *h = head;
	head = h->next;
	if (!head)
		tail = &head;
	nheld--;
	nfailures -= !h->warning;
	return h;
}

static void release(struct held *h)
{
	if (h != &lost) {
		free(h->text);
		free(h);
	}
}

void gt_fail_forget(size_t mark)
{
	if (mark >= nheld)
		return;
	/* Keep the first mark messages and release the rest. */
	struct held *keep = NULL, **ktail = &keep;
	size_t kept = 0;
	while (head) {
		struct held *h = pop();
		if (kept < mark) {
			h->next = NULL;
			*ktail = h;
			ktail = &h->next;
			kept++;
		} else {
			release(h);
		}
	}
	for (struct held *h = keep, *next; h; h = next) {
		next = h->next;
		append(h);
	}
}

void gt_fail_take(gt_fail_sayer *say, void *ctx)
{
	while (head) {
		struct held *h = pop();
		nsaid_failures += !h->warning;
		say(h->warning, h->text, ctx);
		release(h);
	}
}
