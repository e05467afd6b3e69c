// SPDX-License-Identifier: MIT
/*
 * view.c - what markdown, svg and html share (see nt/render/view.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt/clock.h"
#include "nt/model/tcp.h"
#include "nt/render/render.h"
#include "nt/render/view.h"

int nt_view_pick_round(const struct nt_run *run)
{
	unsigned n = run->rounds ? run->summary.rounds : 0;

	for (unsigned i = 0; i < n; i++)
		if (run->rounds[i].verdict == NT_VERDICT_STALLED)
			return (int)i;
	return n ? (int)n - 1 : -1;
}

unsigned nt_view_first_stalling(const struct nt_run *runs, unsigned n_runs)
{
	for (unsigned i = 0; i < n_runs; i++)
		if (runs[i].summary.verdicts[NT_VERDICT_STALLED])
			return i;
	return 0;
}

const char *nt_view_segment_label(const struct nt_segment *seg, char *buf, size_t len)
{
	switch (seg->role) {
	case NT_ROLE_SYN:
		snprintf(buf, len, "SYN");
		break;
	case NT_ROLE_SYN_ACK:
		snprintf(buf, len, "SYN-ACK");
		break;
	case NT_ROLE_PURE_ACK:
	case NT_ROLE_HANDSHAKE_ACK:
		snprintf(buf, len, "pure ACK");
		break;
	case NT_ROLE_FIN:
		snprintf(buf, len, "FIN");
		break;
	case NT_ROLE_RST:
		snprintf(buf, len, "RST");
		break;
	default:
		snprintf(buf, len, "%s %" PRIu32 " B", nt_role_name(seg->role), seg->payload_bytes);
		break;
	}
	return buf;
}

const char *nt_view_call_label(enum nt_call call)
{
	switch (call) {
	case NT_CALL_WRITE_HEADER:
		return "write(header)";
	case NT_CALL_WRITE_BODY:
		return "write(body)";
	case NT_CALL_WRITE_REQUEST:
		return "write(header+body)";
	case NT_CALL_READ_REPLY:
		return "read(reply)";
	case NT_CALL_READ_REQUEST:
		return "read(request)";
	case NT_CALL_WRITE_REPLY:
		return "write(reply)";
	}
	return "?";
}

const char *nt_view_verdicts(const struct nt_summary *s, char *buf, size_t len)
{
	static const enum nt_verdict order[] = { NT_VERDICT_COALESCED, NT_VERDICT_UNHELD,
						 NT_VERDICT_HELD, NT_VERDICT_STALLED,
						 NT_VERDICT_INCOMPLETE };
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < sizeof(order) / sizeof(order[0]) && used < len; i++) {
		if (!s->verdicts[order[i]])
			continue;
		int n = snprintf(buf + used, len - used, "%s%u %s", used ? ", " : "",
				 s->verdicts[order[i]], nt_verdict_name(order[i]));
		if (n < 0)
			break;
		used += (size_t)n;
	}
	if (!buf[0])
		snprintf(buf, len, "no rounds");
	return buf;
}

const char *nt_view_ms(int64_t ns, char *buf, size_t len)
{
	if (ns < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.3f ms", (double)ns / (double)NT_NS_PER_MS);
	return buf;
}

int nt_view_text_round(const struct nt_run *run, unsigned index, char **out)
{
	struct nt_render_opts ro = { .color = false, .summary_only = false };
	char needle[32], *text = NULL, *start, *end;
	size_t size = 0;
	FILE *fp = open_memstream(&text, &size);
	int ret;

	*out = NULL;
	if (!fp)
		return -ENOMEM;
	ret = nt_render_text(fp, run, 1, &ro);
	if (fclose(fp) != 0 || ret < 0) {
		free(text);
		return -ENOMEM;
	}
	/* Each round opens with "\nround N  verdict" and ends at the next blank line. */
	snprintf(needle, sizeof(needle), "\nround %u ", index);
	start = strstr(text, needle);
	if (!start) {
		free(text);
		return -ENOENT;
	}
	start++;
	end = strstr(start, "\n\n");
	if (!end)
		end = start + strlen(start);
	*out = strndup(start, (size_t)(end - start));
	free(text);
	return *out ? 0 : -ENOMEM;
}

const char *nt_view_oneline(const char *text, char *buf, size_t len)
{
	size_t o = 0;

	for (const char *p = text; *p && o + 1 < len; p++) {
		if (*p == '\n') {
			while (p[1] == ' ' || p[1] == '\t')
				p++;
			buf[o++] = ' ';
			continue;
		}
		buf[o++] = *p;
	}
	buf[o] = '\0';
	return buf;
}
