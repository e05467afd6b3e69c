// SPDX-License-Identifier: MIT
/*
 * outfile.c - extra output files through the output policy (see
 * nt/cmd/outfile.h).
 */
#include "nt/cmd/outfile.h"

int nt_cmd_outfile_open(struct nt_cmd_outfile *f, const char *path, struct nt_err *err)
{
	int ret = nt_output_open(&f->out, path, NT_OUTPUT_DOCUMENT, err);

	f->open = ret == 0;
	return ret;
}

int nt_cmd_outfile_commit(struct nt_cmd_outfile *f, struct nt_err *err)
{
	if (!f->open)
		return 0;
	f->open = false;
	return nt_output_commit(&f->out, err);
}

void nt_cmd_outfile_abort(struct nt_cmd_outfile *f)
{
	if (!f->open)
		return;
	f->open = false;
	nt_output_abort(&f->out);
}
