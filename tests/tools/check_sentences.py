#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The sentence checker: every `why` and summary sentence of a JSON report,
held against the events it describes (issue 24, item 3).

A Python script over the JSON output rather than a C unit over the model: the
sentences are only wrong or right against what the kernel did, which the
model never sees, and the JSON is where the sentences meet the captured
events (the text --explain, markdown and lesson print the same sentences from
the same structures). So it can check golden files, campaign runs and
recorded runs alike, and it needs no build.

With a delay line (--rtt) the capture at the client sees each segment one
path delay away from the target, and a busy machine makes the user-space
delay line late by milliseconds: there only the bounds lateness cannot
break are checked (an ACK too early for the timer, a jiffy count above the
captured gap less the RTT).

Trace documents (one run, or {"runs": [...]}):
  - a pure ACK's why "the delayed-ACK timer fired" only when the ACK left
    within the timer's band after the oldest data it acknowledges arrived:
    TCP_DELACK_MIN (HZ/25 jiffies) less two jiffies (one for the tick the
    timer was armed in, one for a late tick) to the RTO's 250 ms, at the
    run's HZ
    (tcp_delack_timer_handler());
  - an "ACK now" why only for an ACK that left within 5 ms of that data
    (__tcp_ack_snd_check());
  - a reply's "N jiffies after the last receive" within one jiffy of the
    captured gap from the last request byte to the reply, less the RTT
    (tcp_event_data_sent() compares jiffies);
  - "released by the ACK" only for a segment that left after an ACK of what
    came before it, and within the release window (1 ms, plus the RTT) of it
    unless its write returned before that ACK came: then the data sat in the
    queue and only the ACK sends it, however late a busy client handled it
    (nt_verdict_waited()); "sent at once" only for one that left within that
    window of its write;
  - "held" or "released by the ACK" only for data that left after its write
    returned, or within the release window of an ACK that came while a write
    entered before it took over 1 ms to return (the client descheduled after
    the kernel took the data);
  - every pure ACK and data segment of a round has a why;
  - a variant's fix sentence (model.fix) only where its rounds did what it
    says: "waits for the delayed-ACK timer" needs a stalled round; "from round
    N the header's ACK is delayed as before" needs every round from N on
    stalled; "Nagle never holds" / "no small segment" needs no stalled round.
Analyze documents (flows/stalls): `delack_min` only for an ACK delay in
35-60 ms, `delack_max` in 180-220 ms (less the client-side RTT), and the
release gap within the release window unless the release rule is "write"
(a -w file noted that R's write returned before the ACK came; the trace's
own document is where that write is checked).

usage: check_sentences.py FILE...           exit 1 on any wrong sentence
       check_sentences.py --self-test       plants wrong sentences in a copy of
                                            each FILE and expects each caught
"""
import copy
import json
import re
import sys

MS = 1000000
# The delayed-ACK timer fires on a tick (the timer wheel, in jiffies): armed
# in jiffy J it fires at tick J + ato, so 1 jiffy less than ato at the
# earliest. A tick that came late makes jiffy J longer: the data arrived
# "in jiffy J" later than J began, and the timer still fires at tick J + ato.
# Seen: 35.85 ms on a busy machine, and 34.5-35.2 ms in a CPU-limited
# cgroup on a guest whose vCPU the host deschedules (tests/campaign/load.py
# --load cgroup --seed 1204, HZ=250: jiffies that stood still 1.5 ms past a
# missed tick while the vCPU was off). So a second jiffy (timer_band_lo()).
# Nothing else sends a pure ACK that late: an immediate ACK leaves as the
# data arrives (__tcp_ack_snd_check()), and ato is never below
# TCP_ATO_MIN, which is TCP_DELACK_MIN (tcp_event_data_recv() only raises
# it, tcp_send_delayed_ack() bounds it by the RTT or TCP_DELACK_MIN).
WRITE_OF = {"header": "write-header", "body": "write-body", "request": "write-request"}


def runs_of(doc):
    return doc["runs"] if "runs" in doc else [doc]


def hz_of(run):
    model = (run.get("summary") or {}).get("model") or {}
    return int(model.get("hz") or 250)


def segs(rnd):
    return [e for e in rnd["events"] if e["kind"] == "segment"]


def sys_of(rnd, side, call):
    for e in rnd["events"]:
        if e["kind"] == "syscall" and e["side"] == side and e["call"] == call:
            return e
    return None


def acked_since(events, ack_ev):
    """When the oldest data this ACK newly covers was captured (None: none)."""
    opp = "c2t" if ack_ev["dir"] == "t2c" else "t2c"
    prior = 0
    for e in events:
        if e is ack_ev:
            break
        if e["dir"] == ack_ev["dir"]:
            prior = max(prior, e["ack"])
    for e in events:
        if e is ack_ev:
            break
        if e["dir"] == opp and e["len"] > 0 and e["seq"] + e["len"] > prior \
                and e["seq"] + e["len"] <= ack_ev["ack"]:
            return e["t_ns"]
    return None


def check_round(run, rnd, all_segs, problems):
    hz = hz_of(run)
    jiffy = 1e9 / hz
    rtt = int(run["config"].get("rtt_ns") or 0)
    where = "%s round %d" % (run.get("variant", "?"), rnd["index"])
    ev = segs(rnd)
    if rnd.get("predicted_verdict") is None:
        return
    for i, e in enumerate(ev):
        why = e.get("why")
        texts = [w["text"] for w in (why, e.get("why_also")) if w]
        pure = e["len"] == 0 and "S" not in e["flags"] and "F" not in e["flags"] \
            and "R" not in e["flags"]
        if (pure or e["len"] > 0) and not texts:
            problems.append("%s: %s %s (frame %s) has no why"
                            % (where, e["dir"], e["role"], e.get("frame")))
        for t in texts:
            check_text(where, e, t, all_segs, rnd, jiffy, rtt, problems)


def timer_band_lo(jiffy):
    """The earliest a delayed-ACK timer of TCP_DELACK_MIN (HZ/25) fires after its arming:
    a jiffy for the tick it was armed in, and one for a late tick (above)."""
    return 1e9 / 25 - 2 * jiffy


def ack_delay(e, all_segs, rtt):
    since = acked_since(all_segs, e)
    if since is None:
        return None
    # At the client's end the data reaches the target rtt/2 later and the ACK
    # comes back rtt/2 later: the target's own delay is the gap less the RTT.
    return e["t_ns"] - since - rtt


def check_text(where, e, t, all_segs, rnd, jiffy, rtt, problems):
    frame = "%s %s frame %s" % (where, e["role"], e.get("frame"))
    if e["len"] == 0 and "the delayed-ACK timer fired" in t:
        d = ack_delay(e, all_segs, rtt)
        lo, hi = timer_band_lo(jiffy), 250 * MS
        if d is not None and (d < lo or (d > hi and not rtt)):
            problems.append("%s: \"the delayed-ACK timer fired\" for an ACK %.3f ms after "
                            "the data (band %.1f-%.0f ms)" % (frame, d / 1e6, lo / 1e6,
                                                              hi / 1e6))
    acknow = t.startswith("ACK now") or ("pure ACK" in t and ": ACK now" in t)
    if e["len"] == 0 and acknow and not rtt:
        d = ack_delay(e, all_segs, rtt)
        if d is not None and d > 5 * MS:
            problems.append("%s: \"ACK now\" for an ACK %.3f ms after the data"
                            % (frame, d / 1e6))
    m = re.search(r"(\d+)(?:-(\d+))? jiffies after the last receive", t)
    if m and e["role"] == "reply":
        last = None
        for s in all_segs:
            if s is e:
                break
            if s["dir"] == "c2t" and s["len"] > 0:
                last = s["t_ns"]
        if last is not None:
            gap = (e["t_ns"] - last - rtt) / jiffy
            lo = int(m.group(1))
            hi = int(m.group(2)) if m.group(2) else lo
            # g jiffies of time cross floor(g) or floor(g) + 1 ticks.
            if (hi < gap - 1.05 and not rtt) or lo > gap + 1.05:
                problems.append("%s: \"%s jiffies after the last receive\", the capture "
                                "shows %.2f" % (frame, m.group(0).split()[0], gap))
    window = 1 * MS + rtt
    w = sys_of(rnd, "client", WRITE_OF.get(e["role"], ""))
    held = "released by the ACK" in t or t.startswith("held")
    # The ACKs of what came before @e, up to when it left: the last is the one that released it.
    acks = [s for s in all_segs if s["dir"] == "t2c" and s["t_ns"] <= e["t_ns"]
            and s["ack"] > e["seq"] - 1 and s["ack"] <= e["seq"]] if held else []
    if "released by the ACK" in t:
        # Past the window only for data written before the ACK (nt_verdict_waited()).
        waited = acks and w is not None and w["t_ns"] <= acks[-1]["t_ns"]
        if not acks or (e["t_ns"] - acks[-1]["t_ns"] > window and not waited):
            gap = (e["t_ns"] - acks[-1]["t_ns"]) / 1e6 if acks else None
            problems.append("%s: \"released by the ACK\" but %s" % (
                frame, "no ACK of what came before it" if gap is None
                else "it left %.3f ms after the ACK (window %.3f ms)%s" % (
                    gap, window / 1e6, "" if w is None else " and its write returned after it")))
    if held and e["dir"] == "c2t" and e["len"] > 0:
        # Held data waits in the queue after its write returned (tcp_nagle_check()),
        # unless the client was descheduled after the kernel took it: a call that
        # took over 1 ms to return (the model's `body_return`), the data leaving
        # within the release window of an ACK that came during the call.
        late_return = (w is not None and w["t_ns"] - w["enter_ns"] > 1 * MS and acks
                       and w["enter_ns"] <= acks[-1]["t_ns"]
                       and e["t_ns"] - acks[-1]["t_ns"] <= window)
        if w is not None and e["t_ns"] < w["t_ns"] and not late_return:
            problems.append("%s: \"%s\" but it left %.3f ms before its write returned"
                            % (frame, t.split(":")[0], (w["t_ns"] - e["t_ns"]) / 1e6))
    if t.startswith("sent at once") and e["dir"] == "c2t":
        call = "write-body" if e["role"] == "body" else None
        w = sys_of(rnd, "client", call) if call else None
        if w is not None and e["t_ns"] - w["enter_ns"] > window + 5 * MS:
            problems.append("%s: \"sent at once\" %.3f ms after write(body) was entered"
                            % (frame, (e["t_ns"] - w["enter_ns"]) / 1e6))


def check_fix(run, problems):
    fix = ((run.get("summary") or {}).get("model") or {}).get("fix") or {}
    t = fix.get("text") or ""
    rounds = [r for r in run["rounds"] if r["verdict"] != "incomplete"]
    disturbed = {r["index"] for r in rounds if r.get("disturbed")}
    # A disturbed round (and the one after it) ran on another schedule: the
    # fix sentence speaks of the knobs' schedule.
    skip = disturbed | {i + 1 for i in disturbed}
    later = [r for r in rounds if r["index"] > 1 and r["index"] not in skip]
    where = "%s fix (%s)" % (run.get("variant", "?"), fix.get("rule"))
    if "waits for the delayed-ACK timer" in t and later and \
            not any(r["verdict"] == "stalled" for r in later):
        problems.append("%s: \"waits for the delayed-ACK timer\" but no round stalled (%s)"
                        % (where, ", ".join(sorted({r["verdict"] for r in later}))))
    m = re.search(r"from round (\d+) the header's ACK is delayed as before", t)
    if m:
        n = int(m.group(1))
        bad = [r["index"] for r in later if r["index"] >= n and r["verdict"] != "stalled"]
        if bad:
            problems.append("%s: \"from round %d the header's ACK is delayed as before\" but "
                            "round%s %s did not stall" % (where, n, "s" if len(bad) > 1 else "",
                                                          ", ".join(map(str, bad[:8]))))
    if re.search(r"Nagle never holds|no small segment|nothing to hold", t):
        bad = [r["index"] for r in later if r["verdict"] == "stalled"]
        if bad:
            problems.append("%s: says nothing is held but rounds %s stalled"
                            % (where, ", ".join(map(str, bad[:8]))))


def check_trace(doc):
    problems = []
    for run in runs_of(doc):
        all_segs = []
        for r in run["rounds"]:
            all_segs += segs(r)
        for r in run["rounds"]:
            check_round(run, r, all_segs, problems)
        check_fix(run, problems)
    return problems


def check_analyze(doc):
    problems = []
    for f in doc.get("flows", []):
        rtt = ((f.get("rtt_from_capture") or {}).get("to_client_ns")) or 0
        for key in ("first_stall", "last_stall"):
            s = f.get(key)
            if not isinstance(s, dict):
                continue
            d = s["ack_delay_ns"] - rtt
            where = "flow %s %s" % (f.get("client"), key)
            if s["delack"] == "delack_min" and not 35 * MS <= d <= 60 * MS:
                problems.append("%s: delack_min for %.3f ms" % (where, d / 1e6))
            if s["delack"] == "delack_max" and not 180 * MS <= d <= 220 * MS:
                problems.append("%s: delack_max for %.3f ms" % (where, d / 1e6))
            if s["release_gap_ns"] > s["release_window_ns"] and s.get("release_rule") != "write":
                problems.append("%s: released %.3f ms after the ACK, window %.3f ms" % (
                    where, s["release_gap_ns"] / 1e6, s["release_window_ns"] / 1e6))
    return problems


def check_doc(doc):
    if "flows" in doc:
        return check_analyze(doc)
    if "rounds" in doc or "runs" in doc:
        return check_trace(doc)
    return []


def last_request_before(all_segs, e):
    """When the last request byte before @e was captured (None: none)."""
    last = None
    for s in all_segs:
        if s is e:
            break
        if s["dir"] == "c2t" and s["len"] > 0:
            last = s["t_ns"]
    return last


def false_ack_label(run, e, all_segs):
    """A why for the pure ACK @e that its timing makes false, or None.

    Each label is planted only where the capture contradicts it, so every
    plant is a wrong sentence: "the delayed-ACK timer fired" for an ACK that
    left before the timer's band, "ACK now" for one that left later than an
    immediate ACK can (without a delay line, whose lateness the checker
    allows). An ACK in between has no label the capture can refute.
    """
    rtt = int(run["config"].get("rtt_ns") or 0)
    d = ack_delay(e, all_segs, rtt)
    if d is None:
        return None
    if d < timer_band_lo(1e9 / hz_of(run)):
        return "the delayed-ACK timer fired (tcp_delack_timer_handler)"
    if d > 5 * MS and not rtt:
        return "ACK now: quick-ACK mode (__tcp_ack_snd_check)"
    return None


def false_jiffies(run, e, all_segs):
    """A jiffy count for the reply @e well above the captured gap, or None."""
    last = last_request_before(all_segs, e)
    if last is None:
        return None
    rtt = int(run["config"].get("rtt_ns") or 0)
    gap = (e["t_ns"] - last - rtt) * hz_of(run) / 1e9
    return "%d jiffies" % (max(gap, 0) + 5)


def plant(doc):
    """Copies of @doc with one wrong sentence each: (what, doc).

    Every plant is false against the events it describes (its label is
    chosen from the captured timing), so the checker must catch them all.
    """
    out = []

    def copy_why(run_i, r, k):
        d = copy.deepcopy(doc)
        return d, runs_of(d)[run_i]["rounds"][r["index"] - 1]["events"][k]["why"]

    for run_i, run in enumerate(runs_of(doc)):
        all_segs = []
        for r in run["rounds"]:
            all_segs += segs(r)
        for r in run["rounds"]:
            for k, e in enumerate(r["events"]):
                if e["kind"] != "segment" or not e.get("why"):
                    continue
                if e["len"] == 0 and e["role"] == "pure-ack":
                    label = false_ack_label(run, e, all_segs)
                    if label:
                        d, w = copy_why(run_i, r, k)
                        w["text"] = label
                        out.append(("pure ACK of round %d: \"%s\"" % (r["index"], label), d))
                if e["role"] == "reply" and "jiffies after the last receive" in e["why"]["text"]:
                    jiffies = false_jiffies(run, e, all_segs)
                    if jiffies:
                        d, w = copy_why(run_i, r, k)
                        w["text"] = re.sub(r"\d+(-\d+)? jiffies", jiffies, w["text"])
                        out.append(("reply of round %d: %s" % (r["index"], jiffies), d))
                if e["role"] == "header":
                    d, w = copy_why(run_i, r, k)
                    w["text"] = "held: Nagle, small segment unacknowledged"
                    out.append(("header of round %d" % r["index"], d))
            if len(out) > 12:
                break
        if (run.get("summary") or {}).get("model") and \
                any(r["verdict"] == "stalled" and r["index"] > 1 for r in run["rounds"]):
            d = copy.deepcopy(doc)
            model = runs_of(d)[run_i]["summary"]["model"]
            model["fix"] = {"rule": "fix_full_segments",
                            "text": "no small segment: Nagle never holds the body"}
            out.append(("fix sentence of a run that stalled", d))
        d = copy.deepcopy(doc)
        for e in runs_of(d)[run_i]["rounds"][-1]["events"]:
            e.pop("why", None)
        out.append(("whys removed from the last round", d))
    return out


def stalled_bodies(doc):
    """(run, body, its write(body), the header's pure ACK) of every stalled round of @doc
    whose body has a why and left after that ACK."""
    for run in runs_of(doc):
        for r in run["rounds"]:
            body = next((e for e in segs(r) if e["role"] == "body" and e.get("why")), None)
            w = sys_of(r, "client", "write-body")
            ack = next((e for e in segs(r) if e["role"] == "pure-ack"), None)
            if r["verdict"] == "stalled" and body is not None and w is not None and \
                    ack is not None and ack["t_ns"] <= body["t_ns"]:
                yield run, body, w, ack


def late_release(doc, written_before):
    """A copy of @doc whose first stalled round's body, "released by the ACK", left 5 ms past the
    release window, its write moved to just before the ACK (@written_before:
    the sentence stays true: a busy client handled the ACK late) or just after
    it (false: the application wrote late); None without such a body."""
    d = copy.deepcopy(doc)
    for run, body, w, ack in stalled_bodies(d):
        rtt = int((run.get("config") or {}).get("rtt_ns") or 0)
        # The words of a body the kernel sent from tcp_ack() (predict_words.c).
        body["why"]["text"] = "released by the ACK of 1:%d (%d B sent)" % (
            ack["ack"], body["len"])
        # Everything from the body on moves later with it.
        at, delta = body["t_ns"], ack["t_ns"] + 1 * MS + rtt + 5 * MS - body["t_ns"]
        for rr in run["rounds"]:
            for e in rr["events"]:
                for k in ("t_ns", "enter_ns"):
                    if e.get(k) is not None and e[k] >= at:
                        e[k] += delta
        w["t_ns"] = ack["t_ns"] + (-1000 if written_before else 1000)
        w["enter_ns"] = min(w.get("enter_ns", w["t_ns"]), w["t_ns"])
        return d
    return None


def late_return(doc, entered_before):
    """A copy of @doc whose first stalled round's body, "held", left with the ACK
    while its write(body) returned 10 ms after the body left: entered before the
    ACK (@entered_before: true, the client was descheduled after the kernel took
    the body) or after it (false: nothing was in flight when the kernel took it,
    so nothing held it); None without such a round."""
    d = copy.deepcopy(doc)
    for _, body, w, ack in stalled_bodies(d):
        body["why"]["text"] = "held: Nagle, small segment unacknowledged"
        w["t_ns"] = body["t_ns"] + 10 * MS
        w["enter_ns"] = ack["t_ns"] + (-1000 if entered_before else 1000)
        return d
    return None


def self_test(paths):
    bad = 0
    for p in paths:
        with open(p) as f:
            doc = json.load(f)
        base = check_doc(doc)
        if base:
            print("%s: not clean before planting: %s" % (p, base[0]))
            bad += 1
            continue
        planted = plant(doc)
        if not planted:
            print("%s: nothing to plant" % p)
            bad += 1
        caught = 0
        for what, d in planted:
            # Every plant is false by construction: each one missed is a failure.
            if check_doc(d):
                caught += 1
            else:
                print("%s: planted wrong sentence not caught: %s" % (p, what))
                bad += 1
        # Pairs of one timing: the false copy must be caught, the true one kept.
        for make, what, false_msg, true_msg in (
                (late_release, "late write",
                 "a body written after the ACK, 6 ms late, passed as released",
                 "a body written before the ACK, released late, refused"),
                (late_return, "write entered after the ACK",
                 "a body the kernel took after the ACK passed as held",
                 # A client descheduled inside write(body) after the kernel took it.
                 "a body held while its write(body) was descheduled, refused")):
            false_doc = make(doc, False)
            if false_doc is None:
                continue
            planted.append((what, false_doc))
            if check_doc(false_doc):
                caught += 1
            else:
                print("%s: %s" % (p, false_msg))
                bad += 1
            kept = check_doc(make(doc, True))
            if kept:
                print("%s: %s: %s" % (p, true_msg, kept[0]))
                bad += 1
        print("%s: %d of %d planted wrong sentences caught" % (p, caught, len(planted)))
    return 1 if bad else 0


def main(argv):
    if argv and argv[0] == "--self-test":
        return self_test(argv[1:])
    bad = 0
    for p in argv:
        with open(p) as f:
            doc = json.load(f)
        for m in check_doc(doc):
            print("%s: %s" % (p, m))
            bad += 1
    print("%d wrong sentence%s in %d file%s" % (bad, "" if bad == 1 else "s", len(argv),
                                               "" if len(argv) == 1 else "s"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
