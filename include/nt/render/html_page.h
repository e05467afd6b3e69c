/* SPDX-License-Identifier: MIT */
/*
 * html_page.h - the frame every HTML page of nagle-trace shares: the head
 * with its one inline <style>, the lesson's initial state on <body>, and the
 * end with the lesson's inline script (nt/render/lesson.h). Pages are
 * self-contained: no script, stylesheet, font or image is referenced, so a
 * page works offline, from file://.
 */
#ifndef NT_RENDER_HTML_PAGE_H
#define NT_RENDER_HTML_PAGE_H

#include <stdio.h>

/**
 * nt_html_begin() - the doctype, the head (title, viewport, style), the
 * body with the lesson's initial state, its first heading and the ladder's
 * arrowhead markers
 * @out: the stream
 * @title: the <title> text (escaped here)
 * @h1: the first heading's text (escaped here)
 * @variant: the track the lesson opens on (data-variant; escaped here)
 * @round: the round it opens on (data-round)
 */
void nt_html_begin(FILE *out, const char *title, const char *h1, const char *variant,
		   unsigned round);

/**
 * nt_html_end() - the lesson's script, then close the body and the page
 * @out: the stream
 *
 * Return: 0 or -EIO when a write failed.
 */
int nt_html_end(FILE *out);

#endif
