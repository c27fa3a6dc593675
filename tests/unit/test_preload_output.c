/* test_preload_output.c: trace path patterns and the non-clobbering open (preload/output.c).
 *
 * Promises under test: %p %h %r %n %% expand as gputrace(1) says (rank from the launcher variables
 * in their documented order, "0" without one); an unknown %x stays literally; a result that does
 * not fit is an error, never a cut path. output_open never replaces a file and never follows a
 * symlink (".1", ".2", ... before ".gtrace" instead), puts the default name inside a directory,
 * creates files with the umask's permissions, and fails with errno set when it cannot create.
 *
 * preload/output.c is compiled into this test (it is not in any test archive).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "preload/output.c"

static const char *const rank_vars[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
	"MV2_COMM_WORLD_RANK", "SLURM_PROCID", "RANK" };
#define NRANK (sizeof rank_vars / sizeof rank_vars[0])

static const char *const size_vars[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE",
	"SLURM_NTASKS", "WORLD_SIZE" };

static int clear_ranks(void **state)
{
	(void)state;
	for (size_t i = 0; i < NRANK; i++)
		unsetenv(rank_vars[i]);
	for (size_t i = 0; i < sizeof size_vars / sizeof *size_vars; i++)
		unsetenv(size_vars[i]);
	return 0;
}

static char *expand(const char *pattern)
{
	static char out[2048];
	assert_int_equal(output_expand(pattern, out, sizeof out), 0);
	return out;
}

/* The program name is the basename of the first word of the command line: this test's own. */
static void test_program_name(void **state)
{
	(void)state;
	assert_string_equal(output_program_name(), "test_preload_output");
	assert_string_equal(expand("%n"), "test_preload_output");
}

static void test_expand_patterns(void **state)
{
	(void)state;
	char pid[32], host[256], want[1024];
	snprintf(pid, sizeof pid, "%d", (int)getpid());
	assert_int_equal(gethostname(host, sizeof host), 0);
	assert_string_equal(expand("%p"), pid);
	assert_string_equal(expand("%h"), host);
	assert_string_equal(expand("%r"), "0");
	assert_string_equal(expand("100%%"), "100%");
	assert_string_equal(expand("%%p"), "%p");
	assert_string_equal(expand("plain.gtrace"), "plain.gtrace");
	assert_string_equal(expand(""), "");
	/* Unknown letters, and a lone % at the end, are kept as written. */
	assert_string_equal(expand("a%xb%"), "a%xb%");
	snprintf(want, sizeof want, "/tmp/%s/%s-%s-r0.gtrace", host, "test_preload_output", pid);
	assert_string_equal(expand("/tmp/%h/%n-%p-r%r.gtrace"), want);
	snprintf(want, sizeof want, "%s%s%s", pid, pid, pid);
	assert_string_equal(expand("%p%p%p"), want);
}

/* %r comes from the first of the launcher variables that is set, in the documented order; an
 * empty variable does not count. */
static void test_expand_rank(void **state)
{
	(void)state;
	const char *var;
	assert_null(output_rank(&var));
	assert_null(var);
	/* Set them from last to first: each newly set one takes over. */
	for (size_t i = NRANK; i-- > 0;) {
		char val[16];
		snprintf(val, sizeof val, "%zu", 10 + i);
		assert_int_equal(setenv(rank_vars[i], val, 1), 0);
		assert_string_equal(expand("%r"), val);
		assert_string_equal(output_rank(&var), val);
		assert_string_equal(var, rank_vars[i]);
	}
	assert_int_equal(setenv("OMPI_COMM_WORLD_RANK", "", 1), 0);
	assert_string_equal(expand("%r"), "11"); /* PMI_RANK's */
	clear_ranks(NULL);
	assert_string_equal(expand("%r"), "0");
}

/* Only a decimal number of at most 9 digits is a rank: a value that could make a path ("../x",
 * "a/b"), a sign, a space or a longer number is passed over for the next variable, or for 0. */
static void test_rank_is_a_number(void **state)
{
	(void)state;
	const char *bad[] = { "../x", "a/b", "-1", "+1", " 1", "1 ", "1x", "0x10", "1234567890", "..", "/" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		assert_int_equal(setenv("RANK", bad[i], 1), 0);
		assert_null(output_rank(NULL));
		assert_string_equal(expand("%r"), "0");
		assert_int_equal(setenv("SLURM_PROCID", "7", 1), 0);
		const char *var;
		assert_string_equal(output_rank(&var), "7");
		assert_string_equal(var, "SLURM_PROCID");
		assert_int_equal(unsetenv("SLURM_PROCID"), 0);
	}
	assert_int_equal(setenv("RANK", "123456789", 1), 0);
	assert_string_equal(expand("%r"), "123456789");
	assert_int_equal(setenv("PMI_RANK", "../../etc", 1), 0);
	assert_string_equal(expand("run-%r.gtrace"), "run-123456789.gtrace");
}

/* The world size comes from the variable of the launcher whose rank was taken, never another's,
 * and only as a decimal number. */
static void test_world_size(void **state)
{
	(void)state;
	const char *var;
	assert_null(output_world_size(NULL));
	assert_int_equal(setenv("WORLD_SIZE", "8", 1), 0);
	assert_int_equal(setenv("SLURM_NTASKS", "16", 1), 0);
	assert_int_equal(setenv("RANK", "3", 1), 0);
	assert_string_equal(output_rank(&var), "3");
	assert_string_equal(output_world_size(var), "8");
	assert_int_equal(setenv("SLURM_PROCID", "5", 1), 0);
	assert_string_equal(output_rank(&var), "5");
	assert_string_equal(output_world_size(var), "16");
	assert_int_equal(setenv("SLURM_NTASKS", "16 ", 1), 0);
	assert_null(output_world_size(var));
	assert_int_equal(setenv("PMIX_RANK", "1", 1), 0);
	assert_string_equal(output_rank(&var), "1");
	assert_null(output_world_size(var)); /* PMIx sets no size variable */
}

/* A result that does not fit is -1, for every size short of the needed one, and never writes
 * past the buffer (the sanitizer pass watches the exact-size allocation). */
static void test_expand_too_long(void **state)
{
	(void)state;
	const char *pattern = "run-%p-%%-%r.gtrace";
	char full[256];
	assert_int_equal(output_expand(pattern, full, sizeof full), 0);
	size_t need = strlen(full) + 1;
	for (size_t n = 1; n < need; n++) {
		char *buf = malloc(n);
		assert_non_null(buf);
		assert_int_equal(output_expand(pattern, buf, n), -1);
		free(buf);
	}
	char *buf = malloc(need);
	assert_non_null(buf);
	assert_int_equal(output_expand(pattern, buf, need), 0);
	assert_string_equal(buf, full);
	free(buf);
}

/* ---- output_open ------------------------------------------------------------------------------ */

struct dir {
	char path[64];
};

static int make_dir(void **state)
{
	struct dir *d = calloc(1, sizeof *d);
	if (!d)
		return -1;
	snprintf(d->path, sizeof d->path, "/tmp/gt_out_XXXXXX");
	if (!mkdtemp(d->path))
		return -1;
	*state = d;
	clear_ranks(NULL);
	return 0;
}

static int remove_dir(void **state)
{
	struct dir *d = *state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", d->path);
	int rc = system(cmd);
	free(d);
	return rc == 0 ? 0 : -1;
}

static int open_in(struct dir *d, const char *pattern, char *path, size_t n)
{
	char full[512];
	snprintf(full, sizeof full, "%s/%s", d->path, pattern);
	return output_open(full, path, n);
}

static void check_name(struct dir *d, const char *path, const char *want)
{
	char full[512];
	snprintf(full, sizeof full, "%s/%s", d->path, want);
	assert_string_equal(path, full);
	struct stat st;
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
}

/* An existing trace is never replaced: the next free number goes before ".gtrace". */
static void test_open_numbers_existing(void **state)
{
	struct dir *d = *state;
	char path[512];
	static const char *const want[] = { "run.gtrace", "run.1.gtrace", "run.2.gtrace",
		"run.3.gtrace" };
	for (int i = 0; i < 4; i++) {
		int fd = open_in(d, "run.gtrace", path, sizeof path);
		assert_true(fd >= 0);
		check_name(d, path, want[i]);
		/* Mark each file so a later open that truncated it would show. */
		assert_int_equal(write(fd, want[i], strlen(want[i])), (ssize_t)strlen(want[i]));
		assert_int_equal(close(fd), 0);
	}
	for (int i = 0; i < 4; i++) {
		char full[512], buf[64] = "";
		snprintf(full, sizeof full, "%s/%s", d->path, want[i]);
		FILE *f = fopen(full, "r");
		assert_non_null(f);
		assert_non_null(fgets(buf, sizeof buf, f));
		fclose(f);
		assert_string_equal(buf, want[i]);
	}
	/* A name without ".gtrace" gets the number appended. */
	int fd = open_in(d, "trace.bin", path, sizeof path);
	assert_true(fd >= 0);
	close(fd);
	fd = open_in(d, "trace.bin", path, sizeof path);
	assert_true(fd >= 0);
	close(fd);
	check_name(d, path, "trace.bin.1");
	/* A gap is filled: with run.2 removed, the next is run.2 again. */
	char gone[512];
	snprintf(gone, sizeof gone, "%s/run.2.gtrace", d->path);
	assert_int_equal(unlink(gone), 0);
	fd = open_in(d, "run.gtrace", path, sizeof path);
	assert_true(fd >= 0);
	close(fd);
	check_name(d, path, "run.2.gtrace");
}

/* A symlink at the name (dangling or not) is never followed: its target is untouched and the
 * trace goes to a numbered name beside it. */
static void test_open_never_follows_symlinks(void **state)
{
	struct dir *d = *state;
	char target[512], link[512], path[512];
	snprintf(target, sizeof target, "%s/victim", d->path);
	snprintf(link, sizeof link, "%s/run.gtrace", d->path);
	int fd = open(target, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "precious", 8), 8);
	close(fd);
	assert_int_equal(symlink(target, link), 0);
	fd = open_in(d, "run.gtrace", path, sizeof path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "trace", 5), 5);
	close(fd);
	check_name(d, path, "run.1.gtrace");
	struct stat st;
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_size, 8);
	/* Dangling: the link's target must not be created. */
	char dangling_target[512];
	snprintf(dangling_target, sizeof dangling_target, "%s/not-there", d->path);
	snprintf(link, sizeof link, "%s/dang.gtrace", d->path);
	assert_int_equal(symlink(dangling_target, link), 0);
	fd = open_in(d, "dang.gtrace", path, sizeof path);
	assert_true(fd >= 0);
	close(fd);
	check_name(d, path, "dang.1.gtrace");
	assert_int_equal(lstat(dangling_target, &st), -1);
	assert_int_equal(errno, ENOENT);
}

/* A directory (with or without a trailing slash) gets the default name inside it. */
static void test_open_directory(void **state)
{
	struct dir *d = *state;
	char path[512], want[256];
	snprintf(want, sizeof want, "test_preload_output-%d.gtrace", (int)getpid());
	int fd = output_open(d->path, path, sizeof path);
	assert_true(fd >= 0);
	close(fd);
	check_name(d, path, want);
	char slash[512];
	snprintf(slash, sizeof slash, "%s/", d->path);
	fd = output_open(slash, path, sizeof path);
	assert_true(fd >= 0);
	close(fd);
	snprintf(want, sizeof want, "test_preload_output-%d.1.gtrace", (int)getpid());
	check_name(d, path, want);
}

/* Files get 0666 minus the umask, like any file the program creates. */
static void test_open_umask(void **state)
{
	struct dir *d = *state;
	char path[512];
	mode_t old = umask(077);
	int fd = open_in(d, "private.gtrace", path, sizeof path);
	umask(022);
	int fd2 = open_in(d, "shared.gtrace", path + 256, 256);
	umask(old);
	assert_true(fd >= 0);
	assert_true(fd2 >= 0);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(fstat(fd2, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	/* The descriptor is close-on-exec: a program that execs does not inherit our trace. */
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
	close(fd2);
}

/* Failures: -1 with errno saying why, and nothing created. */
static void test_open_failures(void **state)
{
	struct dir *d = *state;
	char path[512];
	errno = 0;
	assert_int_equal(open_in(d, "no/such/dir/run.gtrace", path, sizeof path), -1);
	assert_int_equal(errno, ENOENT);
	/* A path buffer too small for the name. */
	errno = 0;
	assert_int_equal(open_in(d, "run.gtrace", path, 8), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	/* A pattern whose expansion does not fit. */
	char huge[1100];
	memset(huge, 'x', sizeof huge - 1);
	huge[sizeof huge - 1] = '\0';
	errno = 0;
	assert_int_equal(output_open(huge, path, sizeof path), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	/* A read-only directory, where permissions apply (not to root). */
	if (geteuid() != 0) {
		char ro[512];
		snprintf(ro, sizeof ro, "%s/ro", d->path);
		assert_int_equal(mkdir(ro, 0500), 0);
		errno = 0;
		assert_int_equal(open_in(d, "ro/run.gtrace", path, sizeof path), -1);
		assert_int_equal(errno, EACCES);
		assert_int_equal(chmod(ro, 0700), 0);
	}
}

/* Not a place for numbered names: a FIFO or a character device at the name is written directly
 * (a FIFO only with a reader), a link through /proc (/dev/stdout) is refused; nothing is ever made
 * beside them. */
static void test_open_special_files(void **state)
{
	struct dir *d = *state;
	char fifo[512], path[512], why[256];
	snprintf(fifo, sizeof fifo, "%s/fifo", d->path);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(output_open_why(fifo, path, sizeof path, why, sizeof why), -1);
	assert_string_equal(why, "a FIFO with no reader");
	int rd = open(fifo, O_RDWR); /* a reader (and a writer: never blocks) */
	assert_true(rd >= 0);
	int fd = output_open_why(fifo, path, sizeof path, why, sizeof why);
	assert_true(fd >= 0);
	assert_string_equal(path, fifo);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_false(fcntl(fd, F_GETFL) & O_NONBLOCK); /* the writer thread may block, the open did not */
	assert_int_equal(write(fd, "x", 1), 1);
	close(fd);
	close(rd);
	char link[512];
	snprintf(link, sizeof link, "%s/out", d->path);
	assert_int_equal(symlink("/proc/self/fd/1", link), 0);
	assert_int_equal(output_open_why(link, path, sizeof path, why, sizeof why), -1);
	assert_non_null(strstr(why, "as /dev/stdout does"));
	char node[512];
	snprintf(node, sizeof node, "%s/null", d->path);
	if (mknod(node, S_IFCHR | 0666, makedev(1, 3)) == 0) {
		fd = output_open_why(node, path, sizeof path, why, sizeof why);
		assert_true(fd >= 0);
		assert_string_equal(path, node);
		assert_int_equal(fstat(fd, &st), 0);
		assert_true(S_ISCHR(st.st_mode));
		close(fd);
	}
	char beside[512];
	snprintf(beside, sizeof beside, "%s/fifo.1", d->path);
	assert_int_equal(access(beside, F_OK), -1);
	snprintf(beside, sizeof beside, "%s/out.1", d->path);
	assert_int_equal(access(beside, F_OK), -1);
	snprintf(beside, sizeof beside, "%s/null.1", d->path);
	assert_int_equal(access(beside, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_program_name, clear_ranks),
		cmocka_unit_test_setup(test_expand_patterns, clear_ranks),
		cmocka_unit_test_setup(test_expand_rank, clear_ranks),
		cmocka_unit_test_setup(test_rank_is_a_number, clear_ranks),
		cmocka_unit_test_setup(test_world_size, clear_ranks),
		cmocka_unit_test_setup(test_expand_too_long, clear_ranks),
		cmocka_unit_test_setup_teardown(test_open_numbers_existing, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_open_never_follows_symlinks, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_open_directory, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_open_umask, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_open_failures, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_open_special_files, make_dir, remove_dir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
