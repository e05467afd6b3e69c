/* SPDX-License-Identifier: MIT */
/*
 * view.h - what the document formats (markdown, svg, html) share: which
 * round represents a run, how a segment or a call is labelled, the verdict
 * counts as words, and the text timeline of one round. Pure functions over
 * the model; nothing here writes to a file. Below them, the small pieces the
 * live and the analyze documents share: escapers (they write to the stream
 * they are given, nothing else), the ladder's colours, style and break band.
 */
#ifndef NT_RENDER_VIEW_H
#define NT_RENDER_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "nt/model/run.h"

/**
 * struct nt_view_pick - the round a document shows of a run: the first
 * stalled round, else the last; a copy, since the run forgets its rounds
 * @round: the round
 * @evidence: its evidence, when @has_evidence
 * @has_evidence: the run gathered evidence
 * @ev: its events
 * @n: how many
 * @cap: allocated entries in @ev
 * @set: a round was offered
 */
struct nt_view_pick {
	struct nt_round round;
	struct nt_round_evidence evidence;
	bool has_evidence;
	struct nt_event *ev;
	size_t n;
	size_t cap;
	bool set;
};

/**
 * nt_view_pick_offer() - offer the next round of the run, in order
 * @p: the pick (zeroed at first)
 * @rv: the round
 *
 * Return: 0 or -ENOMEM.
 */
int nt_view_pick_offer(struct nt_view_pick *p, const struct nt_round_view *rv);

/**
 * nt_view_pick_get() - the picked round as a view into @p
 * @p: the pick
 * @out: filled
 *
 * Return: false when no round was offered.
 */
bool nt_view_pick_get(const struct nt_view_pick *p, struct nt_round_view *out);

/** nt_view_pick_fini() - free it; it is zeroed again */
void nt_view_pick_fini(struct nt_view_pick *p);

/*
 * One pick per run of a document (svg, markdown, html): _new() gives @n
 * zeroed picks (NULL without memory), _offer() offers a round of run @run
 * (-EINVAL past @n, -ENOMEM), _free() frees them; safe on NULL.
 */
struct nt_view_pick *nt_view_picks_new(unsigned n);
int nt_view_picks_offer(struct nt_view_pick *picks, unsigned n, unsigned run,
			const struct nt_round_view *rv);
void nt_view_picks_free(struct nt_view_pick *picks, unsigned n);

/**
 * nt_view_first_stalling() - the run whose stall a document shows
 * @runs: the runs
 * @n_runs: how many
 *
 * Return: the index of the first run with a stalled round, else 0.
 */
unsigned nt_view_first_stalling(const struct nt_run *runs, unsigned n_runs);

/**
 * nt_view_segment_label() - "header 4 B", "pure ACK", "SYN", "reply 2 B"
 * @seg: the segment
 * @buf: filled
 * @len: size of @buf
 *
 * Return: @buf.
 */
const char *nt_view_segment_label(const struct nt_segment *seg, char *buf, size_t len);

/**
 * nt_view_call_label() - "write(header)", "read(request)", ...
 * @call: the call
 *
 * Return: a static string.
 */
const char *nt_view_call_label(enum nt_call call);

/**
 * nt_view_verdicts() - the verdict counts in words: "1 held, 3 stalled"
 * @s: the summary
 * @buf: filled ("no rounds" when empty)
 * @len: size of @buf
 *
 * Return: @buf.
 */
const char *nt_view_verdicts(const struct nt_summary *s, char *buf, size_t len);

/**
 * nt_view_ms() - nanoseconds as "43.247 ms", or "-" when @ns < 0
 * @ns: a duration
 * @buf: filled
 * @len: size of @buf
 *
 * Return: @buf.
 */
const char *nt_view_ms(int64_t ns, char *buf, size_t len);

/**
 * nt_view_oneline() - a multi-line explanation as one line
 * @text: a sentence that may hold "\n" plus indentation (nt_render_explain())
 * @buf: filled, each newline and the blanks after it made one space
 * @len: size of @buf
 *
 * Return: @buf.
 */
const char *nt_view_oneline(const char *text, char *buf, size_t len);

/* The ladder's look: dark on white, blue one way, brown the other, red for a stall. */
#define NT_VIEW_FONT_STACK                                                                     \
	"system-ui, -apple-system, &apos;Segoe UI&apos;, Roboto, &apos;Helvetica Neue&apos;, " \
	"Arial, &apos;DejaVu Sans&apos;, sans-serif"
#define NT_VIEW_COLOR_TEXT	 "#111111"
#define NT_VIEW_COLOR_C2T	 "#0b3d91"
#define NT_VIEW_COLOR_T2C	 "#8a3b00"
#define NT_VIEW_COLOR_STALL	 "#b00020"
#define NT_VIEW_COLOR_STALL_FILL "#fde3e6"
#define NT_VIEW_COLOR_LIFELINE	 "#444444"

/* One <style> for an HTML page, the same for every page nagle-trace writes. */
extern const char nt_view_html_style[];

/**
 * nt_view_xml_text() - write text escaped for XML or HTML content and attributes
 * @out: the stream
 * @s: the text
 */
void nt_view_xml_text(FILE *out, const char *s);

/**
 * nt_view_md_cell() - write text for a Markdown table cell ('|' escaped, newlines as blanks)
 * @out: the stream
 * @s: the text
 */
void nt_view_md_cell(FILE *out, const char *s);

/**
 * nt_view_mermaid_text() - write text for a Mermaid message or note
 * @out: the stream
 * @s: the text
 *
 * ';' (a statement separator) becomes ',', '#' (an entity code) "no.",
 * '<', '>', "->" and "--" (arrows to older parsers) and newlines blanks.
 */
void nt_view_mermaid_text(FILE *out, const char *s);

/**
 * nt_view_tcp_label() - a segment by its flags and length: "SYN", "SYN-ACK",
 * "FIN", "RST", "pure ACK", "data 19 B" ("FIN 19 B" with data)
 * @flags: NT_TCP_* flags
 * @payload_bytes: payload length
 * @buf: filled
 * @len: size of @buf
 *
 * Return: @buf.
 */
const char *nt_view_tcp_label(uint8_t flags, uint32_t payload_bytes, char *buf, size_t len);

/**
 * nt_view_svg_defs() - the ladder's arrowhead markers (ids nt-head-c2t,
 * nt-head-t2c, nt-head-key) and its <style> (classes title, who, addr, note,
 * call, seg, seg key, stall under .nt-ladder)
 * @out: the stream
 */
void nt_view_svg_defs(FILE *out);

/**
 * nt_view_svg_break() - a break band across both lifelines (NT_SVG_CLIENT_X
 * and NT_SVG_TARGET_X): a gap not drawn to scale
 * @out: the stream
 * @y_top: where the band may start
 * @y_bottom: where it must end
 * @stall: the gap is (part of) a stall: shaded, @label in red above @note
 * @label: the stall's headline ("43.967 ms stall"); unused unless @stall
 * @note: the smaller line (the gap's length, or what the stall was)
 */
void nt_view_svg_break(FILE *out, int y_top, int y_bottom, bool stall, const char *label,
		       const char *note);

/**
 * nt_view_svg_begin() - open a ladder document: the <svg> root of the given
 * size with its title, arrow markers and style
 * @out: the stream
 * @width: width in pixels
 * @height: height in pixels
 * @title: the <title> text (escaped here)
 * @standalone: also write the XML declaration (a file, not inline in HTML)
 */
void nt_view_svg_begin(FILE *out, int width, int height, const char *title, bool standalone);

/**
 * nt_view_svg_participants() - the two lifelines' boxes: name and address,
 * at NT_SVG_CLIENT_X (left) and NT_SVG_TARGET_X (right)
 * @out: the stream
 * @names: left and right names (escaped here)
 * @addrs: left and right addresses (escaped here)
 */
void nt_view_svg_participants(FILE *out, const char *const names[2], const char *const addrs[2]);

/**
 * nt_view_svg_arrow() - one segment of a ladder: a sloped arrow from one
 * lifeline to the other, its label above the middle
 * @out: the stream
 * @left_to_right: from the left lifeline (client, A) to the right one
 * @y_px: where the arrow starts on the sender's lifeline (a right-to-left
 *        arrow is drawn ending there, as the capture sits on the left)
 * @key: drawn bold in the stall colour
 * @text: the label (escaped here)
 */
void nt_view_svg_arrow(FILE *out, bool left_to_right, int y_px, bool key, const char *text);

/**
 * nt_view_spool_new() - a temporary file for what a document writes before
 * its head is known (an unnamed file that vanishes when closed or killed)
 *
 * Return: the stream, or NULL with errno set.
 */
FILE *nt_view_spool_new(void);

/**
 * nt_view_spool_copy() - copy bytes @from .. @to of @spool to @out
 * @spool: the spool
 * @from: first offset
 * @to: end offset, -1 for the end of the spool
 * @out: where to
 * @xml_escape: escape for XML text (nt_view_xml_text())
 *
 * Return: 0 or a negative errno.
 */
int nt_view_spool_copy(FILE *spool, long from, long to, FILE *out, bool xml_escape);

#endif
