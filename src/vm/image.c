// SPDX-License-Identifier: MIT
/*
 * image.c - a kernel image and veth.ko from a package file, an unpacked tree
 * or a bzImage and its modules (see nt/vm/image.h). libarchive reads the
 * package: a .deb is an ar archive whose data.tar.xz holds boot/ and
 * lib/modules/; the members are streamed, never unpacked to disk.
 *
 * Debian's packages ship no modules.dep (the package's postinst runs depmod),
 * so a module's dependencies come from its own .modinfo "depends=" entry, the
 * one modpost writes and depmod reads. A dependency can come before the
 * module that needs it in the archive: the package is read again until every
 * module named is found, or the archive has shown all it holds.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nt/vm/image.h"

#include "archive_dl.h"

/* Passes over a package: the first finds veth and names its dependencies; each further one theirs. */
#define PASSES_MAX (NT_VM_MODULES_MAX + 1)
/* A kernel module or configuration larger than this is no module (veth.ko is 60 KiB). */
#define MEMBER_MAX_BYTES (64u << 20)

/*
 * A path under the image's, into @buf, or -ENAMETOOLONG and why. A path cut
 * to fit names another file, or none: the image's modules would be "not
 * there" and the user told the kernel has no veth.
 */
static int __attribute__((format(printf, 5, 6)))
path_of(const struct nt_vm_image *im, char *buf, size_t size, struct nt_err *err, const char *fmt,
	...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size)
		return nt_err_set(err, -ENAMETOOLONG, "kernel image \"%s\": a path in it",
				  im->shown);
	return 0;
}

/* The kernel's release from a file name after "vmlinuz-"; too long for @im is an error, not a cut. */
static int set_release(struct nt_vm_image *im, const char *release, struct nt_err *err)
{
	if (strlen(release) >= sizeof(im->release)) {
		nt_err_set(err, 0,
			   "kernel image \"%s\": release \"%.32s...\" is too long (over %zu bytes)",
			   im->shown, release, sizeof(im->release) - 1);
		return -ENAMETOOLONG;
	}
	memcpy(im->release, release, strlen(release) + 1);
	return 0;
}

static void module_name(const char *file, char *name, size_t size)
{
	const char *base = strrchr(file, '/');
	size_t n;

	base = base ? base + 1 : file;
	n = strcspn(base, ".");
	if (n >= size)
		n = size - 1;
	memcpy(name, base, n);
	name[n] = '\0';
	for (char *p = name; *p; p++)
		if (*p == '-')
			*p = '_';
}

static bool is_module_file(const char *path)
{
	static const char *const ends[] = { ".ko", ".ko.xz", ".ko.gz", ".ko.zst" };
	size_t n = strlen(path);

	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		size_t e = strlen(ends[i]);

		if (n > e && strcmp(path + n - e, ends[i]) == 0)
			return true;
	}
	return false;
}

/* Read everything an archive's current entry (or a raw stream) holds, up to MEMBER_MAX_BYTES. */
static int read_all(struct archive *a, unsigned char **data, size_t *len)
{
	size_t cap = 1 << 16, used = 0;
	unsigned char *buf = malloc(cap);
	la_ssize_t n;

	if (!buf)
		return -ENOMEM;
	while ((n = sym_archive_read_data(a, buf + used, cap - used)) > 0) {
		used += (size_t)n;
		if (used == cap) {
			unsigned char *bigger = cap < MEMBER_MAX_BYTES ? realloc(buf, cap * 2)
								       : NULL;

			if (!bigger) {
				free(buf);
				return cap < MEMBER_MAX_BYTES ? -ENOMEM : -EFBIG;
			}
			buf = bigger;
			cap *= 2;
		}
	}
	if (n < 0) {
		free(buf);
		return -EIO;
	}
	*data = buf;
	*len = used;
	return 0;
}

/* A module as the kernel's finit_module() takes it: .xz, .gz, .zst undone (libarchive's raw reader). */
static int decompress(unsigned char **data, size_t *len)
{
	struct archive *a = sym_archive_read_new();
	struct archive_entry *e;
	unsigned char *out;
	size_t out_len;
	int ret = -ENOMEM;

	if (!a)
		return ret;
	sym_archive_read_support_filter_all(a);
	sym_archive_read_support_format_raw(a);
	ret = -EIO;
	if (sym_archive_read_open_memory(a, *data, *len) == ARCHIVE_OK &&
	    sym_archive_read_next_header(a, &e) == ARCHIVE_OK)
		ret = read_all(a, &out, &out_len);
	sym_archive_read_free(a);
	if (ret < 0)
		return ret;
	free(*data);
	*data = out;
	*len = out_len;
	return 0;
}

static int want(struct nt_vm_image *im, const char *name, struct nt_err *err)
{
	for (unsigned i = 0; i < im->n_mods; i++)
		if (strcmp(im->mods[i].name, name) == 0)
			return 0;
	if (im->n_mods == NT_VM_MODULES_MAX)
		return nt_err_set(err, -E2BIG,
				  "kernel image \"%s\": veth needs more than %d modules", im->shown,
				  NT_VM_MODULES_MAX);
	snprintf(im->mods[im->n_mods++].name, sizeof(im->mods[0].name), "%s", name);
	return 0;
}

/* A module's bytes have come: decompress them and name the modules it needs. */
static int got_module(struct nt_vm_image *im, struct nt_vm_module *m, const char *file,
		      struct nt_err *err)
{
	char deps[512], *save = NULL, buf[NT_ERR_PATH_MAX];
	const char *shown = nt_err_path(file, buf, sizeof(buf));
	int ret = 0;

	if (strcmp(file + strlen(file) - 3, ".ko") != 0)
		ret = decompress(&m->data, &m->len);
	if (ret < 0)
		return nt_err_set(err, ret, "kernel image \"%s\": cannot decompress \"%s\"",
				  im->shown, shown);
	if (nt_vm_modinfo_depends(m->data, m->len, deps, sizeof(deps)) < 0)
		return nt_err_set(err, -EINVAL, "kernel image \"%s\": \"%s\" is no kernel module",
				  im->shown, shown);
	for (char *d = strtok_r(deps, ",", &save); d && ret == 0; d = strtok_r(NULL, ",", &save))
		ret = want(im, d, err);
	return ret;
}

static struct nt_vm_module *wanted(struct nt_vm_image *im, const char *file)
{
	char name[64];

	if (!is_module_file(file))
		return NULL;
	module_name(file, name, sizeof(name));
	for (unsigned i = 0; i < im->n_mods; i++)
		if (!im->mods[i].data && strcmp(im->mods[i].name, name) == 0)
			return &im->mods[i];
	return NULL;
}

static bool lists_veth(const unsigned char *text, size_t len)
{
	/* modules.builtin: one "kernel/drivers/net/veth.ko" line per built-in module. */
	static const char line[] = "/veth.ko\n";

	return text && memmem(text, len, line, sizeof(line) - 1) != NULL;
}

static unsigned missing(const struct nt_vm_image *im)
{
	unsigned n = 0;

	for (unsigned i = 0; i < im->n_mods; i++)
		n += !im->mods[i].data;
	return n;
}

static int kernel_memfd(struct nt_vm_image *im, const unsigned char *data, size_t len,
			struct nt_err *err)
{
	int fd = memfd_create("nt-vmlinuz", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	size_t off = 0;

	if (fd < 0)
		return nt_err_set(err, -errno, "memfd for the kernel of \"%s\"", im->shown);
	while (off < len) {
		ssize_t n = write(fd, data + off, len - off);

		if (n < 0) {
			int e = -errno;

			close(fd);
			return nt_err_set(err, e, "memfd for the kernel of \"%s\"", im->shown);
		}
		off += (size_t)n;
	}
	/* The image the guest boots cannot change under it. */
	(void)fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL);
	im->kernel_fd = fd;
	return 0;
}

/* One member of the package's data archive: keep it if the guest needs it. */
static int package_member(struct nt_vm_image *im, struct archive *a, const char *path,
			  struct nt_err *err)
{
	struct nt_vm_module *m;
	unsigned char *data = NULL;
	size_t len = 0;
	int ret;

	if (path[0] == '.' && path[1] == '/')
		path += 2;
	if (strncmp(path, "usr/", 4) == 0)
		path += 4;
	if (im->kernel_fd < 0 && strncmp(path, "boot/vmlinuz-", 13) == 0) {
		ret = set_release(im, path + 13, err);
		if (ret < 0)
			return ret;
		ret = read_all(a, &data, &len);
		if (ret == 0)
			ret = kernel_memfd(im, data, len, err);
		free(data);
		return ret;
	}
	if (!im->config && strncmp(path, "boot/config-", 12) == 0)
		return read_all(a, (unsigned char **)&im->config, &im->config_len);
	if (strncmp(path, "lib/modules/", 12) != 0)
		return 0;
	if (strstr(path, "/modules.builtin") &&
	    strcmp(strrchr(path, '/'), "/modules.builtin") == 0) {
		ret = read_all(a, &data, &len);
		if (ret == 0)
			im->veth_builtin = lists_veth(data, len);
		free(data);
		return ret;
	}
	m = wanted(im, path);
	if (!m)
		return 0;
	ret = read_all(a, &m->data, &m->len);
	return ret < 0 ? ret : got_module(im, m, path, err);
}

/* The outer ar entry, read block by block as the inner archive's input. */
struct outer {
	struct archive *ar;
	unsigned char buf[1 << 16];
};

static la_ssize_t outer_read(struct archive *inner, void *client, const void **buf)
{
	struct outer *o = client;

	(void)inner;
	*buf = o->buf;
	return sym_archive_read_data(o->ar, o->buf, sizeof(o->buf));
}

/* Everything the guest needs, found: the pass can stop before the end of the archive. */
static bool complete(const struct nt_vm_image *im)
{
	return im->kernel_fd >= 0 && im->config && im->n_mods && !missing(im);
}

static int package_data(struct nt_vm_image *im, struct outer *o, struct nt_err *err)
{
	struct archive *t = sym_archive_read_new();
	struct archive_entry *e;
	int ret = 0, r = ARCHIVE_EOF;

	if (!t)
		return nt_err_set(err, -ENOMEM, "out of memory");
	sym_archive_read_support_format_tar(t);
	sym_archive_read_support_filter_all(t);
	if (sym_archive_read_open(t, o, NULL, outer_read, NULL) != ARCHIVE_OK) {
		ret = nt_err_set(err, -EINVAL, "kernel package \"%s\": data archive: %s", im->shown,
				 sym_archive_error_string(t));
		goto free_tar;
	}
	while (ret == 0 && !complete(im) && (r = sym_archive_read_next_header(t, &e)) == ARCHIVE_OK)
		if (sym_archive_entry_filetype(e) == AE_IFREG)
			ret = package_member(im, t, sym_archive_entry_pathname(e), err);
	if (ret == 0 && !complete(im) && r != ARCHIVE_EOF)
		ret = nt_err_set(err, -EIO, "kernel package \"%s\": %s", im->shown,
				 sym_archive_error_string(t));
	else if (ret < 0 && !err->msg[0])
		ret = nt_err_set(err, ret, "kernel package \"%s\": read", im->shown);
free_tar:
	sym_archive_read_free(t);
	return ret;
}

/* One pass over the package: the ar archive, then its data.tar.* member. */
static int package_pass(struct nt_vm_image *im, struct nt_err *err)
{
	struct outer *o = malloc(sizeof(*o));
	struct archive_entry *e;
	bool seen = false;
	int ret = 0;

	if (!o || !(o->ar = sym_archive_read_new())) {
		free(o);
		return nt_err_set(err, -ENOMEM, "out of memory");
	}
	sym_archive_read_support_format_ar(o->ar);
	if (sym_archive_read_open_filename(o->ar, im->path, 1 << 16) != ARCHIVE_OK) {
		ret = nt_err_set(err, -EINVAL, "kernel package \"%s\": %s", im->shown,
				 sym_archive_error_string(o->ar));
		goto free_ar;
	}
	while (ret == 0 && !seen && sym_archive_read_next_header(o->ar, &e) == ARCHIVE_OK) {
		if (strncmp(sym_archive_entry_pathname(e), "data.tar", 8) != 0)
			continue;
		seen = true;
		ret = package_data(im, o, err);
	}
	if (ret == 0 && !seen)
		ret = nt_err_set(err, 0, "\"%s\" is not a Debian package (no data.tar)", im->shown);
free_ar:
	sym_archive_read_free(o->ar);
	free(o);
	return ret;
}

static int open_package(struct nt_vm_image *im, struct nt_err *err)
{
	int ret = want(im, "veth", err);

	for (unsigned pass = 0; ret == 0 && pass < PASSES_MAX; pass++) {
		unsigned before = missing(im);

		ret = package_pass(im, err);
		if (ret < 0 || im->kernel_fd < 0 || !missing(im) || missing(im) == before)
			break;
	}
	return ret;
}

static int read_file(const char *path, unsigned char **data, size_t *len)
{
	struct archive *a = sym_archive_read_new();
	struct archive_entry *e;
	int ret = -ENOMEM;

	/* The raw reader passes a plain file as it is and undoes a compression it knows. */
	if (!a)
		return ret;
	sym_archive_read_support_filter_all(a);
	sym_archive_read_support_format_raw(a);
	if (sym_archive_read_open_filename(a, path, 1 << 16) != ARCHIVE_OK)
		ret = sym_archive_errno(a) > 0 ? -sym_archive_errno(a) : -EIO;
	else if (sym_archive_read_next_header(a, &e) != ARCHIVE_OK)
		ret = -EIO;
	else
		ret = read_all(a, data, len);
	sym_archive_read_free(a);
	return ret;
}

/* veth.ko and its dependencies under a modules directory (lib/modules/RELEASE). */
static int tree_modules(struct nt_vm_image *im, const char *dir, struct nt_err *err)
{
	char *roots[] = { (char *)dir, NULL };
	unsigned char *builtin = NULL;
	char path[4096], shown[NT_ERR_PATH_MAX];
	size_t len = 0;
	int ret;

	ret = path_of(im, path, sizeof(path), err, "%s/modules.builtin", dir);
	if (ret < 0)
		return ret;
	if (read_file(path, &builtin, &len) == 0) {
		im->veth_builtin = lists_veth(builtin, len);
		free(builtin);
	}
	ret = want(im, "veth", err);
	for (unsigned pass = 0; ret == 0 && missing(im) && pass < PASSES_MAX; pass++) {
		FTS *fts = fts_open(roots, FTS_PHYSICAL | FTS_NOCHDIR, NULL);
		FTSENT *f;

		if (!fts)
			return nt_err_set(err, -errno, "modules of \"%s\": \"%s\"", im->shown,
					  nt_err_path(dir, shown, sizeof(shown)));
		while (ret == 0 && (f = fts_read(fts))) {
			struct nt_vm_module *m = f->fts_info == FTS_F ? wanted(im, f->fts_path)
								      : NULL;

			if (!m)
				continue;
			ret = read_file(f->fts_path, &m->data, &m->len);
			if (ret < 0)
				nt_err_set(err, ret, "read module \"%s\"",
					   nt_err_path(f->fts_path, shown, sizeof(shown)));
			else
				ret = got_module(im, m, f->fts_path, err);
		}
		fts_close(fts);
	}
	return ret;
}

static int bzimage_open(struct nt_vm_image *im, const char *path, struct nt_err *err)
{
	/* kernel_version is a 16-bit offset past 0x200: the string lies in the first 64 KiB + 512. */
	size_t size = 0x10200;
	unsigned char *head = malloc(size);
	ssize_t n;
	int ret = 0;

	if (!head)
		return nt_err_set(err, -ENOMEM, "out of memory");
	im->kernel_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (im->kernel_fd < 0) {
		ret = nt_err_set(err, -errno, "kernel image \"%s\"", im->shown);
		goto free_head;
	}
	n = pread(im->kernel_fd, head, size, 0);
	ret = n < 0 ? -EINVAL
		    : nt_vm_bzimage_release(head, (size_t)n, im->release, sizeof(im->release));
	if (ret == -ENAMETOOLONG)
		nt_err_set(err, 0, "kernel image \"%s\": its release is too long (over %zu bytes)",
			   im->shown, sizeof(im->release) - 1);
	else if (ret < 0)
		ret = nt_err_set(err, 0,
				 "\"%s\" is neither a kernel package nor a bzImage nor a directory",
				 im->shown);
free_head:
	free(head);
	return ret;
}

/* An unpacked package: ROOT/boot/vmlinuz-RELEASE and ROOT/lib/modules/RELEASE. */
static int tree_open(struct nt_vm_image *im, const char *root, struct nt_err *err)
{
	char path[4096], shown[NT_ERR_PATH_MAX];
	struct dirent *d;
	int ret = 0;
	DIR *boot;

	if (path_of(im, path, sizeof(path), err, "%s/boot", root) < 0)
		return -ENAMETOOLONG;
	boot = opendir(path);
	if (!boot)
		return nt_err_set(err, 0, "kernel tree \"%s\": no boot/ directory", im->shown);
	while (ret == 0 && !im->release[0] && (d = readdir(boot)))
		if (strncmp(d->d_name, "vmlinuz-", 8) == 0)
			ret = set_release(im, d->d_name + 8, err);
	closedir(boot);
	if (ret < 0)
		return ret;
	if (!im->release[0])
		return nt_err_set(err, 0, "kernel tree \"%s\": no boot/vmlinuz-*", im->shown);
	if (path_of(im, path, sizeof(path), err, "%s/boot/vmlinuz-%s", root, im->release) < 0)
		return -ENAMETOOLONG;
	im->kernel_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (im->kernel_fd < 0)
		return nt_err_set(err, -errno, "kernel image \"%s\"",
				  nt_err_path(path, shown, sizeof(shown)));
	if (path_of(im, path, sizeof(path), err, "%s/boot/config-%s", root, im->release) < 0)
		return -ENAMETOOLONG;
	(void)read_file(path, (unsigned char **)&im->config, &im->config_len);
	if (path_of(im, path, sizeof(path), err, "%s/lib/modules/%s", root, im->release) < 0)
		return -ENAMETOOLONG;
	return tree_modules(im, path, err);
}

/* The order insmod needs: each module after those it depends on (a depth-first walk). */
static int load_order(struct nt_vm_image *im, struct nt_err *err)
{
	struct nt_vm_module sorted[NT_VM_MODULES_MAX];
	bool placed[NT_VM_MODULES_MAX] = { false };
	unsigned n = 0;

	for (unsigned round = 0; round < im->n_mods && n < im->n_mods; round++) {
		for (unsigned i = 0; i < im->n_mods; i++) {
			char deps[512], *save = NULL;
			bool ready = true;

			if (placed[i])
				continue;
			(void)nt_vm_modinfo_depends(im->mods[i].data, im->mods[i].len, deps,
						    sizeof(deps));
			for (char *d = strtok_r(deps, ",", &save); d;
			     d = strtok_r(NULL, ",", &save))
				for (unsigned j = 0; j < im->n_mods; j++)
					if (!placed[j] && strcmp(im->mods[j].name, d) == 0)
						ready = false;
			if (ready) {
				placed[i] = true;
				sorted[n++] = im->mods[i];
			}
		}
	}
	if (n < im->n_mods)
		return nt_err_set(err, -ELOOP,
				  "kernel image \"%s\": the modules veth needs "
				  "depend on each other in a loop",
				  im->shown);
	memcpy(im->mods, sorted, sizeof(sorted[0]) * n);
	return 0;
}

static int check_found(struct nt_vm_image *im, struct nt_err *err)
{
	if (im->kernel_fd < 0) {
		nt_err_set(err, 0, "kernel package \"%s\": no boot/vmlinuz-*", im->shown);
		return -ENOENT;
	}
	if (im->veth_builtin && im->n_mods == 1 && !im->mods[0].data) {
		im->n_mods = 0;
		return 0;
	}
	for (unsigned i = 0; i < im->n_mods; i++)
		if (!im->mods[i].data) {
			nt_err_set(err, 0, "kernel \"%s\" (%s) has no %s module%s", im->shown,
				   im->release, im->mods[i].name,
				   i ? " (veth needs it)" : " and does not build it in");
			return -ENOENT;
		}
	return load_order(im, err);
}

int nt_vm_image_open(struct nt_vm_image *im, const char *path, const char *modules_dir,
		     struct nt_err *err)
{
	char dir[4096];
	struct stat st;
	size_t n = strlen(path);
	int ret;

	memset(im, 0, sizeof(*im));
	im->kernel_fd = -1;
	im->path = path;
	ret = nt_vm_archive_load(err);
	if (ret < 0)
		return ret;
	/* nt_err_path() returns @path as it is when it fits, @buf untouched. */
	if (nt_err_path(path, im->shown, sizeof(im->shown)) == path)
		memcpy(im->shown, path, n + 1);
	if (stat(path, &st) < 0)
		return nt_err_set(err, -errno, "kernel image \"%s\"", im->shown);
	if (S_ISDIR(st.st_mode)) {
		ret = tree_open(im, path, err);
	} else if (n > 4 && strcmp(path + n - 4, ".deb") == 0) {
		ret = open_package(im, err);
	} else {
		ret = bzimage_open(im, path, err);
		if (ret == 0)
			ret = path_of(im, dir, sizeof(dir), err, "%s/%s",
				      modules_dir ? modules_dir : "/lib/modules", im->release);
		if (ret == 0)
			ret = tree_modules(im, dir, err);
	}
	return ret < 0 ? ret : check_found(im, err);
}

void nt_vm_image_close(struct nt_vm_image *im)
{
	if (im->kernel_fd >= 0)
		close(im->kernel_fd);
	im->kernel_fd = -1;
	free(im->config);
	im->config = NULL;
	for (unsigned i = 0; i < im->n_mods; i++) {
		free(im->mods[i].data);
		im->mods[i].data = NULL;
	}
	im->n_mods = 0;
}

int nt_vm_bzimage_release(const unsigned char *img, size_t len, char *release, size_t size)
{
	size_t off, end;

	if (len < 0x210 || memcmp(img + 0x202, "HdrS", 4) != 0 || img[0x207] < 2)
		return -EINVAL;
	off = (size_t)(img[0x20e] | img[0x20f] << 8);
	if (off == 0 || off + 0x200 >= len)
		return -EINVAL;
	off += 0x200;
	for (end = off; end < len && img[end] > ' ' && img[end] < 0x7f; end++)
		;
	if (end == off || end == len)
		return -EINVAL;
	if (end - off >= size)
		return -ENAMETOOLONG;
	memcpy(release, img + off, end - off);
	release[end - off] = '\0';
	return 0;
}

int nt_vm_modinfo_depends(const unsigned char *ko, size_t len, char *out, size_t size)
{
	static const char tag[] = "depends=";
	const unsigned char *p = ko, *end = ko + len;

	if (len < 4 || memcmp(ko, "\177ELF", 4) != 0)
		return -ENOENT;
	while ((p = memmem(p, (size_t)(end - p), tag, sizeof(tag) - 1))) {
		const unsigned char *v = p + sizeof(tag) - 1, *z;

		/* A .modinfo entry starts after the previous one's NUL. */
		if (p > ko && p[-1] != '\0') {
			p = v;
			continue;
		}
		z = memchr(v, '\0', (size_t)(end - v));
		if (!z || (size_t)(z - v) >= size)
			return -ENOENT;
		memcpy(out, v, (size_t)(z - v));
		out[z - v] = '\0';
		return 0;
	}
	return -ENOENT;
}
