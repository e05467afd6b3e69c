/* SPDX-License-Identifier: MIT */
/*
 * image.h - a kernel to boot under qemu, read without installing it: from a
 * Debian package file (linux-image-*.deb), from a directory holding its
 * unpacked tree (boot/vmlinuz-RELEASE, lib/modules/RELEASE/), or from a
 * bzImage and a modules directory. What the guest needs comes out in memory:
 * the kernel (a sealed memfd or the file itself, read-only), its release, its
 * configuration (the model's CONFIG_HZ) and veth.ko with the modules it
 * depends on, decompressed, in the order they must load. Nothing is written
 * to the host's file system.
 */
#ifndef NT_VM_IMAGE_H
#define NT_VM_IMAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "nt/err.h"

/* veth and its dependencies; Debian's veth.ko depends on none (its modinfo "depends="). */
#define NT_VM_MODULES_MAX 8

/**
 * struct nt_vm_module - one kernel module for the guest
 * @name: its name as modinfo says it ("veth"), '-' written '_'
 * @data: the ELF object, decompressed
 * @len: its size
 */
struct nt_vm_module {
	char name[64];
	unsigned char *data;
	size_t len;
};

/**
 * struct nt_vm_image - a kernel and what the guest needs of its package
 * @path: what the user named, the caller's string (it outlives the image):
 *        a copy cut at some length would open another file
 * @shown: @path as messages quote it (nt_err_path())
 * @release: the kernel's release (`uname -r` in the guest)
 * @kernel_fd: the bzImage, read-only (a memfd for a package), -1 when closed
 * @config: the kernel's build configuration (boot/config-RELEASE), NULL when
 *          the image has none
 * @config_len: its size
 * @mods: veth.ko and its dependencies, each after those it needs
 * @n_mods: how many; 0 when veth is built in (@veth_builtin)
 * @veth_builtin: modules.builtin lists veth
 */
struct nt_vm_image {
	const char *path;
	char shown[NT_ERR_PATH_MAX];
	char release[72];
	int kernel_fd;
	char *config;
	size_t config_len;
	struct nt_vm_module mods[NT_VM_MODULES_MAX];
	unsigned n_mods;
	bool veth_builtin;
};

/**
 * nt_vm_image_open() - read a kernel image and the guest's modules
 * @im: filled; nt_vm_image_close() it, even after an error
 * @path: a .deb, a directory (an unpacked package), or a bzImage
 * @modules_dir: for a bzImage, the directory holding RELEASE/ (NULL:
 *               /lib/modules); ignored otherwise
 * @err: the reason on failure
 *
 * Return: 0; -ENOENT (no kernel in it, or no veth: the message says which),
 * -EINVAL (not a kernel package, not a bzImage), or the errno of a read.
 */
int nt_vm_image_open(struct nt_vm_image *im, const char *path, const char *modules_dir,
		     struct nt_err *err);

/**
 * nt_vm_image_close() - free what nt_vm_image_open() read; safe on a partly
 * filled or closed image
 * @im: the image
 */
void nt_vm_image_close(struct nt_vm_image *im);

/**
 * nt_vm_bzimage_release() - the release a bzImage names in its setup header
 * @img: the file's first bytes (at least 0x200 + the string's offset)
 * @len: how many
 * @release: filled with the release (up to its first space)
 * @size: size of @release
 *
 * The x86 boot protocol (Documentation/arch/x86/boot.rst): "HdrS" at 0x202,
 * protocol 2.00 or later, kernel_version at 0x20e is the string's offset
 * minus 0x200.
 *
 * Return: 0, -EINVAL when @img is no bzImage or names no release, or
 * -ENAMETOOLONG when the release does not fit in @size.
 */
int nt_vm_bzimage_release(const unsigned char *img, size_t len, char *release, size_t size);

/**
 * nt_vm_modinfo_depends() - the "depends=" entry of a module's .modinfo
 * @ko: the module's ELF object
 * @len: its size
 * @out: filled with the comma-separated names ("" for none)
 * @size: size of @out
 *
 * modpost writes it from the symbols the module takes from others; depmod
 * builds modules.dep from the same. The entry is found as
 * "\0depends=" in the object, as modinfo(8) finds its tags.
 *
 * Return: 0, or -ENOENT when the object has no such entry.
 */
int nt_vm_modinfo_depends(const unsigned char *ko, size_t len, char *out, size_t size);

/**
 * nt_vm_archive_load() - load libarchive, once (src/vm/archive_dl.h says
 * why it is not linked); nt_vm_image_open() and nt_vm_initramfs_build()
 * call it themselves
 * @err: set on failure ("libarchive: " and what dlopen() or dlsym() said)
 *
 * Return: 0 (at once after the first success), or -ENOENT.
 */
int nt_vm_archive_load(struct nt_err *err);

#endif
