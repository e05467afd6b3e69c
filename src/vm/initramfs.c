// SPDX-License-Identifier: MIT
/*
 * initramfs.c - the guest's initramfs and its /init (see nt/vm/guest.h).
 *
 * The libraries are the ones the dynamic loader loaded into this very
 * process at its start (dl_iterate_phdr(), up to libarchive: archive_dl.h):
 * its own answer to DT_NEEDED, DT_RUNPATH, LD_LIBRARY_PATH and
 * ld.so.cache, including the sanitizer runtime of an ASan build, with no
 * ldd to fork and no loader search to redo. The guest runs the same
 * binary, so it needs exactly those, at the same paths.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "nt/vm/guest.h"

#include "archive_dl.h"

#define LIBS_MAX 64

/*
 * libarchive's message and the errno behind it, which it keeps
 * (archive_errno()): a write to the memfd past `ulimit -f` is "Write error:
 * File too large", not an input/output error. @path: the entry being
 * written, NULL for the archive itself.
 */
static int archive_fail(struct archive *a, struct nt_err *err, const char *path)
{
	const char *msg = sym_archive_error_string(a);
	int e = sym_archive_errno(a);

	if (!msg)
		msg = "libarchive failed";
	if (path)
		return nt_err_set(err, e > 0 ? -e : -EIO, "initramfs: \"%s\": %s", path, msg);
	return nt_err_set(err, e > 0 ? -e : -EIO, "initramfs: %s", msg);
}

/* The shell's words for one argument: 'it'\''s'. */
static void shell_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	fputc('\'', f);
}

static const char script_head[] =
	"#!/bin/busybox sh\n"
	"B=/bin/busybox\n"
	"$B mount -t proc proc /proc\n"
	"$B mount -t sysfs sysfs /sys\n"
	"$B mount -t devtmpfs devtmpfs /dev\n"
	"$B mount -t tmpfs tmpfs /tmp\n"
	/* The result port raw: no \n -> \r\n, no echo; the frames' lengths are exact. */
	"$B stty -F /dev/ttyS1 raw -echo\n"
	"exec 3>/dev/ttyS1\n"
	"frame() {\n"
	"\tset -- \"$1\" \"$2\" \"$3\" \"$4\" $($B wc -c <\"$4\") $($B crc32 \"$4\")\n"
	"\t$B printf 'NT-FRAME %s %s %s %s %s\\n' \"$1\" \"$2\" \"$3\" \"$5\" \"$6\" >&3\n"
	"\t$B cat \"$4\" >&3\n"
	"\t$B printf '\\n' >&3\n"
	"}\n"
	"finish() {\n"
	"\t$B printf 'NT-END %s\\n' \"$1\" >&3\n"
	/* Closing the port waits until the UART has sent it all (tty_port_close()). */
	"\texec 3>&-\n"
	"\t$B poweroff -f\n"
	"}\n";

int nt_vm_init_script(const struct nt_vm_image *im, const struct nt_vm_runs *runs, char **out)
{
	size_t len = 0;
	FILE *f = open_memstream(out, &len);

	if (!f)
		return -ENOMEM;
	fputs(script_head, f);
	for (unsigned i = 0; i < im->n_mods; i++)
		fprintf(f,
			"$B insmod /nt/%u.ko 2>/tmp/e; rc=$?; frame insmod %u $rc /tmp/e\n"
			"[ $rc = 0 ] || finish %u\n",
			i, i, i);
	for (unsigned r = 0; r < runs->n; r++) {
		/*
		 * A round's limit of 10 s unless the run sets its own (the last
		 * --timeout wins): an emulated CPU on a busy host can stop for
		 * longer than the trace's 2 s default.
		 */
		fputs("/bin/nagle-trace --format json --timeout 10000", f);
		for (unsigned a = 0; a < runs->argc[r]; a++) {
			fputc(' ', f);
			shell_quote(f, runs->argv[r][a]);
		}
		fprintf(f,
			" </dev/null >/tmp/o 2>/tmp/e; rc=$?\n"
			"frame json %u $rc /tmp/o; frame stderr %u $rc /tmp/e\n",
			r, r);
	}
	fprintf(f, "finish %u\n", runs->n);
	return fclose(f) == 0 ? 0 : -ENOMEM;
}

struct cpio {
	struct archive *a;
	unsigned ino;
	struct nt_err *err;
};

static int add(struct cpio *c, const char *path, unsigned mode, const void *data, size_t len,
	       dev_t rdev)
{
	struct archive_entry *e = sym_archive_entry_new();
	int ret = 0;

	if (!e)
		return nt_err_set(c->err, -ENOMEM, "out of memory");
	sym_archive_entry_set_pathname(e, path);
	sym_archive_entry_set_mode(e, mode);
	sym_archive_entry_set_size(e, (la_int64_t)len);
	/* One link each, distinct inodes: the kernel's unpacker takes nlink >= 2 for hard links. */
	sym_archive_entry_set_nlink(e, 1);
	sym_archive_entry_set_ino(e, ++c->ino);
	sym_archive_entry_set_rdev(e, rdev);
	if (sym_archive_write_header(c->a, e) != ARCHIVE_OK ||
	    (len && sym_archive_write_data(c->a, data, len) != (la_ssize_t)len))
		ret = archive_fail(c->a, c->err, path);
	sym_archive_entry_free(e);
	return ret;
}

/* Every directory above @path, parents first (the unpacker creates none itself). */
static int add_dirs(struct cpio *c, const char *path)
{
	char dir[4096];
	int ret = 0;

	for (const char *p = strchr(path + 1, '/'); p && ret == 0; p = strchr(p + 1, '/')) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(p - path), path);
		ret = add(c, dir[0] == '/' ? dir + 1 : dir, AE_IFDIR | 0755, NULL, 0, 0);
	}
	return ret;
}

static int read_whole(const char *path, unsigned char **data, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	ssize_t n = 0;
	size_t off = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !(*data = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return -ENOMEM;
	}
	while (off < (size_t)st.st_size &&
	       (n = read(fd, *data + off, (size_t)st.st_size - off)) > 0)
		off += (size_t)n;
	close(fd);
	*len = off;
	if (n < 0) {
		free(*data);
		return -EIO;
	}
	return 0;
}

static int add_file(struct cpio *c, const char *host, const char *guest, unsigned mode)
{
	unsigned char *data;
	size_t len;
	int ret = read_whole(host, &data, &len);

	if (ret < 0)
		return nt_err_set(c->err, ret, "initramfs: read \"%s\"", host);
	ret = add_dirs(c, guest);
	if (ret == 0)
		ret = add(c, guest[0] == '/' ? guest + 1 : guest, AE_IFREG | mode, data, len, 0);
	free(data);
	return ret;
}

/* A static executable has no PT_INTERP: nothing for the guest to load before it. */
static int check_static(const char *path, struct nt_err *err)
{
	unsigned char *elf = NULL;
	size_t len = 0;
	int ret = read_whole(path, &elf, &len);
	const Elf64_Ehdr *eh;

	if (ret < 0)
		return nt_err_set(err, ret, "busybox \"%s\" (install busybox-static)", path);
	eh = (const Elf64_Ehdr *)elf;
	ret = -ENOEXEC;
	if (len >= sizeof(*eh) && memcmp(elf, ELFMAG, SELFMAG) == 0 &&
	    eh->e_ident[EI_CLASS] == ELFCLASS64 &&
	    eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) <= len) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(elf + eh->e_phoff);

		ret = 0;
		for (unsigned i = 0; i < eh->e_phnum; i++)
			if (ph[i].p_type == PT_INTERP)
				ret = -ENOEXEC;
	}
	free(elf);
	if (ret < 0)
		return nt_err_set(err, ret,
				  "\"%s\" is not a static busybox (install busybox-static)", path);
	return 0;
}

/*
 * The paths of the libraries loaded at start, as the dynamic linker holds
 * them (valid while they stay loaded: nagle-trace never dlclose()s); @more:
 * some did not fit; @objects: how many objects to look at, the first
 * (libarchive, loaded later for kernels alone, and its needs are not the
 * guest's: archive_dl.h); @seen: looked at so far.
 */
struct libs {
	const char *path[LIBS_MAX];
	unsigned n;
	bool more;
	unsigned objects;
	unsigned seen;
};

static int one_lib(struct dl_phdr_info *info, size_t size, void *data)
{
	struct libs *l = data;

	(void)size;
	if (l->seen++ == l->objects)
		return 1;
	/* The main program has no name, the vDSO no file. */
	if (info->dlpi_name[0] != '/')
		return 0;
	if (l->n == LIBS_MAX) {
		l->more = true;
		return 1; /* stops dl_iterate_phdr() */
	}
	l->path[l->n++] = info->dlpi_name;
	return 0;
}

static int add_program(struct cpio *c)
{
	struct libs l = { .objects = nt_vm_archive_objects_before() };
	int ret;

	(void)dl_iterate_phdr(one_lib, &l);
	/* A guest short of a library could not run the program at all. */
	if (l.more)
		return nt_err_set(c->err, -E2BIG,
				  "initramfs: nagle-trace loads more than %d libraries", LIBS_MAX);
	ret = add_file(c, "/proc/self/exe", "/bin/nagle-trace", 0755);
	for (unsigned i = 0; ret == 0 && i < l.n; i++)
		ret = add_file(c, l.path[i], l.path[i], 0755);
	return ret;
}

static int add_kernel_parts(struct cpio *c, const struct nt_vm_image *im,
			    const struct nt_vm_runs *runs)
{
	char name[128], *script;
	int ret = 0;

	for (unsigned i = 0; ret == 0 && i < im->n_mods; i++) {
		snprintf(name, sizeof(name), "nt/%u.ko", i);
		ret = add(c, name, AE_IFREG | 0644, im->mods[i].data, im->mods[i].len, 0);
	}
	/* The guest's nagle-trace reads CONFIG_HZ here, as on a Debian host (src/live/kernel.c). */
	snprintf(name, sizeof(name), "boot/config-%s", im->release);
	if (ret == 0 && im->config)
		ret = add(c, name, AE_IFREG | 0644, im->config, im->config_len, 0);
	if (ret < 0)
		return ret;
	if (nt_vm_init_script(im, runs, &script) < 0)
		return nt_err_set(c->err, -ENOMEM, "out of memory");
	ret = add(c, "init", AE_IFREG | 0755, script, strlen(script), 0);
	free(script);
	return ret;
}

static int fill(struct cpio *c, const struct nt_vm_image *im, const struct nt_vm_runs *runs,
		const char *busybox)
{
	static const char *const dirs[] = { "bin", "dev", "proc", "sys", "tmp", "boot", "nt" };
	int ret = 0;

	for (size_t i = 0; ret == 0 && i < sizeof(dirs) / sizeof(dirs[0]); i++)
		ret = add(c, dirs[i], AE_IFDIR | 0755, NULL, 0, 0);
	/* init's stdin, stdout and stderr, before devtmpfs is mounted (console_on_rootfs()). */
	if (ret == 0)
		ret = add(c, "dev/console", AE_IFCHR | 0600, NULL, 0, makedev(5, 1));
	if (ret == 0)
		ret = add_file(c, busybox, "/bin/busybox", 0755);
	if (ret == 0)
		ret = add_program(c);
	if (ret == 0)
		ret = add_kernel_parts(c, im, runs);
	return ret;
}

int nt_vm_initramfs_build(const struct nt_vm_image *im, const struct nt_vm_runs *runs,
			  const char *busybox, int *fd, struct nt_err *err)
{
	struct cpio c = { .err = err };
	int ret = nt_vm_archive_load(err);

	if (ret == 0)
		ret = check_static(busybox, err);
	if (ret < 0)
		return ret;
	*fd = memfd_create("nt-initramfs", MFD_CLOEXEC);
	if (*fd < 0)
		return nt_err_set(err, -errno, "memfd for the initramfs");
	c.a = sym_archive_write_new();
	if (!c.a) {
		ret = nt_err_set(err, -ENOMEM, "out of memory");
		goto close_fd;
	}
	/* Uncompressed: a TCG guest would spend longer inflating it than qemu spends copying it. */
	if (sym_archive_write_set_format_cpio_newc(c.a) != ARCHIVE_OK ||
	    sym_archive_write_add_filter_none(c.a) != ARCHIVE_OK ||
	    sym_archive_write_open_fd(c.a, *fd) != ARCHIVE_OK) {
		ret = archive_fail(c.a, err, NULL);
		goto free_archive;
	}
	ret = fill(&c, im, runs, busybox);
	if (ret == 0 && sym_archive_write_close(c.a) != ARCHIVE_OK)
		ret = archive_fail(c.a, err, NULL);
free_archive:
	sym_archive_write_free(c.a);
	if (ret == 0 && lseek(*fd, 0, SEEK_SET) == 0)
		return 0;
	if (ret == 0)
		ret = nt_err_set(err, -errno, "initramfs: rewind");
close_fd:
	close(*fd);
	*fd = -1;
	return ret;
}
