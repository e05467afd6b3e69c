// SPDX-License-Identifier: MIT
/*
 * html_page.c - the frame of every HTML page (see nt/render/html_page.h).
 */
#include <errno.h>

#include "nt/render/escape.h"
#include "nt/render/html_page.h"
#include "nt/render/ladder.h"
#include "nt/render/lesson.h"

static const char style[] =
	"body { font-family: system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', "
	"Arial, sans-serif; color: #111; background: #fff; margin: 2em auto; max-width: 90em; "
	"padding: 0 1em; line-height: 1.45; font-size: 17px; }\n"
	"table { border-collapse: collapse; margin: 1em 0; }\n"
	"th, td { border: 1px solid #888; padding: .3em .7em; text-align: left; }\n"
	"td.num { text-align: right; font-variant-numeric: tabular-nums; }\n"
	"th { background: #eee; }\n"
	".stalled { color: #b00020; font-weight: bold; }\n"
	".notmet { color: #b00020; font-weight: bold; }\n"
	"pre { background: #f6f6f6; border: 1px solid #ccc; padding: 1em; font-size: 14px; }\n"
	"table code { overflow-wrap: anywhere; }\n"
	"dt { font-weight: bold; margin-top: .5em; }\n";

void nt_html_begin(FILE *out, const char *title, const char *h1, const char *variant,
		   unsigned round)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>",
	      out);
	nt_escape_xml(out, title);
	/* One <style>: the page's, the ladder's (inline diagrams carry none) and the lesson's. */
	fprintf(out, "</title>\n<style>\n%s%s%s</style>\n</head>\n<body data-variant=\"", style,
		nt_ladder_css(), nt_lesson_css);
	nt_escape_xml(out, variant ? variant : "");
	fprintf(out, "\" data-round=\"%u\" data-step=\"0\">\n<h1>", round ? round : 1);
	nt_escape_xml(out, h1);
	fputs("</h1>\n", out);
	nt_ladder_svg_defs(out);
}

int nt_html_end(FILE *out)
{
	fprintf(out, "<script>\n%s</script>\n</body>\n</html>\n", nt_lesson_js);
	return ferror(out) ? -EIO : 0;
}
