#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The lesson page's model equals the native one.

For every knob combination tests/integration/model_conformance.py uses (the
full sweep, with its round counts), `nagle-trace predict --format json`
predicts natively and `nagle-trace predict --format html` writes the page;
tests/js/wasm_model.mjs runs the WebAssembly module the page carries, under
Node's WASI, with the knob vector the page carries. Every member the native
JSON gives a round (verdict, verdict set, each decision's rule and sentence,
the H->A window, segments, delayed ACKs, the target's state) and the summary's
verdict counts and fix must be equal.

usage: wasm_conformance.py --nagle-trace BIN --node-script wasm_model.mjs
                           [--override JSON] [--expect-mismatch]

--override changes knobs in the WebAssembly run only; with --expect-mismatch
the comparison must then fail (the test of the test).

Exit status: 0 equal (or, with --expect-mismatch, a mismatch found), 1 not,
2 usage, 3 a program failed.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model_conformance import COMBOS  # noqa: E402


def run(cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.stderr.write(f"wasm_conformance: {' '.join(cmd)} exited {p.returncode}: "
                         f"{p.stderr.strip()}\n")
        sys.exit(3)
    return p.stdout


def diff(native, wasm, where):
    out = []
    for key, value in native.items():
        if key not in wasm:
            out.append(f"{where}.{key}: missing in the WebAssembly prediction")
        elif wasm[key] != value:
            out.append(f"{where}.{key}: native {json.dumps(value)[:160]} "
                       f"!= wasm {json.dumps(wasm[key])[:160]}")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nagle-trace", required=True)
    ap.add_argument("--node-script", required=True)
    ap.add_argument("--override", default="")
    ap.add_argument("--expect-mismatch", action="store_true")
    a = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="nt-wasm-")
    cases = []
    for spec, rounds in COMBOS:
        args = shlex.split(spec.lstrip("*")) + ["--rounds", str(rounds)]
        page = os.path.join(tmp, f"{len(cases)}.html")
        native = json.loads(run([a.nagle_trace, "predict", "--format", "json"] + args))
        run([a.nagle_trace, "predict", "--format", "html", "-o", page] + args)
        cases.append((spec.lstrip("*"), page, native))
    env = dict(os.environ)
    if a.override:
        env["NT_WASM_OVERRIDE"] = a.override
    lines = run(["node", "--no-warnings", a.node_script] + [c[1] for c in cases], env).splitlines()
    if len(lines) != len(cases):
        sys.stderr.write(f"wasm_conformance: {len(lines)} results for {len(cases)} pages\n")
        sys.exit(3)
    bad = 0
    rounds = 0
    for (spec, _page, native), line in zip(cases, lines):
        pred = json.loads(line)["runs"][0]["prediction"]
        problems = []
        if "error" in pred:
            problems.append(f"the WebAssembly model refused the knobs: {pred['error']}")
        else:
            if len(pred["rounds"]) != len(native["rounds"]):
                problems.append(f"{len(pred['rounds'])} rounds, native "
                                f"{len(native['rounds'])}")
            for nr, wr in zip(native["rounds"], pred["rounds"]):
                problems += diff(nr, wr, f"round {nr['index']}")
                rounds += 1
            problems += diff({k: native["summary"][k] for k in ("verdicts", "fix")},
                             pred["summary"], "summary")
            if pred["knobs"]["mss"] != native["knobs"]["mss"]:
                problems.append("mss differs")
        print(f"{'MISMATCH' if problems else 'same    '} {spec}")
        for p in problems[:6]:
            print(f"    {p}")
        bad += bool(problems)
    print(f"{len(cases) - bad} of {len(cases)} combinations identical, {rounds} rounds compared")
    if a.expect_mismatch:
        return 0 if bad else 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
