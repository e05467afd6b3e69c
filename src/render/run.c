// SPDX-License-Identifier: MIT
/*
 * run.c - the block of a run's own facts in every format (see
 * nt/render/run.h): what the commands did, the fix, the namespaces'
 * counters, the target's sockets as sampled, the request -> answer times and
 * what the capture lost.
 *
 * A report is never presented as complete when it is not: a capture that
 * dropped frames may have lost a held segment or its ACK, so every stall
 * count is then a lower bound, and the text and JSON say so.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/socket.h>

#include "nt/render/escape.h"
#include "nt/render/fmt.h"
#include "nt/render/json.h"
#include "nt/render/labels.h"
#include "nt/render/run.h"

/* Target sockets and stalled requests the text block lists; the JSON has them all. */
#define TEXT_SOCKETS_MAX 8
#define TEXT_STALLED_MAX 10

/* JSON keys of the counters, as the trace document names them. */
static const char *const counter_keys[NT_RUN_COUNTER_COUNT] = {
	[NT_RUN_DELAYED_ACKS] = "delayed_acks",
	[NT_RUN_DELAYED_ACK_LOCKED] = "delayed_ack_locked",
	[NT_RUN_AUTOCORKING] = "tcp_autocorking",
};

/* "exit status 0", "killed by signal 9 (SIGKILL)", "not started", with what we did to it. */
static const char *proc_words(const struct nt_run_proc *p, char *buf, size_t len)
{
	size_t n;

	if (!p->started)
		return snprintf(buf, len, "not started"), buf;
	if (!p->exited)
		snprintf(buf, len, "still running at the end");
	else if (p->signal)
		snprintf(buf, len, "killed by signal %d (SIG%s)", p->signal,
			 sigabbrev_np(p->signal) ? sigabbrev_np(p->signal) : "?");
	else
		snprintf(buf, len, "exit status %d", p->exit_status);
	n = strlen(buf);
	if (p->killed)
		snprintf(buf + n, len - n, ", stopped by us (SIGTERM, then SIGKILL)");
	else if (p->terminated)
		snprintf(buf + n, len - n, ", stopped by us (SIGTERM)");
	return buf;
}

void nt_run_quote_lines(FILE *out, const char *text, const char *prefix)
{
	while (*text) {
		size_t n = strcspn(text, "\n");

		fprintf(out, "%s%.*s\n", prefix, (int)n, text);
		text += n;
		if (*text)
			text++;
	}
}

const char *nt_run_incomplete(const struct nt_runinfo *ri, char *buf, size_t len)
{
	uint64_t lost = nt_runinfo_lost(ri);

	if (lost)
		snprintf(buf, len,
			 "the %s dropped %" PRIu64 " frame%s: stalls may be missing, the "
			 "counts are lower bounds",
			 ri->wire_dropped ? "capture and the delay line" : "capture", lost,
			 nt_plural(lost));
	else if (!ri->complete)
		snprintf(buf, len,
			 "the run ended before the client did (%s): the report covers "
			 "what was captured until then",
			 ri->end);
	else
		return NULL;
	return buf;
}

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
			proc_words(&ri->target, w, sizeof(w)));
	else if (ri->unreachable[0])
		fprintf(out,
			"    never listened where the client could reach it (it listened on %s); "
			"%s\n",
			ri->unreachable, proc_words(&ri->target, w, sizeof(w)));
	else
		fprintf(out, "    never listened; %s\n", proc_words(&ri->target, w, sizeof(w)));
	if (ri->daemonized)
		fputs("    it forked into the background (the command exited 0 while its processes "
		      "lived on): followed, and stopped at the end\n",
		      out);
	ready_text(out, ri);
	fprintf(out, "  client %s: %s\n", ri->client_addr, ri->client.cmd);
	fprintf(out, "    %s", proc_words(&ri->client, w, sizeof(w)));
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

/* A command as a Markdown code span, whatever backticks it holds. */
static void md_code(FILE *out, const char *s)
{
	fputs(strchr(s, '`') ? "`` " : "`", out);
	fputs(s, out);
	fputs(strchr(s, '`') ? " ``" : "`", out);
}

void nt_run_markdown_header(FILE *out, const struct nt_runinfo *ri)
{
	char w[128], why[256];

	fprintf(out, "## nagle-trace run: fix `%s`\n\n", ri->fix);
	fputs("- target: ", out);
	md_code(out, ri->target.cmd);
	fprintf(out, " (%s)\n- client: ", proc_words(&ri->target, w, sizeof(w)));
	md_code(out, ri->client.cmd);
	fprintf(out, " (%s)\n", proc_words(&ri->client, w, sizeof(w)));
	fprintf(out, "- fix: %s; Linux %s\n", ri->fix_about, ri->kernel);
	if (ri->ns[NT_RUN_NS_TARGET].known[NT_RUN_DELAYED_ACKS])
		fprintf(out, "- the target's delayed-ACK timer fired %" PRIu64 " time%s\n",
			ri->ns[NT_RUN_NS_TARGET].delta[NT_RUN_DELAYED_ACKS],
			nt_plural(ri->ns[NT_RUN_NS_TARGET].delta[NT_RUN_DELAYED_ACKS]));
	if (nt_run_incomplete(ri, why, sizeof(why)))
		fprintf(out, "- **incomplete:** %s\n", why);
	fputc('\n', out);
}

void nt_run_html_header(FILE *out, const struct nt_runinfo *ri)
{
	char w[128], why[256];

	fputs("<h2>The run</h2>\n<ul>\n<li>target: <code>", out);
	nt_escape_xml(out, ri->target.cmd);
	fprintf(out, "</code> (%s)</li>\n<li>client: <code>",
		proc_words(&ri->target, w, sizeof(w)));
	nt_escape_xml(out, ri->client.cmd);
	fprintf(out, "</code> (%s)</li>\n<li>fix: ", proc_words(&ri->client, w, sizeof(w)));
	nt_escape_xml(out, ri->fix);
	fputs(" (", out);
	nt_escape_xml(out, ri->fix_about);
	fputs(")</li>\n", out);
	if (nt_run_incomplete(ri, why, sizeof(why))) {
		fputs("<li><strong>incomplete:</strong> ", out);
		nt_escape_xml(out, why);
		fputs("</li>\n", out);
	}
	fputs("</ul>\n", out);
}

static struct json_object *proc_json(bool *oom, const struct nt_run_proc *p)
{
	struct json_object *o = json_object_new_object();
	const char *sig = p->signal ? sigabbrev_np(p->signal) : NULL;
	char name[32];

	snprintf(name, sizeof(name), "SIG%s", sig ? sig : "");
	nt_json_put(oom, o, "cmd", json_object_new_string(p->cmd ? p->cmd : ""));
	nt_json_put(oom, o, "started", json_object_new_boolean(p->started));
	nt_json_put(oom, o, "exited", json_object_new_boolean(p->exited));
	nt_json_put_i64(oom, o, "exit_status", p->exit_status, p->exited && !p->signal);
	nt_json_put_str(oom, o, "signal", p->exited && p->signal ? name : NULL);
	nt_json_put(oom, o, "terminated", json_object_new_boolean(p->terminated));
	nt_json_put(oom, o, "killed", json_object_new_boolean(p->killed));
	nt_json_put_i64(oom, o, "run_ns", p->run_ns, p->run_ns >= 0);
	return o;
}

static struct json_object *counters_json(bool *oom, const struct nt_runinfo *ri)
{
	struct json_object *o = json_object_new_object();

	for (int ns = 0; ns < NT_RUN_NS_COUNT; ns++) {
		const struct nt_run_counters *c = &ri->ns[ns];
		struct json_object *n = json_object_new_object();

		for (int k = 0; k < NT_RUN_COUNTER_COUNT; k++)
			nt_json_put_i64(oom, n, counter_keys[k], (int64_t)c->delta[k], c->known[k]);
		nt_json_put(oom, o, nt_run_ns_name((enum nt_run_ns)ns), n);
	}
	return o;
}

static struct json_object *socket_json(bool *oom, const struct nt_sock_samples *s)
{
	struct json_object *o = json_object_new_object();
	char a[NT_FMT_ENDPOINT_LEN];

	nt_json_put(oom, o, "client_addr",
		    json_object_new_string(nt_fmt_addr(s->family, s->client_addr, a, sizeof(a))));
	nt_json_put(oom, o, "client_port", json_object_new_int(s->client_port));
	nt_json_put(oom, o, "target_port", json_object_new_int(s->target_port));
	nt_json_put(oom, o, "samples", json_object_new_int64(s->samples));
	nt_json_put(oom, o, "pingpong_samples", json_object_new_int64(s->pingpong));
	nt_json_put(oom, o, "quick_samples", json_object_new_int64(s->quick));
	nt_json_put(oom, o, "ato_min_ns", json_object_new_int64(s->ato_min_ns));
	nt_json_put(oom, o, "ato_max_ns", json_object_new_int64(s->ato_max_ns));
	nt_json_put(oom, o, "last_pingpong", json_object_new_boolean(s->last.pingpong));
	nt_json_put(oom, o, "last_quick", json_object_new_int64(s->last.quick));
	nt_json_put(oom, o, "last_ato_ns", json_object_new_int64(s->last.ato_ns));
	return o;
}

static struct json_object *sockets_json(bool *oom, const struct nt_runinfo *ri)
{
	struct json_object *o = json_object_new_object();
	struct json_object *list = json_object_new_array();

	nt_json_put(oom, o, "sample_period_ns", json_object_new_int64(ri->sample_period_ns));
	nt_json_put(oom, o, "reads", nt_json_u64(ri->sample_reads));
	nt_json_put(oom, o, "not_kept", nt_json_u64(ri->socks_dropped));
	for (size_t i = 0; i < ri->n_socks; i++)
		nt_json_append(oom, list, socket_json(oom, &ri->socks[i]));
	nt_json_put(oom, o, "sockets", list);
	return o;
}

static struct json_object *capture_json(bool *oom, const struct nt_runinfo *ri)
{
	struct json_object *o = json_object_new_object();
	bool on = strcmp(ri->capture, "none") != 0;

	nt_json_put(oom, o, "backend", json_object_new_string(ri->capture));
	nt_json_put_str(oom, o, "interface", on ? "nt-c" : NULL);
	nt_json_put_i64(oom, o, "received", (int64_t)ri->cap_received, ri->cap_stats_known);
	nt_json_put_i64(oom, o, "dropped", (int64_t)ri->cap_dropped, ri->cap_stats_known);
	nt_json_put_i64(oom, o, "if_dropped", (int64_t)ri->cap_if_dropped, ri->cap_stats_known);
	nt_json_put(oom, o, "rtt_ns", json_object_new_int64(ri->rtt_ns));
	nt_json_put(oom, o, "delay_line", json_object_new_string(ri->delay_line));
	nt_json_put(oom, o, "wire_dropped", nt_json_u64(ri->wire_dropped));
	return o;
}

static struct json_object *exchanges_json(bool *oom, const struct nt_runinfo *ri)
{
	struct json_object *o = json_object_new_object();
	const struct nt_turns *t = &ri->turns;

	nt_json_put(oom, o, "count", nt_json_u64(t->n));
	nt_json_put_i64(oom, o, "p50_ns", t->p50_ns, t->p50_ns >= 0);
	nt_json_put_i64(oom, o, "p90_ns", t->p90_ns, t->p90_ns >= 0);
	nt_json_put_i64(oom, o, "p99_ns", t->p99_ns, t->p99_ns >= 0);
	nt_json_put_i64(oom, o, "max_ns", t->max_ns, t->max_ns >= 0);
	return o;
}

static struct json_object *ready_json(bool *oom, const struct nt_runinfo *ri)
{
	struct json_object *o = json_object_new_object();

	nt_json_put_str(oom, o, "cmd", ri->ready_cmd);
	nt_json_put_str(oom, o, "log_regex", ri->ready_log);
	nt_json_put(oom, o, "log_matched", json_object_new_boolean(ri->log_matched));
	nt_json_put(oom, o, "tries", json_object_new_int64(ri->ready_tries));
	nt_json_put_i64(oom, o, "wait_ns", ri->ready_wait_ns, ri->ready_wait_ns >= 0);
	return o;
}

static struct json_object *listener_json(bool *oom, const struct nt_runinfo *ri)
{
	struct json_object *o;

	if (!ri->listen_seen)
		return NULL;
	o = json_object_new_object();
	nt_json_put(oom, o, "addr", json_object_new_string(ri->listen_addr));
	nt_json_put(oom, o, "port", json_object_new_int(ri->listen_port));
	nt_json_put(oom, o, "wait_ns", json_object_new_int64(ri->listen_wait_ns));
	return o;
}

struct json_object *nt_run_json(bool *oom, const struct nt_runinfo *ri)
{
	struct json_object *o = json_object_new_object();
	struct json_object *client = proc_json(oom, &ri->client);
	struct json_object *target = proc_json(oom, &ri->target);
	struct json_object *listener = listener_json(oom, ri);
	char why[256];

	nt_json_put_str(oom, client, "stderr_tail", ri->client_stderr_tail);
	nt_json_put(oom, target, "daemonized", json_object_new_boolean(ri->daemonized));
	nt_json_put(oom, o, "fix", json_object_new_string(ri->fix));
	nt_json_put(oom, o, "fix_about", json_object_new_string(ri->fix_about));
	nt_json_put(oom, o, "kernel", json_object_new_string(ri->kernel));
	nt_json_put(oom, o, "family",
		    json_object_new_string(ri->family == AF_INET6 ? "ipv6" : "ipv4"));
	nt_json_put(oom, o, "client_addr", json_object_new_string(ri->client_addr));
	nt_json_put(oom, o, "target_addr", json_object_new_string(ri->target_addr));
	nt_json_put(oom, o, "target", target);
	nt_json_put(oom, o, "client", client);
	nt_json_put(oom, o, "ready", ready_json(oom, ri));
	nt_json_put_i64(oom, o, "uids_mapped", (int64_t)ri->uids_mapped, ri->uids_mapped > 0);
	if (listener)
		nt_json_put(oom, o, "listener", listener);
	else
		nt_json_put_null(oom, o, "listener");
	nt_json_put_str(oom, o, "unreachable_listener",
			ri->unreachable[0] ? ri->unreachable : NULL);
	nt_json_put(oom, o, "end", json_object_new_string(ri->end));
	nt_json_put(oom, o, "complete", json_object_new_boolean(!nt_run_incomplete(ri, why, 256)));
	nt_json_put_str(oom, o, "incomplete_why", nt_run_incomplete(ri, why, sizeof(why)));
	nt_json_put(oom, o, "interrupted", json_object_new_boolean(ri->interrupted));
	nt_json_put(oom, o, "capture", capture_json(oom, ri));
	nt_json_put(oom, o, "exchanges", exchanges_json(oom, ri));
	nt_json_put(oom, o, "stalled_requests", nt_run_stalled_json(oom, ri));
	nt_json_put(oom, o, "stalled_requests_dropped", nt_json_u64(ri->stalled_dropped));
	nt_json_put(oom, o, "counters", counters_json(oom, ri));
	nt_json_put(oom, o, "target_sockets", sockets_json(oom, ri));
	nt_json_put_str(oom, o, "notes", ri->notes[0] ? ri->notes : NULL);
	if (!o)
		*oom = true;
	return o;
}

int nt_run_jsonl_record(FILE *out, const struct nt_runinfo *ri)
{
	bool oom = false;
	struct json_object *rec = json_object_new_object();
	int ret;

	nt_json_put(&oom, rec, "type", json_object_new_string("run"));
	nt_json_put(&oom, rec, "run", nt_run_json(&oom, ri));
	ret = oom ? -ENOMEM : nt_json_line(out, rec);
	json_object_put(rec);
	return ret;
}
