/* SPDX-License-Identifier: MIT */
/*
 * kernels.h - `nagle-trace kernels`'s report: kernel x variant -> verdicts,
 * stall times and whether the model for that kernel predicted them.
 *
 * Each guest's trace comes back as the trace's own JSON document (schema
 * version NT_JSON_SCHEMA_TRACE), made by the same binary on the guest's
 * kernel; nt_kernels_absorb() reads it into cells, one per variant, and
 * keeps the document for the JSON report. Each cell's prediction is the
 * guest's own: the model run inside the guest with that kernel's release
 * and CONFIG_HZ. A round the model did not predict is a finding, listed
 * with its evidence.
 */
#ifndef NT_RENDER_KERNELS_H
#define NT_RENDER_KERNELS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "nt/err.h"
#include "nt/model/verdict.h"

/* `nagle-trace kernels --format json` (docs/nagle-trace-kernels.schema.json). */
#define NT_JSON_SCHEMA_KERNELS	1
#define NT_KERNELS_FINDINGS_MAX 8

/**
 * struct nt_kernels_finding - a round the model for the guest's kernel did
 * not predict
 * @round: its index
 * @measured: the verdict the guest measured
 * @predicted: the verdicts the model allowed ("held" or "held|stalled")
 * @gap_ns: header -> ACK, NT_UNKNOWN when not measured
 * @why: the model's reason for its verdict
 * @evidence: the kernel's own state of the target, as sampled ("ping-pong
 *            yes, ato 40 ms")
 */
struct nt_kernels_finding {
	unsigned round;
	char measured[16];
	char predicted[64];
	int64_t gap_ns;
	char why[320];
	char evidence[160];
};

/**
 * struct nt_kernels_cell - one variant of one run on one kernel
 * @run: the run's own options ("" for the defaults), without --variant
 * @variant: the variant
 * @status: the guest's trace's exit status
 * @note: why there are no rounds (an option this kernel lacks, the trace's
 *        error), "" otherwise
 * @unsupported: @note says the kernel lacks an option
 * @rounds: rounds measured
 * @counts: rounds per verdict
 * @stall_min_ns: shortest header -> ACK of a stalled round, NT_UNKNOWN none
 * @stall_max_ns: the longest
 * @not_as_predicted: rounds outside the model's prediction
 * @model: the kernel the guest's model took, and its HZ ("6.1, HZ 250")
 * @met: the run's expectation held
 * @findings: the first of the rounds not as predicted
 * @n_findings: how many are listed
 */
struct nt_kernels_cell {
	char run[256];
	char variant[32];
	int status;
	char note[400];
	bool unsupported;
	unsigned rounds;
	unsigned counts[NT_VERDICT_COUNT];
	int64_t stall_min_ns;
	int64_t stall_max_ns;
	unsigned not_as_predicted;
	char model[48];
	bool met;
	struct nt_kernels_finding findings[NT_KERNELS_FINDINGS_MAX];
	unsigned n_findings;
};

/**
 * struct nt_kernels_guest - one kernel's results
 * @image: what the user named (a package, a tree, a bzImage)
 * @accel: "kvm" or "tcg"
 * @boot_ns: qemu's start to the first result, NT_UNKNOWN if none came
 * @wall_ns: qemu's start to its end
 * @cells: one per variant of each run
 * @docs: each run's trace document, as the guest wrote it (NULL where it
 *        wrote none)
 * @run_args: each run's options
 * @run_status: each run's exit status
 * @n_cells: how many cells
 * @n_runs: how many runs
 * @release: the kernel's release
 * @error: why the guest gave no results ("" when it did); its cells are
 *         those that came before
 */
struct nt_kernels_guest {
	const char *image;
	const char *accel;
	int64_t boot_ns;
	int64_t wall_ns;
	struct nt_kernels_cell *cells;
	char **docs;
	char **run_args;
	int *run_status;
	unsigned n_cells;
	unsigned n_runs;
	char release[72];
	char error[NT_ERR_MSG_MAX];
};

/**
 * nt_kernels_absorb() - add one run's result to a guest
 * @g: the guest (zeroed before its first run)
 * @run: the run's options, as one line
 * @status: the guest's trace's exit status
 * @json: its JSON document (NULL or empty when it wrote none)
 * @len: its length
 * @note: why it could not run ("" none: then the trace's error is used)
 * @unsupported: @note says the kernel lacks an option
 * @err: the reason on failure
 *
 * A trace that wrote no document (an error, exit 2 or 3) gives one cell
 * whose note says why.
 *
 * Return: 0; -EBADMSG when @json is not a trace document; -ENOMEM.
 */
int nt_kernels_absorb(struct nt_kernels_guest *g, const char *run, int status, const char *json,
		      size_t len, const char *note, bool unsupported, struct nt_err *err);

/** nt_kernels_guest_fini() - free a guest's cells and documents; safe twice */
void nt_kernels_guest_fini(struct nt_kernels_guest *g);

/**
 * typedef nt_kernels_render_fn - one format's report of the kernels run
 * @out: the stream
 * @g: the guests, in the order given
 * @n: how many
 *
 * Return: 0, -ENOMEM or -EIO.
 */
typedef int nt_kernels_render_fn(FILE *out, const struct nt_kernels_guest *g, unsigned n);

nt_kernels_render_fn nt_kernels_text;
nt_kernels_render_fn nt_kernels_markdown;
nt_kernels_render_fn nt_kernels_json;

#endif
