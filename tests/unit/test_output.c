// SPDX-License-Identifier: MIT
/*
 * test_output.c - the output policy (nt/output.h) in a scratch directory:
 * a file being written has no name; a new file appears whole at commit; an
 * existing file keeps its mode, a hard-linked one its links, a symbolic
 * link stays a link to the file written; FIFOs and sockets are written as
 * they are; directories and missing directories are refused before
 * anything; same-file and input checks; the closed-stdout guard; long paths
 * shortened in the middle with the reason kept.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "nt/err.h"
#include "nt/output.h"
#include "test_dir.h"

static char dir[] = "/tmp/nt-output-XXXXXX";

static const char *at(const char *name)
{
	static char buf[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

static void slurp(const char *path, char *buf, size_t len)
{
	FILE *fp = fopen(path, "r");
	size_t n;

	assert_non_null(fp);
	n = fread(buf, 1, len - 1, fp);
	buf[n] = '\0';
	fclose(fp);
}

static void spit(const char *path, const char *text, mode_t mode)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	assert_int_equal(chmod(path, mode), 0);
}

/* Writes @text to @path through the policy and commits. */
static int write_doc(const char *path, const char *text, struct nt_err *err)
{
	struct nt_output out;
	int ret = nt_output_open(&out, path, NT_OUTPUT_DOCUMENT, err);

	if (ret < 0)
		return ret;
	fputs(text, out.fp);
	return nt_output_commit(&out, err);
}

static void clean(void)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'/* '%s'/.[!.]* 2>/dev/null", dir, dir);
	assert_int_equal(system(cmd), 0);
}

static void test_new_file_unnamed_until_commit(void **state)
{
	struct nt_output out;
	struct nt_err err = { "" };
	char buf[64];
	struct stat st;

	(void)state;
	assert_int_equal(nt_output_open(&out, at("new.json"), NT_OUTPUT_DOCUMENT, &err), 0);
	assert_int_equal(out.target.kind, NT_OUTPUT_NEW);
	fputs("{}\n", out.fp);
	fflush(out.fp);
	/* Written, flushed, and still nothing under any name: SIGKILL would leave nothing. */
	assert_int_equal(nt_test_dir_entries(dir), 0);
	assert_int_equal(nt_output_commit(&out, &err), 0);
	slurp(at("new.json"), buf, sizeof(buf));
	assert_string_equal(buf, "{}\n");
	assert_int_equal(stat(at("new.json"), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0666 & ~umask(022));
	assert_int_equal(nt_test_dir_entries(dir), 1);
	/* Abort leaves nothing, even after writes. */
	assert_int_equal(nt_output_open(&out, at("gone.json"), NT_OUTPUT_DOCUMENT, &err), 0);
	fputs("half", out.fp);
	nt_output_abort(&out);
	nt_output_abort(&out);
	assert_int_equal(nt_test_dir_entries(dir), 1);
	clean();
}

static void test_replace_keeps_mode(void **state)
{
	struct nt_err err = { "" };
	char buf[64];
	struct stat st;

	(void)state;
	spit(at("six"), "old\n", 0600);
	assert_int_equal(write_doc(at("six"), "new\n", &err), 0);
	slurp(at("six"), buf, sizeof(buf));
	assert_string_equal(buf, "new\n");
	assert_int_equal(stat(at("six"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_nlink, 1);
	assert_int_equal(nt_test_dir_entries(dir), 1);
	/* Set-ID bits are not carried over, as the kernel drops them on write. */
	spit(at("suid"), "old\n", 04755);
	assert_int_equal(write_doc(at("suid"), "new\n", &err), 0);
	assert_int_equal(stat(at("suid"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
	clean();
}

static void test_hard_link_kept(void **state)
{
	struct nt_err err = { "" };
	struct stat a, b;
	char buf[64];

	(void)state;
	spit(at("a"), "a long old content\n", 0640);
	assert_int_equal(link(at("a"), at("b")), 0);
	assert_int_equal(write_doc(at("a"), "new\n", &err), 0);
	assert_int_equal(stat(at("a"), &a), 0);
	assert_int_equal(stat(at("b"), &b), 0);
	assert_int_equal(a.st_ino, b.st_ino);
	assert_int_equal(a.st_nlink, 2);
	assert_int_equal(a.st_mode & 0777, 0640);
	slurp(at("b"), buf, sizeof(buf));
	/* Rewritten and truncated to the new length. */
	assert_string_equal(buf, "new\n");
	assert_int_equal(nt_test_dir_entries(dir), 2);
	clean();
}

static void test_symlink_kept(void **state)
{
	struct nt_err err = { "" };
	char buf[64];
	struct stat st;

	(void)state;
	spit(at("target"), "old\n", 0644);
	assert_int_equal(symlink("target", at("link")), 0);
	assert_int_equal(write_doc(at("link"), "new\n", &err), 0);
	assert_int_equal(lstat(at("link"), &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	slurp(at("target"), buf, sizeof(buf));
	assert_string_equal(buf, "new\n");
	/* A dangling link names the file to create. */
	assert_int_equal(symlink("made", at("dangling")), 0);
	assert_int_equal(write_doc(at("dangling"), "made\n", &err), 0);
	assert_int_equal(lstat(at("dangling"), &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	slurp(at("made"), buf, sizeof(buf));
	assert_string_equal(buf, "made\n");
	assert_int_equal(nt_test_dir_entries(dir), 4);
	/* A loop of links is refused. */
	assert_int_equal(symlink("loop2", at("loop1")), 0);
	assert_int_equal(symlink("loop1", at("loop2")), 0);
	assert_int_equal(nt_output_check(at("loop1"), &err), -ELOOP);
	clean();
}

/* A child that copies the FIFO @path to @out. */
static pid_t fifo_reader(const char *path, const char *out)
{
	pid_t pid = fork();

	if (pid == 0) {
		char cmd[1200];

		snprintf(cmd, sizeof(cmd), "cat '%s' > '%s'", path, out);
		_exit(system(cmd) == 0 ? 0 : 1);
	}
	return pid;
}

static void test_fifo_written_directly(void **state)
{
	struct nt_err err = { "" };
	char buf[64];
	struct stat st;
	int status;
	pid_t pid;

	(void)state;
	assert_int_equal(mkfifo(at("fifo"), 0600), 0);
	pid = fifo_reader(at("fifo"), at("got"));
	assert_int_equal(write_doc(at("fifo"), "report\n", &err), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(lstat(at("fifo"), &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	slurp(at("got"), buf, sizeof(buf));
	assert_string_equal(buf, "report\n");
	clean();
}

static void test_socket_written_directly(void **state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct nt_err err = { "" };
	char buf[64] = "";
	struct stat st;
	int l, c;
	ssize_t n;

	(void)state;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", at("sock"));
	l = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_int_equal(bind(l, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(l, 1), 0);
	assert_int_equal(write_doc(at("sock"), "over a socket\n", &err), 0);
	c = accept(l, NULL, NULL);
	n = read(c, buf, sizeof(buf) - 1);
	assert_int_equal(n, 14);
	assert_string_equal(buf, "over a socket\n");
	assert_int_equal(lstat(at("sock"), &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	close(c);
	close(l);
	clean();
}

/**
 * struct opened - what nt_output_open() made of a destination
 * @spooled: a spool, copied out at the commit
 * @buffered: a stream of the destination's own, with the large buffer
 */
struct opened {
	bool spooled;
	bool buffered;
};

/* @path opened in @mode, written to and committed: what it was. */
static struct opened opened_to(const char *path, enum nt_output_mode mode)
{
	struct nt_err err = { "" };
	struct nt_output out;
	struct opened o;

	assert_int_equal(nt_output_open(&out, path, mode, &err), 0);
	o.spooled = out.spooled;
	o.buffered = out.buf != NULL && out.fp != stdout;
	fputs("discarded\n", out.fp);
	assert_int_equal(nt_output_commit(&out, &err), 0);
	return o;
}

/* @check() in a child whose standard output is /dev/null, as `> /dev/null` leaves it: true. */
static void on_null_stdout(bool (*check)(void))
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		_exit(fd >= 0 && dup2(fd, STDOUT_FILENO) == STDOUT_FILENO && check() ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/*
 * A document bound for /dev/null is written to it unspooled (nothing can
 * read a part of it); any other device, /dev/zero (which discards writes as
 * well) included, is spooled: the test is the device number, not what the
 * device does.
 */
static bool stdout_unspooled(void)
{
	return !opened_to(NULL, NT_OUTPUT_DOCUMENT).spooled;
}

static void test_dev_null_unspooled(void **state)
{
	(void)state;
	assert_false(opened_to("/dev/null", NT_OUTPUT_DOCUMENT).spooled);
	assert_true(opened_to("/dev/zero", NT_OUTPUT_DOCUMENT).spooled);
	on_null_stdout(stdout_unspooled);
}

/*
 * ... and through a buffer as large as a spool's (one write(2) per 4 KiB,
 * stdio's own, was most of the cost of a large report to /dev/null), a
 * document or a stream: standard output through a stream of its own, which
 * the commit flushes and closes, leaving stdout as it was. So is a new file
 * in either mode.
 */
static bool stdout_buffered(void)
{
	return opened_to(NULL, NT_OUTPUT_DOCUMENT).buffered &&
	       opened_to(NULL, NT_OUTPUT_STREAM).buffered &&
	       fputs("stdout still works\n", stdout) >= 0 && fflush(stdout) == 0;
}

static void test_dev_null_buffered(void **state)
{
	(void)state;
	assert_true(opened_to("/dev/null", NT_OUTPUT_DOCUMENT).buffered);
	assert_true(opened_to("/dev/null", NT_OUTPUT_STREAM).buffered);
	assert_true(opened_to(at("stream.jsonl"), NT_OUTPUT_STREAM).buffered);
	on_null_stdout(stdout_buffered);
	clean();
}

static void test_refused_before_anything(void **state)
{
	struct nt_err err = { "" };
	struct nt_output out;

	(void)state;
	assert_int_equal(mkdir(at("d"), 0755), 0);
	assert_int_equal(nt_output_check(at("d"), &err), -EISDIR);
	assert_non_null(strstr(err.msg, "Is a directory"));
	err.msg[0] = '\0';
	/* "dir/" once said "Not a directory". */
	assert_int_equal(nt_output_check(at("d/"), &err), -EISDIR);
	assert_non_null(strstr(err.msg, "Is a directory"));
	err.msg[0] = '\0';
	assert_int_equal(nt_output_check(at("missing/x.json"), &err), -ENOENT);
	assert_non_null(strstr(err.msg, "No such file or directory"));
	err.msg[0] = '\0';
	assert_int_equal(nt_output_check(at("new/"), &err), -EISDIR);
	err.msg[0] = '\0';
	assert_int_equal(nt_output_open(&out, at("d"), NT_OUTPUT_DOCUMENT, &err), -EISDIR);
	err.msg[0] = '\0';
	assert_int_equal(nt_output_check(at("fine.json"), &err), 0);
	assert_int_equal(nt_output_check("-", &err), 0);
	assert_int_equal(nt_test_dir_entries(dir), 1);
	clean();
}

static void test_same_file(void **state)
{
	char cwd[512];

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	assert_true(nt_output_same_file("x.out", "./x.out"));
	assert_true(nt_output_same_file("x.out", at("x.out")));
	assert_false(nt_output_same_file("x.out", "y.out"));
	spit("e", "", 0644);
	assert_int_equal(link("e", "e2"), 0);
	assert_int_equal(symlink("e", "e3"), 0);
	assert_true(nt_output_same_file("e", "e2"));
	assert_true(nt_output_same_file("e3", "./e"));
	assert_true(nt_output_same_file(NULL, "-"));
	assert_false(nt_output_same_file("e", "x.out"));
	/* Character devices take any number of writers. */
	assert_false(nt_output_same_file("/dev/null", "/dev/null"));
	assert_true(nt_output_is_input("e3", "e2"));
	assert_true(nt_output_is_input("./new.pcap", "new.pcap"));
	assert_false(nt_output_is_input("out.txt", "e"));
	assert_int_equal(chdir(cwd), 0);
	clean();
}

static void test_closed_stdout(void **state)
{
	pid_t pid;
	int status;

	(void)state;
	pid = fork();
	if (pid == 0) {
		struct nt_err err = { "" };
		int ok;

		close(STDOUT_FILENO);
		ok = nt_output_stdio_init() == 0 && fcntl(STDOUT_FILENO, F_GETFD) >= 0 &&
		     nt_output_stdout_closed() && nt_output_check(NULL, &err) == -EBADF &&
		     nt_output_check("/dev/stdout", &err) == -EBADF &&
		     nt_output_close_stdout(&err) == -EBADF;
		_exit(ok ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_long_path_keeps_reason(void **state)
{
	char path[2048], pb[NT_ERR_PATH_MAX];
	struct nt_err err = { "" };
	const char *s;
	size_t n;

	(void)state;
	n = (size_t)snprintf(path, sizeof(path), "%s/", dir);
	memset(path + n, 'd', 900);
	snprintf(path + n + 900, sizeof(path) - n - 900, "/the-end.json");
	assert_true(nt_output_check(path, &err) < 0);
	/* The reason survives, and so does the file name. */
	assert_non_null(strstr(err.msg, "the-end.json"));
	assert_non_null(strstr(err.msg, ": File name too long"));
	s = nt_err_path(path, pb, sizeof(pb));
	assert_ptr_equal(s, pb);
	assert_true(strlen(s) < NT_ERR_PATH_MAX);
	assert_memory_equal(s, dir, strlen(dir));
	assert_non_null(strstr(s, "\xe2\x80\xa6"));
	assert_ptr_equal(nt_err_path("short", pb, sizeof(pb)), "short");
	/* Never a cut inside a UTF-8 sequence: 'é' is two bytes. */
	for (size_t i = 0; i + 2 <= 900; i += 2)
		memcpy(path + i, "\xc3\xa9", 2);
	path[900] = '\0';
	s = nt_err_path(path, pb, sizeof(pb));
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p == 0xc3)
			assert_int_equal((unsigned char)p[1], 0xa9);
	assert_int_equal((unsigned char)s[strlen(s) - 1], 0xa9);
}

static int setup(void **state)
{
	(void)state;
	umask(022);
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_file_unnamed_until_commit),
		cmocka_unit_test(test_replace_keeps_mode),
		cmocka_unit_test(test_hard_link_kept),
		cmocka_unit_test(test_symlink_kept),
		cmocka_unit_test(test_fifo_written_directly),
		cmocka_unit_test(test_socket_written_directly),
		cmocka_unit_test(test_dev_null_unspooled),
		cmocka_unit_test(test_dev_null_buffered),
		cmocka_unit_test(test_refused_before_anything),
		cmocka_unit_test(test_same_file),
		cmocka_unit_test(test_closed_stdout),
		cmocka_unit_test(test_long_path_keeps_reason),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
