// SPDX-License-Identifier: MIT
/*
 * run_json.c - a run's own facts as JSON (see nt/render/run.h and
 * docs/nagle-trace-run.schema.json), and its JSON Lines record.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/socket.h>

#include "nt/render/fmt.h"
#include "nt/render/json.h"
#include "nt/render/labels.h"
#include "nt/render/run.h"

/* JSON keys of the counters, as the trace document names them. */
static const char *const counter_keys[NT_RUN_COUNTER_COUNT] = {
	[NT_RUN_DELAYED_ACKS] = "delayed_acks",
	[NT_RUN_DELAYED_ACK_LOCKED] = "delayed_ack_locked",
	[NT_RUN_AUTOCORKING] = "tcp_autocorking",
};

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
