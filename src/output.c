// SPDX-License-Identifier: MIT
/*
 * output.c - writing a destination complete or not at all (see nt/output.h;
 * what a path names is decided in output_path.c).
 *
 * New file. open(dir, O_TMPFILE) makes an inode with no name in the
 * destination's directory (so on its file system); when the content is
 * complete, linkat(AT_FDCWD, "/proc/self/fd/N", dir, name,
 * AT_SYMLINK_FOLLOW) gives it its name. Until that call there is nothing to
 * leave behind: the kernel frees a nameless inode when its last descriptor
 * closes, whatever kills the process, SIGKILL included. (linkat() with
 * AT_EMPTY_PATH would avoid /proc but needs CAP_DAC_READ_SEARCH; /proc is
 * checked at open and its absence falls back as below.)
 *
 * Existing file. linkat() never replaces a name (EEXIST, as link(2)), and
 * the kernel has no call that puts a nameless inode over an existing name;
 * rename() is the only atomic replacement. So the complete file is linked
 * under a temporary name beside the destination and renamed over it at once
 * (two system calls): a reader sees the old file or the new one, never a
 * part. Between those two calls the new file has a second name; a signal
 * that ends the process there goes through nt_output_unlink_temps(), and
 * only SIGKILL landing in that window of microseconds can leave a complete
 * copy under "NAME.nt-XXXXXX". The alternative, unlink() then linkat(),
 * leaves no extra name but loses the old file in that window and shows
 * readers no file at all; we prefer the atomic swap. The new file takes the
 * old one's owner and permission bits (fchown(), fchmod() from its fstat());
 * set-user-ID and set-group-ID bits are not carried over, as the kernel
 * clears them itself when a file is written (file_remove_privs()). ACLs and
 * extended attributes are not copied.
 *
 * Replacing would harm. A file with several hard links would lose them
 * (the other names would keep the old content); a file whose owner we
 * cannot give to a new file (fchown() refused) would change hands; a file we
 * may write in a directory we may not would be refused. Those are rewritten
 * in place, but only when the content is complete: the file is first
 * extended to its new size with fallocate() (so a full disk fails before a
 * byte is overwritten), then copied over from a spool and truncated. A
 * SIGKILL during that copy leaves the file mixed: the price of keeping the
 * links, which no atomic primitive can keep.
 *
 * No O_TMPFILE. Where the file system refuses it (FUSE, some network file
 * systems: EOPNOTSUPP; kernels before 3.11: EISDIR) or /proc is missing, the
 * temporary file is named "NAME.nt-XXXXXX" from the start, registered in a
 * table that nt_output_unlink_temps() empties from a signal handler, and
 * removed by nt_output_abort(); SIGKILL can leave it.
 *
 * Not a file. Devices, FIFOs and sockets are opened (O_WRONLY, never
 * O_CREAT or O_TRUNC) and written as they are; sockets are connected
 * (AF_UNIX, SOCK_STREAM). A document is spooled and copied out when
 * complete, as standard output is; a write error (ENOSPC from /dev/full)
 * fails the commit. /dev/null is the exception: nobody can read a part of
 * what it discards, so a document goes to it unspooled (GNU tar, too, knows
 * its archive on /dev/null), and a report of hundreds of MB is not written
 * to a temporary file to be thrown away (docs/performance.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include "nt/output.h"

/* Temporary names: "NAME.nt-XXXXXX", NAME cut so the whole fits NAME_MAX. */
#define TMP_SUFFIX     ".nt-"
#define TMP_RANDOM     6
#define TMP_NAME_KEEP  (NAME_MAX - (int)sizeof(TMP_SUFFIX) - TMP_RANDOM)
#define TMP_TRIES      100
#define TEMPS_MAX      64
#define COPY_BUF_BYTES 65536
/*
 * A document's stdio buffer (spool or temporary file): stdio's own is
 * st_blksize, 4 KiB, one write(2) per 4 KiB; 41 MB of JSON made 10,000 of
 * them (docs/performance.md).
 */
#define DOC_BUF_BYTES ((size_t)256 * 1024)

/*
 * Named temporary files, for nt_output_unlink_temps() in a signal handler.
 * A slot's name is written before @used is set, and @used cleared before the
 * name is reused; the signal fence keeps the compiler from reordering them
 * (the handler runs on this thread).
 */
static struct {
	volatile sig_atomic_t used;
	int dir_fd;
	char name[NAME_MAX + 1];
} temps[TEMPS_MAX];

static int temp_register(int dir_fd, const char *name)
{
	for (int i = 0; i < TEMPS_MAX; i++) {
		if (temps[i].used)
			continue;
		temps[i].dir_fd = dir_fd;
		snprintf(temps[i].name, sizeof(temps[i].name), "%s", name);
		atomic_signal_fence(memory_order_seq_cst);
		temps[i].used = 1;
		return i;
	}
	return -1;
}

static void temp_unregister(int *slot)
{
	if (*slot >= 0)
		temps[*slot].used = 0;
	atomic_signal_fence(memory_order_seq_cst);
	*slot = -1;
}

void nt_output_unlink_temps(void)
{
	for (int i = 0; i < TEMPS_MAX; i++) {
		if (!temps[i].used)
			continue;
		unlinkat(temps[i].dir_fd, temps[i].name, 0);
		temps[i].used = 0;
	}
}

/* "NAME.nt-XXXXXX" with a fresh random part. */
static void tmp_name(const char *name, char *buf, size_t len)
{
	static const char chars[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	static unsigned counter;
	unsigned char rnd[TMP_RANDOM];
	char tail[TMP_RANDOM + 1];

	if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd))
		for (int i = 0; i < TMP_RANDOM; i++)
			rnd[i] = (unsigned char)((unsigned)getpid() * 31u + counter++ * 7u +
						 (unsigned)i);
	for (int i = 0; i < TMP_RANDOM; i++)
		tail[i] = chars[rnd[i] % (sizeof(chars) - 1)];
	tail[TMP_RANDOM] = '\0';
	snprintf(buf, len, "%.*s%s%s", TMP_NAME_KEEP, name, TMP_SUFFIX, tail);
}

static void proc_fd_path(int fd, char *buf, size_t len)
{
	snprintf(buf, len, "/proc/self/fd/%d", fd);
}

/* A nameless file in @dir_fd, or -errno (-EOPNOTSUPP when there can be none). */
static int open_unnamed(int dir_fd)
{
	char proc[64];
	int fd = openat(dir_fd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);

	if (fd < 0) {
		/* EISDIR: a kernel that does not know O_TMPFILE sees O_DIRECTORY. */
		if (errno == EISDIR || errno == EINVAL)
			return -EOPNOTSUPP;
		return -errno;
	}
	/* It can be named later only through /proc/self/fd. */
	proc_fd_path(fd, proc, sizeof(proc));
	if (access(proc, F_OK) < 0) {
		close(fd);
		return -EOPNOTSUPP;
	}
	return fd;
}

/* A temporary file with a name, registered for signal cleanup. */
static int open_named(struct nt_output *out)
{
	char name[NAME_MAX + 1];

	for (int i = 0; i < TMP_TRIES; i++) {
		int fd;

		tmp_name(out->target.name, name, sizeof(name));
		fd = openat(out->dir_fd, name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0666);
		if (fd < 0 && errno == EEXIST)
			continue;
		if (fd < 0)
			return -errno;
		out->tmp_name = strdup(name);
		if (!out->tmp_name) {
			unlinkat(out->dir_fd, name, 0);
			close(fd);
			return -ENOMEM;
		}
		out->tmp_slot = temp_register(out->dir_fd, name);
		return fd;
	}
	return -EEXIST;
}

/* Opens the destination itself for writing: a device, FIFO, socket, or a file rewritten in place. */
static int open_dest(const struct nt_output_target *t)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, flags = O_WRONLY | O_NOCTTY | O_CLOEXEC;

	if (S_ISSOCK(t->st.st_mode)) {
		if (strlen(t->path) >= sizeof(sa.sun_path))
			return -ENAMETOOLONG;
		memcpy(sa.sun_path, t->path, strlen(t->path) + 1);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
			int e = -errno;

			close(fd);
			return e;
		}
		return fd;
	}
	/* A regular file reached through /proc/self/fd/N was opened by someone else: add, never clobber. */
	if (t->magic && S_ISREG(t->st.st_mode))
		flags |= O_APPEND;
	fd = open(t->path, flags);
	return fd < 0 ? -errno : fd;
}

/* The new file takes the old one's owner and permission bits; -EPERM when the owner cannot be given. */
static int keep_owner_and_mode(int fd, const struct stat *old)
{
	struct stat now;

	if (fstat(fd, &now) < 0)
		return -errno;
	if ((now.st_uid != old->st_uid || now.st_gid != old->st_gid) &&
	    fchown(fd, old->st_uid, old->st_gid) < 0)
		return -errno;
	if (fchmod(fd, old->st_mode & 0777) < 0)
		return -errno;
	return 0;
}

/* A larger stdio buffer for a document's file; without memory, stdio's own. */
static void big_buffer(struct nt_output *out)
{
	out->buf = malloc(DOC_BUF_BYTES);
	if (out->buf && setvbuf(out->fp, out->buf, _IOFBF, DOC_BUF_BYTES) != 0) {
		free(out->buf);
		out->buf = NULL;
	}
}

/*
 * /dev/null, by its device number (character 1:3, the kernel's
 * Documentation/admin-guide/devices.txt), not its name: a chroot or a
 * container may have no /dev.
 */
static bool is_dev_null(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3);
}

/*
 * Standard output on /dev/null: a stream of its own on a copy of the
 * descriptor, with the large buffer. stdout's own buffer is stdio's,
 * st_blksize (4 KiB), and setvbuf() can give it another only before its
 * first use and never take one back; one write(2) per 4 KiB was 47,000
 * system calls and 13 % of analyze --format jsonl --jobs 1's CPU at 10,000
 * flows (docs/performance.md). A stream's writer that flushes each record
 * (nt_output_is_live()) still does. Without a descriptor or memory, stdout
 * itself.
 */
static void open_null_stdout(struct nt_output *out)
{
	int fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);

	out->fp = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!out->fp) {
		if (fd >= 0)
			close(fd);
		out->fp = stdout;
		return;
	}
	big_buffer(out);
}

/* A spool for a document bound to standard output or a device. */
static int open_spool(struct nt_output *out)
{
	out->fp = tmpfile();
	if (!out->fp)
		return -errno;
	out->spooled = true;
	big_buffer(out);
	return 0;
}

/* Regular files: a temporary file beside the destination (or a spool for in-place writes). */
static int open_file(struct nt_output *out)
{
	struct nt_output_target *t = &out->target;
	int fd, ret;

	out->dir_fd = open(t->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (out->dir_fd < 0)
		return -errno;
	fd = open_unnamed(out->dir_fd);
	if (fd == -EOPNOTSUPP)
		fd = open_named(out);
	if (fd == -EACCES && t->kind == NT_OUTPUT_REPLACE && access(t->path, W_OK) == 0) {
		t->kind = NT_OUTPUT_IN_PLACE;
		return 0;
	}
	if (fd < 0)
		return fd;
	out->fd = fd;
	if (t->kind == NT_OUTPUT_REPLACE) {
		ret = keep_owner_and_mode(fd, &t->st);
		if (ret == -EPERM)
			t->kind = NT_OUTPUT_IN_PLACE;
		else if (ret < 0)
			return ret;
	}
	out->fp = fdopen(fd, "w");
	if (!out->fp)
		return -errno;
	/* Nobody reads it before it has its name: the large buffer, a document or a stream. */
	big_buffer(out);
	return 0;
}

static int open_kind(struct nt_output *out)
{
	enum nt_output_kind kind = out->target.kind;
	bool null;
	int ret;

	if (kind == NT_OUTPUT_STDOUT) {
		out->fp = stdout;
		if (is_dev_null(STDOUT_FILENO))
			open_null_stdout(out);
		/* Without a spool (no temporary directory) a document is written directly, as before. */
		else if (out->mode == NT_OUTPUT_DOCUMENT && open_spool(out) < 0)
			out->fp = stdout;
		return 0;
	}
	if (kind == NT_OUTPUT_NEW || kind == NT_OUTPUT_REPLACE) {
		ret = open_file(out);
		if (ret < 0 || out->target.kind != NT_OUTPUT_IN_PLACE)
			return ret;
		kind = NT_OUTPUT_IN_PLACE;
	}
	out->dest_fd = open_dest(&out->target);
	if (out->dest_fd < 0)
		return out->dest_fd;
	if (kind == NT_OUTPUT_IN_PLACE) {
		/* The spool: the temporary file already made, else one anywhere. */
		if (out->fp)
			return 0;
		return open_spool(out);
	}
	null = is_dev_null(out->dest_fd);
	if (out->mode == NT_OUTPUT_DOCUMENT && !null)
		return open_spool(out);
	out->fp = fdopen(out->dest_fd, "w");
	if (!out->fp)
		return -errno;
	out->dest_fd = -1; /* owned by fp now */
	if (null)
		big_buffer(out); /* as open_null_stdout() says */
	return 0;
}

int nt_output_open(struct nt_output *out, const char *path, enum nt_output_mode mode,
		   struct nt_err *err)
{
	char pb[NT_ERR_PATH_MAX];
	int ret;

	memset(out, 0, sizeof(*out));
	out->fd = out->dir_fd = out->dest_fd = out->tmp_slot = -1;
	out->mode = mode;
	ret = nt_output_resolve(path, &out->target, err);
	if (ret < 0) {
		nt_output_target_fini(&out->target);
		return ret;
	}
	out->active = true;
	if (path && strcmp(path, "-") != 0) {
		out->path = strdup(path);
		if (!out->path) {
			nt_output_abort(out);
			return nt_err_set(err, -ENOMEM, "write \"%s\"",
					  nt_err_path(path, pb, sizeof(pb)));
		}
	}
	ret = open_kind(out);
	if (ret < 0) {
		nt_output_write_error(out->path, ret, err);
		nt_output_abort(out);
	}
	return ret;
}

/* The real reason of a renderer's -EIO: nt_output_fail() says how. */
static int write_reason(struct nt_output *out, int ret)
{
	if (ret != -EIO || !out->active || !out->fp || !ferror(out->fp))
		return ret;
	clearerr(out->fp);
	errno = 0;
	if (fflush(out->fp) == EOF && errno && errno != EIO)
		ret = -errno;
	return ret;
}

int nt_output_fail(struct nt_output *out, int ret, struct nt_err *err)
{
	ret = write_reason(out, ret);
	nt_output_write_error(out->path, ret, err);
	nt_output_abort(out);
	return ret;
}

bool nt_output_reader_gone(const struct nt_output *out, int ret)
{
	return ret == -EPIPE && out->target.kind == NT_OUTPUT_STDOUT;
}

bool nt_output_is_live(const struct nt_output *out)
{
	return out->active && out->mode == NT_OUTPUT_STREAM &&
	       (out->target.kind == NT_OUTPUT_STDOUT || out->target.kind == NT_OUTPUT_DIRECT);
}

/* Flushes @fp: 0 or a negative errno (-EIO when an earlier failed write took its errno along). */
static int flush_fp(FILE *fp)
{
	errno = 0;
	if (fflush(fp) == EOF || ferror(fp))
		return errno ? -errno : -EIO;
	return 0;
}

static int write_all(int fd, const char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(fd, buf, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -EIO;
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Copies @from_fd from @off to its end with read and write: 0 or a negative errno. */
static int copy_rw(int from_fd, int to_fd, off_t *off)
{
	char buf[COPY_BUF_BYTES];

	for (;;) {
		ssize_t n = pread(from_fd, buf, sizeof(buf), *off);
		int ret;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : 0;
		ret = write_all(to_fd, buf, (size_t)n);
		if (ret < 0)
			return ret;
		*off += n;
	}
}

/*
 * Copies the whole spool to @to_fd: 0 or a negative errno; @copied gets the
 * size. sendfile(2) moves the pages inside the kernel (to any descriptor
 * since Linux 2.6.33; the source must be a file, which a spool is) instead of
 * through a buffer here; where it refuses (EINVAL, ENOSYS: a destination
 * opened O_APPEND, an old kernel), read and write.
 */
static int copy_spool(FILE *spool, int to_fd, off_t *copied)
{
	int from = fileno(spool), ret = flush_fp(spool);
	struct stat st;
	off_t off = 0;

	if (ret == 0 && fstat(from, &st) < 0)
		ret = -errno;
	while (ret == 0 && off < st.st_size) {
		ssize_t n = sendfile(to_fd, from, &off, (size_t)(st.st_size - off));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EINVAL || errno == ENOSYS) && off == 0)
			break;
		if (n < 0)
			ret = -errno;
		else if (n == 0)
			break; /* the spool is shorter than it was: read and write see */
	}
	if (ret == 0)
		ret = copy_rw(from, to_fd, &off);
	*copied = off;
	return ret;
}

/* Links the complete temporary file under a fresh temporary name; the name is in @name. */
static int link_aside(struct nt_output *out, const char *proc, char *name, size_t len)
{
	for (int i = 0; i < TMP_TRIES; i++) {
		tmp_name(out->target.name, name, len);
		if (linkat(AT_FDCWD, proc, out->dir_fd, name, AT_SYMLINK_FOLLOW) == 0)
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* New and replaced files: the complete temporary file gets the destination's name. */
static int commit_link(struct nt_output *out)
{
	char proc[64], name[NAME_MAX + 1];
	int ret, slot;

	if (out->tmp_name) {
		if (renameat(out->dir_fd, out->tmp_name, out->dir_fd, out->target.name) < 0)
			return -errno;
		temp_unregister(&out->tmp_slot);
		free(out->tmp_name);
		out->tmp_name = NULL;
		return 0;
	}
	proc_fd_path(out->fd, proc, sizeof(proc));
	if (out->target.kind == NT_OUTPUT_NEW) {
		if (linkat(AT_FDCWD, proc, out->dir_fd, out->target.name, AT_SYMLINK_FOLLOW) == 0)
			return 0;
		/* Made by someone else since we looked: replaced like any file. */
		if (errno != EEXIST)
			return -errno;
	}
	ret = link_aside(out, proc, name, sizeof(name));
	if (ret < 0)
		return ret;
	slot = temp_register(out->dir_fd, name);
	if (renameat(out->dir_fd, name, out->dir_fd, out->target.name) < 0) {
		ret = -errno;
		unlinkat(out->dir_fd, name, 0);
	}
	temp_unregister(&slot);
	return ret;
}

/* Several links, or an owner to keep: the complete spool is copied over the file. */
static int commit_in_place(struct nt_output *out)
{
	struct stat st;
	off_t copied;
	int ret = flush_fp(out->fp);

	if (ret == 0 && fstat(fileno(out->fp), &st) < 0)
		ret = -errno;
	/* Room first: a full disk must fail before the first byte of the old file is gone. */
	if (ret == 0 && st.st_size > 0 && fallocate(out->dest_fd, 0, 0, st.st_size) < 0 &&
	    errno != EOPNOTSUPP && errno != ENOSYS)
		ret = -errno;
	if (ret == 0)
		ret = copy_spool(out->fp, out->dest_fd, &copied);
	if (ret == 0 && ftruncate(out->dest_fd, copied) < 0)
		ret = -errno;
	return ret;
}

static int commit_kind(struct nt_output *out)
{
	off_t copied;
	int ret;

	switch (out->target.kind) {
	case NT_OUTPUT_STDOUT:
		if (!out->spooled)
			return flush_fp(out->fp); /* stdout, or /dev/null's own stream */
		ret = flush_fp(stdout);
		return ret ? ret : copy_spool(out->fp, STDOUT_FILENO, &copied);
	case NT_OUTPUT_NEW:
	case NT_OUTPUT_REPLACE:
		ret = flush_fp(out->fp);
		return ret ? ret : commit_link(out);
	case NT_OUTPUT_IN_PLACE:
		return commit_in_place(out);
	case NT_OUTPUT_DIRECT:
		if (out->spooled)
			return copy_spool(out->fp, out->dest_fd, &copied);
		ret = flush_fp(out->fp);
		if (fclose(out->fp) == EOF && !ret)
			ret = -errno;
		out->fp = NULL;
		return ret;
	}
	return -EINVAL;
}

int nt_output_commit(struct nt_output *out, struct nt_err *err)
{
	int ret;

	if (!out->active)
		return 0;
	ret = commit_kind(out);
	/* A descriptor's close can report a write error too (NFS, a device). */
	if (out->dest_fd >= 0 && close(out->dest_fd) < 0 && !ret)
		ret = -errno;
	out->dest_fd = -1;
	if (ret)
		nt_output_write_error(out->path, ret, err);
	nt_output_abort(out);
	return ret;
}

int nt_output_write_error(const char *path, int ret, struct nt_err *err)
{
	char pb[NT_ERR_PATH_MAX];

	if (!path)
		return nt_err_set(err, ret, "write standard output");
	return nt_err_set(err, ret, "write \"%s\"", nt_err_path(path, pb, sizeof(pb)));
}

void nt_output_abort(struct nt_output *out)
{
	if (!out->active)
		return;
	if (out->fp && out->fp != stdout)
		fclose(out->fp);
	else if (out->fd >= 0)
		close(out->fd);
	/* After fclose(): the stream's buffer until then. */
	free(out->buf);
	out->buf = NULL;
	if (out->tmp_name) {
		unlinkat(out->dir_fd, out->tmp_name, 0);
		temp_unregister(&out->tmp_slot);
		free(out->tmp_name);
	}
	if (out->dest_fd >= 0)
		close(out->dest_fd);
	if (out->dir_fd >= 0)
		close(out->dir_fd);
	nt_output_target_fini(&out->target);
	free(out->path);
	out->path = NULL;
	out->fp = NULL;
	out->tmp_name = NULL;
	out->fd = out->dir_fd = out->dest_fd = -1;
	out->spooled = false;
	out->active = false;
}
