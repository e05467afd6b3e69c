// SPDX-License-Identifier: MIT
/*
 * lesson.c - the frame of the lesson page (see nt/render/lesson.h): the
 * controls, tracks, figures, steps and the strip. What a step says is the
 * caller's; this file writes it where the page's script looks for it.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "nt/render/escape.h"
#include "nt/render/fmt.h"
#include "nt/render/lesson.h"
#include "nt/render/spool.h"
#include "nt/unknown.h"

/* One cell of a strip as spooled. */
struct cell {
	unsigned first;
	unsigned last;
	int verdict;
	int64_t t_ns;
	bool ladder;
};

void nt_lesson_strip_start(struct nt_lesson_strip *s, FILE *spool, unsigned rounds)
{
	memset(s, 0, sizeof(*s));
	s->spool = spool;
	s->from = spool ? ftell(spool) : 0;
	s->per_cell = rounds > NT_LESSON_STRIP_MAX
			      ? (rounds + NT_LESSON_STRIP_MAX - 1) / NT_LESSON_STRIP_MAX
			      : 1;
}

static int strip_close_cell(struct nt_lesson_strip *s)
{
	struct cell c = { s->cur_first, s->cur_last, (int)s->cur_verdict, s->cur_ns,
			  s->cur_ladder };

	if (!s->cur_first)
		return 0;
	s->cur_first = 0;
	s->n_cells++;
	if (c.t_ns > s->max_ns)
		s->max_ns = c.t_ns;
	return fwrite(&c, sizeof(c), 1, s->spool) == 1 ? 0 : nt_spool_error(s->spool);
}

int nt_lesson_strip_add(struct nt_lesson_strip *s, unsigned round, enum nt_verdict verdict,
			int64_t t_ns, bool has_ladder)
{
	if (!s->spool)
		return 0;
	if (!s->cur_first) {
		s->cur_first = round;
		s->cur_verdict = verdict;
		s->cur_ns = t_ns;
		s->cur_ladder = has_ladder;
	}
	s->cur_last = round;
	/* Enum order puts stalled last: a shared cell shows its worst round. */
	if (verdict > s->cur_verdict)
		s->cur_verdict = verdict;
	if (t_ns > s->cur_ns)
		s->cur_ns = t_ns;
	if (round - s->cur_first + 1 >= s->per_cell)
		return strip_close_cell(s);
	return 0;
}

/*
 * A bar's height on a log scale from 10 us to the strip's longest time, so
 * a 50 us round and a 44 ms stall are both visible (the ping-pong sawtooth).
 */
static double bar_height(int64_t t_ns, int64_t max_ns)
{
	const double floor_ns = 10000.0;
	double h;

	if (!nt_known(t_ns) || max_ns <= floor_ns)
		return 0.15;
	h = log((double)(t_ns > floor_ns ? t_ns : floor_ns) / floor_ns) /
	    log((double)max_ns / floor_ns);
	return h < 0.15 ? 0.15 : h;
}

static void write_cell(FILE *out, const struct cell *c, int64_t max_ns)
{
	const char *v = nt_verdict_name((enum nt_verdict)c->verdict);
	char ms[NT_FMT_MS_LEN];

	fprintf(out,
		"<button type=\"button\" class=\"nt-cell v-%s%s\" data-nt=\"cell\" "
		"data-round=\"%u\"",
		v, c->ladder ? "" : " nt-none", c->first);
	if (c->last != c->first)
		fprintf(out, " data-last=\"%u\"", c->last);
	fprintf(out, " style=\"--h:%.2f\" title=\"%u", bar_height(c->t_ns, max_ns), c->first);
	if (c->last != c->first)
		fprintf(out, "-%u", c->last);
	fprintf(out, ": %s", v);
	if (nt_known(c->t_ns))
		fprintf(out, ", %s ms", nt_fmt_ms_digits(c->t_ns, 3, ms, sizeof(ms)));
	fprintf(out, "\" aria-label=\"round %u %s\"></button>", c->first, v);
}

int nt_lesson_strip_write(FILE *out, struct nt_lesson_strip *s, const char *caption)
{
	struct cell c;
	long end;
	int ret = s->spool ? strip_close_cell(s) : 0;

	if (ret < 0 || !s->spool)
		return ret;
	end = ftell(s->spool);
	if (end < 0 || fflush(s->spool) == EOF || ferror(s->spool))
		return ferror(s->spool) ? nt_spool_error(s->spool) : -EIO;
	if (fseek(s->spool, s->from, SEEK_SET) < 0)
		return -EIO;
	fputs("<div class=\"nt-strip-wrap\">\n<div class=\"nt-strip\">", out);
	for (unsigned i = 0; i < s->n_cells; i++) {
		if (fread(&c, sizeof(c), 1, s->spool) != 1)
			return -EIO;
		write_cell(out, &c, s->max_ns);
	}
	fprintf(out, "</div>\n<p class=\"nt-legend\">%s", caption);
	if (s->per_cell > 1)
		fprintf(out, " One bar stands for %u rounds (its worst verdict, its longest time).",
			s->per_cell);
	fputs(" <span class=\"nt-cell v-stalled\"></span>stalled <span class=\"nt-cell "
	      "v-held\"></span>held <span class=\"nt-cell v-unheld\"></span>unheld <span "
	      "class=\"nt-cell v-coalesced\"></span>coalesced <span class=\"nt-cell\"></span>"
	      "incomplete</p>\n</div>\n",
	      out);
	/* Back to the end: the next track's cells follow. */
	return fseek(s->spool, end, SEEK_SET) < 0 ? -EIO : 0;
}

void nt_lesson_bar(FILE *out, const char *const *names, const char *const *labels, unsigned n,
		   const char *what)
{
	fprintf(out,
		"<div class=\"nt-bar\" role=\"toolbar\">\n<label>%s <select id=\"nt-variant\">",
		what);
	for (unsigned i = 0; i < n; i++) {
		fputs("<option value=\"", out);
		nt_escape_xml(out, names[i]);
		fputs("\">", out);
		nt_escape_xml(out, labels[i]);
		fputs("</option>", out);
	}
	fputs("</select></label>\n"
	      "<button type=\"button\" data-nt=\"round-\" title=\"previous round (&#8593;)\">"
	      "&#9664; round</button>"
	      "<button type=\"button\" data-nt=\"round+\" title=\"next round (&#8595;)\">"
	      "round &#9654;</button>\n"
	      "<button type=\"button\" data-nt=\"prev\" title=\"previous step (&#8592;)\">"
	      "&#8592; step</button>"
	      "<button type=\"button\" data-nt=\"next\" title=\"next step (&#8594;, space)\">"
	      "step &#8594;</button>\n"
	      "<span class=\"nt-where\" id=\"nt-where\"></span>\n"
	      "<button type=\"button\" id=\"nt-predict\" data-nt=\"predict\" "
	      "aria-pressed=\"false\" "
	      "title=\"guess each round's verdict before it shows (g)\">Predict</button>"
	      "<button type=\"button\" id=\"nt-projector\" data-nt=\"projector\" "
	      "aria-pressed=\"false\" title=\"large type, only the lesson "
	      "(f)\">Projector</button>\n"
	      "</div>\n",
	      out);
}

void nt_lesson_stage_begin(FILE *out)
{
	fputs("<div class=\"nt-lesson\">\n<div class=\"nt-stage\">\n", out);
}

void nt_lesson_stage_end(FILE *out, const char *const *verdicts)
{
	fputs("</div>\n<aside class=\"nt-panel\" aria-live=\"polite\">\n"
	      "<h3 id=\"nt-step-title\">Step 0</h3>\n<p class=\"nt-what\" id=\"nt-what\"></p>\n"
	      "<p class=\"nt-why\" id=\"nt-why\"></p>\n"
	      "<details class=\"nt-kernel\" id=\"nt-kernel\" hidden><summary>Kernel detail"
	      "</summary><p id=\"nt-kernel-text\"></p></details>\n"
	      "<div class=\"nt-guess\" id=\"nt-guess\" hidden><div id=\"nt-guess-verdict\">"
	      "<p><strong>Predict:</strong> which verdict will this round get?</p>",
	      out);
	for (unsigned i = 0; verdicts && verdicts[i]; i++)
		fprintf(out,
			"<button type=\"button\" data-nt=\"guess\" data-verdict=\"%s\">%s</button>",
			verdicts[i], verdicts[i]);
	fputs("</div>\n<div id=\"nt-guess-wait\" hidden><p><strong>And:</strong> how long will "
	      "the client wait for its reply?</p>"
	      "<button type=\"button\" data-nt=\"wait\" data-band=\"lt1\">under 1 ms</button>"
	      "<button type=\"button\" data-nt=\"wait\" data-band=\"lt10\">1 to 10 ms</button>"
	      "<button type=\"button\" data-nt=\"wait\" data-band=\"lt100\">10 to 100 ms</button>"
	      "<button type=\"button\" data-nt=\"wait\" data-band=\"ge100\">100 ms or more"
	      "</button></div>",
	      out);
	fputs("</div>\n<p class=\"nt-result\" id=\"nt-result\"></p>\n<div id=\"nt-notes\"></div>\n"
	      "</aside>\n</div>\n"
	      "<p class=\"nt-keys\">Keys: &#8594;, space or PageDown (a clicker) next step, "
	      "&#8592; or PageUp back, &#8595;/&#8593; "
	      "next/previous round, v next variant, g predict mode, f projector mode; a click on "
	      "the ladder steps too. Links: <code>#variant=NAME&amp;round=N&amp;step=K</code> "
	      "(add <code>&amp;mode=projector</code> or <code>predict</code>).</p>\n",
	      out);
}

void nt_lesson_track_begin(FILE *out, const char *name, const char *label, unsigned rounds,
			   const char *unit, const char *noladder)
{
	fputs("<section class=\"nt-track\" data-variant=\"", out);
	nt_escape_xml(out, name);
	fputs("\" data-label=\"", out);
	nt_escape_xml(out, label);
	fprintf(out, "\" data-rounds=\"%u\" data-unit=\"%s\" data-noladder=\"", rounds, unit);
	nt_escape_xml(out, noladder);
	fputs("\">\n<p class=\"nt-noladder\" hidden>", out);
	nt_escape_xml(out, noladder);
	fputs("</p>\n", out);
}

void nt_lesson_track_end(FILE *out)
{
	fputs("</section>\n", out);
}

void nt_lesson_figure_begin(FILE *out, unsigned round, const char *verdict, long reveal,
			    size_t steps, int64_t wait_ns)
{
	char ms[NT_FMT_MS_LEN];

	fprintf(out,
		"<figure class=\"nt-round\" data-round=\"%u\" data-verdict=\"%s\" "
		"data-steps=\"%zu\"",
		round, verdict, steps);
	if (reveal > 0)
		fprintf(out, " data-reveal=\"%ld\"", reveal);
	if (wait_ns >= 0)
		fprintf(out, " data-wait-ms=\"%s\"", nt_fmt_ms_digits(wait_ns, 3, ms, sizeof(ms)));
	fputs(">\n", out);
}

void nt_lesson_steps_begin(FILE *out)
{
	fputs("<ol class=\"nt-steps\">\n", out);
}

void nt_lesson_step(FILE *out, size_t step, int64_t t_ns, const char *what, const char *why,
		    const char *plain, const char *kernel)
{
	char ms[NT_FMT_MS_LEN];

	fprintf(out, "<li data-step=\"%zu\"", step);
	if (t_ns >= 0)
		fprintf(out, " data-t-ms=\"%s\"", nt_fmt_ms_digits(t_ns, 3, ms, sizeof(ms)));
	fputs(" data-why=\"", out);
	if (why)
		nt_escape_xml(out, why);
	if (plain && plain[0] && (!why || strcmp(plain, why) != 0)) {
		fputs("\" data-plain=\"", out);
		nt_escape_xml(out, plain);
	}
	if (kernel && kernel[0]) {
		fputs("\" data-kernel=\"", out);
		nt_escape_xml(out, kernel);
	}
	fputs("\">", out);
	nt_escape_xml(out, what);
	fputs("</li>\n", out);
}

void nt_lesson_notes_begin(FILE *out)
{
	fputs("</ol>\n<div class=\"nt-notes\">\n", out);
}

int nt_lesson_figure_end(FILE *out)
{
	fputs("</div>\n</figure>\n", out);
	return ferror(out) ? -EIO : 0;
}

void nt_lesson_escape_lines(FILE *out, const char *text)
{
	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t len = nl ? (size_t)(nl - text) : strlen(text);
		char line[1024];

		while (len && (*text == ' ' || *text == '\t')) {
			text++;
			len--;
		}
		if (len) {
			snprintf(line, sizeof(line), "%.*s", (int)len, text);
			fputs("<li>", out);
			nt_escape_xml(out, line);
			fputs("</li>\n", out);
		}
		text += len + (nl ? 1 : 0);
	}
}
