#!/usr/bin/env python3
"""make_report_fixtures.py — writes tests/fixtures/report/: two hand-made results files
"from two machines" in headroom's Google Benchmark schema, for `headroom report` tests.

The numbers are invented (plausible, not measured) and chosen so the tests can check
the table exactly: machine A (2 CPUs) has roofline ceilings attached, machine B (16
CPUs) has none, a thread-scaling pair (T1, T16) where the report must show T16, a
kernel only A measured, and one file as a sweep directory, the other as a bare
results.json. Re-run after changing it: python3 scripts/make_report_fixtures.py
"""
import json
import os

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "report")

SHAPES = [  # batch, heads, kv_heads, seq_q, seq_kv, d_head, causal
    (1, 16, 16, 2048, 2048, 64, False),
    (1, 8, 8, 512, 512, 64, True),
]


def flops(s):
    b, h, g, nq, nk, d, causal = s
    pairs = sum(min(nk, i + 1 + nk - nq) for i in range(nq)) if causal else nq * nk
    return 4.0 * b * h * d * pairs


def rows(kernel, s, threads, gflops, spread, ceiling=None, attainable=None):
    """Five iteration rows around gflops (+-spread) and the four aggregates."""
    b, h, g, nq, nk, d, causal = s
    name = "%s/B%d/H%d/G%d/N%d/M%d/d%d/%s/bhnd/T%d" % (
        kernel, b, h, g, nq, nk, d, "causal" if causal else "full", threads)
    f = flops(s)
    gs = [gflops * (1 + spread * x) for x in (-1.0, -0.5, 0.0, 0.5, 1.0)]
    times = [f / (x * 1e9) for x in gs]
    fields = {"kernel": kernel, "batch": b, "heads": h, "kv_heads": g, "seq_q": nq, "seq_kv": nk,
              "d_head": d, "causal": causal, "layout": "bhnd", "block_q": 64, "block_kv": 64,
              "tune_source": "default", "flops": f, "bytes": 4.0 * d * (2 * b * h * nq + 2 * b * g * nk),
              "workspace_bytes": 0}

    def counters(gf):
        c = {}
        if ceiling:
            c["ceiling_gflops"] = ceiling
            c["attainable_gflops"] = attainable
            c["pct_of_roofline"] = 100.0 * gf / attainable
        return c

    out = []
    for i, (t, gf) in enumerate(zip(times, gs)):
        o = {"name": name, "family_index": 0, "per_family_instance_index": 0, "run_name": name,
             "run_type": "iteration", "repetitions": 5, "repetition_index": i, "threads": threads,
             "iterations": 3, "real_time": t * 1e9, "cpu_time": t * 1e9, "time_unit": "ns"}
        o.update(fields)
        o.update(counters(gf))
        o["GFLOPS"] = gf
        out.append(o)
    tmed = sorted(times)[2]
    for agg, v in (("median", tmed), ("mean", sum(times) / 5), ("stddev", 0.0), ("cv", 0.0)):
        o = {"name": name + "_" + agg, "family_index": 0, "per_family_instance_index": 0,
             "run_name": name, "run_type": "aggregate", "repetitions": 5, "threads": threads,
             "aggregate_name": agg, "aggregate_unit": "time", "iterations": 5,
             "real_time": v * 1e9, "cpu_time": v * 1e9, "time_unit": "ns"}
        o.update(fields)
        if agg in ("median", "mean"):
            o.update(counters(f / v * 1e-9))
            o["GFLOPS"] = f / v * 1e-9
        out.append(o)
    return out


def context(cpu, machine, cpus, date):
    return {"date": date, "host_name": "fixture", "executable": "headroom", "num_cpus": cpus,
            "mhz_per_cpu": 2400, "cpu_scaling_enabled": False, "caches": [], "load_avg": [0, 0, 0],
            "library_build_type": "release", "cpu_model": cpu, "machine": machine,
            "mem_bytes": 25769803776, "isa": "avx512", "compiler": "fixture", "cflags": "fixture",
            "git_commit": "fixture", "build_id": "0000000000000000", "omp_max_threads": cpus,
            "omp_proc_bind": "unset", "omp_places": "unset",
            "warnings": ["hand-made fixture for tests: the numbers are invented, not measured"]}


def write(path, doc):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


a = []  # machine A: 2 CPUs, ceilings attached (peak 180, attainable 150 for both shapes)
a += rows("naive", SHAPES[0], 1, 2.5, 0.04, 90.0, 75.0)
a += rows("simd", SHAPES[0], 1, 30.0, 0.04, 90.0, 75.0)
a += rows("flash", SHAPES[0], 2, 96.0, 0.04, 180.0, 150.0)
a += rows("decode", SHAPES[0], 2, 20.0, 0.04, 180.0, 150.0)
a += rows("simd", SHAPES[1], 1, 25.0, 0.04, 90.0, 75.0)
a += rows("flash", SHAPES[1], 2, 60.0, 0.04, 180.0, 150.0)
write(os.path.join(ROOT, "amd-epyc-9654-2c", "20261122-010000-shootout", "results.json"),
      {"context": context("AMD EPYC 9654 96-Core Processor", "amd-epyc-9654-2c", 2,
                          "2026-11-22T01:00:00+0000"), "benchmarks": a})

b = []  # machine B: 16 CPUs, no ceilings, flash measured at T1 and T16
b += rows("naive", SHAPES[0], 1, 3.0, 0.05)
b += rows("simd", SHAPES[0], 1, 40.0, 0.05)
b += rows("flash", SHAPES[0], 1, 50.0, 0.05)
b += rows("flash", SHAPES[0], 16, 640.0, 0.05)
b += rows("simd", SHAPES[1], 1, 33.0, 0.05)
b += rows("flash", SHAPES[1], 16, 400.0, 0.05)
write(os.path.join(ROOT, "intel-xeon-8480-16c", "results.json"),
      {"context": context("Intel(R) Xeon(R) Platinum 8480+", "intel-xeon-platinum-8480-16c", 16,
                          "2026-11-21T18:00:00+0000"), "benchmarks": b})
