// SPDX-License-Identifier: MIT
/*
 * completion.c - `nagle-trace completion bash`: a bash completion script
 * made from the commands' own option tables, the variant table and the
 * format registry, so it cannot drift from the program. The build writes it
 * (CMake runs this command) and `cmake --install` puts it where
 * bash-completion looks (share/bash-completion/completions/nagle-trace).
 *
 * The script is plain bash (COMP_WORDS, compgen), without bash-completion's
 * helper functions, so it also works where only bash is installed.
 */
#include <stdio.h>
#include <string.h>

#include "nt/capture/capture.h"
#include "nt/cmd/analyze_opts.h"
#include "nt/cmd/watch_opts.h"
#include "nt/cmd/cmd.h"
#include "nt/cmd/run_opts.h"
#include "nt/cmd/kernels_opts.h"
#include "nt/cmd/predict_opts.h"
#include "nt/cmd/trace_opts.h"
#include "nt/exitcode.h"
#include "nt/live/fix.h"
#include "nt/live/variant.h"
#include "nt/model/expect.h"
#include "nt/render/format.h"

/* A bash variable holding the long options of one command, and those that take a value. */
static void options(FILE *out, const char *var, const struct option *opts, const char *shorts,
		    const char *valued_shorts)
{
	fprintf(out, "\t%s_opts='%s", var, shorts);
	for (const struct option *o = opts; o->name; o++)
		fprintf(out, " --%s", o->name);
	fprintf(out, "'\n\t%s_valued=' %s", var, valued_shorts);
	for (const struct option *o = opts; o->name; o++)
		if (o->has_arg == required_argument)
			fprintf(out, " --%s", o->name);
	fputs(" '\n", out);
}

/* The formats of @kind as a word list: nt_format_names()'s, a space for each "|". */
static void names(FILE *out, enum nt_format_kind kind)
{
	char buf[128];

	for (const char *p = nt_format_names(kind, buf, sizeof(buf)); *p; p++)
		fputc(*p == '|' ? ' ' : *p, out);
}

static void vocabularies(FILE *out)
{
	unsigned n;
	const struct nt_variant *v = nt_variant_all(&n);

	fputs("\tlocal variants='all", out);
	for (unsigned i = 0; i < n; i++)
		fprintf(out, " %s", v[i].name);
	fputs("'\n\tlocal trace_formats='", out);
	names(out, NT_FORMAT_TRACE);
	fputs("'\n\tlocal analyze_formats='", out);
	names(out, NT_FORMAT_ANALYSIS);
	fputs("'\n\tlocal kernels_formats='", out);
	names(out, NT_FORMAT_KERNELS);
	fputs("'\n\tlocal expects='", out);
	for (unsigned i = 0; i < NT_EXPECT_COUNT; i++)
		fprintf(out, "%s%s", i ? " " : "", nt_expect_name((enum nt_expect)i));
	fprintf(out, "'\n\tlocal backends='%s'\n", nt_capture_backend_names());
	/* rto-min= takes a number: completed up to the '=' */
	fputs("\tlocal fixes='", out);
	for (int k = 0; k < NT_FIX_KIND_COUNT; k++)
		fprintf(out, "%s%s%s", k ? " " : "", nt_fix_kind_name((enum nt_fix_kind)k),
			k == NT_FIX_RTO_MIN ? "=" : "");
	fputs("'\n", out);
}

static const char script_tail[] =
	"\tbackends=${backends//|/ }\n"
	"\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	"\tlocal cmd=trace opts=$trace_opts valued=$trace_valued formats=$trace_formats\n"
	"\tif [ \"${COMP_WORDS[1]:-}\" = analyze ]; then\n"
	"\t\tcmd=analyze opts=$analyze_opts valued=$analyze_valued formats=$analyze_formats\n"
	"\telif [ \"${COMP_WORDS[1]:-}\" = predict ]; then\n"
	"\t\tcmd=predict opts=$predict_opts valued=$predict_valued formats='text json html'\n"
	"\telif [ \"${COMP_WORDS[1]:-}\" = watch ]; then\n"
	"\t\tcmd=watch opts=$watch_opts valued=$watch_valued formats='text jsonl'\n"
	"\telif [ \"${COMP_WORDS[1]:-}\" = run ]; then\n"
	"\t\tcmd=run opts=$run_opts valued=$run_valued formats=$analyze_formats\n"
	"\t\tbackends=\"$backends none\"\n"
	"\telif [ \"${COMP_WORDS[1]:-}\" = kernels ]; then\n"
	"\t\tcmd=kernels opts=$kernels_opts valued=$kernels_valued formats=$kernels_formats\n"
	"\tfi\n"
	"\tif [ \"$COMP_CWORD\" = 1 ] && [[ $cur != -* ]]; then\n"
	"\t\tCOMPREPLY=($(compgen -W 'trace analyze predict run watch kernels completion' -- "
	"\"$cur\"))\n"
	"\t\treturn\n"
	"\tfi\n"
	"\tcase $prev in\n"
	"\t--variant)\n"
	"\t\t# a comma-separated list: complete its last name\n"
	"\t\tlocal head=${cur%,*} last=${cur##*,}\n"
	"\t\t[ \"$head\" = \"$cur\" ] && head= || head=$head,\n"
	"\t\tCOMPREPLY=($(compgen -W \"$variants\" -P \"$head\" -- \"$last\"))\n"
	"\t\treturn ;;\n"
	"\t--fix)\n"
	"\t\tlocal head=${cur%,*} last=${cur##*,}\n"
	"\t\t[ \"$head\" = \"$cur\" ] && head= || head=$head,\n"
	"\t\tCOMPREPLY=($(compgen -W \"$fixes\" -P \"$head\" -- \"$last\"))\n"
	"\t\treturn ;;\n"
	"\t--format) COMPREPLY=($(compgen -W \"$formats\" -- \"$cur\")); return ;;\n"
	"\t--expect) COMPREPLY=($(compgen -W \"$expects\" -- \"$cur\")); return ;;\n"
	"\t--capture) COMPREPLY=($(compgen -W \"$backends\" -- \"$cur\")); return ;;\n"
	"\t-i|--interface) COMPREPLY=($(compgen -W \"any $(ls /sys/class/net 2>/dev/null)\" -- "
	"\"$cur\")); return ;;\n"
	"\t--color) COMPREPLY=($(compgen -W 'auto always never' -- \"$cur\")); return ;;\n"
	"\t--accel) COMPREPLY=($(compgen -W 'auto kvm tcg' -- \"$cur\")); return ;;\n"
	"\t--kernel|--runs|--busybox) [ \"$cmd\" = kernels ] && COMPREPLY=($(compgen -f -- "
	"\"$cur\")); return ;;\n"
	"\t--modules) COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n"
	"\t-o|--output|-w|--write|-r|--target-log) COMPREPLY=($(compgen -f -- \"$cur\")); return "
	";;\n"
	"\tesac\n"
	"\tif [[ \" $valued \" == *\" $prev \"* ]]; then\n"
	"\t\treturn # a value: a number or a name the user knows\n"
	"\tfi\n"
	"\tif [[ $cur == -* ]]; then\n"
	"\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
	"\telif [ \"$cmd\" = analyze ]; then\n"
	"\t\tlocal f\n"
	"\t\tCOMPREPLY=($(compgen -d -- \"$cur\"))\n"
	"\t\tfor f in $(compgen -f -- \"$cur\"); do\n"
	"\t\t\tcase $f in *.pcap | *.pcapng | *.cap) COMPREPLY+=(\"$f\") ;; esac\n"
	"\t\tdone\n"
	"\tfi\n"
	"}\n"
	"complete -F _nagle_trace nagle-trace\n";

static void bash(FILE *out)
{
	fputs("# bash completion for nagle-trace, made by `nagle-trace completion bash`\n"
	      "_nagle_trace() {\n",
	      out);
	options(out, "local trace", nt_trace_opts_table(), "-h -o -w", "-o -w");
	options(out, "local analyze", nt_analyze_opts_table(), "-h -o -r -c -n", "-o -r -c");
	options(out, "local predict", nt_predict_opts_table(), "-h -o", "-o");
	options(out, "local run", nt_run_opts_table(), "-h -o -w", "-o -w");
	options(out, "local watch", nt_watch_opts_table(), "-h -i -c -n", "-i -c");
	options(out, "local kernels", nt_kernels_opts_table(), "-h -o", "-o");
	vocabularies(out);
	fputs(script_tail, out);
}

int nt_cmd_completion(int argc, char **argv)
{
	if (argc != 2 || strcmp(argv[1], "bash") != 0) {
		fputs("nagle-trace: completion: bash is the shell it knows\n"
		      "try 'nagle-trace completion bash'\n",
		      stderr);
		return NT_EXIT_USAGE;
	}
	return nt_cmd_print_info(bash);
}
