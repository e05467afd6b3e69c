// SPDX-License-Identifier: MIT
/*
 * kernels.c - `nagle-trace kernels`: the same trace on other Linux kernels,
 * each booted under qemu with an initramfs made from this binary
 * (src/vm/), and one table of what each measured and whether the model for
 * that kernel predicted it (nt/render/kernels.h).
 *
 * Every image is read before any guest boots, so a missing file or a
 * kernel without veth is one line and no boot. The guests run one after
 * the other: on a machine without KVM each is a CPU-bound emulator, and two
 * at once would only slow both and blur their timings.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nt/clock.h"
#include "nt/cmd/cmd.h"
#include "nt/cmd/kernels_opts.h"
#include "nt/exitcode.h"
#include "nt/model/predict.h"
#include "nt/output.h"
#include "nt/render/format.h"
#include "nt/render/kernels.h"
#include "nt/vm/guest.h"
#include "nt/vm/image.h"

/* A run's options as one line, for the table. */
static void run_line(const struct nt_vm_runs *runs, unsigned r, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned a = 0; a < runs->argc[r] && used < len; a++) {
		int n;

		if (strcmp(runs->argv[r][a], "--variant") == 0) {
			a++;
			continue;
		}
		n = snprintf(buf + used, len - used, "%s%s", used ? " " : "", runs->argv[r][a]);
		used += n > 0 ? (size_t)n : 0;
	}
}

/* --pingpong-thresh before 6.7: net.ipv4.tcp_pingpong_thresh does not exist (tcp_sysctl.c). */
static bool lacks_option(const struct nt_vm_runs *runs, unsigned r, const char *release)
{
	struct nt_kernel_version v;

	if (nt_kernel_version_parse(release, &v) < 0 || nt_kernel_version_at_least(&v, 6, 7))
		return false;
	for (unsigned a = 0; a < runs->argc[r]; a++)
		if (strcmp(runs->argv[r][a], "--pingpong-thresh") == 0)
			return true;
	return false;
}

static void first_line(const char *text, size_t len, char *buf, size_t size)
{
	size_t n = 0;

	while (n < len && text[n] != '\n')
		n++;
	snprintf(buf, size, "%.*s", (int)n, text);
}

struct pending {
	const char *json;
	size_t json_len;
	int status;
};

static int frame_run(struct nt_kernels_guest *g, const struct nt_vm_runs *runs,
		     const struct nt_vm_frame *f, struct pending *p, struct nt_err *err)
{
	char line[300], note[400] = "", msg[300];
	bool unsupported;

	if (strcmp(f->kind, "json") == 0) {
		p->json = f->data;
		p->json_len = f->len;
		p->status = f->status;
		return 0;
	}
	if (f->index >= runs->n || strcmp(f->kind, "stderr") != 0)
		return 0;
	run_line(runs, f->index, line, sizeof(line));
	unsupported = p->status == NT_EXIT_ENVIRONMENT && lacks_option(runs, f->index, g->release);
	first_line(f->data, f->len, msg, sizeof(msg));
	if (unsupported)
		snprintf(note, sizeof(note),
			 "--pingpong-thresh: not on this kernel (net.ipv4.tcp_pingpong_thresh came "
			 "in 6.7); the guest said: %s",
			 msg);
	else if (!p->json_len || p->status > 1)
		snprintf(note, sizeof(note), "the trace exited %d: %s", p->status,
			 msg[0] ? msg : "(no message)");
	return nt_kernels_absorb(g, line, p->status, note[0] ? NULL : p->json,
				 note[0] ? 0 : p->json_len, note, unsupported, err);
}

/* The frames of one boot, into the guest's cells; a guest-level failure into g->error. */
static int read_frames(struct nt_kernels_guest *g, const struct nt_vm_image *im,
		       const struct nt_vm_runs *runs, const struct nt_vm_result *res,
		       struct nt_err *err)
{
	struct pending p = { NULL, 0, 0 };
	struct nt_vm_frame f;
	size_t pos = 0;
	int r;

	while ((r = nt_vm_frame_next(res->data, res->data_len, &pos, &f)) == 1) {
		char msg[300];

		if (strcmp(f.kind, "insmod") == 0 && f.status != 0) {
			first_line(f.data, f.len, msg, sizeof(msg));
			snprintf(g->error, sizeof(g->error), "%s.ko did not load in the guest: %s",
				 f.index < im->n_mods ? im->mods[f.index].name : "?", msg);
			return 0;
		}
		if (strcmp(f.kind, "insmod") != 0 && frame_run(g, runs, &f, &p, err) < 0)
			return -EBADMSG;
	}
	if (r == -EBADMSG)
		snprintf(g->error, sizeof(g->error), "the guest's results are damaged at byte %zu",
			 pos);
	return 0;
}

static void end_error(struct nt_kernels_guest *g, const struct nt_vm_result *res,
		      const struct nt_vm_boot *boot)
{
	const char *tail = res->console;
	size_t n = strlen(tail);

	switch (res->end) {
	case NT_VM_END_DONE:
		return;
	case NT_VM_END_PANIC:
		snprintf(g->error, sizeof(g->error), "the guest kernel panicked: %s", res->panic);
		return;
	case NT_VM_END_TIMEOUT:
		snprintf(g->error, sizeof(g->error), "the guest did not finish in %lld s",
			 (long long)(boot->timeout_ns / NT_NS_PER_SEC));
		return;
	case NT_VM_END_STOPPED:
		snprintf(g->error, sizeof(g->error), "interrupted");
		return;
	case NT_VM_END_EXITED:
		/* The console's last line says what qemu or the kernel last said. */
		while (n && (tail[n - 1] == '\n' || tail[n - 1] == '\r'))
			n--;
		while (n && tail[n - 1] != '\n' && tail[n - 1] != '\r')
			n--;
		snprintf(g->error, sizeof(g->error),
			 "the guest ended before its results (%s: \"%.*s\")", NT_VM_QEMU,
			 (int)strcspn(tail + n, "\r\n"), tail + n);
		return;
	}
}

static int run_guest(const struct nt_kernels_opts *o, const char *qemu, struct nt_vm_image *im,
		     struct nt_kernels_guest *g, struct nt_err *err)
{
	struct nt_vm_result res;
	int initrd = -1, ret;

	ret = nt_vm_initramfs_build(im, &o->runs, o->busybox, &initrd, err);
	if (ret < 0)
		return ret;
	ret = nt_vm_boot_run(&o->boot, qemu, im->kernel_fd, initrd, &res, err);
	close(initrd);
	if (ret < 0)
		return ret;
	g->accel = res.accel;
	g->boot_ns = res.boot_ns;
	g->wall_ns = res.wall_ns;
	ret = read_frames(g, im, &o->runs, &res, err);
	if (ret == 0 && !g->error[0])
		end_error(g, &res, &o->boot);
	nt_vm_result_fini(&res);
	return ret;
}

static int exit_status(const struct nt_kernels_guest *g, unsigned n)
{
	int code = NT_EXIT_OK;

	for (unsigned i = 0; i < n; i++) {
		if (g[i].error[0])
			return NT_EXIT_ENVIRONMENT;
		for (unsigned j = 0; j < g[i].n_cells; j++) {
			const struct nt_kernels_cell *c = &g[i].cells[j];

			if (c->unsupported)
				continue;
			if (c->status > 1 || (c->note[0] && c->status != 1))
				return NT_EXIT_ENVIRONMENT;
			if (c->status == 1 || c->not_as_predicted)
				code = NT_EXIT_EXPECTATION;
		}
	}
	return code;
}

static int render(const struct nt_kernels_opts *o, const struct nt_kernels_guest *g, unsigned n)
{
	const struct nt_format *fmt = nt_format_find(o->out.format, NT_FORMAT_KERNELS);
	struct nt_err err = { "" };
	struct nt_output out;
	int ret;

	if (nt_output_open(&out, o->out.path, NT_OUTPUT_DOCUMENT, &err) < 0)
		return nt_cmd_fail(NT_EXIT_FILE, &err);
	ret = fmt->kernels(out.fp, g, n);
	/*
	 * As analyze's: a renderer's -EIO told by its real reason, and only
	 * standard output's reader may leave quietly; a FIFO named by -o is a
	 * write error (nt_output_reader_gone()).
	 */
	ret = ret < 0 ? nt_output_fail(&out, ret, &err) : nt_output_commit(&out, &err);
	if (ret < 0 && !nt_output_reader_gone(&out, ret))
		return nt_cmd_fail(NT_EXIT_FILE, &err);
	return NT_EXIT_OK;
}

static int open_images(const struct nt_kernels_opts *o, struct nt_vm_image *im)
{
	struct nt_err err = { "" };

	/* A libarchive that cannot be loaded is the environment's, not an image's. */
	if (nt_vm_archive_load(&err) < 0)
		return nt_cmd_fail(NT_EXIT_ENVIRONMENT, &err);
	for (unsigned i = 0; i < o->n_kernels; i++) {
		int ret = nt_vm_image_open(&im[i], o->kernels[i], o->modules_dir, &err);

		if (ret < 0)
			/* No kernel or no veth in a readable image: the environment; unreadable: a file. */
			return nt_cmd_fail(ret == -ENOENT && im[i].release[0] ? NT_EXIT_ENVIRONMENT
									      : NT_EXIT_FILE,
					   &err);
	}
	return NT_EXIT_OK;
}

static int run_all(const struct nt_kernels_opts *o, const char *qemu, struct nt_vm_image *im,
		   struct nt_kernels_guest *g)
{
	struct nt_err err = { "" };
	int code;

	for (unsigned i = 0; i < o->n_kernels && !nt_cmd_stop; i++) {
		g[i].image = o->kernels[i];
		snprintf(g[i].release, sizeof(g[i].release), "%s", im[i].release);
		if (run_guest(o, qemu, &im[i], &g[i], &err) < 0)
			return nt_cmd_fail(NT_EXIT_ENVIRONMENT, &err);
		if (g[i].error[0])
			fprintf(stderr, "nagle-trace: kernel %s: %s\n", g[i].release, g[i].error);
	}
	if (nt_cmd_stop)
		return nt_cmd_stop_status();
	code = render(o, g, o->n_kernels);
	return code != NT_EXIT_OK ? code : exit_status(g, o->n_kernels);
}

int nt_cmd_kernels(int argc, char **argv)
{
	struct nt_vm_image im[NT_KERNELS_MAX];
	struct nt_kernels_guest g[NT_KERNELS_MAX];
	struct nt_kernels_opts o;
	struct nt_err err = { "" };
	char qemu[4096];
	int code;

	nt_cmd_signals_install();
	if (nt_kernels_opts_parse(argc, argv, &o, &err) < 0) {
		nt_kernels_opts_fini(&o);
		return nt_cmd_usage_error("kernels", err.msg);
	}
	if (o.action == NT_CMD_HELP || o.action == NT_CMD_VERSION) {
		nt_kernels_opts_fini(&o);
		return nt_cmd_print_info(o.action == NT_CMD_HELP ? nt_kernels_opts_usage
								 : nt_cmd_version);
	}
	o.boot.stop = &nt_cmd_stop;
	if (nt_vm_qemu_find(qemu, sizeof(qemu)) < 0) {
		nt_kernels_opts_fini(&o);
		nt_err_set(&err, 0, "%s not found in PATH (install qemu-system-x86)", NT_VM_QEMU);
		return nt_cmd_fail(NT_EXIT_ENVIRONMENT, &err);
	}
	if (nt_output_check(o.out.path, &err) < 0) {
		nt_kernels_opts_fini(&o);
		return nt_cmd_fail(NT_EXIT_FILE, &err);
	}
	memset(im, 0, sizeof(im));
	memset(g, 0, sizeof(g));
	for (unsigned i = 0; i < NT_KERNELS_MAX; i++)
		im[i].kernel_fd = -1;
	code = open_images(&o, im);
	if (code == NT_EXIT_OK)
		code = run_all(&o, qemu, im, g);
	for (unsigned i = 0; i < o.n_kernels; i++) {
		nt_vm_image_close(&im[i]);
		nt_kernels_guest_fini(&g[i]);
	}
	nt_kernels_opts_fini(&o);
	return code;
}
