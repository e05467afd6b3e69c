/* SPDX-License-Identifier: MIT */
/*
 * ladder_int.h - internals of the ladder module, shared by its files only:
 * the look both the drawing (ladder.c) and the document's style
 * (ladder_svg.c) use.
 */
#ifndef NT_RENDER_LADDER_INT_H
#define NT_RENDER_LADDER_INT_H

/* The look: dark on white, blue one way, brown the other, red for a stall. */
#define FONT_STACK                                                                             \
	"system-ui, -apple-system, &apos;Segoe UI&apos;, Roboto, &apos;Helvetica Neue&apos;, " \
	"Arial, &apos;DejaVu Sans&apos;, sans-serif"
#define COLOR_TEXT	 "#111111"
#define COLOR_LEFT	 "#0b3d91"
#define COLOR_RIGHT	 "#8a3b00"
#define COLOR_STALL	 "#b00020"
#define COLOR_STALL_FILL "#fde3e6"
#define COLOR_LIFELINE	 "#444444"

#endif
