/* outfile.c: outputs through a temporary file and a rename, never over an input (outfile.h).
 *
 * The temporary is made in the target's own folder, so that the rename stays on one file system
 * and is atomic: a reader of the target sees the old file or the new one, never a part. A symbolic
 * link to a regular file is followed, so that the file it names is replaced and the link kept, as
 * writing through it did. A new file gets the permissions that creating it would have given (0666
 * less the umask); a file that is replaced keeps its own, and one the user may not write is refused
 * as opening it would have been.
 */
#include "analyze/support/outfile.h"

#include "analyze/support/diag.h"
#include "traces/gputrace.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Outputs of one command: the Markdown and its two figures are the most there are. */
#define MAX_PENDING 8

struct input {
	dev_t dev;
	ino_t ino;
	char *path;
};

struct pending {
	char *target; /* the name renamed over */
	char *tmp;    /* the temporary's name */
	FILE *f;      /* open on the temporary until gt_output_close; NULL for a reserved one */
};

static struct input *inputs;
static size_t ninputs, inputs_cap;
static struct pending pend[MAX_PENDING];
static size_t npend;

static int is_stdout(const char *path) { return !path || strcmp(path, "-") == 0; }

static void drop_pending(struct pending *p, int remove_tmp)
{
	if (p->f)
		fclose(p->f);
	if (remove_tmp && p->tmp && unlink(p->tmp) != 0 && errno != ENOENT)
		gt_warn("cannot remove the temporary file '%s': %s", p->tmp, strerror(errno));
	free(p->target);
	free(p->tmp);
	memset(p, 0, sizeof *p);
}

void gt_outfile_begin(void)
{
	for (size_t i = 0; i < npend; i++)
		drop_pending(&pend[i], 1);
	npend = 0;
	for (size_t i = 0; i < ninputs; i++)
		free(inputs[i].path);
	free(inputs);
	inputs = NULL;
	ninputs = inputs_cap = 0;
}

int gt_outfile_input(const char *path)
{
	struct stat st;
	if (!path || stat(path, &st) != 0)
		return 0; /* nothing there: nothing an output could overwrite */
	if (ninputs == inputs_cap) {
		size_t cap = inputs_cap ? 2 * inputs_cap : 8;
		struct input *n = realloc(inputs, cap * sizeof *n);
		if (!n)
			return GT_ERR_NOMEM;
		inputs = n;
		inputs_cap = cap;
	}
	char *copy = strdup(path);
	if (!copy)
		return GT_ERR_NOMEM;
	inputs[ninputs++] = (struct input){ st.st_dev, st.st_ino, copy };
	return 0;
}

int gt_outfile_check(const char *path)
{
	struct stat st;
	if (is_stdout(path) || stat(path, &st) != 0)
		return 0;
	for (size_t i = 0; i < ninputs; i++)
		if (inputs[i].dev == st.st_dev && inputs[i].ino == st.st_ino)
			return gt_error("cannot write '%s': it is the input '%s', and an output never replaces an "
			                "input", path, inputs[i].path);
	return 0;
}

/* Where an output to path goes. */
enum place {
	PLACE_ERROR,  /* reported */
	PLACE_DIRECT, /* the name itself, opened as it is */
	PLACE_TEMP,   /* a temporary beside *target, renamed over it */
};

static mode_t umask_mode(void)
{
	mode_t u = umask(0);
	umask(u);
	return 0666 & ~u;
}

/* Decides where an output to path goes; for PLACE_TEMP, *target (malloc'd) and the temporary's mode. */
static enum place place_of(const char *path, char **target, mode_t *mode)
{
	*target = NULL;
	struct stat lst, st;
	if (lstat(path, &lst) != 0) {
		if (errno != ENOENT)
			return PLACE_DIRECT; /* opening it says why it cannot be */
		*mode = umask_mode();
		if (!(*target = strdup(path)))
			goto nomem;
		return PLACE_TEMP;
	}
	if (S_ISLNK(lst.st_mode)) {
		if (!strncmp(path, "/dev/", 5) || !strncmp(path, "/proc/", 6))
			return PLACE_DIRECT; /* names of open files (/dev/stdout, /proc/self/fd/1) */
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
			return PLACE_DIRECT; /* a dangling link, or one to a device: written through */
		if (!(*target = realpath(path, NULL)))
			return errno == ENOMEM ? (gt_error("out of memory"), PLACE_ERROR) : PLACE_DIRECT;
	} else if (S_ISREG(lst.st_mode)) {
		st = lst;
		if (!(*target = strdup(path)))
			goto nomem;
	} else {
		return PLACE_DIRECT; /* a device, a FIFO, a folder (which opening refuses) */
	}
	if (access(*target, W_OK) != 0) {
		gt_error("cannot write '%s': %s", path, strerror(errno));
		free(*target);
		*target = NULL;
		return PLACE_ERROR;
	}
	*mode = st.st_mode & 07777;
	return PLACE_TEMP;
nomem:
	gt_error("out of memory");
	return PLACE_ERROR;
}

/* Makes the temporary for target: its name into p (registered), its descriptor returned; -1 after
 * one line. */
static int make_temp(const char *path, char *target, mode_t mode, struct pending **out)
{
	if (npend == MAX_PENDING) {
		free(target);
		gt_error("cannot write '%s': more than %d outputs", path, MAX_PENDING);
		return -1;
	}
	const char *slash = strrchr(target, '/');
	size_t dir = slash ? (size_t)(slash - target) + 1 : 0;
	static const char name[] = ".gpuanalyze-XXXXXX";
	char *tmp = malloc(dir + sizeof name);
	if (!tmp) {
		free(target);
		gt_error("out of memory");
		return -1;
	}
	memcpy(tmp, target, dir);
	memcpy(tmp + dir, name, sizeof name);
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0 || fchmod(fd, mode) != 0) {
		gt_error("cannot write '%s': %s", path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		free(tmp);
		free(target);
		return -1;
	}
	struct pending *p = &pend[npend++];
	*p = (struct pending){ target, tmp, NULL };
	*out = p;
	return fd;
}

/* The start both ways of writing an output share: the same-file check, then where it goes. The
 * temporary's descriptor (its entry in *p); OUT_DIRECT for a path written in place (a device, a
 * FIFO, /dev/stdout); -1 after one line. */
#define OUT_DIRECT (-2)
static int out_begin(const char *path, struct pending **p)
{
	if (gt_outfile_check(path))
		return -1;
	char *target;
	mode_t mode;
	switch (place_of(path, &target, &mode)) {
	case PLACE_ERROR:
		return -1;
	case PLACE_DIRECT:
		return OUT_DIRECT;
	case PLACE_TEMP:
		break;
	}
	return make_temp(path, target, mode, p);
}

/* Undoes the newest temporary after a failure on it, with one line: removed, and out of the list. */
static void out_abandon(const char *path, struct pending *p, int err)
{
	gt_error("cannot write '%s': %s", path, strerror(err));
	drop_pending(p, 1);
	npend--;
}

FILE *gt_output_open(const char *path)
{
	gt_diag_flush();
	if (is_stdout(path))
		return stdout;
	struct pending *p;
	int fd = out_begin(path, &p);
	FILE *f;
	if (fd == OUT_DIRECT) {
		if (!(f = fopen(path, "w")))
			gt_error("cannot write '%s': %s", path, strerror(errno));
		return f;
	}
	if (fd < 0)
		return NULL;
	if (!(f = fdopen(fd, "w"))) {
		int err = errno;
		close(fd);
		out_abandon(path, p, err);
		return NULL;
	}
	p->f = f;
	return f;
}

int gt_output_close(FILE *f, const char *path)
{
	gt_diag_flush();
	if (!f)
		return 0;
	for (size_t i = 0; i < npend; i++)
		if (pend[i].f == f)
			pend[i].f = NULL; /* closed here: its error is this call's to report */
	int bad = ferror(f) != 0;
	int err = bad ? EIO : 0;
	if (fflush(f) != 0 && !bad) {
		bad = 1;
		err = errno;
	}
	if (f != stdout && fclose(f) != 0 && !bad) {
		bad = 1;
		err = errno;
	}
	if (bad)
		return gt_error("cannot write '%s': %s", is_stdout(path) ? "standard output" : path,
		                strerror(err));
	return 0;
}

const char *gt_outfile_reserve(const char *path, const char *why)
{
	struct pending *p;
	int fd = out_begin(path, &p);
	if (fd == OUT_DIRECT)
		gt_error("cannot write '%s': not a regular file (%s)", path, why);
	if (fd < 0)
		return NULL;
	if (close(fd) != 0) {
		out_abandon(path, p, errno);
		return NULL;
	}
	return p->tmp;
}

int gt_outfile_end(int commit)
{
	int rc = 0;
	for (size_t i = 0; i < npend; i++) {
		struct pending *p = &pend[i];
		if (p->f) {
			/* Never closed by gt_output_close: the command ended early, its output unfinished. */
			fclose(p->f);
			p->f = NULL;
			commit = 0;
		}
	}
	for (size_t i = 0; i < npend; i++) {
		struct pending *p = &pend[i];
		if (commit && rename(p->tmp, p->target) != 0)
			rc = gt_error("cannot write '%s': %s", p->target, strerror(errno));
		else if (commit)
			p->tmp[0] = '\0'; /* renamed: nothing to remove */
		drop_pending(p, p->tmp[0] != '\0');
	}
	npend = 0;
	return rc;
}
