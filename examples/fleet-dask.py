#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A fleet of captures on Dask: where did the Nagle + delayed-ACK stalls cost time?

  examples/fleet-dask.py [--scheduler ADDR | --workers N | --serial]
                         [--nagle-trace PATH] [--out DIR] [--list FILE]
                         [-- ANALYZE-OPTION...] CAPTURE...

The map step is one `nagle-trace analyze --format jsonl CAPTURE` per capture,
run by a Dask worker (the capture's path must be readable there: a local path
on one machine, a shared file system on many), which also adds the capture's
flow records up per service (the target's port) and per host pair, and its
stall records per hour (UTC, the hour each held segment left). This process
gathers the summaries, the tables and the records, merges the tables and
writes into --out (default fleet-out):

  fleet.json      the totals, the three tables and one line per capture
  service.csv, host_pair.csv, hour.csv, captures.csv
  fleet.svg       one slide (1280x720): time lost per service and per hour
  records.jsonl   every record analyze wrote, as {"capture": PATH, "record": ...}
                  (not with --no-records: then only the tables travel)

and prints the tables. A capture analyze cannot read in full (damaged, not a
capture, gone) is a row of captures.csv with its error, never dropped; the
exit status is then 4, as analyze's, and 0 when every capture was read.

Without --scheduler the script starts a dask.distributed LocalCluster of
--workers (2) worker processes, one thread each, listening on 127.0.0.1 only,
no dashboard. With --scheduler tcp://HOST:8786 it uses that cluster (see
docs/fleet.md). --serial runs the same map in this process, one capture after
the other, without Dask: the reference the fleet run must equal.

A worker that dies is replaced and its task run again elsewhere (Dask's
scheduler does that, up to distributed.scheduler.allowed-failures times); the
analysis of a capture is a pure function of the file, so the totals stay
exact. Each analyze runs under `setpriv --pdeathsig KILL`, so it does not
outlive its worker.
"""
import argparse
import csv
import datetime
import json
import os
import shutil
import subprocess
import sys
from xml.sax.saxutils import escape

EXIT_OK, EXIT_USAGE, EXIT_FILE = 0, 2, 4
HOUR_NS = 3600 * 1000000000


def hour_of(t_ns):
    return datetime.datetime.fromtimestamp(t_ns // HOUR_NS * 3600, datetime.timezone.utc) \
        .strftime("%Y-%m-%dT%H:00Z")


def new_row():
    return {"flows_with_stalls": 0, "stalls": 0, "lost_ns": 0, "wall_ns": 0}


def add_flow(tables, rec):
    """One flow record into the service and host pair tables."""
    c, t = rec["client"], rec["target"]
    for name, key in (("service", str(t["port"])), ("host_pair", f"{c['addr']} -> {t['addr']}")):
        row = tables[name].setdefault(key, new_row())
        row["flows_with_stalls"] += 1
        row["stalls"] += rec["stalls"]
        row["lost_ns"] += rec["stalled_total_ns"]
        row["wall_ns"] += rec["stalled_wall_ns"]


def union_ns(spans):
    """The length of the union of [start, end) spans."""
    total, reach = 0, None
    for a, b in sorted(spans):
        if reach is None or a > reach:
            total += b - a
            reach = b
        elif b > reach:
            total += b - reach
            reach = b
    return total


class HourTally:
    """The hour table, stall by stall: each stall in the hour (UTC) its held
    segment left, a flow counted in every hour it stalled in, and its time
    lost there the union of those stalls' spans, H to R, as analyze's
    stalled_wall_ns is over all of them. analyze writes the stall records
    flow by flow (docs/analyze.md), so one flow's spans are held at a time."""

    def __init__(self, table):
        self.table, self.flow, self.hours = table, None, {}

    def add(self, st):
        if st["flow"] != self.flow:
            self.close()
            self.flow = st["flow"]
        # The hour's number, named in close(): strftime() per stall cost more
        # than the rest of the reduce.
        acc = self.hours.setdefault(st["held_t_ns"] // HOUR_NS, [0, 0, []])
        acc[0] += 1
        acc[1] += st["stall_ns"]
        acc[2].append((st["held_t_ns"], st["release_t_ns"]))

    def close(self):
        for h, (n, lost, spans) in self.hours.items():
            row = self.table.setdefault(hour_of(h * HOUR_NS), new_row())
            row["flows_with_stalls"] += 1
            row["stalls"] += n
            row["lost_ns"] += lost
            row["wall_ns"] += union_ns(spans)
        self.hours = {}


def analyze_one(nagle_trace, path, extra, keep_records=True):
    """The map step, on a worker: analyze one capture and reduce its records.

    Returns the capture's summary, its flow records added up per service and
    host pair and its stall records per hour (the reduce runs here, beside the data: what travels
    to the client is a few rows, not one object per flow), and, with
    @keep_records, the records as analyze wrote them (one string a line).
    Never raises for a bad capture: the failure is the result (status
    "damaged" when analyze read part of it and said why, "failed" when there
    is no summary at all). CPU time is the analyze process's own
    (os.wait4()), so concurrent tasks do not mix. (Not its peak RSS: a child
    forked from Python keeps Python's high-water mark across exec, see
    tests/bench/peak_rss.c.)
    """
    import platform
    import tempfile

    cmd = [nagle_trace, "analyze", "--format", "jsonl"] + list(extra) + ["-r", path]
    setpriv = shutil.which("setpriv")
    if setpriv:
        cmd = [setpriv, "--pdeathsig", "KILL", "--"] + cmd
    res = {"capture": path, "status": "failed", "error": None, "exit": None, "lines": [],
           "summary": None, "tables": None, "bytes": None, "cpu_s": None,
           "worker_host": platform.node()}
    try:
        res["bytes"] = os.path.getsize(path)
    except OSError:
        pass
    with tempfile.TemporaryFile() as errf:
        try:
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=errf)
        except OSError as e:
            res["error"] = f"cannot run {nagle_trace!r}: {e.strerror}"
            return res
        tables = {"service": {}, "host_pair": {}, "hour": {}}
        hours = HourTally(tables["hour"])
        # Line by line as analyze writes them: a capture's jsonl is hundreds
        # of MB (a record per stall), and only the tables must stay.
        with p.stdout:
            for raw in p.stdout:
                line = raw.decode("utf-8", "replace").rstrip("\n")
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                if keep_records:
                    res["lines"].append(line)
                kind = rec.get("type")
                if kind == "summary":
                    res["summary"] = rec
                elif kind == "flow" and rec.get("stalls"):
                    add_flow(tables, rec)
                elif kind == "stall":
                    hours.add(rec)
        hours.close()
        # Reaped here, not by Popen: wait4() gives this child's own usage.
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        res["cpu_s"] = ru.ru_utime + ru.ru_stime
        errf.seek(0)
        err = errf.read()
    res["exit"] = p.returncode
    stderr = err.decode("utf-8", "replace").strip().splitlines()
    if res["summary"] is not None:
        # Records without their summary (analyze killed, say) are not added up: the
        # totals come from summaries, and the tables must agree with them.
        res["tables"] = tables
        files = res["summary"].get("files") or [{}]
        res["error"] = files[0].get("error")
        res["status"] = "damaged" if res["error"] or not files[0].get("complete", True) else "ok"
    else:
        res["error"] = stderr[0] if stderr else f"analyze exited {p.returncode} with no summary"
    return res


def run_serial(nagle_trace, paths, extra, keep_records):
    return [analyze_one(nagle_trace, p, extra, keep_records) for p in paths]


def run_dask(nagle_trace, paths, extra, keep_records, scheduler, workers):
    from dask.distributed import Client, LocalCluster, as_completed

    import tempfile

    space = None
    if scheduler:
        cluster, client = None, Client(scheduler)
    else:
        # The workers' scratch space (locks, spill files) is ours, and goes with the cluster:
        # a killed worker's would otherwise stay in /tmp/dask-worker-space.
        space = tempfile.mkdtemp(prefix="fleet-dask-")
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               host="127.0.0.1", dashboard_address=None, local_directory=space)
        client = Client(cluster)
    try:
        n = len(paths)
        # pure=False: the same capture listed twice is analysed twice, as serially.
        futs = client.map(analyze_one, [nagle_trace] * n, paths, [list(extra)] * n,
                          [keep_records] * n, pure=False)
        index = {f.key: i for i, f in enumerate(futs)}
        results = [None] * n
        for fut, res in as_completed(futs, with_results=True):
            results[index[fut.key]] = res
            fut.release()
        return results
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
        if space is not None:
            shutil.rmtree(space, ignore_errors=True)


def aggregate(results):
    """Totals from the summaries; the workers' tables merged, in the order given."""
    keys = ("packets", "tcp_packets", "flows", "flows_with_stalls", "stalls", "stalled_total_ns",
            "stalled_wall_ns", "stalled_wall_min_ns", "think_time", "evicted_flows")
    tot = {"captures": len(results), "captures_ok": 0, "captures_damaged": 0, "captures_failed": 0,
           "bytes": 0}
    tot.update({k: 0 for k in keys})
    tables = {"service": {}, "host_pair": {}, "hour": {}}
    captures = []
    for r in results:
        tot["captures_" + r["status"]] += 1
        tot["bytes"] += r["bytes"] or 0
        s = (r["summary"] or {}).get("summary", {})
        for k in keys:
            tot[k] += s.get(k, 0)
        captures.append({"capture": r["capture"], "status": r["status"], "error": r["error"],
                         "bytes": r["bytes"], "packets": s.get("packets", 0),
                         "flows": s.get("flows", 0), "stalls": s.get("stalls", 0),
                         "stalled_total_ns": s.get("stalled_total_ns", 0)})
        for name, part in (r["tables"] or {}).items():
            for key, row in part.items():
                into = tables[name].setdefault(key, new_row())
                for k, v in row.items():
                    into[k] += v
    for name, what in (("service", "flow"), ("hour", "stall")):
        if sum(v["stalls"] for v in tables[name].values()) != tot["stalls"]:
            print(f"fleet-dask: warning: the {what} records and the summaries count different "
                  "stalls", file=sys.stderr)

    def rows(table, name, order):
        out = [dict({name: k}, **v) for k, v in table.items()]
        out.sort(key=order)
        return out

    by_lost = lambda r: (-r["lost_ns"], -r["stalls"], list(r.values())[0])
    return {"totals": tot,
            "service": rows(tables["service"], "port", by_lost),
            "host_pair": rows(tables["host_pair"], "host_pair", by_lost),
            "hour": rows(tables["hour"], "hour", lambda r: r["hour"]),
            "captures": captures}


def ms(ns):
    return f"{ns / 1e6:.3f}"


def print_tables(agg, top):
    t = agg["totals"]
    print(f"{t['captures']} captures ({t['captures_ok']} read in full, {t['captures_damaged']} damaged, "
          f"{t['captures_failed']} not read), {t['bytes'] / 1e6:.3f} MB, {t['packets']} packets, "
          f"{t['flows']} flows")
    print(f"{t['stalls']} stalls in {t['flows_with_stalls']} flows, {ms(t['stalled_total_ns'])} ms "
          f"summed over held segments, {ms(t['stalled_wall_ns'])} ms of flow time lost")
    for name, key in (("service (port)", "port"), ("host pair", "host_pair"), ("hour (UTC)", "hour")):
        rows = agg[key if key != "port" else "service"]
        print(f"\n{name:<34} {'flows':>7} {'stalls':>8} {'lost ms':>12}")
        for r in rows[:top] if key != "hour" else rows:
            print(f"{r[key]:<34} {r['flows_with_stalls']:>7} {r['stalls']:>8} {ms(r['lost_ns']):>12}")
        if key != "hour" and len(rows) > top:
            print(f"... {len(rows) - top} more in {key if key != 'port' else 'service'}.csv")
    bad = [c for c in agg["captures"] if c["status"] != "ok"]
    if bad:
        print(f"\n{len(bad)} captures not read in full:")
        for c in bad:
            print(f"  {c['capture']}: {c['status']}: {c['error']}")


def write_csv(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        if not rows:
            return
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)


def bars(x, y, w, h, title, rows, label_key, value_key, lw=170, unit_ns=1e6):
    """A horizontal bar chart of the top rows, as SVG elements."""
    out = [f'<text x="{x}" y="{y}" class="h">{escape(title)}</text>']
    rows = rows[:8]
    peak = max([r[value_key] for r in rows] + [1])
    bh = (h - 40) / 8
    for i, r in enumerate(rows):
        by = y + 20 + i * bh
        bw = (w - lw - 200) * r[value_key] / peak
        out.append(f'<text x="{x}" y="{by + bh * 0.65:.1f}" class="l">{escape(str(r[label_key]))}</text>')
        out.append(f'<rect x="{x + lw}" y="{by + 4:.1f}" width="{bw:.1f}" height="{bh - 8:.1f}" class="b"/>')
        out.append(f'<text x="{x + lw + 8 + bw:.1f}" y="{by + bh * 0.65:.1f}" class="v">'
                   f'{r[value_key] / unit_ns:,.1f} ms, {r["stalls"]} stalls</text>')
    if not rows:
        out.append(f'<text x="{x}" y="{y + 50}" class="l">no stalls</text>')
    return out


def svg(agg):
    t = agg["totals"]
    W, H = 1280, 720
    e = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}">',
         "<style>text{font-family:'DejaVu Sans',sans-serif;fill:#1a1a1a}"
         ".t{font-size:34px;font-weight:bold}.s{font-size:20px;fill:#444}.h{font-size:22px;font-weight:bold}"
         ".l{font-size:17px}.v{font-size:15px;fill:#444}.b{fill:#c0392b}.c{fill:#2c6fbb}"
         ".f{font-size:15px;fill:#8a1c1c}</style>",
         f'<rect width="{W}" height="{H}" fill="#ffffff"/>',
         f'<text x="40" y="60" class="t">Nagle + delayed-ACK stalls across {t["captures"]} captures</text>',
         f'<text x="40" y="95" class="s">{t["stalls"]:,} stalls in {t["flows_with_stalls"]:,} of '
         f'{t["flows"]:,} flows: {t["stalled_wall_ns"] / 1e9:,.3f} s of flow time lost '
         f'({t["packets"]:,} packets, {t["bytes"] / 1e6:,.1f} MB)</text>']
    e += bars(40, 150, 620, 300, "Time lost per service (target port)", agg["service"], "port", "lost_ns")
    e += bars(40, 470, 620, 220, "Time lost per host pair", agg["host_pair"][:5], "host_pair", "lost_ns",
              lw=250)
    # Per hour: columns, in time order, the last 24 hours that had stalls.
    hours = agg["hour"][-24:]
    x0, y0, cw, ch = 700, 150, 540, 360
    e.append(f'<text x="{x0}" y="{y0}" class="h">Time lost per hour (UTC)</text>')
    peak = max([r["lost_ns"] for r in hours] + [1])
    colw = cw / max(len(hours), 1)
    base = y0 + 30 + ch
    for i, r in enumerate(hours):
        hgt = ch * r["lost_ns"] / peak
        e.append(f'<rect x="{x0 + i * colw + 2:.1f}" y="{base - hgt:.1f}" width="{colw - 4:.1f}" '
                 f'height="{hgt:.1f}" class="c"/>')
    if 0 < len(hours) <= 6:
        for i, r in enumerate(hours):
            e.append(f'<text x="{x0 + (i + 0.5) * colw:.1f}" y="{base + 22}" class="v" '
                     f'text-anchor="middle">{escape(r["hour"])}</text>')
    elif hours:
        e.append(f'<text x="{x0}" y="{base + 22}" class="v">{escape(hours[0]["hour"])}</text>')
        e.append(f'<text x="{x0 + cw}" y="{base + 22}" class="v" text-anchor="end">'
                 f'{escape(hours[-1]["hour"])}</text>')
    if hours:
        e.append(f'<text x="{x0}" y="{base + 44}" class="v">tallest: {peak / 1e6:,.1f} ms</text>')
    bad = [c for c in agg["captures"] if c["status"] != "ok"]
    if bad:
        names = ", ".join(os.path.basename(c["capture"]) for c in bad[:4])
        more = f" and {len(bad) - 4} more" if len(bad) > 4 else ""
        e.append(f'<text x="{x0}" y="{H - 30}" class="f">{len(bad)} not read in full: '
                 f'{escape(names)}{more} (captures.csv)</text>')
    e.append("</svg>")
    return "\n".join(e) + "\n"


def write_out(out, agg, results, keep_records):
    os.makedirs(out, exist_ok=True)
    tmp = {}
    files = {
        "fleet.json": json.dumps(agg, indent=1, sort_keys=True) + "\n",
        "fleet.svg": svg(agg),
    }
    if keep_records:
        files["records.jsonl"] = "".join(
            f'{{"capture": {json.dumps(r["capture"])}, "record": {line}}}\n'
            for r in results
            for line in r["lines"])
    for name, text in files.items():
        tmp[name] = os.path.join(out, name)
        with open(tmp[name] + ".tmp", "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp[name] + ".tmp", tmp[name])
    for name in ("service", "host_pair", "hour", "captures"):
        write_csv(os.path.join(out, name + ".csv"), agg[name])


def cost(results):
    """What the map step cost: analyze's own CPU time, per GB read."""
    done = [r for r in results if r["cpu_s"] is not None and r["bytes"]]
    gb = sum(r["bytes"] for r in done) / 1e9
    cpu = sum(r["cpu_s"] for r in done)
    per = f", {cpu / gb:.2f} CPU s per GB" if gb > 0 else ""
    return f"map step: {cpu:.2f} CPU s of analyze for {gb:.3f} GB{per}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("captures", nargs="*", metavar="CAPTURE")
    ap.add_argument("--list", help="a file naming one capture a line")
    ap.add_argument("--scheduler", help="a running Dask scheduler, tcp://HOST:PORT")
    ap.add_argument("--workers", type=int, default=2, help="local worker processes (default 2)")
    ap.add_argument("--serial", action="store_true", help="no Dask: one capture after the other, here")
    ap.add_argument("--nagle-trace", default=os.environ.get("NAGLE_TRACE", "nagle-trace"),
                    help="the binary, as the workers find it (default: nagle-trace on their PATH)")
    ap.add_argument("--out", default="fleet-out", help="output directory (default fleet-out)")
    ap.add_argument("--no-records", action="store_true",
                    help="no records.jsonl: only the tables travel from the workers")
    ap.add_argument("--top", type=int, default=10, help="rows printed per table (default 10)")
    ap.add_argument("--analyze-arg", action="append", default=[], metavar="ARG",
                    help="passed on to analyze (repeat), e.g. --analyze-arg=--threshold=50")
    a = ap.parse_args()
    paths = list(a.captures)
    if a.list:
        try:
            with open(a.list, encoding="utf-8") as f:
                paths += [ln.strip() for ln in f if ln.strip() and not ln.startswith("#")]
        except OSError as e:
            print(f'fleet-dask: cannot read "{a.list}": {e.strerror}', file=sys.stderr)
            return EXIT_FILE
    if not paths:
        print("fleet-dask: no capture given (CAPTURE... or --list FILE)", file=sys.stderr)
        return EXIT_USAGE
    if a.serial and a.scheduler:
        print("fleet-dask: --serial and --scheduler exclude each other", file=sys.stderr)
        return EXIT_USAGE
    if a.workers < 1:
        print(f'fleet-dask: --workers "{a.workers}" must be at least 1', file=sys.stderr)
        return EXIT_USAGE
    if a.serial:
        results = run_serial(a.nagle_trace, paths, a.analyze_arg, not a.no_records)
    else:
        results = run_dask(a.nagle_trace, paths, a.analyze_arg, not a.no_records, a.scheduler,
                           a.workers)
    agg = aggregate(results)
    write_out(a.out, agg, results, not a.no_records)
    print_tables(agg, a.top)
    print(f"\n{cost(results)}")
    print(f"wrote {os.path.join(a.out, 'fleet.json')}, fleet.svg, "
          f"{'' if a.no_records else 'records.jsonl, '}the CSV tables")
    return EXIT_OK if all(r["status"] == "ok" for r in results) else EXIT_FILE


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        # The tables into `| head`: the files are written already.
        sys.stderr.close()
        sys.exit(EXIT_OK)
