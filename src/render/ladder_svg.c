// SPDX-License-Identifier: MIT
/*
 * ladder_svg.c - the ladder's document around its panels: the style rules,
 * the arrowhead markers, the <svg> root (see nt/render/ladder.h).
 */
#include <errno.h>
#include <stdio.h>

#include "nt/render/escape.h"
#include "nt/render/ladder.h"
#include "ladder_int.h"

const char *nt_ladder_css(void)
{
	return ".nt-ladder text { font-family: " FONT_STACK "; fill: " COLOR_TEXT
	       "; font-size: 15px; }\n"
	       ".nt-ladder .title { font-size: 20px; font-weight: bold; }\n"
	       ".nt-ladder .who { font-size: 16px; font-weight: bold; }\n"
	       ".nt-ladder .addr, .nt-ladder .note, .nt-ladder .call { font-size: 14px; }\n"
	       ".nt-ladder .seg { font-size: 15px; }\n"
	       ".nt-ladder .seg.key { font-weight: bold; fill: " COLOR_STALL "; }\n"
	       ".nt-ladder .stall { font-size: 17px; font-weight: bold; fill: " COLOR_STALL "; }\n";
}

static void svg_defs(FILE *out)
{
	static const struct {
		const char *id, *color;
	} heads[] = { { "c2t", COLOR_LEFT }, { "t2c", COLOR_RIGHT }, { "key", COLOR_STALL } };

	fputs("<defs>\n", out);
	for (unsigned i = 0; i < sizeof(heads) / sizeof(heads[0]); i++)
		fprintf(out,
			"<marker id=\"nt-head-%s\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" "
			"markerWidth=\"8\" markerHeight=\"8\" markerUnits=\"userSpaceOnUse\" "
			"orient=\"auto\"><path d=\"M0 0 L10 5 L0 10 z\" fill=\"%s\"/></marker>\n",
			heads[i].id, heads[i].color);
	fputs("</defs>\n", out);
}

void nt_ladder_svg_begin(FILE *out, int width, int height, const char *title, bool standalone)
{
	if (standalone)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
	fprintf(out,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"nt-ladder\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n<title>",
		width, height, width, height);
	nt_escape_xml(out, title);
	fputs("</title>\n", out);
	/*
	 * A page holds many diagrams: marker ids must be unique in it, so the
	 * first inline diagram defines them for all (markers are found by id
	 * document-wide), and the page's one <style> carries the rules.
	 */
	if (standalone) {
		svg_defs(out);
		fprintf(out, "<style>\n%s</style>\n", nt_ladder_css());
	}
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", width,
		height);
}

void nt_ladder_svg_defs(FILE *out)
{
	fputs("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"0\" height=\"0\" "
	      "style=\"position:absolute\" aria-hidden=\"true\">\n",
	      out);
	svg_defs(out);
	fputs("</svg>\n", out);
}

int nt_ladder_svg_end(FILE *out)
{
	fputs("</svg>\n", out);
	return ferror(out) ? -EIO : 0;
}
