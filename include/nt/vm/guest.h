/* SPDX-License-Identifier: MIT */
/*
 * guest.h - one qemu guest that runs traces on another kernel: its
 * initramfs, made at run time, its boot, and the results it sends back.
 *
 * The initramfs (cpio newc, written by libarchive into a memfd) holds
 * busybox-static, the running binary and the libraries the dynamic loader
 * loaded for it, the kernel's veth.ko and its dependencies, the kernel's
 * configuration as /boot/config-RELEASE (the model's CONFIG_HZ in the guest)
 * and an /init script that loads the modules and runs each trace.
 *
 * The guest has no network device, no disk and no shared directory: the
 * kernel and initramfs are read-only memfds qemu reads at start. Kernel
 * messages go to the first serial port (the console); the results go to the
 * second, which nothing else writes, each framed as
 * "NT-FRAME KIND INDEX STATUS LENGTH CRC32\n" + LENGTH bytes + "\n" and the
 * whole ended by "NT-END COUNT\n": a frame cut short or damaged is told
 * apart from a complete one. qemu dies with this process (PR_SET_PDEATHSIG),
 * even after SIGKILL; nothing is written to the host's file system.
 */
#ifndef NT_VM_GUEST_H
#define NT_VM_GUEST_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nt/err.h"
#include "nt/vm/image.h"

/* Traces one guest runs, one boot: the conformance set is about 25. */
#define NT_VM_RUNS_MAX 64
#define NT_VM_QEMU     "qemu-system-x86_64"

/**
 * struct nt_vm_runs - the traces a guest runs, each its own argument vector
 * @argv: options for `nagle-trace --format json` in the guest
 * @argc: how many in each
 * @n: how many runs
 */
struct nt_vm_runs {
	char **argv[NT_VM_RUNS_MAX];
	unsigned argc[NT_VM_RUNS_MAX];
	unsigned n;
};

/**
 * nt_vm_init_script() - the guest's /init: mounts, insmod, the runs, framed
 * @im: the kernel (its modules, in load order)
 * @runs: the traces
 * @out: filled with the script (malloc'd), free() it
 *
 * Every argument is single-quoted for the shell, so any value reaches the
 * guest's nagle-trace as the user gave it.
 *
 * Return: 0 or -ENOMEM.
 */
int nt_vm_init_script(const struct nt_vm_image *im, const struct nt_vm_runs *runs, char **out);

/**
 * nt_vm_initramfs_build() - the guest's initramfs, as a memfd
 * @im: the kernel image
 * @runs: the traces
 * @busybox: busybox-static's path
 * @fd: set to the memfd (close-on-exec), rewound
 * @err: the reason on failure
 *
 * Return: 0; -ENOEXEC when @busybox is not statically linked; the errno of
 * a read or of libarchive otherwise.
 */
int nt_vm_initramfs_build(const struct nt_vm_image *im, const struct nt_vm_runs *runs,
			  const char *busybox, int *fd, struct nt_err *err);

/* How qemu runs the guest. */
enum nt_vm_accel {
	NT_VM_ACCEL_AUTO,
	NT_VM_ACCEL_KVM,
	NT_VM_ACCEL_TCG,
};

/**
 * struct nt_vm_boot - one boot's settings
 * @accel: KVM, TCG, or auto: KVM when the CPU has vmx or svm and /dev/kvm
 *         opens, TCG otherwise
 * @memory_mb: the guest's memory
 * @timeout_ns: the whole boot's limit
 * @append: more kernel command line (NULL none)
 * @stop: set by a signal handler: the guest is killed and the boot ends
 */
struct nt_vm_boot {
	enum nt_vm_accel accel;
	unsigned memory_mb;
	int64_t timeout_ns;
	const char *append;
	volatile sig_atomic_t *stop;
};

/* Why a boot ended without its results. */
enum nt_vm_end {
	NT_VM_END_DONE,	   /* NT-END came: every frame is there */
	NT_VM_END_PANIC,   /* the kernel panicked: @panic says how */
	NT_VM_END_TIMEOUT, /* timeout_ns passed */
	NT_VM_END_STOPPED, /* a signal */
	NT_VM_END_EXITED,  /* qemu ended before NT-END */
};

/**
 * struct nt_vm_result - what one boot brought back
 * @end: how it ended
 * @accel: "kvm" or "tcg"
 * @data: the second serial port's bytes (malloc'd)
 * @data_len: how many
 * @console: the console's last lines
 * @panic: the kernel's "Kernel panic - not syncing: ..." line, "" if none
 * @boot_ns: qemu's start to the first frame, NT_UNKNOWN (-1) if none came
 * @wall_ns: qemu's start to its end
 * @qemu_status: its wait status
 */
struct nt_vm_result {
	enum nt_vm_end end;
	const char *accel;
	char *data;
	size_t data_len;
	char console[4096];
	char panic[256];
	int64_t boot_ns;
	int64_t wall_ns;
	int qemu_status;
};

/**
 * nt_vm_qemu_find() - qemu-system-x86_64 in $PATH
 * @path: filled with its path
 * @size: size of @path
 *
 * Return: 0, -ENOENT, or -ENOMEM.
 */
int nt_vm_qemu_find(char *path, size_t size);

/**
 * nt_vm_boot_run() - boot the kernel with the initramfs and wait for it
 * @cfg: settings
 * @qemu: qemu-system-x86_64's path (nt_vm_qemu_find())
 * @kernel_fd: the bzImage
 * @initrd_fd: the initramfs
 * @res: filled; nt_vm_result_fini() it
 * @err: the reason when qemu could not start
 *
 * Return: 0 when qemu ran (how it ended is @res->end), negative errno when
 * it could not start.
 */
int nt_vm_boot_run(const struct nt_vm_boot *cfg, const char *qemu, int kernel_fd, int initrd_fd,
		   struct nt_vm_result *res, struct nt_err *err);

/** nt_vm_result_fini() - free a result; safe twice */
void nt_vm_result_fini(struct nt_vm_result *res);

/**
 * struct nt_vm_frame - one framed result from the guest
 * @kind: "insmod", "json" or "stderr"
 * @index: the module's or the run's index
 * @status: the exit status of what made it
 * @data: its bytes (inside the buffer parsed)
 * @len: how many
 */
struct nt_vm_frame {
	char kind[16];
	unsigned index;
	int status;
	const char *data;
	size_t len;
};

/**
 * nt_vm_frame_next() - the next frame of the guest's result port
 * @buf: the bytes
 * @len: how many
 * @pos: where to start; advanced past the frame
 * @f: filled
 *
 * Return: 1 a frame, 0 the end marker ("NT-END"), -ENODATA the bytes end
 * before a frame does (or before the end marker), -EBADMSG a frame whose
 * header is malformed or whose CRC-32 (zlib's, busybox crc32's) differs.
 */
int nt_vm_frame_next(const char *buf, size_t len, size_t *pos, struct nt_vm_frame *f);

#endif
