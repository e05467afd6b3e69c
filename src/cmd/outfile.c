// SPDX-License-Identifier: MIT
/*
 * outfile.c - extra output files through the output policy (see
 * nt/cmd/outfile.h).
 */
#include "nt/cmd/outfile.h"

int nt_cmd_outfile_open(struct nt_cmd_outfile *f, const char *path, struct nt_err *err)
{
	return nt_output_open(&f->out, path, NT_OUTPUT_DOCUMENT, err);
}

int nt_cmd_outfile_commit(struct nt_cmd_outfile *f, struct nt_err *err)
{
	return nt_output_commit(&f->out, err);
}

void nt_cmd_outfile_abort(struct nt_cmd_outfile *f)
{
	nt_output_abort(&f->out);
}
