// SPDX-License-Identifier: MIT
/*
 * html_page.c - the frame of every HTML page (see nt/render/html_page.h).
 */
#include <errno.h>

#include "nt/render/escape.h"
#include "nt/render/html_page.h"

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
	"pre { background: #f6f6f6; border: 1px solid #ccc; padding: 1em; overflow-x: auto; "
	"font-size: 14px; }\n"
	".diagram { overflow-x: auto; }\n"
	"dt { font-weight: bold; margin-top: .5em; }\n";

void nt_html_begin(FILE *out, const char *title, const char *h1)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>",
	      out);
	nt_escape_xml(out, title);
	fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", style);
	nt_escape_xml(out, h1);
	fputs("</h1>\n", out);
}

int nt_html_end(FILE *out)
{
	fputs("</body>\n</html>\n", out);
	return ferror(out) ? -EIO : 0;
}
