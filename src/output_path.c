// SPDX-License-Identifier: MIT
/*
 * output_path.c - what a destination path names, before anything is written
 * (see nt/output.h): resolution, the checks run before any work, and the
 * standard descriptors.
 *
 * Symbolic links in the last component are followed by hand (lstat() and
 * readlink(), at most 40 hops as the kernel's MAXSYMLINKS), so that a link
 * to a file that does not exist yet still names where to create it, and the
 * link itself is never replaced. Links in the directories above are left to
 * the kernel.
 *
 * /dev/stdout, /dev/fd/N and /proc/self/fd/N are not such links: they are
 * procfs "magic" links, which jump to an open file rather than name a path
 * (proc_fd_link(), nd_jump_link() in fs/namei.c); readlink() of one says
 * "pipe:[1234]" or a path that may be stale. openat2() with
 * RESOLVE_NO_MAGICLINKS fails with ELOOP exactly when one is on the way, and
 * such a destination is opened and written as it is, never resolved and
 * replaced: that is how `-o /dev/stdout` once replaced /dev/stdout.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "nt/output.h"

/* MAXSYMLINKS in include/linux/namei.h. */
#define LINK_HOPS_MAX 40

static bool stdout_was_closed;

static bool is_stdout(const char *path)
{
	return !path || strcmp(path, "-") == 0;
}

int nt_output_stdio_init(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		int nfd;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		/* open() returns the lowest free descriptor: this one. */
		nfd = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
		if (nfd < 0)
			return -errno;
		if (nfd != fd) {
			close(nfd);
			return -EBADF;
		}
		if (fd == STDOUT_FILENO)
			stdout_was_closed = true;
	}
	return 0;
}

bool nt_output_stdout_closed(void)
{
	return stdout_was_closed;
}

int nt_output_close_stdout(struct nt_err *err)
{
	int ret = 0;

	if (fflush(stdout) == EOF || ferror(stdout))
		ret = errno ? -errno : -EIO;
	if (!ret && stdout_was_closed)
		ret = -EBADF;
	return ret ? nt_output_write_error(NULL, ret, err) : 0;
}

/*
 * 1 when resolving @path crosses a procfs magic link and it leads somewhere
 * (@st filled), 0 otherwise (no such link, a missing file, a kernel before
 * openat2(): 5.6).
 */
static int through_magic_link(const char *path, struct stat *st)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_NO_MAGICLINKS };
	long fd = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));

	if (fd >= 0) {
		close((int)fd);
		return 0;
	}
	if (errno != ELOOP)
		return 0;
	/* ELOOP from a real loop of links fails stat() too. */
	return stat(path, st) == 0;
}

static bool same_as_fd(const struct stat *st, int fd)
{
	struct stat o;

	return fstat(fd, &o) == 0 && o.st_dev == st->st_dev && o.st_ino == st->st_ino;
}

/* @link's target, relative to @link's directory when it is relative; NULL on failure. */
static char *follow(const char *link)
{
	char target[PATH_MAX];
	const char *slash = strrchr(link, '/');
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	char *out;

	if (n < 0)
		return NULL;
	if (n == sizeof(target) - 1) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	target[n] = '\0';
	if (target[0] == '/' || !slash)
		return strdup(target);
	if (asprintf(&out, "%.*s/%s", (int)(slash - link), link, target) < 0)
		return NULL;
	return out;
}

/* Splits t->path into t->dir and t->name. */
static int split(struct nt_output_target *t)
{
	const char *slash = strrchr(t->path, '/');

	if (!slash) {
		t->dir = strdup(".");
		t->name = strdup(t->path);
	} else {
		t->dir = slash == t->path ? strdup("/")
					  : strndup(t->path, (size_t)(slash - t->path));
		t->name = strdup(slash + 1);
	}
	if (!t->dir || !t->name)
		return -ENOMEM;
	return 0;
}

/* Follows the last component's symbolic links; sets t->path, t->st, t->kind. */
static int follow_links(const char *path, struct nt_output_target *t)
{
	t->path = strdup(path);
	if (!t->path)
		return -ENOMEM;
	for (int hops = 0;; hops++) {
		struct stat st;
		char *next;

		if (lstat(t->path, &st) < 0) {
			if (errno != ENOENT)
				return -errno;
			t->kind = NT_OUTPUT_NEW;
			return 0;
		}
		t->st = st;
		if (!S_ISLNK(st.st_mode))
			break;
		if (hops == LINK_HOPS_MAX)
			return -ELOOP;
		next = follow(t->path);
		if (!next)
			return -errno;
		free(t->path);
		t->path = next;
	}
	if (S_ISDIR(t->st.st_mode))
		return -EISDIR;
	if (!S_ISREG(t->st.st_mode))
		t->kind = NT_OUTPUT_DIRECT;
	else
		t->kind = t->st.st_nlink > 1 ? NT_OUTPUT_IN_PLACE : NT_OUTPUT_REPLACE;
	return 0;
}

int nt_output_resolve(const char *path, struct nt_output_target *t, struct nt_err *err)
{
	char pb[NT_ERR_PATH_MAX];
	struct stat dir_st;
	int ret;

	memset(t, 0, sizeof(*t));
	t->magic = !is_stdout(path) && through_magic_link(path, &t->st);
	if (is_stdout(path) || (t->magic && same_as_fd(&t->st, STDOUT_FILENO))) {
		t->kind = NT_OUTPUT_STDOUT;
		if (stdout_was_closed)
			return nt_err_set(err, -EBADF, "write standard output: it was closed");
		return 0;
	}
	if (t->magic) {
		t->kind = NT_OUTPUT_DIRECT;
		t->path = strdup(path);
		return t->path ? 0 : nt_err_set(err, -ENOMEM, "write \"%s\"", path);
	}
	ret = follow_links(path, t);
	if (ret == 0)
		ret = split(t);
	if (ret == 0 && t->kind == NT_OUTPUT_NEW && !t->name[0])
		return nt_err_set(err, -EISDIR, "write \"%s\": the name ends in '/'",
				  nt_err_path(path, pb, sizeof(pb)));
	if (ret == 0 && t->kind == NT_OUTPUT_NEW) {
		/* Say which is missing: the file will be made, its directory will not. */
		if (stat(t->dir, &dir_st) < 0)
			ret = -errno;
		else if (!S_ISDIR(dir_st.st_mode))
			ret = -ENOTDIR;
		if (ret)
			return nt_err_set(err, ret, "write \"%s\": directory \"%s\"",
					  nt_err_path(path, pb, sizeof(pb)), t->dir);
	}
	if (ret)
		return nt_err_set(err, ret, "write \"%s\"", nt_err_path(path, pb, sizeof(pb)));
	return 0;
}

void nt_output_target_fini(struct nt_output_target *t)
{
	free(t->path);
	free(t->dir);
	free(t->name);
	t->path = t->dir = t->name = NULL;
}

int nt_output_check(const char *path, struct nt_err *err)
{
	struct nt_output_target t;
	char pb[NT_ERR_PATH_MAX];
	int ret = nt_output_resolve(path, &t, err);

	if (ret == 0) {
		switch (t.kind) {
		case NT_OUTPUT_STDOUT:
			break;
		case NT_OUTPUT_NEW:
			ret = access(t.dir, W_OK | X_OK) < 0 ? -errno : 0;
			break;
		case NT_OUTPUT_REPLACE:
			/* A directory we may not write still lets us rewrite a file we may. */
			ret = access(t.dir, W_OK | X_OK) < 0 ? -errno : 0;
			if (ret && access(t.path, W_OK) == 0)
				ret = 0;
			break;
		case NT_OUTPUT_IN_PLACE:
		case NT_OUTPUT_DIRECT:
			ret = access(t.path, W_OK) < 0 ? -errno : 0;
			break;
		}
		if (ret)
			nt_err_set(err, ret, "write \"%s\"", nt_err_path(path, pb, sizeof(pb)));
	}
	nt_output_target_fini(&t);
	return ret;
}

/*
 * What a path is, for comparisons: an existing file's device and inode, or
 * for a new one its directory's real path and its name. Standard output
 * (and standard input, @in) are their descriptors' files.
 */
struct file_id {
	bool exists;
	bool sink;
	dev_t dev;
	ino_t ino;
	char *where;
};

static int identify(const char *path, bool in, struct file_id *id)
{
	struct nt_output_target t;
	struct stat st;
	char *dir;
	int ret;

	memset(id, 0, sizeof(*id));
	if (is_stdout(path)) {
		if (fstat(in ? STDIN_FILENO : STDOUT_FILENO, &st) < 0)
			return -errno;
	} else {
		ret = nt_output_resolve(path, &t, NULL);
		if (ret < 0) {
			nt_output_target_fini(&t);
			return ret;
		}
		if (t.kind == NT_OUTPUT_NEW) {
			dir = realpath(t.dir, NULL);
			if (!dir || asprintf(&id->where, "%s/%s", dir, t.name) < 0)
				id->where = NULL;
			free(dir);
			nt_output_target_fini(&t);
			return id->where ? 0 : -ENOMEM;
		}
		st = t.st;
		nt_output_target_fini(&t);
	}
	id->exists = true;
	/* Character devices (/dev/null, a terminal) take any number of writers. */
	id->sink = S_ISCHR(st.st_mode);
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	return 0;
}

static bool same(const char *a, bool a_in, const char *b)
{
	struct file_id ia, ib;
	bool eq = false;

	if (!a_in && is_stdout(a) && is_stdout(b))
		return true;
	if (identify(a, a_in, &ia) < 0)
		return false;
	if (identify(b, false, &ib) == 0) {
		if (ia.exists && ib.exists)
			eq = ia.dev == ib.dev && ia.ino == ib.ino && !ia.sink;
		else if (!ia.exists && !ib.exists && ia.where && ib.where)
			eq = strcmp(ia.where, ib.where) == 0;
		free(ib.where);
	}
	free(ia.where);
	return eq;
}

bool nt_output_same_file(const char *a, const char *b)
{
	return same(a, false, b);
}

bool nt_output_is_input(const char *out, const char *input)
{
	return same(input, true, out);
}
