#!/usr/bin/env python3
"""make_history_fixtures.py — writes synthetic run histories for `headroom history` tests.

Deterministic (seeded) and stdlib only. Usage: python3 scripts/make_history_fixtures.py OUTDIR

Every run is a results directory holding a results.json in headroom's schema: a context
(machine, omp_max_threads, git_commit, git_commit_time, date) and 3 benchmarks x 9
repetitions (times +-1% noise) with flops and attainable_gflops, plus their aggregates.
Four runs of two commits, A (2 runs) then B (2 runs); the directory names sort in the
opposite order of the commit dates (d1-... is the oldest, a4-... the newest), so a reader
that ordered by name would judge the wrong run.
  OUTDIR/slow/    the newest run (commit B's second) has flash's repetitions x 1.10
                  -> a slower change point in the newest run: history --check exits 1
  OUTDIR/aa/      the same four runs without the slowdown (A/A)     -> --check exits 0;
                  its c2 run has no git_commit_time: ordered by its run date instead
  OUTDIR/other/   one run of another machine                        -> refused without --mix
  OUTDIR/threads/ one run with omp_max_threads 4 (the others 2)     -> refused without --mix
"""
import json
import os
import random
import sys

BENCHES = [
    # name, median ns, FLOPs, attainable GFLOP/s
    ("flash/B1/H2/G2/N64/M64/d16/full/bhnd/T2", 40000.0, 2 * 4 * 2 * 64 * 64 * 16, 60.0),
    ("naive/B1/H2/G2/N64/M64/d16/full/bhnd/T2", 90000.0, 2 * 4 * 2 * 64 * 64 * 16, 60.0),
    ("naive/B1/H2/G2/N128/M128/d16/causal/bhnd/T2", 150000.0, 4 * 2 * 16 * (128 * 129 // 2), 60.0),
]
RUNS = [
    # directory, commit, commit time, run date
    ("d1-first", "aaaaaaaaaaaa", "2026-01-01T10:00:00+00:00", "2026-01-02T09:00:00+0000"),
    ("c2-second", "aaaaaaaaaaaa", "2026-01-01T10:00:00+00:00", "2026-01-03T09:00:00+0000"),
    ("b3-third", "bbbbbbbbbbbb", "2026-01-05T12:00:00+01:00", "2026-01-06T09:00:00+0000"),
    ("a4-newest", "bbbbbbbbbbbb", "2026-01-05T12:00:00+01:00", "2026-01-07T09:00:00+0000"),
]


def run_doc(rng, commit, ctime, date, slow=None, machine="test-machine-2c", threads=2):
    ctx = {"date": date, "host_name": "fixture", "executable": "headroom", "num_cpus": 2,
           "machine": machine, "cpu_model": "Fixture CPU", "isa": "avx2", "git_commit": commit,
           "omp_max_threads": threads, "library_build_type": "release"}
    if ctime:
        ctx["git_commit_time"] = ctime
    rows = []
    for name, ns, flops, roof in BENCHES:
        scale = 1.10 if name == slow else 1.0
        times = [ns * scale * (1 + rng.uniform(-0.01, 0.01)) for _ in range(9)]
        for i, t in enumerate(times):
            rows.append({"name": name, "run_name": name, "run_type": "iteration", "repetitions": 9,
                         "repetition_index": i, "threads": 2, "iterations": 100, "real_time": t,
                         "cpu_time": t, "time_unit": "ns", "flops": flops, "GFLOPS": flops / t,
                         "attainable_gflops": roof})
        med = sorted(times)[4]
        rows.append({"name": name + "_median", "run_name": name, "run_type": "aggregate",
                     "aggregate_name": "median", "repetitions": 9, "threads": 2, "iterations": 9,
                     "real_time": med, "cpu_time": med, "time_unit": "ns", "flops": flops,
                     "GFLOPS": flops / med, "attainable_gflops": roof})
    return {"context": ctx, "benchmarks": rows}


def write(path, doc):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def main():
    out = sys.argv[1]
    for series in ("slow", "aa"):
        rng = random.Random(21 if series == "slow" else 42)
        for i, (d, commit, ctime, date) in enumerate(RUNS):
            slow = BENCHES[0][0] if series == "slow" and i == len(RUNS) - 1 else None
            if series == "aa" and d.startswith("c2"):
                ctime = None  # ordered by its run date
            write(os.path.join(out, series, d, "results.json"), run_doc(rng, commit, ctime, date, slow))
    rng = random.Random(7)
    d, commit, ctime, date = RUNS[-1]
    write(os.path.join(out, "other", "results.json"),
          run_doc(rng, commit, ctime, date, machine="another-machine-8c"))
    write(os.path.join(out, "threads", "results.json"), run_doc(rng, commit, ctime, date, threads=4))


if __name__ == "__main__":
    main()
