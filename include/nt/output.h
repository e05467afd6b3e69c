/* SPDX-License-Identifier: MIT */
/*
 * output.h - the one output policy: where a report (-o) or a capture (-w)
 * goes, and how it gets there complete or not at all.
 *
 * A destination path is first resolved (nt_output_resolve()) to one of five
 * kinds, and each kind is written its own way:
 *
 *   "-" and /dev/stdout-style links to our standard output  standard output
 *   a name that does not exist yet                           created complete
 *   a regular file with one link                             replaced complete
 *   a regular file with several links                        rewritten in place
 *   a device, FIFO or socket, /proc/self/fd/N                written as it is
 *
 * Regular files are written to an unnamed file (O_TMPFILE) in their own
 * directory and get their name only when complete, so a run that fails or is
 * killed leaves nothing; an existing file keeps its mode and owner. Symbolic
 * links are followed: the target is written, the link stays. A document (a
 * report) going to standard output or a device is spooled and copied out
 * when complete; a stream (the pcap file) goes out as it is written, so
 * `-w - | tshark -r -` follows the run. The design and the kernel facts it
 * rests on are at the top of src/output.c.
 *
 * The command layer calls, in order: nt_output_stdio_init() first thing in
 * main(); after option parsing, nt_output_same_file() / nt_output_is_input()
 * (refuse: usage) and nt_output_check() (refuse: file), before any work;
 * nt_output_unlink_temps() from the handler of every signal that ends the
 * process; nt_output_close_stdout() before exiting when it wrote to
 * standard output outside an nt_output.
 */
#ifndef NT_OUTPUT_H
#define NT_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>

#include "nt/err.h"

/**
 * enum nt_output_kind - how a destination is written
 * @NT_OUTPUT_STDOUT: standard output ("-", or a link such as /dev/stdout that
 *                    leads to the file descriptor 1 of this process)
 * @NT_OUTPUT_NEW: nothing by that name yet: an unnamed file is linked in
 * @NT_OUTPUT_REPLACE: a regular file with one link: replaced by rename()
 * @NT_OUTPUT_IN_PLACE: a regular file that replacing would harm (several
 *                      links, an owner we cannot give a new file, a
 *                      directory we may not write): the complete content is
 *                      copied over it
 * @NT_OUTPUT_DIRECT: a device, FIFO or socket, or a regular file reached
 *                    through a /proc/self/fd-style link: opened and written
 */
enum nt_output_kind {
	NT_OUTPUT_STDOUT,
	NT_OUTPUT_NEW,
	NT_OUTPUT_REPLACE,
	NT_OUTPUT_IN_PLACE,
	NT_OUTPUT_DIRECT,
};

/**
 * enum nt_output_mode - what is written
 * @NT_OUTPUT_DOCUMENT: a report: complete or absent everywhere; on standard
 *                      output and devices it is spooled and copied out at
 *                      nt_output_commit() (not to /dev/null, which keeps
 *                      nothing to be seen in part)
 * @NT_OUTPUT_STREAM: records as they come (a pcap, JSON Lines): on
 *                    standard output, devices and FIFOs each is written
 *                    at once; a file is still complete or absent
 */
enum nt_output_mode {
	NT_OUTPUT_DOCUMENT,
	NT_OUTPUT_STREAM,
};

/**
 * struct nt_output_target - a destination, resolved
 * @kind: how it is written
 * @path: the file written: the given path with symbolic links of its last
 *        component followed (NULL for standard output)
 * @dir: @path's directory ("." when it names none)
 * @name: @path's last component
 * @st: the existing file (not for %NT_OUTPUT_NEW)
 * @magic: reached through a /proc/self/fd-style link: reopened, not resolved
 */
struct nt_output_target {
	enum nt_output_kind kind;
	char *path;
	char *dir;
	char *name;
	struct stat st;
	bool magic;
};

/**
 * nt_output_resolve() - find what writing @path would write
 * @path: the destination; NULL or "-" is standard output
 * @t: filled; release with nt_output_target_fini() whatever the result
 * @err: filled on failure, the path quoted
 *
 * Looks, never creates: lstat(), readlink(), openat2() with
 * RESOLVE_NO_MAGICLINKS.
 *
 * Return: 0, -EISDIR (a directory, or a name ending in '/'), -ENOENT /
 * -ENOTDIR (the directory is missing), -ELOOP, -EBADF (standard output was
 * closed when the program started), -ENOMEM.
 */
int nt_output_resolve(const char *path, struct nt_output_target *t, struct nt_err *err);

/**
 * nt_output_target_fini() - free what nt_output_resolve() allocated
 * @t: the target; safe on a zeroed or already released one
 */
void nt_output_target_fini(struct nt_output_target *t);

/**
 * nt_output_check() - refuse an unwritable destination before any work
 * @path: the destination; NULL or "-" is standard output
 * @err: filled on failure ("write \"x/\": Is a directory")
 *
 * Resolves @path and asks access(2) whether its directory (for a new or
 * replaced file) or the file itself (written in place or directly) may be
 * written. Creates nothing and never opens a FIFO (that would wait for a
 * reader).
 *
 * Return: 0, or a negative errno (-EISDIR, -ENOENT, -ENOTDIR, -EACCES,
 * -EROFS, -EBADF for a closed standard output, ...): exit status 4.
 */
int nt_output_check(const char *path, struct nt_err *err);

/**
 * nt_output_same_file() - whether two destinations are one file
 * @a: a destination; NULL or "-" is standard output
 * @b: another
 *
 * Existing files compare by device and inode (a hard link or a symbolic
 * link to the other is the same file), new ones by their directory's real
 * path and their name ("x.out" and "./x.out"). Character devices are never
 * "the same": two streams may both go to /dev/null.
 *
 * Return: true when writing both would write one file.
 */
bool nt_output_same_file(const char *a, const char *b);

/**
 * nt_output_is_input() - whether writing @out would overwrite @input
 * @out: the destination; NULL or "-" is standard output
 * @input: a file read by the command; "-" is standard input
 *
 * Return: true when they are one file (as nt_output_same_file()).
 */
bool nt_output_is_input(const char *out, const char *input);

/**
 * nt_output_stdio_init() - make sure file descriptors 0, 1 and 2 are open
 *
 * A closed one is opened on /dev/null (as tcpdump and coreutils do), so no
 * file the program opens later lands on it: a spool that became fd 1 would
 * be copied onto itself and the report would go nowhere. Which ones were
 * closed is remembered: writing standard output then fails with -EBADF
 * (nt_output_stdout_closed()). Call it first thing in main().
 *
 * Return: 0, or a negative errno when /dev/null cannot be opened.
 */
int nt_output_stdio_init(void);

/**
 * nt_output_stdout_closed() - standard output was closed at start
 *
 * Return: true after nt_output_stdio_init() found fd 1 closed.
 */
bool nt_output_stdout_closed(void);

/**
 * nt_output_close_stdout() - flush standard output and say whether all of it went out
 * @err: filled on failure ("write standard output: ...")
 *
 * For text printed to stdout outside an nt_output (--help, --version).
 *
 * Return: 0, -EBADF when it was closed at start, -EPIPE when the reader
 * left, or the write's negative errno.
 */
int nt_output_close_stdout(struct nt_err *err);

/**
 * nt_output_unlink_temps() - remove named temporary files; async-signal-safe
 *
 * Where the file system refuses O_TMPFILE (FUSE, old NFS) a temporary file
 * has a name until it is complete; so, for an instant, does a file that
 * replaces another (see src/output.c). Call this from the handler of every
 * signal that ends the process without nt_output_abort() running (SIGHUP,
 * SIGQUIT, SIGUSR1, ...), then re-raise the signal. Only SIGKILL is beyond
 * it.
 */
void nt_output_unlink_temps(void);

/**
 * struct nt_output - one destination being written
 * @fp: where to write (a temporary file, a spool, the device, or stdout)
 * @path: the destination as given (a copy), for messages; NULL for standard output
 * @target: the resolved destination
 * @mode: document or stream
 * @fd: the temporary file's descriptor, -1 if none
 * @dir_fd: the destination's directory (O_PATH), -1 if none
 * @dest_fd: the destination itself, opened for in-place and direct writes
 * @tmp_name: the temporary file's name in @dir_fd when it has one
 * @tmp_slot: its slot in the signal-cleanup table, -1 if none
 * @spooled: @fp is a spool copied to the destination at commit
 * @buf: @fp's stdio buffer when it is ours (setvbuf()), NULL for stdio's own
 * @active: opened and not yet committed or aborted
 */
struct nt_output {
	FILE *fp;
	char *path;
	struct nt_output_target target;
	enum nt_output_mode mode;
	int fd;
	int dir_fd;
	int dest_fd;
	char *tmp_name;
	int tmp_slot;
	bool spooled;
	char *buf;
	bool active;
};

/**
 * nt_output_open() - start writing @path
 * @out: set up here
 * @path: the destination; NULL or "-" is standard output
 * @mode: %NT_OUTPUT_DOCUMENT (reports) or %NT_OUTPUT_STREAM (-w)
 * @err: filled on failure, the path quoted (shortened in the middle when long)
 *
 * Opening a FIFO waits for its reader, as a shell's `>` does.
 *
 * Return: 0 or a negative errno.
 */
int nt_output_open(struct nt_output *out, const char *path, enum nt_output_mode mode,
		   struct nt_err *err);

/**
 * nt_output_fail() - abandon a report whose renderer failed, as
 * nt_output_commit() ends one whose write failed
 * @out: the report's destination, still open; aborted (nt_output_abort())
 * @ret: what the renderer returned
 * @err: filled with the reason (nt_output_write_error())
 *
 * stdio keeps only a flag when a write fails, and many renderers say -EIO
 * then. For -EIO on a stream in error, the buffered bytes are written once
 * more: the write fails again and errno says why (EFBIG past `ulimit -f`,
 * ENOSPC, EPIPE).
 *
 * Return: that reason, or @ret; -EPIPE when standard output's reader left
 * mid-report (a stream: JSON Lines), which nt_output_reader_gone() tells as
 * after a commit.
 */
int nt_output_fail(struct nt_output *out, int ret, struct nt_err *err);

/**
 * nt_output_reader_gone() - whether @ret is standard output's reader leaving
 * @out: the report's destination (opened, committed or aborted)
 * @ret: what a write or nt_output_commit() returned
 *
 * `nagle-trace | head` ends quietly (exit 0), as tcpdump does. A FIFO, socket
 * or device named by -o is a destination the user asked for: a reader that
 * leaves it early is a write error like any other (exit 4, "Broken pipe").
 *
 * Return: true for -EPIPE on standard output.
 */
bool nt_output_reader_gone(const struct nt_output *out, int ret);

/**
 * nt_output_is_live() - whether what is written reaches the destination at once
 * @out: the stream
 *
 * True for a stream to standard output, a device or a FIFO: its writer
 * flushes after each record (`-w - | tshark -r -`).
 *
 * Return: the answer.
 */
bool nt_output_is_live(const struct nt_output *out);

/**
 * nt_output_write_error() - "write standard output" or "write \"PATH\"",
 * the one way a failed write of a report is told
 * @path: the destination; NULL for standard output
 * @ret: the negative errno
 * @err: filled
 *
 * Return: @ret.
 */
int nt_output_write_error(const char *path, int ret, struct nt_err *err);

/**
 * nt_output_commit() - finish: flush, and give the file its name, or copy
 * the spool out
 * @out: the stream; closed whatever the result
 * @err: filled on failure
 *
 * Every write error (ENOSPC on a full disk or /dev/full, EFBIG, EIO) is
 * reported here with its errno, and the destination is left as it was.
 *
 * Return: 0 or a negative errno (-EPIPE when standard output's reader left).
 */
int nt_output_commit(struct nt_output *out, struct nt_err *err);

/**
 * nt_output_abort() - drop what was written; safe after commit or on a zeroed @out
 * @out: the stream
 */
void nt_output_abort(struct nt_output *out);

#endif
