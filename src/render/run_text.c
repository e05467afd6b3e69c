// SPDX-License-Identifier: MIT
/*
 * run_text.c - a run's own facts as text (see nt/render/run.h): what the commands
 * did, the fix, the namespaces' counters, the target's sockets as sampled, the
 * request -> answer times and what the capture lost.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/socket.h>

#include "nt/render/fmt.h"
#include "nt/render/labels.h"
#include "nt/render/run.h"

/* Target sockets and stalled requests the text block lists; the JSON has them all. */
#define TEXT_SOCKETS_MAX 8
#define TEXT_STALLED_MAX 10

static void counters_line(FILE *out, const struct nt_runinfo *ri)
{
	const struct nt_run_counters *t = &ri->ns[NT_RUN_NS_TARGET];
	const struct nt_run_counters *c = &ri->ns[NT_RUN_NS_CLIENT];

	fputs("  counters over the run (TcpExt): target", out);
	for (int k = NT_RUN_DELAYED_ACKS; k <= NT_RUN_DELAYED_ACK_LOCKED; k++)
		if (t->known[k])
			fprintf(out, " %s %" PRIu64, nt_run_counter_name((enum nt_run_counter)k),
				t->delta[k]);
	fputs("; client", out);
	for (int k = 0; k < NT_RUN_COUNTER_COUNT; k++)
		if (c->known[k])
			fprintf(out, " %s %" PRIu64, nt_run_counter_name((enum nt_run_counter)k),
				c->delta[k]);
	fputc('\n', out);
}

static void sockets_text(FILE *out, const struct nt_runinfo *ri)
{
	char p[NT_FMT_MS_LEN];

	if (!ri->n_socks) {
		fprintf(out, "  target sockets: none read in %" PRIu64 " reading%s\n",
			ri->sample_reads, nt_plural(ri->sample_reads));
		return;
	}
	fprintf(out,
		"  target sockets (/proc/net/tcp of its namespace, every %s ms while the client "
		"ran, %" PRIu64 " reading%s):\n",
		nt_fmt_ms_trunc(ri->sample_period_ns, p, sizeof(p)), ri->sample_reads,
		nt_plural(ri->sample_reads));
	for (size_t i = 0; i < ri->n_socks && i < TEXT_SOCKETS_MAX; i++) {
		const struct nt_sock_samples *s = &ri->socks[i];
		char lo[NT_FMT_MS_LEN], hi[NT_FMT_MS_LEN], ep[NT_FMT_ENDPOINT_LEN];

		fprintf(out,
			"    %s -> port %u: ping-pong in %u of %u readings, quick-ACK budget left "
			"in "
			"%u, ato %s",
			nt_fmt_endpoint(s->family, s->client_addr, s->client_port, ep, sizeof(ep)),
			s->target_port, s->pingpong, s->samples, s->quick,
			nt_fmt_ms_trunc(s->ato_min_ns, lo, sizeof(lo)));
		if (s->ato_max_ns != s->ato_min_ns)
			fprintf(out, "..%s", nt_fmt_ms_trunc(s->ato_max_ns, hi, sizeof(hi)));
		fputs(" ms\n", out);
	}
	/*
	 * The route's quickack is checked before ping-pong: tcp_in_quickack_mode()
	 * returns true for a dst with RTAX_QUICKACK whatever the socket's mode,
	 * so a ping-pong reading under this fix delays nothing.
	 */
	if (strcmp(ri->fix, "quickack") == 0)
		fputs("    (the route's quickack 1 overrides ping-pong: tcp_in_quickack_mode() "
		      "acks "
		      "at once for such a route whatever the socket's mode)\n",
		      out);
	if (ri->n_socks > TEXT_SOCKETS_MAX || ri->socks_dropped)
		fprintf(out, "    ... %" PRIu64 " more connection%s (--format json lists them)\n",
			(uint64_t)(ri->n_socks - TEXT_SOCKETS_MAX) + ri->socks_dropped,
			nt_plural(ri->n_socks - TEXT_SOCKETS_MAX + ri->socks_dropped));
}

static void exchanges_text(FILE *out, const struct nt_runinfo *ri)
{
	char a[NT_FMT_MS_LEN], b[NT_FMT_MS_LEN], c[NT_FMT_MS_LEN];
	const struct nt_turns *t = &ri->turns;

	if (strcmp(ri->capture, "none") == 0)
		return;
	if (!t->n) {
		fputs("  exchanges: none seen (no request answered)\n", out);
		return;
	}
	fprintf(out,
		"  exchanges: %" PRIu64 " request%s answered; request -> answer p50 %s ms, p99 %s "
		"ms, max %s ms\n",
		t->n, nt_plural(t->n), nt_fmt_ms_trunc(t->p50_ns, a, sizeof(a)),
		nt_fmt_ms_trunc(t->p99_ns, b, sizeof(b)), nt_fmt_ms_trunc(t->max_ns, c, sizeof(c)));
}

static void capture_text(FILE *out, const struct nt_runinfo *ri)
{
	char rtt[NT_FMT_MS_LEN];

	if (ri->rtt_ns > 0)
		fprintf(out,
			"  path: RTT %s, half each way (user-space delay line), %" PRIu64
			" frame%s dropped by it\n",
			nt_fmt_ms(ri->rtt_ns, rtt, sizeof(rtt)), ri->wire_dropped,
			nt_plural(ri->wire_dropped));
	if (strcmp(ri->capture, "none") == 0) {
		fputs("  capture: none (--capture none): no analysis\n", out);
		return;
	}
	fprintf(out, "  capture: %s on nt-c, ", ri->capture);
	if (ri->cap_stats_known)
		fprintf(out, "%" PRIu64 " frame%s, %" PRIu64 " dropped\n", ri->cap_received,
			nt_plural(ri->cap_received), ri->cap_dropped + ri->cap_if_dropped);
	else
		fputs("drops unknown\n", out);
}

static void ready_text(FILE *out, const struct nt_runinfo *ri)
{
	char l[NT_FMT_MS_LEN];

	if (!ri->ready_cmd && !ri->ready_log)
		return;
	fputs("    ready", out);
	if (ri->ready_wait_ns >= 0)
		fprintf(out, " after %s ms", nt_fmt_ms_trunc(ri->ready_wait_ns, l, sizeof(l)));
	else
		fputs(": never", out);
	if (ri->ready_log)
		fprintf(out, "; --ready-log \"%s\" %s", ri->ready_log,
			ri->log_matched ? "matched" : "never matched");
	if (ri->ready_cmd)
		fprintf(out, "; --ready \"%s\" started %u time%s", ri->ready_cmd, ri->ready_tries,
			nt_plural(ri->ready_tries));
	fputc('\n', out);
}

void nt_run_text_header(FILE *out, const struct nt_runinfo *ri)
{
	char w[128], l[NT_FMT_MS_LEN], why[256];

	fprintf(out, "nagle-trace run: fix %s (%s), Linux %s\n", ri->fix, ri->fix_about,
		ri->kernel);
	fprintf(out, "  target %s: %s\n", ri->target_addr, ri->target.cmd);
	if (ri->listen_seen)
		fprintf(out, "    listened on %s port %u after %s ms; %s\n", ri->listen_addr,
			ri->listen_port, nt_fmt_ms_trunc(ri->listen_wait_ns, l, sizeof(l)),
			nt_run_proc_words(&ri->target, w, sizeof(w)));
	else if (ri->unreachable[0])
		fprintf(out,
			"    never listened where the client could reach it (it listened on %s); "
			"%s\n",
			ri->unreachable, nt_run_proc_words(&ri->target, w, sizeof(w)));
	else
		fprintf(out, "    never listened; %s\n",
			nt_run_proc_words(&ri->target, w, sizeof(w)));
	if (ri->daemonized)
		fputs("    it forked into the background (the command exited 0 while its processes "
		      "lived on): followed, and stopped at the end\n",
		      out);
	ready_text(out, ri);
	fprintf(out, "  client %s: %s\n", ri->client_addr, ri->client.cmd);
	fprintf(out, "    %s", nt_run_proc_words(&ri->client, w, sizeof(w)));
	if (ri->client.run_ns >= 0)
		fprintf(out, " after %s ms", nt_fmt_ms_trunc(ri->client.run_ns, l, sizeof(l)));
	fprintf(out, "; the run ended: %s\n", ri->end);
	if (ri->client_stderr_tail) {
		fputs("    its stderr ended with:\n", out);
		nt_run_quote_lines(out, ri->client_stderr_tail, "      | ");
	}
	capture_text(out, ri);
	exchanges_text(out, ri);
	nt_run_stalled_text(out, ri, TEXT_STALLED_MAX);
	counters_line(out, ri);
	sockets_text(out, ri);
	if (ri->notes[0])
		fprintf(out, "  note: %s\n", ri->notes);
	if (nt_run_incomplete(ri, why, sizeof(why)))
		fprintf(out, "  INCOMPLETE: %s\n", why);
	fputc('\n', out);
}
