/* output.c: trace path patterns and a safe, non-clobbering open (see output.h). */
#include "preload/output.h"

#include "preload/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

/* Whether v is a rank: decimal digits only, at most OUTPUT_RANK_DIGITS of them. A rank becomes
 * part of a path (%r), so anything else ("../x", "a/b") could put the trace outside its folder. */
static int is_rank(const char *v)
{
	size_t n = strspn(v, "0123456789");
	return n > 0 && n <= OUTPUT_RANK_DIGITS && v[n] == '\0';
}

/* The launchers' rank variables, and beside each the variable its launcher sets to the number of
 * ranks (NULL where it sets none: PMIx keeps the size in its server, not the environment). */
static const char *const rank_names[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
	"MV2_COMM_WORLD_RANK", "SLURM_PROCID", "RANK", NULL };
static const char *const size_names[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", NULL,
	"MV2_COMM_WORLD_SIZE", "SLURM_NTASKS", "WORLD_SIZE", NULL };

const char *output_world_size(const char *rank_var)
{
	for (int i = 0; rank_var && rank_names[i]; i++) {
		if (strcmp(rank_names[i], rank_var) != 0)
			continue;
		const char *v = size_names[i] ? getenv(size_names[i]) : NULL;
		return v && is_rank(v) ? v : NULL;
	}
	return NULL;
}

const char *output_rank(const char **var)
{
	const char *const *names = rank_names;
	static unsigned refused; /* the variables already said to be refused: one line each */
	for (int i = 0; names[i]; i++) {
		const char *v = getenv(names[i]);
		if (v && *v && !is_rank(v)) {
			if (!(refused & 1u << i))
				gtp_error("%s='%.64s' is not a rank (a decimal number of at most %d digits); "
				          "ignored", names[i], v, OUTPUT_RANK_DIGITS);
			refused |= 1u << i;
			continue;
		}
		if (v && *v) {
			if (var)
				*var = names[i];
			return v;
		}
	}
	if (var)
		*var = NULL;
	return NULL;
}

const char *output_program_name(void)
{
	static char name[256];
	if (name[0])
		return name;
	/* /proc/self/comm is truncated to 15 characters; the first word of cmdline is not. For a
	 * script run by an interpreter ("python3 train.py") the interpreter is the program. */
	char buf[4096];
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t k = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (k > 0) {
		buf[k] = '\0';
		const char *base = strrchr(buf, '/');
		base = base ? base + 1 : buf;
		size_t len = strnlen(base, sizeof name - 1);
		memcpy(name, base, len);
		name[len] = '\0';
	}
	if (!name[0])
		snprintf(name, sizeof name, "program");
	/* Keep the name safe as a file name component. */
	for (char *p = name; *p; p++)
		if (*p == '/' || *p == ' ' || (unsigned char)*p < 32)
			*p = '_';
	return name;
}

int output_expand(const char *pattern, char *out, size_t n)
{
	size_t pos = 0;
	char tmp[256];
	for (const char *p = pattern; *p; p++) {
		const char *piece = NULL;
		char one[2] = { *p, 0 };
		if (*p == '%' && p[1]) {
			p++;
			switch (*p) {
			case 'p': snprintf(tmp, sizeof tmp, "%d", (int)getpid()); piece = tmp; break;
			case 'h':
				if (gethostname(tmp, sizeof tmp) != 0)
					snprintf(tmp, sizeof tmp, "host");
				tmp[sizeof tmp - 1] = '\0';
				piece = tmp;
				break;
			case 'r': {
				const char *r = output_rank(NULL);
				snprintf(tmp, sizeof tmp, "%s", r ? r : "0");
				piece = tmp;
				break;
			}
			case 'n': piece = output_program_name(); break;
			case '%': piece = "%"; break;
			default: /* unknown: keep it literally */
				tmp[0] = '%';
				tmp[1] = *p;
				tmp[2] = '\0';
				piece = tmp;
				break;
			}
		} else {
			piece = one;
		}
		size_t len = strlen(piece);
		if (pos + len + 1 > n)
			return -1;
		memcpy(out + pos, piece, len);
		pos += len;
	}
	out[pos] = '\0';
	return 0;
}

/* "dir/run.gtrace" + k -> "dir/run.k.gtrace"; names without ".gtrace" get ".k" appended. */
static int numbered(const char *base, unsigned k, char *out, size_t n)
{
	size_t len = strlen(base);
	const char *ext = ".gtrace";
	size_t el = strlen(ext);
	int w;
	if (len > el && strcmp(base + len - el, ext) == 0)
		w = snprintf(out, n, "%.*s.%u%s", (int)(len - el), base, k, ext);
	else
		w = snprintf(out, n, "%s.%u", base, k);
	return w < 0 || (size_t)w >= n ? -1 : 0;
}

#ifndef PROC_SUPER_MAGIC
#define PROC_SUPER_MAGIC 0x9fa0 /* linux/magic.h */
#endif

/* Whether path is a symbolic link that leads, link by link, through procfs: /dev/stdout,
 * /dev/fd/N and /proc/self/fd/N name the program's own open files, not a place for a trace (and
 * not a folder to put numbered names in). */
static int through_proc(const char *path)
{
	char cur[1024];
	snprintf(cur, sizeof cur, "%s", path);
	for (int hop = 0; hop < 40; hop++) {
		struct stat st;
		if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
			return 0;
		char dir[1024];
		snprintf(dir, sizeof dir, "%s", cur);
		char *slash = strrchr(dir, '/');
		if (!slash)
			snprintf(dir, sizeof dir, ".");
		else if (slash == dir)
			dir[1] = '\0';
		else
			*slash = '\0';
		struct statfs fs;
		if (statfs(dir, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC)
			return 1;
		char target[1024];
		ssize_t k = readlink(cur, target, sizeof target - 1);
		if (k <= 0)
			return 0;
		target[k] = '\0';
		int w = target[0] == '/' ? snprintf(cur, sizeof cur, "%s", target)
		                         : snprintf(cur, sizeof cur, "%s/%s", dir, target);
		if (w < 0 || (size_t)w >= sizeof cur)
			return 0;
	}
	return 0;
}

static void say(char *why, size_t wn, const char *text)
{
	if (wn)
		snprintf(why, wn, "%s", text);
}

/* Opens an existing character device or FIFO (the name the user gave) for writing, as a shell's
 * redirection would: O_NONBLOCK so that a FIFO without a reader fails at once (ENXIO) instead of
 * blocking the program inside cuInit, then blocking again for the writer thread. -1 with why
 * filled; -2 when the name turned out to be something else by the time it was opened (the caller
 * moves on to the next name). */
static int open_direct(const char *path, char *why, size_t wn)
{
	int fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		struct stat st;
		if (e == ENXIO && lstat(path, &st) == 0 && S_ISFIFO(st.st_mode))
			say(why, wn, "a FIFO with no reader");
		else
			say(why, wn, strerror(e));
		errno = e;
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
		/* Replaced between lstat and open: never write into a file we did not create. */
		close(fd);
		return -2;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
		int e = errno;
		say(why, wn, strerror(e));
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

enum { EX_NEXT, EX_DIRECT, EX_REFUSE };

/* What to do with a name that exists: the next numbered name beside a regular file or a symbolic
 * link (never followed); the first name, when it is a character device (/dev/null) or a FIFO, is
 * written directly; anything else is refused (no file is ever made beside a device node or
 * /dev/stdout). */
static int existing(const char *path, int first, char *why, size_t wn)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return EX_NEXT; /* gone again: a race with someone else; move on */
	if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
		return EX_NEXT;
	if (S_ISLNK(st.st_mode)) {
		if (!through_proc(path))
			return EX_NEXT;
		/* The trace would mix with the program's own output there. */
		say(why, wn, "it leads to one of the program's own open files, as /dev/stdout does; "
		             "name a file");
		return EX_REFUSE;
	}
	if (!first)
		return EX_NEXT;
	if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
		return EX_DIRECT;
	say(why, wn, S_ISBLK(st.st_mode) ? "it is a block device; a trace goes only to a regular file, a "
	                                   "character device or a FIFO"
	                                 : "it is a socket; a trace goes only to a regular file, a "
	                                   "character device or a FIFO");
	return EX_REFUSE;
}

int output_open(const char *pattern, char *path, size_t n)
{
	return output_open_why(pattern, path, n, NULL, 0);
}

int output_open_why(const char *pattern, char *path, size_t n, char *why, size_t wn)
{
	char base[1024];
	say(why, wn, "");
	if (output_expand(pattern, base, sizeof base) != 0) {
		errno = ENAMETOOLONG;
		say(why, wn, strerror(errno));
		return -1;
	}
	struct stat st;
	size_t bl = strlen(base);
	if ((bl && base[bl - 1] == '/') || (stat(base, &st) == 0 && S_ISDIR(st.st_mode))) {
		char def[512];
		if (output_expand("%n-%p.gtrace", def, sizeof def) != 0 ||
		    bl + 1 + strlen(def) + 1 > sizeof base) {
			errno = ENAMETOOLONG;
			say(why, wn, strerror(errno));
			return -1;
		}
		snprintf(base + bl, sizeof base - bl, "%s%s", base[bl - 1] == '/' ? "" : "/", def);
	}
	for (unsigned k = 0; k < 1000; k++) {
		if (k == 0) {
			if (strlen(base) + 1 > n) {
				errno = ENAMETOOLONG;
				say(why, wn, strerror(errno));
				return -1;
			}
			snprintf(path, n, "%s", base);
		} else if (numbered(base, k, path, n) != 0) {
			errno = ENAMETOOLONG;
			say(why, wn, strerror(errno));
			return -1;
		}
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST) {
			say(why, wn, strerror(errno));
			return -1;
		}
		switch (existing(path, k == 0, why, wn)) {
		case EX_DIRECT:
			fd = open_direct(path, why, wn);
			if (fd != -2)
				return fd;
			break;
		case EX_REFUSE:
			errno = EEXIST;
			return -1;
		default:
			break;
		}
	}
	errno = EEXIST;
	say(why, wn, strerror(errno));
	return -1;
}
