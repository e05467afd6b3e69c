#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Load campaign: verdicts that hold on a busy machine (issue 24).

Each run is one of the shapes below, under one of two loads:

  cgroup  the run inside a CPU-limited cgroup (cgroup v2 `cpu.max`
          "50000 100000", or v1 `cpu.cfs_quota_us` 50000 of a 100000 period,
          whichever the machine has), with one CPU-bound loop in the same
          group: the group is throttled for tens of milliseconds at random
          points (needs root; CI runs as root);
  hogs    two CPU-bound loops beside the run, no cgroup;
  browser Debian's headless chromium beside the run, loading a heavy local
          page in a loop (2,000 boxes laid out, script, a reload each
          second: tests/campaign/load_page.html), in a network namespace of
          its own (unshare -Urn: it can reach nothing). The campaign waits
          for its first page load before the runs begin, and fails if none
          comes or the browser dies: never a skip.

Shapes (trace runs under `unshare -Urn`, each writes -w and JSON):

  default    nagle-trace
  all        nagle-trace --variant all
  sizes      nagle-trace --header 64 --body 256 --reply 128 --rounds R
  rtt        nagle-trace --rtt 10
  run        nagle-trace run, tests/programs/server.py and client.py (two
             writes a request, Nagle on)

and `nagle-trace analyze` of every -w capture (outside the load).

Rules (a failure each):
  - a trace exits 0, or 1 only with a reason the campaign accepts: the
    capture or the delay line dropped frames ("verdicts are uncertain");
    any other `NOT met` is a false one;
  - every round whose observed schedule (recomputed here from its syscall
    events, docs/model.md "The model on the observed schedule") is outside
    the knobs' windows carries `disturbed` naming that part, and no other
    round does;
  - the sentence checker (tests/tools/check_sentences.py) passes on every
    trace's JSON;
  - run exits 0.
  - analyze of every single-variant -w capture finds a stall on every
    stalled round's header and on no other round's (the -w pcapng notes the
    delay line's measured lateness on H and A, and analyze takes it off as
    the live rule does; it notes on B when write(body) returned, and
    analyze judges B's release by it as the live rule does: a body written
    after the ACK is no stall however soon it left, one written before is a
    stall however late the client handled the ACK), but for any round that
    differs in a run whose delay line was measured late (analyze's round
    trip and release window come from frames it delivered late); for `run`,
    the count of its own live analysis of the same frames.

usage: load.py [--binary PATH] [--seconds N] [--rounds R]
               [--load cgroup|hogs|browser|all] [--keep DIR] [--seed N]
  --seconds 10 in ctest; 600 or more by hand. Prints one line per run, then
  the figures: traces, rounds, disturbed rounds, false NOT met, and the
  analyze-vs-live counts; exit 1 on any failure.
"""
import argparse
import ctypes
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))
import check_sentences  # noqa: E402

MS = 1000000
# The knobs' windows (nt_predict_knobs_default(), predict.h) and the margin
# (NT_SCHED_MARGIN_NS): what the tool calls disturbed, recomputed here.
WAKE_LATENCY_NS = 4300 * 1000
WAKE_SLACK_NS = 4700 * 1000
MARGIN_NS = 1 * MS
# Lateness this close to a limit may fall either side of it: not checked.
EDGE_NS = 300 * 1000

# CPU-bound, and gone with the campaign however it ends (kill -0 on it each turn).
BUSY_LOOP = ["sh", "-c", "while kill -0 %d 2>/dev/null; do :; done" % os.getpid()]


class Cgroup:
    """A CPU-limited cgroup (v2 or v1), removed on close."""

    def __init__(self):
        self.path = None
        try:
            self.setup()
        except OSError:
            if self.path and os.path.isdir(self.path):
                os.rmdir(self.path)
            raise
        self.loop = self.spawn(BUSY_LOOP, stdout=subprocess.DEVNULL)

    def setup(self):
        name = "nt-load-%d" % os.getpid()
        v2 = "/sys/fs/cgroup/cgroup.controllers"
        if os.path.exists(v2):
            self.path = os.path.join("/sys/fs/cgroup", name)
            os.mkdir(self.path)
            if not os.path.exists(os.path.join(self.path, "cpu.max")):
                # The cpu controller must be enabled for the children of the root.
                with open("/sys/fs/cgroup/cgroup.subtree_control", "w") as f:
                    f.write("+cpu\n")
            with open(os.path.join(self.path, "cpu.max"), "w") as f:
                f.write("50000 100000\n")
            self.kind = "v2 cpu.max 50000 100000"
        else:
            self.path = os.path.join("/sys/fs/cgroup/cpu", name)
            os.mkdir(self.path)
            with open(os.path.join(self.path, "cpu.cfs_period_us"), "w") as f:
                f.write("100000\n")
            with open(os.path.join(self.path, "cpu.cfs_quota_us"), "w") as f:
                f.write("50000\n")
            self.kind = "v1 cpu.cfs_quota_us 50000 of 100000"

    def enter_fn(self):
        procs = os.path.join(self.path, "cgroup.procs")

        def enter():
            with open(procs, "w") as f:
                f.write("%d\n" % os.getpid())
        return enter

    def spawn(self, cmd, **kw):
        return subprocess.Popen(cmd, preexec_fn=self.enter_fn(), **kw)

    def close(self):
        self.loop.kill()
        self.loop.wait()
        for _ in range(50):
            try:
                os.rmdir(self.path)
                return
            except OSError:
                time.sleep(0.1)


def die_with_parent():
    """In the child: SIGKILL when the campaign dies, however it dies (PR_SET_PDEATHSIG)."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)


class Browser:
    """Headless chromium loading a heavy local page in a loop beside the run."""

    kind = "headless chromium loading a heavy page in a loop"
    CHROMIUM = os.environ.get("NT_CHROMIUM", "/usr/bin/chromium")
    PAGE = os.path.join(HERE, "load_page.html")
    FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--enable-logging=stderr", "--v=0"]
    FIRST_LOAD_S = 90

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="nt-load-browser-")
        self.log_path = os.path.join(self.dir, "chromium.log")
        self.log = open(self.log_path, "w")
        # Its own session (the whole tree is killed on close) and network namespace.
        self.proc = subprocess.Popen(
            ["unshare", "-Urn", self.CHROMIUM] + self.FLAGS +
            ["--user-data-dir=" + os.path.join(self.dir, "profile"), "file://" + self.PAGE],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
            start_new_session=True, preexec_fn=die_with_parent)
        deadline = time.monotonic() + self.FIRST_LOAD_S
        while self.loads() == 0:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise RuntimeError("chromium %s: no page load within %d s"
                                   % ("exited %d" % self.proc.returncode
                                      if self.proc.returncode is not None else "running",
                                      self.FIRST_LOAD_S))
            time.sleep(0.2)
        self.loads_at_start = self.loads()

    def loads(self):
        """Page loads the page logged so far (its console line each load)."""
        with open(self.log_path, errors="replace") as f:
            return sum(1 for line in f if "nt-load page loaded" in line)

    def alive(self):
        return self.proc.poll() is None

    def spawn(self, cmd, **kw):
        return subprocess.Popen(cmd, **kw)

    def close(self):
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.wait()
        self.log.close()
        self.page_loads = self.loads()
        shutil.rmtree(self.dir, ignore_errors=True)


class Hogs:
    """Two CPU-bound loops beside the run."""

    kind = "two CPU-bound loops"

    def __init__(self):
        self.loops = [subprocess.Popen(BUSY_LOOP) for _ in range(2)]

    def spawn(self, cmd, **kw):
        return subprocess.Popen(cmd, **kw)

    def close(self):
        for p in self.loops:
            p.kill()
            p.wait()


def shapes(rounds):
    return {
        "default": [],
        "all": ["--variant", "all"],
        "sizes": ["--header", "64", "--body", "256", "--reply", "128", "--rounds", str(rounds)],
        "rtt": ["--rtt", "10"],
    }


def runs_of(doc):
    return doc["runs"] if "runs" in doc else [doc]


def call_ns(events, side, call, ret):
    for e in events:
        if e["kind"] == "syscall" and e["side"] == side and e["call"] == call:
            return e["t_ns"] if ret else e["enter_ns"]
    return None


def observed(rnd, prev_read, one_way):
    """The round's schedule, as nt_record_observe_schedule() reads it."""
    ev = rnd["events"]
    end, req = 0, None
    for e in ev:
        if e["kind"] == "segment" and e["dir"] == "c2t" and e["len"] > 0:
            if e["seq"] + e["len"] > end:
                end, req = e["seq"] + e["len"], e["t_ns"]

    def span(a, b):
        return b - a if a is not None and b is not None and b >= a else None

    rd = call_ns(ev, "target", "read-request", True)
    first = call_ns(ev, "client", "write-header", False)
    if first is None:
        first = call_ns(ev, "client", "write-request", False)
    return {
        "read": span(req + one_way, rd) if req is not None else None,
        "reply": span(rd, call_ns(ev, "target", "write-reply", False)),
        "write_gap": span(call_ns(ev, "client", "write-header", False),
                          call_ns(ev, "client", "write-body", False)),
        "pause": span(prev_read, first),
        "body_return": span(call_ns(ev, "client", "write-body", False),
                            call_ns(ev, "client", "write-body", True)),
    }, call_ns(ev, "client", "read-reply", True)


def windows(cfg):
    two = cfg.get("variant") not in ("one-write", "writev")
    return {
        "read": WAKE_LATENCY_NS,
        "reply": int(cfg.get("handler_ns") or 0) + WAKE_SLACK_NS,
        "write_gap": (int(cfg.get("write_gap_ns") or 0) + WAKE_SLACK_NS) if two else None,
        "pause": int(cfg.get("pause_ns") or 0) + WAKE_SLACK_NS,
        # write(body)'s own time: no knob widens it.
        "body_return": 0 if two else None,
    }


def check_disturbed(run):
    """(disturbed rounds, failures): `disturbed` exactly where the schedule says."""
    cfg = run["config"]
    win = windows(cfg)
    one_way = int(cfg.get("rtt_ns") or 0) // 2
    prev, n, bad = None, 0, []
    for r in run["rounds"]:
        sched, prev = observed(r, prev, one_way)
        named = set((r.get("disturbed") or {}).get("parts", []))
        if named:
            n += 1
        if r.get("predicted_verdict") is None:
            continue
        # "timer": a stall the model held, its delayed-ACK timer past the window.
        if "timer" in named and (r["verdict"] != "stalled" or
                                 "held" not in r.get("predicted_verdicts", [])):
            bad.append("round %d names timer, a %s round the model predicted %s"
                       % (r["index"], r["verdict"], r.get("predicted_verdicts")))
        # "path" (the delay line late) is the forwarder's own count: no event shows it.
        for part, seen in sched.items():
            key = part
            limit = win[part]
            if seen is None or limit is None:
                if key in named:
                    bad.append("round %d names %s, which its events do not show late"
                               % (r["index"], key))
                continue
            over = seen - (limit + MARGIN_NS)
            if abs(over) < EDGE_NS:
                continue
            if over > 0 and key not in named:
                bad.append("round %d: %s %.1f ms late, not named disturbed"
                           % (r["index"], key, seen / 1e6))
            if over < 0 and key in named:
                bad.append("round %d named %s disturbed at %.1f ms"
                           % (r["index"], key, seen / 1e6))
    return n, bad


ACCEPTED = ("verdicts are uncertain",)


def trace_once(binary, load, shape, args, work, fig):
    out, cap = os.path.join(work, "t.json"), os.path.join(work, "t.pcapng")
    cmd = ["unshare", "-Urn", binary] + args + ["--format", "json", "-o", out, "-w", cap]
    p = load.spawn(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        _, err = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        return ["%s: no end within 120 s" % shape]
    err = err.decode(errors="replace").strip()
    fails = []
    if p.returncode not in (0, 1) or not os.path.exists(out):
        return ["%s: exit %d: %s" % (shape, p.returncode, err[:200])]
    with open(out) as f:
        doc = json.load(f)
    fig["traces"] += 1
    row(fig)["n"] += 1
    if p.returncode == 1:
        if any(a in err for a in ACCEPTED):
            fig["uncertain"] += 1
        else:
            fig["false_not_met"] += 1
            fails.append("%s: false NOT met: %s" % (shape, err[:300]))
    for run in runs_of(doc):
        fig["rounds"] += len(run["rounds"])
        row(fig)["rounds"] += len(run["rounds"])
        n, bad = check_disturbed(run)
        fig["disturbed"] += n
        row(fig)["disturbed"] += n
        fails += ["%s %s: %s" % (shape, run["variant"], b) for b in bad]
    fails += ["%s: sentence: %s" % (shape, m) for m in check_sentences.check_doc(doc)]
    if "runs" not in doc:
        fails += compare_rounds(binary, cap, doc, fig)
    return fails


def run_once(binary, load, work, fig):
    out, cap = os.path.join(work, "r.json"), os.path.join(work, "r.pcap")
    progs = os.path.join(ROOT, "tests", "programs")
    cmd = ["unshare", "-Urn", binary, "run",
           "--target", "python3 %s/server.py 7000" % progs,
           "--client", "python3 %s/client.py target 7000 20" % progs,
           "--format", "json", "-o", out, "-w", cap]
    p = load.spawn(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        _, err = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        return ["run: no end within 120 s"]
    if p.returncode != 0 or not os.path.exists(out):
        return ["run: exit %d: %s" % (p.returncode, err.decode(errors="replace")[:200])]
    with open(out) as f:
        doc = json.load(f)
    fig["runs"] += 1
    row(fig)["n"] += 1
    return compare(binary, cap, doc["summary"]["stalls"], fig)


def row(fig):
    """The figures of the (load, shape) now running."""
    return fig["rows"].setdefault(fig["at"], {"n": 0, "rounds": 0, "disturbed": 0,
                                              "compared": 0, "equal": 0, "live": 0,
                                              "analyze": 0, "other": 0, "wire": 0})


def analyze_stalls(binary, cap):
    """(summary, held frame numbers of every stall) of `analyze` of @cap, or an error line."""
    p = subprocess.run([binary, "analyze", cap, "--format", "jsonl"], capture_output=True)
    if p.returncode not in (0, 1):
        return None, "analyze of its capture exited %d: %s" % (
            p.returncode, p.stderr.decode(errors="replace")[:200])
    summ, held = None, []
    for line in p.stdout.decode().splitlines():
        rec = json.loads(line)
        if rec.get("type") == "stall":
            held.append(rec["held_frame_number"])
        elif rec.get("type") == "summary":
            summ = rec["summary"]
    return (summ, held), None


def tally(fig, live, an, summ):
    rw = row(fig)
    fig["analyze"].append((fig["at"][1], live, an))
    rw["compared"] += 1
    rw["equal"] += an == live
    rw["live"] += live
    rw["analyze"] += an
    rw["other"] += (summ.get("by_delack") or {}).get("other", 0)


def compare_rounds(binary, cap, run, fig):
    """analyze of a trace's capture, round by round: a stall on every stalled round's
    header and on no other. The -w pcapng notes on H and A the delay line's measured
    lateness, and analyze takes it off as the live rule does: a held round whose gap
    that lateness explains is held in analyze too."""
    got, err = analyze_stalls(binary, cap)
    if err:
        return [err]
    summ, held = got
    header = {}
    for r in run["rounds"]:
        for e in r["events"]:
            if e["kind"] == "segment" and e["role"] == "header" and e.get("frame"):
                header[e["frame"]] = r
    live = [r for r in run["rounds"] if r["verdict"] == "stalled"]
    tally(fig, len(live), len(held), summ)
    # The delay line was measured late in this run: analyze's round trip and
    # release window come from frames it delivered late (a late handshake
    # widens the path it takes off every ACK), which a capture cannot show.
    late_line = any("path" in (r.get("disturbed") or {}).get("parts", []) or
                    r.get("header_ack_wire_late_ns") for r in run["rounds"])
    fails, found = [], set()
    for f in held:
        r = header.get(f)
        if r is None:
            fails.append("analyze found a stall at frame %d, no round's header" % f)
            continue
        found.add(r["index"])
        if r["verdict"] == "stalled":
            continue
        if late_line:
            fig["line_explained"] += 1
            row(fig)["wire"] += 1
            continue
        fails.append("analyze found a stall in round %d, which the live run calls %s"
                     % (r["index"], r["verdict"]))
    for r in live:
        if r["index"] in found:
            continue
        if late_line:
            fig["line_explained"] += 1
            row(fig)["wire"] += 1
            continue
        fails.append("round %d stalled, analyze of its capture found no stall there"
                     % r["index"])
    return fails


def compare(binary, cap, live, fig):
    """analyze of run's capture counts what run's own live analysis counted."""
    got, err = analyze_stalls(binary, cap)
    if err:
        return [err]
    summ, held = got
    tally(fig, live, len(held), summ)
    if len(held) != live:
        return ["analyze of its capture counts %d stalls, the live run %d"
                % (len(held), live)]
    return []


def print_rows(rows):
    """The figures per load and shape, as docs/reliability.md's table has them."""
    print("| load | shape | runs | rounds | disturbed | analyze = live | live stalls "
          "| analyze stalls (other) | not in the capture |")
    for (kind, shape), r in sorted(rows.items()):
        cmp = "%d of %d" % (r["equal"], r["compared"]) if r["compared"] else "-"
        print("| %s | %s | %d | %d | %d | %s | %d | %d (%d) | %d |"
              % (kind, shape, r["n"], r["rounds"], r["disturbed"], cmp, r["live"],
                 r["analyze"], r["other"], r["wire"]))


def make_load(kind):
    if kind == "browser":
        return Browser()
    if kind == "cgroup":
        try:
            return Cgroup()
        except OSError as e:
            # Not a skip: the loops still run; the line says why the cgroup did not.
            print("load: no CPU-limited cgroup here (%s): two CPU-bound loops instead" % e)
    return Hogs()


def main():
    # SIGTERM (ctest's timeout first) ends the campaign through its finally blocks.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "nagle-trace"))
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--load", choices=("cgroup", "hogs", "browser", "all"), default="all")
    ap.add_argument("--keep", help="keep every run's JSON and capture under DIR")
    ap.add_argument("--seed", type=int, default=None)
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    loads = ["cgroup", "hogs", "browser"] if args.load == "all" else [args.load]
    if "cgroup" in loads and os.geteuid() != 0:
        # Not a skip: the other loads still run. CI runs as root and gets them all.
        print("load: not root, no cgroup: the other loads only")
        loads = [k for k in loads if k != "cgroup"] or ["hogs"]
    shape_args = shapes(args.rounds)
    names = list(shape_args) + ["run"]
    print("load: seed %d, %.0f s, loads %s" % (seed, args.seconds, ", ".join(loads)))
    fig = {"traces": 0, "runs": 0, "rounds": 0, "disturbed": 0, "false_not_met": 0,
           "uncertain": 0, "analyze": [], "page_loads": 0, "rows": {}, "at": None,
           "line_explained": 0}
    failures = []
    deadline = time.monotonic() + args.seconds
    per_load = args.seconds / len(loads)
    n = 0
    for kind in loads:
        try:
            load = make_load(kind)
        except (OSError, RuntimeError) as e:
            failures.append("%s: the load did not start: %s" % (kind, e))
            print("load: %s did not start: %s" % (kind, e))
            continue
        print("load: %s" % load.kind)
        stop = min(deadline, time.monotonic() + per_load)
        start_n = n
        try:
            # Beside the browser, runs go on until it loaded its page again at least
            # once while they ran (a short campaign's slice can be under a page load).
            while time.monotonic() < stop or n == start_n or (
                    isinstance(load, Browser) and load.loads() == load.loads_at_start and
                    time.monotonic() < stop + Browser.FIRST_LOAD_S):
                shape = names[n % len(names)] if n < len(names) else rng.choice(names)
                n += 1
                work = tempfile.mkdtemp(prefix="nt-load-")
                fig["at"] = (kind, shape)
                try:
                    if shape == "run":
                        fails = run_once(args.binary, load, work, fig)
                    else:
                        fails = trace_once(args.binary, load, shape, shape_args[shape], work,
                                           fig)
                    if args.keep:
                        dst = os.path.join(args.keep, "%04d-%s-%s" % (n, kind, shape))
                        shutil.copytree(work, dst)
                finally:
                    shutil.rmtree(work, ignore_errors=True)
                if isinstance(load, Browser) and not load.alive():
                    fails.append("chromium died during the run")
                print("%4d %-7s %-7s %s" % (n, kind, shape, "FAIL" if fails else "ok"))
                for f in fails:
                    print("     " + f)
                failures += ["%s %s: %s" % (kind, shape, f) for f in fails]
        finally:
            load.close()
        if isinstance(load, Browser):
            pages = load.page_loads - load.loads_at_start
            fig["page_loads"] += pages
            print("load: chromium loaded the page %d times beside the runs" % pages)
            if pages == 0:
                failures.append("browser: chromium loaded no page while the runs ran")
    print("traces %d (rounds %d, disturbed rounds %d), runs %d; false NOT met %d, "
          "uncertain (capture drops) %d" % (fig["traces"], fig["rounds"], fig["disturbed"],
                                            fig["runs"], fig["false_not_met"],
                                            fig["uncertain"]))
    eq = sum(1 for _, live, an in fig["analyze"] if an == live)
    print("analyze vs live stalls: %d of %d captures equal; rounds that differ in runs "
          "whose delay line was measured late: %d"
          % (eq, len(fig["analyze"]), fig["line_explained"]))
    if "browser" in loads:
        print("chromium page loads beside the runs: %d" % fig["page_loads"])
    print_rows(fig["rows"])
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
