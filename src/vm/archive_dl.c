// SPDX-License-Identifier: MIT
/*
 * archive_dl.c - libarchive loaded by dlopen() (see archive_dl.h).
 *
 * Loaded once and never closed: the process ends soon after `kernels`
 * is done with it, and a library closed under a thread still in it would
 * be a crash. Not for several threads at once: `kernels` opens its images
 * and builds its initramfs on its main thread.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdbool.h>

#include "archive_dl.h"

#define NT_ARCHIVE_DEFINE(f) __typeof__(f) *sym_##f;
NT_ARCHIVE_SYMS(NT_ARCHIVE_DEFINE)
#undef NT_ARCHIVE_DEFINE

static unsigned objects_before;

static int count_object(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)info;
	(void)size;
	++*(unsigned *)data;
	return 0;
}

unsigned nt_vm_archive_objects_before(void)
{
	return objects_before;
}

int nt_vm_archive_load(struct nt_err *err)
{
	static bool loaded;
	unsigned before = 0;
	void *lib;

	if (loaded)
		return 0;
	(void)dl_iterate_phdr(count_object, &before);
	/* RTLD_NOW: a function missing from an older libarchive is said here, not at its first call. */
	lib = dlopen(NT_LIBARCHIVE_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		nt_err_set(err, 0, "libarchive: %s", dlerror());
		return -ENOENT;
	}
#define NT_ARCHIVE_FIND(f)                                       \
	*(void **)&sym_##f = dlsym(lib, #f);                     \
	if (!sym_##f) {                                          \
		nt_err_set(err, 0, "libarchive: %s", dlerror()); \
		dlclose(lib);                                    \
		return -ENOENT;                                  \
	}
	NT_ARCHIVE_SYMS(NT_ARCHIVE_FIND)
#undef NT_ARCHIVE_FIND
	objects_before = before;
	loaded = true;
	return 0;
}
