/* output.c: trace path patterns and a safe, non-clobbering open (see output.h). */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *output_rank(const char **var)
{
	static const char *const names[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
		"MV2_COMM_WORLD_RANK", "SLURM_PROCID", "RANK", NULL };
	for (int i = 0; names[i]; i++) {
		const char *v = getenv(names[i]);
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

int output_open(const char *pattern, char *path, size_t n)
{
	char base[1024];
	if (output_expand(pattern, base, sizeof base) != 0) {
		errno = ENAMETOOLONG;
		return -1;
	}
	struct stat st;
	size_t bl = strlen(base);
	if ((bl && base[bl - 1] == '/') || (stat(base, &st) == 0 && S_ISDIR(st.st_mode))) {
		char def[512];
		if (output_expand("%n-%p.gtrace", def, sizeof def) != 0 ||
		    bl + 1 + strlen(def) + 1 > sizeof base) {
			errno = ENAMETOOLONG;
			return -1;
		}
		snprintf(base + bl, sizeof base - bl, "%s%s", base[bl - 1] == '/' ? "" : "/", def);
	}
	for (unsigned k = 0; k < 1000; k++) {
		if (k == 0) {
			if (strlen(base) + 1 > n) {
				errno = ENAMETOOLONG;
				return -1;
			}
			snprintf(path, n, "%s", base);
		} else if (numbered(base, k, path, n) != 0) {
			errno = ENAMETOOLONG;
			return -1;
		}
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return -1;
	}
	errno = EEXIST;
	return -1;
}
