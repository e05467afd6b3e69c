#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""What one Dask worker costs per GB of capture (docs/fleet.md).
Not a test: it prints figures.

  tests/bench/bench_fleet.py [--build build] [--gb 1.0] [--tmp /tmp]

Writes `mkcap bench` captures (10,000 flows x 50 rounds, 149 MB each, every
flow stalling: the expensive case, a record per flow) until --gb is reached,
then runs examples/fleet-dask.py over them with --serial (no Dask), with one
worker and with two, with and without --no-records, and prints for each: wall time, the analyze processes'
CPU time (the script's own wait4() figure), the CPU time of the whole tree
(script, scheduler, workers: getrusage(RUSAGE_CHILDREN)), and the peak RSS of
a worker process and of an analyze process, sampled from /proc every 50 ms
(ru_maxrss cannot tell them: a child forked from Python keeps Python's
high-water mark, see peak_rss.c). The load average is printed beside them:
the machine may be shared.
"""
import argparse, os, re, resource, shutil, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def children_cpu_s():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def descendants(pid):
    """Every process under @pid, as {pid: (comm, cmdline)}."""
    parent = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                st = f.read()
            ppid = int(st[st.rindex(")") + 2:].split()[1])
            parent[int(d)] = ppid
        except (OSError, ValueError):
            pass
    out, todo = set(), [pid]
    while todo:
        p = todo.pop()
        for c, pp in parent.items():
            if pp == p and c not in out:
                out.add(c)
                todo.append(c)
    return out


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            m = re.search(r"^VmRSS:\s+(\d+)", f.read(), re.M)
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
        return (int(m.group(1)) if m else 0), cmd
    except OSError:
        return 0, ""


def run(cmd):
    """Run @cmd, sampling its tree: wall s, tree CPU s, peak worker and analyze RSS (KiB), stdout."""
    peak_worker = peak_analyze = 0
    t0, c0 = time.perf_counter(), children_cpu_s()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    while p.poll() is None:
        for d in descendants(p.pid):
            kib, line = rss_kib(d)
            if " analyze " in line:
                peak_analyze = max(peak_analyze, kib)
            elif "multiprocessing" in line or "spawn_main" in line:
                peak_worker = max(peak_worker, kib)
        time.sleep(0.05)
    out = p.stdout.read()
    return time.perf_counter() - t0, children_cpu_s() - c0, peak_worker, peak_analyze, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--gb", type=float, default=1.0)
    ap.add_argument("--tmp", default="/tmp")
    a = ap.parse_args()
    nt = os.path.abspath(os.path.join(a.build, "nagle-trace"))
    mkcap = os.path.abspath(os.path.join(a.build, "tests/golden/mkcap"))
    script = os.path.join(ROOT, "examples", "fleet-dask.py")
    tmp = tempfile.mkdtemp(dir=a.tmp)
    try:
        first = os.path.join(tmp, "c0.pcap")
        subprocess.run([mkcap, "bench", first, "10000", "50"], check=True)
        caps, total = [first], os.path.getsize(first)
        while total < a.gb * 1e9:
            c = os.path.join(tmp, f"c{len(caps)}.pcap")
            shutil.copyfile(first, c)
            caps.append(c)
            total += os.path.getsize(c)
        subprocess.run(["cat"] + caps, stdout=subprocess.DEVNULL, check=True)
        gb = total / 1e9
        print(f"{len(caps)} captures, {gb:.2f} GB (10,000 flows x 50 rounds each), "
              f"cores {os.cpu_count()}, load average {os.getloadavg()[0]:.2f} before")
        for label, extra in (("--serial (no Dask)", ["--serial"]), ("1 worker", ["--workers", "1"]),
                             ("2 workers", ["--workers", "2"]),
                             ("1 worker, no records", ["--workers", "1", "--no-records"]),
                             ("2 workers, no records", ["--workers", "2", "--no-records"])):
            wall, cpu, w_kib, a_kib, out = run([script, "--nagle-trace", nt, "--out",
                                                os.path.join(tmp, "out")] + extra + caps)
            m = re.search(r"map step: ([\d.]+) CPU s", out)
            an = float(m.group(1)) if m else float("nan")
            print(f"  {label:<22} wall {wall:6.2f} s ({wall / gb:5.2f} s/GB)   analyze CPU {an:6.2f} s "
                  f"({an / gb:5.2f} s/GB)   whole tree CPU {cpu:6.2f} s ({cpu / gb:5.2f} s/GB)   "
                  f"peak RSS worker {w_kib / 1024:6.1f} MiB, analyze {a_kib / 1024:6.1f} MiB   "
                  f"load {os.getloadavg()[0]:.2f}")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    sys.exit(main())
