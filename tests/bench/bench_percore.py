#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""analyze per core against the read floor (issue 31, item 1).
Not a test: it prints figures and ratios against the read loop measured in
the same invocation, runs interleaved, so a shared machine's load moves all.

  tests/bench/bench_percore.py [--build build] [--baseline OTHER/nagle-trace]
                               [--runs 9] [--tmp /tmp] [--quick | --formats LIST]

Two `mkcap bench` captures: 10,000 concurrent flows x 50 rounds (2.0 M
packets, 149 MB) and 100,000 x 5 (2.3 M packets, 169 MB; every flow active
to the end, within the default --max-flows). For each: the libpcap read
loop (tests/bench/pcap_read_loop.c, pcap_next_ex(): the floor) and analyze
--brief, text, json and jsonl, on two threads (the default) and with --jobs
1, and markdown, svg and html on two threads; beside them
tests/bench/flow_floor.c, the read loop plus a flow table whose every
packet writes 2 or 6 cache lines and does nothing else: what
any per-flow analysis pays for its state on this machine; and the 6-line
floor again with, for every flow, a block as large as analyze keeps for a
flow that stalled (its report, struct nt_flow_result, and the table's
timeline ring, struct nt_flow_ring, sized from include/ by the compiler):
what that memory costs here, every page of it new to the process. The floor
takes its memory as analyze does, by the same code (src/pages.c, huge pages
once large; src/model/pool.c for the blocks). After the table, each
format's report floor (tests/bench/report_floor.c): its report written
again from values in hand, analyze's digits and nothing else, and that
floor added to the flow floor's: the least the format can cost here,
whatever its analysis and renderer do. Among the table's commands, the
read loop, analyze --brief --jobs 1 and analyze --format json --jobs 1
pinned to each core in turn (taskset), summed up after it: whether the
machine's cores were equal while the table was measured, for the analysis
and for rendering. Printed per
command: wall min and median, CPU (user + system of the process,
getrusage(RUSAGE_CHILDREN)) min and median, each as a ratio to the read
loop's, and peak RSS (tests/bench/peak_rss.c, one run more). The goal: CPU
within 2x, wall within 1.3x. The load
average is printed before and after: the machine may be shared. Reports go
to /dev/null (unspooled: src/output.c); jsonl also to a file, beside dd
writing as many bytes, what any tool writing that report pays. With
--baseline, OTHER runs beside the build ("before"), and so does a copy of
the build ("again"): a gap between before and the build means something
only when it is wider than the one between the build and again. With
--formats (comma-separated, e.g. html,markdown), only the read loop and
those formats, each on two threads and with --jobs 1: a round of a change
to their renderers, in minutes.
"""
import argparse, os, shutil, statistics, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


# The interleaved wall and CPU measurement bench_analyze_scale.py makes.
from bench_analyze_scale import peak_rss, timed  # noqa: E402


def table(res, ref, rss):
    bw, bc = min(res[ref][0]), min(res[ref][1])
    mw, mc = statistics.median(res[ref][0]), statistics.median(res[ref][1])
    print(f"  {'':<44} {'wall min':>9} {'p50':>7} {'x':>6} {'x p50':>6}   {'cpu min':>8} {'p50':>7}"
          f" {'x':>6} {'x p50':>6}   {'RSS MiB':>8}")
    for name, (w, c) in res.items():
        print(f"  {name:<44} {min(w):9.1f} {statistics.median(w):7.1f} {min(w) / bw:6.2f}"
              f" {statistics.median(w) / mw:6.2f}   {min(c):8.1f} {statistics.median(c):7.1f}"
              f" {min(c) / bc:6.2f} {statistics.median(c) / mc:6.2f}   {rss[name]:8.1f}")


# What runs pinned to each core: the analysis alone, and JSON's rendering on top.
PINNED = (["--brief"], ["--format", "json"])


def pinned(loop, nt, path):
    """The read loop and analyze --jobs 1 (PINNED) pinned to each core in turn.

    A guest's cores need not be equal: another guest on the host's core
    under one of them slows what runs there, unseen by this kernel (no
    steal time), for seconds at a time. A run on one thread lands on either
    core; one on two threads always has a thread on the slower. Run among
    the table's commands, in the same rounds, these say whether the cores
    were equal while the table was measured. The slower core need not be
    slower by the same for all code: rendering JSON (arithmetic, few misses)
    once took 1.8x as long there, when the read loop (copies, system calls)
    took 1.3x (docs/performance.md, the round of 2026-12-07, late), hence
    the two probes.
    """
    cmds = []
    for cpu in sorted(os.sched_getaffinity(0)):
        pin = ["taskset", "-c", str(cpu)]
        cmds.append((f"read loop, core {cpu}", pin + [loop, path]))
        for args in PINNED:
            cmds.append((f"analyze {' '.join(args)} --jobs 1, core {cpu}",
                         pin + [nt, "analyze"] + args + ["--jobs", "1", path]))
    return cmds


def cores(res):
    """The pinned runs: each core's min and median, and the slowest core's against the fastest."""
    cpus = sorted(int(name.rsplit(" ", 1)[1]) for name in res if name.startswith("read loop, core "))
    if not cpus:
        return
    probes = [f"analyze {' '.join(args)} --jobs 1" for args in PINNED]
    print("  each core, pinned (CPU ms, min / median; analyze against the read loop on that core):")
    for cpu in cpus:
        lc = res[f"read loop, core {cpu}"][1]
        print(f"    core {cpu}: read loop {min(lc):7.1f} / {statistics.median(lc):7.1f}")
        for what in probes:
            ac = res[f"{what}, core {cpu}"][1]
            print(f"      {what:<34} {min(ac):7.1f} / {statistics.median(ac):7.1f}"
                  f"   {min(ac) / min(lc):5.2f}x")
    for what in ["read loop"] + probes:
        meds = [statistics.median(res[f"{what}, core {cpu}"][1]) for cpu in cpus]
        print(f"    {what}: median on the slowest core {max(meds) / min(meds):.2f}x the fastest's")


def report_bytes(tmp):
    """What analyze keeps for each flow that stalled, beside its entry: the report and the ring."""
    src = os.path.join(tmp, "report_bytes.c")
    exe = os.path.join(tmp, "report_bytes")
    with open(src, "w") as f:
        f.write('#include <stdio.h>\n#include "nt/model/analysis.h"\n#include "nt/model/flowtab.h"\n'
                'int main(void) { printf("%zu\\n", sizeof(struct nt_flow_result) + '
                'sizeof(struct nt_flow_ring)); return 0; }\n')
    subprocess.run(["cc", "-I", os.path.join(HERE, "../../include"), "-o", exe, src], check=True)
    return int(subprocess.run([exe], capture_output=True, text=True, check=True).stdout)


def report_floors(res, cmds, nt, path, rfloor, runs, tmp, fmts):
    """Each format's report written again from values in hand (report_floor.c), beside the floors.

    What no renderer of these bytes can go below: the report floor, and the
    least a format can cost here, the flow floor with as much memory a flow
    as analyze keeps plus the report floor, each as a ratio to the read
    loop's CPU min of this run.
    """
    loop = min(res["read loop (pcap_next_ex)"][1])
    flow = [name for name, _ in cmds if name.startswith("flow floor, 6 lines +")]
    flow_ms = min(res[flow[0]][1]) if flow and flow[0] in res else None
    print(f"  {'report floor (report_floor.c), CPU ms':<44} {'MB':>7} {'numbers':>10} {'cpu min':>8}"
          f" {'x loop':>7}   {'+ flow floor, x loop':>20}")
    for fmt in fmts:
        if fmt == "svg":
            continue  # one flow drawn: its report is kilobytes
        out = os.path.join(tmp, f"report.{fmt}")
        subprocess.run([nt, "analyze", "--format", fmt, "-o", out, path], check=True)
        ms, numbers = [], 0
        for _ in range(runs):
            r = subprocess.run([rfloor, out], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True, check=True)
            f = r.stderr.split()
            ms.append(float(f[1]))
            numbers = int(f[3])
        # The floor's bytes are the report's, or it measured something else.
        with open(out, "rb") as want:
            got = subprocess.run([rfloor, out], capture_output=True, check=True).stdout
            if got != want.read():
                sys.exit(f"report_floor: {fmt}: the bytes differ from the report's")
        total = f"{(flow_ms + min(ms)) / loop:20.2f}" if flow_ms else f"{'-':>20}"
        print(f"  {'report floor, ' + fmt:<44} {os.path.getsize(out) / 1e6:7.1f} {numbers:10d}"
              f" {min(ms):8.1f} {min(ms) / loop:7.2f}   {total}")
        os.unlink(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(HERE, "../../build"))
    ap.add_argument("--baseline")
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--tmp", default="/tmp")
    ap.add_argument("--quick", action="store_true", help="--brief and jsonl only")
    ap.add_argument("--formats", help="only the read loop and these formats (comma-separated)")
    a = ap.parse_args()
    nt = os.path.abspath(os.path.join(a.build, "nagle-trace"))
    mkcap = os.path.abspath(os.path.join(a.build, "tests/golden/mkcap"))
    bins = [("", nt)] + ([("before ", os.path.abspath(a.baseline))] if a.baseline else [])
    tmp = tempfile.mkdtemp(dir=a.tmp)
    try:
        if a.baseline:
            # A copy of this build, run as a third binary: the gap between
            # it and the build is the noise a baseline's gap must beat (on
            # a shared guest, 7 % between copies in 21 interleaved runs).
            shutil.copy(nt, os.path.join(tmp, "nagle-trace"))
            bins.append(("again ", os.path.join(tmp, "nagle-trace")))
        loop = os.path.join(tmp, "pcap_read_loop")
        subprocess.run(["cc", "-O2", "-o", loop, os.path.join(HERE, "pcap_read_loop.c"), "-lpcap"],
                       check=True)
        rss_tool = os.path.join(tmp, "peak_rss")
        subprocess.run(["cc", "-O2", "-o", rss_tool, os.path.join(HERE, "peak_rss.c")], check=True)
        floor = os.path.join(tmp, "flow_floor")
        # The floor takes its memory as analyze does, by the same code (flow_floor.c).
        top = os.path.join(HERE, "../..")
        subprocess.run(["cc", "-O2", "-D_GNU_SOURCE", "-I", os.path.join(top, "include"), "-o", floor,
                        os.path.join(HERE, "flow_floor.c"), os.path.join(top, "src/pages.c"),
                        os.path.join(top, "src/model/pool.c"), os.path.join(top, "src/model/arena.c"),
                        "-lpcap"], check=True)
        report = report_bytes(tmp)
        rfloor = os.path.join(tmp, "report_floor")
        subprocess.run(["cc", "-O2", "-D_GNU_SOURCE", "-I", os.path.join(top, "include"), "-o", rfloor,
                        os.path.join(HERE, "report_floor.c"), os.path.join(top, "src/render/fmt.c")],
                       check=True)
        for flows, rounds in ((10000, 50), (100000, 5)):
            path = os.path.join(tmp, f"b{flows}.pcap")
            subprocess.run([mkcap, "bench", path, str(flows), str(rounds)], check=True)
            subprocess.run(["cat", path], stdout=subprocess.DEVNULL, check=True)
            print(f"{flows} flows x {rounds} rounds, {os.path.getsize(path) / 1e6:.0f} MB, "
                  f"{a.runs} runs each, cores {os.cpu_count()}, load {os.getloadavg()[0]:.2f}")
            # The least a flow table costs here: the read loop plus each
            # packet's entry found and 2 or 6 lines of it written (analyze
            # reads six, NT_FLOW_HOT_LINES), nothing else (flow_floor.c).
            cmds = [("read loop (pcap_next_ex)", [loop, path])]
            cmds += [(f"flow floor, {n} lines a packet", [floor, str(n), path]) for n in (2, 6)]
            cmds.append((f"flow floor, 6 lines + {report} B a flow", [floor, "6", path, str(report)]))
            # Every format; the ones that print the whole report on one
            # thread and on two, the documents (which render one flow in
            # detail beside it, or the whole text report inside) on two.
            whole = ("text", "json", "jsonl")
            fmts = ("jsonl",) if a.quick else whole + ("markdown", "svg", "html")
            # A report to a file costs what writing its bytes costs (page
            # cache, 430 MB of jsonl at 100,000 flows): that floor, by dd,
            # beside jsonl to a file. As analyze does, dd writes a new file
            # while the old one still holds its pages, then renames it over:
            # overwritten in place, the old file's freed pages make the
            # writes 10x cheaper on a guest (docs/performance.md). To
            # /dev/null a report is not spooled.
            out = os.path.join(tmp, "out.jsonl")
            subprocess.run([nt, "analyze", "--format", "jsonl", "-o", out, path], check=True)
            blocks = (os.path.getsize(out) + 262143) // 262144
            cmds.append((f"write floor (dd, {blocks / 4:.0f} MiB)",
                         ["sh", "-c", f"dd if=/dev/zero of={out}.dd bs=256k count={blocks} "
                          f"status=none && mv {out}.dd {out}"]))
            for tag, b in bins:
                base = [b, "analyze"]
                cmds.append((f"{tag}analyze --format jsonl -o FILE",
                             base + ["--format", "jsonl", "-o", out, path]))
                cmds.append((f"{tag}analyze --brief", base + ["--brief", path]))
                cmds.append((f"{tag}analyze --brief --jobs 1", base + ["--brief", "--jobs", "1", path]))
                for fmt in fmts:
                    cmds.append((f"{tag}analyze --format {fmt}", base + ["--format", fmt, path]))
                    if not a.quick and fmt in whole:
                        cmds.append((f"{tag}analyze --format {fmt} --jobs 1",
                                     base + ["--format", fmt, "--jobs", "1", path]))
            if a.formats:
                cmds = cmds[:1]
                for tag, b in bins:
                    for fmt in a.formats.split(","):
                        base = [b, "analyze", "--format", fmt]
                        cmds.append((f"{tag}analyze --format {fmt}", base + [path]))
                        cmds.append((f"{tag}analyze --format {fmt} --jobs 1", base + ["--jobs", "1", path]))
            if shutil.which("taskset") and len(os.sched_getaffinity(0)) > 1:
                cmds += pinned(loop, nt, path)
            res = timed(cmds, a.runs)
            # Peak RSS, one run more each (peak_rss.c: the command's own, not this Python's).
            rss = {name: peak_rss(rss_tool, cmd) for name, cmd in cmds}
            table(res, "read loop (pcap_next_ex)", rss)
            cores(res)
            report_floors(res, cmds, nt, path, rfloor, a.runs, tmp,
                          a.formats.split(",") if a.formats else fmts)
            print(f"  load after: {os.getloadavg()[0]:.2f}")
            os.unlink(path)
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    sys.exit(main())
