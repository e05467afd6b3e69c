// SPDX-License-Identifier: MIT
/*
 * stall_opts.c - the stall rule's options (see nt/cmd/stall_opts.h).
 */
#include "nt/clock.h"
#include "nt/cmd/stall_opts.h"
#include "nt/model/verdict.h"

void nt_stall_opts_defaults(struct nt_analysis_params *p)
{
	*p = (struct nt_analysis_params){
		.stall = { .threshold_ns = NT_VERDICT_THRESHOLD_NS_DEFAULT,
			   .release_ns = NT_STALL_RELEASE_NS_DEFAULT },
		.max_flows = NT_ANALYZE_MAX_FLOWS,
		.idle_ns = NT_ANALYZE_IDLE_NS,
	};
}

int nt_stall_opts_parse(int c, const struct nt_cli *cli, struct nt_analysis_params *p,
			struct nt_err *err)
{
	uint64_t v = 0;
	int ret;

	switch (c) {
	case NT_STALL_OPT_THRESHOLD:
		return nt_cli_parse_ms(cli->name, cli->arg, 0, &p->stall.threshold_ns, err);
	case NT_STALL_OPT_RELEASE:
		ret = nt_cli_parse_uint(cli->name, cli->arg, 0, NT_ANALYZE_RELEASE_US_MAX, &v, err);
		p->stall.release_ns = (int64_t)v * NT_NS_PER_US;
		return ret;
	case NT_STALL_OPT_MAX_FLOWS:
		ret = nt_cli_parse_uint(cli->name, cli->arg, 1, NT_ANALYZE_MAX_FLOWS_MAX, &v, err);
		p->max_flows = (uint32_t)v;
		return ret;
	}
	return 1;
}
