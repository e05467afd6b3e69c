/* SPDX-License-Identifier: MIT */
/*
 * archive_dl.h - libarchive, loaded when `kernels` first needs it.
 *
 * Linked, libarchive and the libraries it needs (libxml2, ICU, libstdc++,
 * liblzma, libzstd, ...: seventeen) are mapped and relocated at the start
 * of every command: 4 to 5 ms of CPU and some 120 page faults before
 * main(), as much as all of the libpcap read loop's start
 * (docs/performance.md),
 * for every `analyze` of every file of a fleet. Only src/vm/ (kernel
 * packages read, the guest's initramfs written) uses it, so it is loaded
 * there with dlopen(), as systemd loads its optional libraries, and called
 * through pointers named as its functions with sym_ before them, typed by
 * its own header.
 */
#ifndef NT_VM_ARCHIVE_DL_H
#define NT_VM_ARCHIVE_DL_H

#include <archive.h>
#include <archive_entry.h>

/* nt_vm_archive_load() */
#include "nt/vm/image.h"

/* Its soname since libarchive 3.0. */
#define NT_LIBARCHIVE_SONAME "libarchive.so.13"

/* Every function of libarchive's that src/vm/ calls. */
#define NT_ARCHIVE_SYMS(X)                 \
	X(archive_entry_filetype)          \
	X(archive_entry_free)              \
	X(archive_entry_new)               \
	X(archive_entry_pathname)          \
	X(archive_entry_set_ino)           \
	X(archive_entry_set_mode)          \
	X(archive_entry_set_nlink)         \
	X(archive_entry_set_pathname)      \
	X(archive_entry_set_rdev)          \
	X(archive_entry_set_size)          \
	X(archive_errno)                   \
	X(archive_error_string)            \
	X(archive_read_data)               \
	X(archive_read_free)               \
	X(archive_read_new)                \
	X(archive_read_next_header)        \
	X(archive_read_open)               \
	X(archive_read_open_filename)      \
	X(archive_read_open_memory)        \
	X(archive_read_support_filter_all) \
	X(archive_read_support_format_ar)  \
	X(archive_read_support_format_raw) \
	X(archive_read_support_format_tar) \
	X(archive_write_add_filter_none)   \
	X(archive_write_close)             \
	X(archive_write_data)              \
	X(archive_write_free)              \
	X(archive_write_header)            \
	X(archive_write_new)               \
	X(archive_write_open_fd)           \
	X(archive_write_set_format_cpio_newc)

#define NT_ARCHIVE_DECLARE(f) extern __typeof__(f) *sym_##f;
NT_ARCHIVE_SYMS(NT_ARCHIVE_DECLARE)
#undef NT_ARCHIVE_DECLARE

/**
 * nt_vm_archive_objects_before() - how many objects (the program, the vDSO,
 * its libraries) were loaded before libarchive
 *
 * dl_iterate_phdr() lists them first, in the order loaded, and libarchive
 * and what it needs after them: the guest's initramfs takes only those
 * (initramfs.c), since the guest's nagle-trace never loads libarchive
 * (30 MB of ICU's data among its needs).
 *
 * Return: the count, 0 before nt_vm_archive_load() succeeded.
 */
unsigned nt_vm_archive_objects_before(void);

#endif
