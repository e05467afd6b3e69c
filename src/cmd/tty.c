// SPDX-License-Identifier: MIT
/*
 * tty.c - a live run on a terminal (see nt/cmd/tty.h).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "nt/clock.h"
#include "nt/cmd/cmd.h"
#include "nt/cmd/tty.h"
#include "nt/model/verdict.h"
#include "nt/render/wrap.h"

/* At most ten redraws a second: a round takes 40 ms when it stalls, 50 us when it does not. */
#define REDRAW_NS (100LL * NT_NS_PER_MS)

/* Overwrites the line with blanks: no escape sequence, so NO_COLOR's readers see none either. */
static void blank(int len)
{
	fprintf(stderr, "\r%*s\r", len, "");
}

void nt_cmd_tty_clear(struct nt_cmd_tty *t)
{
	if (!t->shown)
		return;
	blank(t->shown_len);
	t->shown = false;
}

static void draw(struct nt_cmd_tty *t, bool force)
{
	int64_t now = nt_now_mono_ns();
	char line[160];
	int len;

	if (!t->progress || now - t->start_ns < NT_TTY_PROGRESS_AFTER_NS)
		return;
	if (!force && t->shown && now - t->drawn_ns < REDRAW_NS)
		return;
	t->drawn_ns = now;
	len = 0;
	if (t->n_variants > 1)
		len += snprintf(line, sizeof(line), "variant %u/%u ", t->variant + 1,
				t->n_variants);
	len += snprintf(line + len, sizeof(line) - (size_t)len, "%s: round %u/%u",
			t->name ? t->name : "", t->done, t->rounds);
	for (int v = NT_VERDICT_COUNT - 1; v >= 0 && len < (int)sizeof(line); v--)
		if (t->verdicts[v])
			len += snprintf(line + len, sizeof(line) - (size_t)len, ", %u %s",
					t->verdicts[v], nt_verdict_name((enum nt_verdict)v));
	if (t->shown)
		blank(t->shown_len);
	fputs(line, stderr);
	t->shown_len = (int)strlen(line);
	t->shown = true;
}

static int tty_begin(void *ctx, const struct nt_record *run, const struct nt_round_view *hs)
{
	struct nt_cmd_tty *t = ctx;
	int ret;

	nt_cmd_tty_clear(t);
	ret = t->inner->begin(t->inner->ctx, run, hs);
	if (t->report_tty)
		fflush(t->report);
	t->rounds = run->cfg.shape.rounds;
	t->done = 0;
	memset(t->verdicts, 0, sizeof(t->verdicts));
	draw(t, true);
	return ret;
}

static int tty_round(void *ctx, const struct nt_record *run, const struct nt_round_view *rv)
{
	struct nt_cmd_tty *t = ctx;
	int ret;

	if (t->report_tty)
		nt_cmd_tty_clear(t);
	ret = t->inner->round(t->inner->ctx, run, rv);
	if (t->report_tty)
		fflush(t->report);
	t->done = rv->round->index;
	if ((unsigned)rv->round->verdict < NT_VERDICT_COUNT)
		t->verdicts[rv->round->verdict]++;
	draw(t, t->report_tty);
	return ret;
}

static int tty_end(void *ctx, const struct nt_record *run, const struct nt_round_view *td)
{
	struct nt_cmd_tty *t = ctx;

	nt_cmd_tty_clear(t);
	return t->inner->end(t->inner->ctx, run, td);
}

void nt_cmd_tty_init(struct nt_cmd_tty *t, const struct nt_record_sink *inner, FILE *report,
		     bool report_tty, unsigned n_variants)
{
	const char *term = getenv("TERM");

	memset(t, 0, sizeof(*t));
	t->inner = inner;
	t->report = report;
	t->report_tty = report_tty;
	/* A terminal that says it is dumb (Emacs shells, some CI logs) gets no redrawn line. */
	t->progress = isatty(STDERR_FILENO) && !(term && strcmp(term, "dumb") == 0);
	t->start_ns = nt_now_mono_ns();
	t->n_variants = n_variants;
	t->sink = (struct nt_record_sink){
		.begin = tty_begin, .round = tty_round, .end = tty_end, .ctx = t
	};
}

const struct nt_record_sink *nt_cmd_tty_sink(struct nt_cmd_tty *t)
{
	return &t->sink;
}

void nt_cmd_tty_variant(struct nt_cmd_tty *t, unsigned i, const char *name)
{
	t->variant = i;
	t->name = name;
	t->done = 0;
	draw(t, true);
}

void nt_cmd_tty_step(void *ctx, unsigned round)
{
	struct nt_cmd_tty *t = ctx;
	struct termios saved, raw;
	sigset_t wait;
	bool restore;
	char key;

	nt_cmd_tty_clear(t);
	t->shown_len = fprintf(stderr,
			       "-- round %u of %u shown: press a key for the next one (Ctrl-C "
			       "stops) --",
			       round, t->rounds);
	t->shown = t->shown_len > 0;
	restore = tcgetattr(STDIN_FILENO, &saved) == 0;
	if (restore) {
		raw = saved;
		/* One key, unseen; ISIG stays, so Ctrl-C still stops the run. */
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		(void)tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	}
	/* The run holds SIGINT and SIGTERM blocked but in its waits: open them for this one too. */
	sigprocmask(SIG_BLOCK, NULL, &wait);
	sigdelset(&wait, SIGINT);
	sigdelset(&wait, SIGTERM);
	while (!nt_cmd_stop) {
		struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };

		if (ppoll(&pfd, 1, NULL, &wait) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (read(STDIN_FILENO, &key, 1) >= 0 || errno != EINTR)
			break;
	}
	if (restore)
		(void)tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	nt_cmd_tty_clear(t);
}

unsigned nt_cmd_tty_columns(void)
{
	struct winsize ws;
	const char *env = getenv("COLUMNS");
	char *end;
	unsigned long v;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
		return ws.ws_col;
	if (env && *env) {
		errno = 0;
		v = strtoul(env, &end, 10);
		if (!errno && !*end && v >= 20 && v <= 1000)
			return (unsigned)v;
	}
	return 80;
}

/* The wrapping stream's state: the line so far. */
struct wrap_cookie {
	FILE *to;
	unsigned cols;
	char *line;
	size_t len;
	size_t cap;
};

static ssize_t wrap_write(void *c, const char *buf, size_t size)
{
	struct wrap_cookie *w = c;

	for (size_t i = 0; i < size; i++) {
		if (buf[i] == '\n') {
			nt_wrap_line(w->to, w->line, w->len, w->cols);
			w->len = 0;
			continue;
		}
		if (w->len == w->cap) {
			size_t cap = w->cap ? w->cap * 2 : 256;
			char *p = realloc(w->line, cap);

			if (!p) {
				errno = ENOMEM;
				return -1;
			}
			w->line = p;
			w->cap = cap;
		}
		w->line[w->len++] = buf[i];
	}
	return ferror(w->to) ? -1 : (ssize_t)size;
}

static int wrap_close(void *c)
{
	struct wrap_cookie *w = c;
	int ret = 0;

	if (w->len)
		fwrite(w->line, 1, w->len, w->to);
	if (fflush(w->to) == EOF)
		ret = EOF;
	free(w->line);
	free(w);
	return ret;
}

FILE *nt_cmd_wrap_open(FILE *to, unsigned cols)
{
	static const cookie_io_functions_t io = { .write = wrap_write, .close = wrap_close };
	struct wrap_cookie *w = calloc(1, sizeof(*w));
	FILE *f;

	if (!w)
		return NULL;
	w->to = to;
	w->cols = cols;
	f = fopencookie(w, "w", io);
	if (!f) {
		free(w);
		return NULL;
	}
	/* Line by line: what the terminal shows keeps up with the rounds. */
	setvbuf(f, NULL, _IOLBF, 0);
	return f;
}
