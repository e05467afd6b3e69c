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
#include "nt/render/svg.h"
#include "nt/render/view.h"

int nt_view_pick_offer(struct nt_view_pick *p, const struct nt_round_view *rv)
{
	if (p->set && p->round.verdict == NT_VERDICT_STALLED)
		return 0;
	if (rv->n > p->cap) {
		struct nt_event *ev = realloc(p->ev, rv->n * sizeof(*ev));

		if (!ev)
			return -ENOMEM;
		p->ev = ev;
		p->cap = rv->n;
	}
	if (rv->n)
		memcpy(p->ev, rv->ev, rv->n * sizeof(*p->ev));
	p->n = rv->n;
	p->round = *rv->round;
	p->has_evidence = rv->evidence != NULL;
	if (rv->evidence)
		p->evidence = *rv->evidence;
	p->set = true;
	return 0;
}

bool nt_view_pick_get(const struct nt_view_pick *p, struct nt_round_view *out)
{
	if (!p->set)
		return false;
	*out = (struct nt_round_view){ .round = &p->round,
				       .evidence = p->has_evidence ? &p->evidence : NULL,
				       .ev = p->ev,
				       .n = p->n };
	return true;
}

void nt_view_pick_fini(struct nt_view_pick *p)
{
	free(p->ev);
	memset(p, 0, sizeof(*p));
}

struct nt_view_pick *nt_view_picks_new(unsigned n)
{
	return calloc(n ? n : 1, sizeof(struct nt_view_pick));
}

int nt_view_picks_offer(struct nt_view_pick *picks, unsigned n, unsigned run,
			const struct nt_round_view *rv)
{
	if (run >= n)
		return -EINVAL;
	return nt_view_pick_offer(&picks[run], rv);
}

void nt_view_picks_free(struct nt_view_pick *picks, unsigned n)
{
	for (unsigned i = 0; picks && i < n; i++)
		nt_view_pick_fini(&picks[i]);
	free(picks);
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

const char nt_view_html_style[] =
	"body { font-family: system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', "
	"Arial, sans-serif; color: #111; background: #fff; margin: 2em auto; max-width: 90em; "
	"padding: 0 1em; line-height: 1.45; font-size: 17px; }\n"
	"table { border-collapse: collapse; margin: 1em 0; }\n"
	"th, td { border: 1px solid #888; padding: .3em .7em; text-align: left; }\n"
	"td.num { text-align: right; font-variant-numeric: tabular-nums; }\n"
	"th { background: #eee; }\n"
	".stalled { color: #b00020; font-weight: bold; }\n"
	".notmet { color: #b00020; font-weight: bold; }\n"
	"pre { background: #f6f6f6; border: 1px solid #ccc; padding: 1em; overflow-x: auto; "
	"font-size: 14px; }\n"
	".diagram { overflow-x: auto; }\n"
	"dt { font-weight: bold; margin-top: .5em; }\n";

void nt_view_xml_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		default:
			fputc(*s, out);
		}
	}
}

void nt_view_md_cell(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", out);
		else if (*s == '\n')
			fputc(' ', out);
		else
			fputc(*s, out);
	}
}

/*
 * Mermaid message text runs to the end of the line, but the sequence grammar
 * still reads ';' as a statement separator and '#' as the start of an entity
 * code (#59;), and older releases take "->" or "--" inside a text for an arrow.
 */
void nt_view_mermaid_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == ';')
			fputc(',', out);
		else if (*s == '#')
			fputs("no.", out);
		else if (*s == '\n' || *s == '\r')
			fputc(' ', out);
		else if ((*s == '-' && (s[1] == '>' || s[1] == '-')) || *s == '<' || *s == '>')
			fputc(' ', out);
		else
			fputc(*s, out);
	}
}

const char *nt_view_tcp_label(uint8_t flags, uint32_t payload_bytes, char *buf, size_t len)
{
	if ((flags & (NT_TCP_SYN | NT_TCP_ACK)) == (NT_TCP_SYN | NT_TCP_ACK))
		snprintf(buf, len, "SYN-ACK");
	else if (flags & NT_TCP_SYN)
		snprintf(buf, len, "SYN");
	else if (flags & NT_TCP_RST)
		snprintf(buf, len, "RST");
	else if ((flags & NT_TCP_FIN) && payload_bytes)
		snprintf(buf, len, "FIN %" PRIu32 " B", payload_bytes);
	else if (flags & NT_TCP_FIN)
		snprintf(buf, len, "FIN");
	else if (payload_bytes)
		snprintf(buf, len, "data %" PRIu32 " B", payload_bytes);
	else
		snprintf(buf, len, "pure ACK");
	return buf;
}

void nt_view_svg_defs(FILE *out)
{
	static const struct {
		const char *id, *color;
	} heads[] = { { "c2t", NT_VIEW_COLOR_C2T },
		      { "t2c", NT_VIEW_COLOR_T2C },
		      { "key", NT_VIEW_COLOR_STALL } };

	fputs("<defs>\n", out);
	for (unsigned i = 0; i < sizeof(heads) / sizeof(heads[0]); i++)
		fprintf(out,
			"<marker id=\"nt-head-%s\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" "
			"markerWidth=\"8\" markerHeight=\"8\" markerUnits=\"userSpaceOnUse\" "
			"orient=\"auto\"><path d=\"M0 0 L10 5 L0 10 z\" fill=\"%s\"/></marker>\n",
			heads[i].id, heads[i].color);
	fputs("</defs>\n", out);
	fputs("<style>\n"
	      ".nt-ladder text { font-family: " NT_VIEW_FONT_STACK "; fill: " NT_VIEW_COLOR_TEXT
	      "; font-size: 15px; }\n"
	      ".nt-ladder .title { font-size: 20px; font-weight: bold; }\n"
	      ".nt-ladder .who { font-size: 16px; font-weight: bold; }\n"
	      ".nt-ladder .addr, .nt-ladder .note, .nt-ladder .call { font-size: 14px; }\n"
	      ".nt-ladder .seg { font-size: 15px; paint-order: stroke; stroke: #ffffff; "
	      "stroke-width: 5px; stroke-linejoin: round; }\n"
	      ".nt-ladder .seg.key { font-weight: bold; fill: " NT_VIEW_COLOR_STALL "; }\n"
	      ".nt-ladder .stall { font-size: 17px; font-weight: bold; fill: " NT_VIEW_COLOR_STALL
	      "; }\n"
	      "</style>\n",
	      out);
}

void nt_view_svg_begin(FILE *out, int width, int height, const char *title, bool standalone)
{
	if (standalone)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
	fprintf(out,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"nt-ladder\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n<title>",
		width, height, width, height);
	nt_view_xml_text(out, title);
	fputs("</title>\n", out);
	nt_view_svg_defs(out);
}

void nt_view_svg_participants(FILE *out, const char *const names[2], const char *const addrs[2])
{
	const int xs[2] = { NT_SVG_CLIENT_X, NT_SVG_TARGET_X };

	for (int i = 0; i < 2; i++) {
		fprintf(out,
			"<rect x=\"%d\" y=\"70\" width=\"180\" height=\"44\" rx=\"6\" "
			"fill=\"#f2f2f2\" stroke=\"%s\" stroke-width=\"2\"/>\n",
			xs[i] - 90, NT_VIEW_COLOR_TEXT);
		fprintf(out, "<text x=\"%d\" y=\"89\" text-anchor=\"middle\" class=\"who\">",
			xs[i]);
		nt_view_xml_text(out, names[i]);
		fprintf(out,
			"</text>\n<text x=\"%d\" y=\"107\" text-anchor=\"middle\" class=\"addr\">",
			xs[i]);
		nt_view_xml_text(out, addrs[i]);
		fputs("</text>\n", out);
	}
}

void nt_view_svg_arrow(FILE *out, bool left_to_right, int y_px, bool key, const char *text)
{
	int x1 = left_to_right ? NT_SVG_CLIENT_X : NT_SVG_TARGET_X;
	int x2 = left_to_right ? NT_SVG_TARGET_X : NT_SVG_CLIENT_X;
	int y1 = left_to_right ? y_px : y_px - NT_SVG_SLOPE_PX;
	int y2 = y1 + NT_SVG_SLOPE_PX;
	/* Stop short of the lifeline so the arrowhead's tip touches it. */
	int x2_line = x2 + (left_to_right ? -2 : 2);
	const char *color = key		    ? NT_VIEW_COLOR_STALL
			    : left_to_right ? NT_VIEW_COLOR_C2T
					    : NT_VIEW_COLOR_T2C;

	fprintf(out,
		"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"%d\" "
		"marker-end=\"url(#nt-head-%s)\"/>\n",
		x1, y1, x2_line, y2, color, key ? 3 : 2,
		key		? "key"
		: left_to_right ? "c2t"
				: "t2c");
	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"seg%s\" fill=\"%s\">",
		(x1 + x2) / 2, (y1 + y2) / 2 - 7, key ? " key" : "", color);
	nt_view_xml_text(out, text);
	fputs("</text>\n", out);
}

/* Two slanted strokes interrupt each lifeline; the gap's length sits between them. */
void nt_view_svg_break(FILE *out, int y_top, int y_bottom, bool stall, const char *label,
		       const char *note)
{
	int mid = (y_top + y_bottom) / 2;
	const int xs[2] = { NT_SVG_CLIENT_X, NT_SVG_TARGET_X };

	for (int i = 0; i < 2; i++) {
		fprintf(out,
			"<rect x=\"%d\" y=\"%d\" width=\"24\" height=\"12\" fill=\"%s\"/>\n"
			"<path d=\"M%d %d l24 -8 M%d %d l24 -8\" stroke=\"%s\" stroke-width=\"2\" "
			"fill=\"none\"/>\n",
			xs[i] - 12, mid - 6, stall ? NT_VIEW_COLOR_STALL_FILL : "#ffffff",
			xs[i] - 12, mid - 2, xs[i] - 12, mid + 10, NT_VIEW_COLOR_LIFELINE);
	}
	if (stall) {
		fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"stall\">",
			(NT_SVG_CLIENT_X + NT_SVG_TARGET_X) / 2, mid - 8);
		nt_view_xml_text(out, label);
		fprintf(out,
			"</text>\n<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"note\">",
			(NT_SVG_CLIENT_X + NT_SVG_TARGET_X) / 2, mid + 14);
	} else {
		fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"note\">",
			(NT_SVG_CLIENT_X + NT_SVG_TARGET_X) / 2, mid + 5);
	}
	nt_view_xml_text(out, note);
	fputs("</text>\n", out);
}

FILE *nt_view_spool_new(void)
{
	/* An unnamed file (O_TMPFILE or unlinked at once): nothing is left behind, even on SIGKILL. */
	return tmpfile();
}

int nt_view_spool_copy(FILE *spool, long from, long to, FILE *out, bool xml_escape)
{
	char buf[8192];
	long left;

	if (fflush(spool) == EOF)
		return -EIO;
	if (to < 0) {
		if (fseek(spool, 0, SEEK_END) < 0)
			return -errno;
		to = ftell(spool);
	}
	if (fseek(spool, from, SEEK_SET) < 0)
		return -errno;
	for (left = to - from; left > 0;) {
		size_t want = (size_t)left < sizeof(buf) - 1 ? (size_t)left : sizeof(buf) - 1;
		size_t got = fread(buf, 1, want, spool);

		if (got == 0)
			return -EIO;
		if (xml_escape) {
			buf[got] = '\0';
			/* The spool holds text nagle-trace wrote: no NUL bytes inside. */
			nt_view_xml_text(out, buf);
		} else {
			fwrite(buf, 1, got, out);
		}
		left -= (long)got;
	}
	/* Back to the end: the spool may still be written to. */
	return fseek(spool, 0, SEEK_END) < 0 ? -errno : 0;
}
