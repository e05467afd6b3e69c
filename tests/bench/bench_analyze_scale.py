#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""analyze at scale (issue 17): many concurrent flows, several files, memory.
Not a test: it prints figures and ratios against references measured in the
same invocation (runs interleaved, so a shared machine's load moves both).

  tests/bench/bench_analyze_scale.py [--build build] [--baseline OTHER/nagle-trace]
                                     [--runs 10] [--tmp /tmp]

1. One file: `mkcap bench` captures of 2,000 flows x 500 rounds (4.0 M
   packets) and 10,000 flows x 50 rounds (2.1 M packets): the libpcap read
   loops (pcap_next_ex(), the floor, and pcap_dispatch()) against analyze in
   text, json and jsonl; wall-clock min/p50/p90 and the ratio of each to the
   floor's.
   --brief (nothing per flow rendered) is the analysis alone, --brief
   --jobs 1 the same on one thread (no reader thread), --jobs 1 the whole
   report on one thread (src/capture/feed.c, src/render/chunks.c).
   Then 128 to 2,000 flows rendered by --jobs 1 and --jobs 2: where threads
   start to pay (NT_CHUNKS_MIN_ITEMS).
2. Four files of 2,000 flows x 100 rounds: --jobs 1 against the default.
3. Peak RSS (tests/bench/peak_rss.c) at 1,000, 10,000 and 100,000 concurrent
   flows, at 1,000 flows with 10x the packets, and at 100 flows of 20,000
   stalls each (the per-flow bound on kept stall durations, NT_STALL_KEPT).
   Then 10,000 flows at once in one wave and in ten (`mkcap bench ... WAVES`,
   each wave's flows idle out of the table as the next begins): --brief and
   svg keep no report past its flow but the worst one (enum
   nt_analysis_keep), text keeps all.
--baseline adds another binary (a build of an older commit) to each row.
Captures go to a temporary directory under --tmp, removed at the end.
"""
import argparse, os, resource, shutil, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))


def cpu_s():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmds, runs):
    """Interleaved runs of each command: {name: ([wall ms], [cpu ms])}."""
    out = {name: ([], []) for name, _ in cmds}
    for _ in range(runs):
        for name, cmd in cmds:
            t0, c0 = time.perf_counter(), cpu_s()
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            out[name][0].append((time.perf_counter() - t0) * 1000)
            out[name][1].append((cpu_s() - c0) * 1000)
    return out


def table(res, ref):
    """Wall clock, and CPU time (user + system: steadier on a shared machine)."""
    base, base_cpu = min(res[ref][0]), min(res[ref][1])
    for name, (w, c) in res.items():
        w = sorted(w)
        p50, p90 = statistics.median(w), w[int(0.9 * (len(w) - 1))]
        print(f"  {name:<40} wall min {w[0]:7.1f} p50 {p50:7.1f} p90 {p90:7.1f} ms {w[0] / base:5.2f}x"
              f"   cpu min {min(c):7.1f} p50 {statistics.median(c):7.1f} ms {min(c) / base_cpu:5.2f}x")


def peak_rss(tool, cmd):
    p = subprocess.run([tool] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for line in p.stderr.splitlines():
        if line.startswith("peak_rss_kib"):
            return int(line.split()[1]) / 1024
    sys.exit(f"bench: no peak RSS from {' '.join(cmd)}: {p.stderr.strip()}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(HERE, "../../build"))
    ap.add_argument("--baseline")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--tmp", default="/tmp")
    a = ap.parse_args()
    nt = os.path.abspath(os.path.join(a.build, "nagle-trace"))
    mkcap = os.path.abspath(os.path.join(a.build, "tests/golden/mkcap"))
    bins = [("", nt)] + ([("before ", os.path.abspath(a.baseline))] if a.baseline else [])
    tmp = tempfile.mkdtemp(dir=a.tmp)
    try:
        loop, rss = os.path.join(tmp, "pcap_read_loop"), os.path.join(tmp, "peak_rss")
        subprocess.run(["cc", "-O2", "-o", loop, os.path.join(HERE, "pcap_read_loop.c"), "-lpcap"],
                       check=True)
        subprocess.run(["cc", "-O2", "-o", rss, os.path.join(HERE, "peak_rss.c")], check=True)

        def cap(name, flows, rounds, waves=1):
            path = os.path.join(tmp, name)
            subprocess.run([mkcap, "bench", path, str(flows), str(rounds), str(waves)], check=True)
            subprocess.run(["cat", path], stdout=subprocess.DEVNULL, check=True)
            return path

        for flows, rounds in ((2000, 500), (10000, 50)):
            path = cap(f"b{flows}.pcap", flows, rounds)
            print(f"one file: {flows} flows x {rounds} rounds, "
                  f"{os.path.getsize(path) / 1e6:.0f} MB, {a.runs} runs each")
            cmds = [("pcap_next_ex loop (floor)", [loop, path]),
                    ("pcap_dispatch loop", [loop, "--dispatch", path])]
            for tag, b in bins:
                cmds.append((f"{tag}analyze --brief (no flow rendered)", [b, "analyze", "--brief", path]))
                for fmt in ("text", "json", "jsonl"):
                    cmds.append((f"{tag}analyze --format {fmt}", [b, "analyze", "--format", fmt, path]))
                    if not tag:
                        cmds.append((f"analyze --format {fmt} --jobs 1 (one render thread)",
                                     [b, "analyze", "--format", fmt, "--jobs", "1", path]))
            cmds.append(("analyze --brief --jobs 1 (one thread)",
                         [nt, "analyze", "--brief", "--jobs", "1", path]))
            table(timed(cmds, a.runs), "pcap_next_ex loop (floor)")
            os.unlink(path)

        # The flows rendered by one thread or one per core, near the chunk
        # threshold (NT_CHUNKS_MIN_ITEMS, include/nt/render/chunks.h).
        print(f"rendering threads near the threshold, {a.runs * 3} runs each (cores: {os.cpu_count()})")
        for flows in (128, 256, 500, 1000, 2000):
            path = cap(f"r{flows}.pcap", flows, 3)
            cmds = []
            for fmt in ("text", "json"):
                for jobs in ("1", "2"):
                    cmds.append((f"{flows:>5} flows --format {fmt} --jobs {jobs}",
                                 [nt, "analyze", "--format", fmt, "--jobs", jobs, path]))
            table(timed(cmds, a.runs * 3), f"{flows:>5} flows --format text --jobs 1")
            os.unlink(path)

        one = cap("q1.pcap", 2000, 100)
        files = [one] + [os.path.join(tmp, f"q{i}.pcap") for i in (2, 3, 4)]
        for f in files[1:]:
            shutil.copyfile(one, f)
        print(f"four files of 2000 flows x 100 rounds, {a.runs} runs each (cores: {os.cpu_count()})")
        cmds = []
        for tag, b in bins:
            for fmt in ("text", "json"):
                # An older build may not know --jobs: run it as it comes.
                serial = ["--jobs", "1"] if not tag else []
                cmds.append((f"{tag}analyze {'--jobs 1 ' if serial else '(its default) '}--format {fmt}",
                             [b, "analyze"] + serial + ["--format", fmt] + files))
                if not tag:
                    cmds.append((f"analyze --format {fmt} (parallel)",
                                 [b, "analyze", "--format", fmt] + files))
        table(timed(cmds, a.runs), "analyze --jobs 1 --format text")
        for f in files:
            os.unlink(f)

        print("peak RSS, analyze --format json (MiB)")
        for flows, rounds in ((1000, 200), (1000, 2000), (100, 20000), (10000, 50), (100000, 10)):
            path = cap("m.pcap", flows, rounds)
            row = []
            for tag, b in bins:
                row.append(f"{tag or 'now '}{peak_rss(rss, [b, 'analyze', '--format', 'json', '--max-flows', '131072', path]):7.1f}")
            print(f"  {flows:>6} flows x {rounds:>4} rounds ({os.path.getsize(path) / 1e6:5.0f} MB): "
                  + "   ".join(row))
            os.unlink(path)

        # Flows in waves of 10,000, each wave's leaving the table (idle for
        # 60 s) as the next begins: the reports that outlive their flows.
        print("peak RSS, 10,000 flows x 3 rounds at once, in 1 and in 10 waves (MiB)")
        for waves in (1, 10):
            path = cap("w.pcap", 10000, 3, waves)
            for args in (["--brief"], ["--format", "svg"], ["--format", "text"]):
                row = [f"{tag or 'now '}{peak_rss(rss, [b, 'analyze'] + args + [path]):7.1f}"
                       for tag, b in bins]
                print(f"  {waves:>2} wave{'s' if waves > 1 else ' '} ({os.path.getsize(path) / 1e6:4.0f} MB)"
                      f" {' '.join(args):<14}: " + "   ".join(row))
            os.unlink(path)
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
