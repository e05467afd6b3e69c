/* SPDX-License-Identifier: MIT */
/*
 * html_page.h - the frame every HTML page of nagle-trace shares: the head
 * with its one inline <style>, and the end. Pages are self-contained: no
 * script, stylesheet, font or image is referenced.
 */
#ifndef NT_RENDER_HTML_PAGE_H
#define NT_RENDER_HTML_PAGE_H

#include <stdio.h>

/**
 * nt_html_begin() - the doctype, the head (title, viewport, style) and the
 * body's first heading
 * @out: the stream
 * @title: the <title> text (escaped here)
 * @h1: the first heading's text (escaped here)
 */
void nt_html_begin(FILE *out, const char *title, const char *h1);

/**
 * nt_html_end() - close the body and the page
 * @out: the stream
 *
 * Return: 0 or -EIO when a write failed.
 */
int nt_html_end(FILE *out);

#endif
