#!/usr/bin/env python3
"""make_compare_fixtures.py — writes the results files tests/fixtures/compare/*.json.

Deterministic (seeded) and stdlib only: rerun it to regenerate the fixtures byte for
byte. Usage: python3 scripts/make_compare_fixtures.py [OUTDIR]

What each file is for (tests/test_compare.c and tests/sh_compare.sh rely on these):
  base.json           headroom-style, 5 benchmarks x 9 repetitions (+ aggregates), times
                      in ns, counters GFLOPS and frac_of_ceiling; one row (NOISY) has
                      +-15% noise, the others about +-1%.
  same.json           an identical copy of base.json                    -> exit 0
  slow.json           SLOW_ROW's repetitions x 1.10 (its frac / 1.10)     -> exit 1
  fast.json           FAST_ROW's repetitions x 0.85                      -> improvement, 0
  noisy.json          NOISY's repetitions x 1.06: 6% slower in the median, but with
                      +-15% noise: beyond the threshold, not significant -> noise, 0
  ms.json             base.json with every time in ms instead of ns      -> exit 0
  other_machine.json  base.json with another cpu_model, host and build   -> warnings, 0
  few_base.json,      3 repetitions per row; few_slow has SLOW_ROW x 1.10: the U test
  few_slow.json       cannot reach p < 0.05 with 3 and 3 (smallest p = 0.1) -> warning, 0
  gbench_base.json,   Google Benchmark's own output without repetitions (one iteration
  gbench_slow.json    row per benchmark, mixed time units, an errored row); gbench_slow
                      has BM_attention/1024 10% slower: threshold alone  -> exit 1
  malformed.json      invalid JSON (an unquoted key)                     -> exit 2
  truncated.json      base.json cut off in the middle                    -> exit 2
  nobench.json        a context but no "benchmarks" array                -> exit 2

The machine's shift (8 rows, enough to estimate one; 6 FMA-probed, 2 bandwidth-probed,
every repetition with probe_kind, probe_gflops or probe_gbs, and frac_of_ceiling):
  shift_base.json          the baseline: times +-1%, probes +-1%
  shift_machine_slow.json  every time x 1.25, every probe / 1.25: a slower machine -> 0
                           (without the shift: 8 regressions)
  shift_machine_fast.json  every time x 0.80, every probe / 0.80: a faster machine -> 0
  shift_machine_plus.json  shift_machine_slow with SHIFT_ROW a further x 1.10: one real
                           regression inside a machine shift                      -> 1
  shift_code_slow.json     every time x 1.10, probes as in the base: the probes do not
                           see it, so it is the code's                            -> 1
  shift_uneven.json        4 rows x 1.30, 4 unchanged, probes unchanged           -> 3
  shift_disagree.json      times unchanged, every probe x 1.25 (the probes say 20% faster)
                                                                                  -> 3
  shift_kindflip.json      the base with KINDFLIP_ROWS probed by the bandwidth probe
                           instead of FMA (their frac_of_ceiling 2.25x): --metric
                           normalized leaves them out with a warning
  noprobe_base.json,       the same 8 rows without probe fields; noprobe_slow has every
  noprobe_slow.json        time x 1.10: no probes to attribute it                 -> 3
  noprobe_small.json       noprobe_base with every time x 1.03 and SHIFT_ROW x 1.12: the
                           3% taken out, SHIFT_ROW still 8.7% slower              -> 1
"""
import copy
import json
import math
import os
import random
import sys

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "compare")

REPS = 9
SLOW_ROW = "flash/B1/H16/G16/N2048/M2048/d64/causal/bhnd/T2"
FAST_ROW = "blocked/B1/H16/G16/N1024/M1024/d64/none/bhnd/T2"
NOISY = "naive/B1/H8/G8/N512/M512/d64/none/bhnd/T1"

# name, typical GFLOP/s on a 2-core runner, FLOPs of one call (counts.c's rules)
ROWS = [
    (SLOW_ROW, 75.0, 4 * 16 * 64 * (2048 * 2049 // 2)),
    (FAST_ROW, 40.0, 4 * 16 * 1024 * 1024 * 64),
    ("gqa/B1/H32/G8/N2048/M2048/d128/causal/bnhd/T2", 90.0, 4 * 32 * 128 * (2048 * 2049 // 2)),
    ("decode/B4/H32/G8/N1/M8192/d128/none/bhnd/T2", 20.0, 4 * 4 * 32 * 8192 * 128),
    (NOISY, 8.0, 4 * 8 * 512 * 512 * 64),
]
CEILING_GFLOPS = 180.0  # the concurrent-ceiling probe's figure for frac_of_ceiling

CONTEXT = {
    "date": "2026-11-22T01:30:00+0000",
    "host_name": "ci-runner-1",
    "executable": "headroom",
    "num_cpus": 2,
    "mhz_per_cpu": 2450,
    "cpu_scaling_enabled": False,
    "caches": [
        {"type": "Data", "level": 1, "size": 32768, "num_sharing": 1},
        {"type": "Unified", "level": 2, "size": 1048576, "num_sharing": 1},
        {"type": "Unified", "level": 3, "size": 33554432, "num_sharing": 2},
    ],
    "load_avg": [0.5, 0.4, 0.3],
    "library_build_type": "release",
    "cpu_model": "AMD EPYC 9R14 96-Core Processor",
    "machine": "amd-epyc-9r14-2c",
    "isa": "avx512",
    "compiler": "12.2.0",
    "cflags": "-std=c11 -O3 -march=native -fopenmp",
    "git_commit": "0123456789ab",
    "build_id": "5f1c0e2a9b3d4c77",
    "omp_max_threads": 2,
}


def draw(rng, median, spread, n):
    """n samples around median with relative noise uniform in +-spread."""
    return [median * (1 + rng.uniform(-spread, spread)) for _ in range(n)]


def rows_for(name, flops, times_ns, unit="ns"):
    """Google Benchmark-schema rows of one benchmark: iterations, then aggregates."""
    scale = {"ns": 1, "us": 1e-3, "ms": 1e-6, "s": 1e-9}[unit]
    out = []
    gf = [flops / t for t in times_ns]  # FLOP per ns = GFLOP/s
    for i, t in enumerate(times_ns):
        out.append({
            "name": name, "family_index": 0, "per_family_instance_index": 0,
            "run_name": name, "run_type": "iteration", "repetitions": len(times_ns),
            "repetition_index": i, "threads": 2, "iterations": max(1, int(0.2e9 / t)),
            "real_time": t * scale, "cpu_time": t * scale, "time_unit": unit,
            "GFLOPS": gf[i], "frac_of_ceiling": gf[i] / CEILING_GFLOPS,
        })
    srt = sorted(times_ns)
    n = len(srt)
    med = srt[n // 2] if n % 2 else (srt[n // 2 - 1] + srt[n // 2]) / 2
    mean = sum(times_ns) / n
    sd = math.sqrt(sum((t - mean) ** 2 for t in times_ns) / (n - 1)) if n > 1 else 0.0
    for agg, val, pct in (("median", med, False), ("mean", mean, False),
                          ("stddev", sd, False), ("cv", sd / mean, True)):
        row = {
            "name": name + "_" + agg, "family_index": 0, "per_family_instance_index": 0,
            "run_name": name, "run_type": "aggregate", "repetitions": n, "threads": 2,
            "aggregate_name": agg, "aggregate_unit": "percentage" if pct else "time",
            "iterations": n, "real_time": val if pct else val * scale,
            "cpu_time": val if pct else val * scale, "time_unit": unit,
        }
        if agg == "median":
            row["GFLOPS"] = flops / med
            row["frac_of_ceiling"] = flops / med / CEILING_GFLOPS
        out.append(row)
    return out


def results(samples, context=CONTEXT, unit="ns"):
    """A results file from {name: times_ns} in ROWS order."""
    benches = []
    for name, _, flops in ROWS:
        benches += rows_for(name, flops, samples[name], unit)
    return {"context": context, "benchmarks": benches}


def dump(obj):
    return json.dumps(obj, indent=2) + "\n"


def write(name, text):
    with open(os.path.join(OUT, name), "w") as f:
        f.write(text)


def gbench(times_ns):
    """Google Benchmark's own JSON without repetitions: one iteration row each."""
    ctx = {k: CONTEXT[k] for k in ("date", "host_name", "executable", "num_cpus",
                                  "mhz_per_cpu", "cpu_scaling_enabled", "caches",
                                  "load_avg", "library_build_type")}
    ctx["executable"] = "./attention_bench"
    benches = []
    units = ["us", "ms", "ns"]
    for i, (name, t) in enumerate(times_ns.items()):
        unit = units[i % len(units)]
        scale = {"ns": 1, "us": 1e-3, "ms": 1e-6}[unit]
        benches.append({
            "name": name, "family_index": i, "per_family_instance_index": 0,
            "run_name": name, "run_type": "iteration", "repetitions": 1,
            "repetition_index": 0, "threads": 1, "iterations": max(1, int(1e9 / t)),
            "real_time": t * scale, "cpu_time": t * scale * 0.999, "time_unit": unit,
            "items_per_second": 1e9 / t,
        })
    benches.append({
        "name": "BM_attention_huge/65536", "family_index": 9,
        "per_family_instance_index": 0, "run_name": "BM_attention_huge/65536",
        "run_type": "iteration", "repetitions": 1, "repetition_index": 0, "threads": 1,
        "iterations": 0, "real_time": 0, "cpu_time": 0, "time_unit": "ns",
        "error_occurred": True, "error_message": "workspace exceeds the memory budget",
    })
    return {"context": ctx, "benchmarks": benches}


# The shift fixtures: name, probe kind, GFLOP/s of the kernel, FLOPs per call.
SHIFT_ROWS = [
    ("flash/B1/H8/G8/N1024/M1024/d64/none/bhnd/T2", "fma", 60.0, 4 * 8 * 1024 * 1024 * 64),
    ("gqa/B1/H8/G2/N1024/M1024/d64/none/bhnd/T2", "fma", 62.0, 4 * 8 * 1024 * 1024 * 64),
    ("blocked/B1/H8/G8/N1024/M1024/d64/none/bhnd/T2", "fma", 35.0, 4 * 8 * 1024 * 1024 * 64),
    ("simd/B1/H8/G8/N1024/M1024/d64/none/bhnd/T2", "fma", 30.0, 4 * 8 * 1024 * 1024 * 64),
    ("omp/B1/H8/G8/N1024/M1024/d64/none/bhnd/T2", "fma", 28.0, 4 * 8 * 1024 * 1024 * 64),
    ("naive/B1/H8/G8/N512/M512/d64/none/bhnd/T1", "fma", 6.0, 4 * 8 * 512 * 512 * 64),
    ("decode/B1/H8/G8/N1/M65536/d64/none/bhnd/T2", "bw", 8.0, 4 * 8 * 65536 * 64),
    ("decode/B4/H8/G2/N1/M65536/d64/none/bhnd/T2", "bw", 9.0, 4 * 4 * 8 * 65536 * 64),
]
SHIFT_ROW = SHIFT_ROWS[0][0]
KINDFLIP_ROWS = [SHIFT_ROWS[2][0], SHIFT_ROWS[3][0]]
PROBE = {"fma": 180.0, "bw": 40.0}  # the concurrent probe: GFLOP/s or GB/s
BYTES_PER_FLOP = 0.5  # decode's traffic per FLOP, for its GB/s


def shift_rows(name, kind, flops, times_ns, probes, with_probe=True):
    """Iteration rows of one probed benchmark (a sweep's rows, without aggregates)."""
    out = []
    for i, (t, p) in enumerate(zip(times_ns, probes)):
        rate = flops / t if kind == "fma" else flops * BYTES_PER_FLOP / t
        row = {
            "name": name, "run_name": name, "run_type": "iteration",
            "repetitions": len(times_ns), "repetition_index": i, "threads": 2,
            "iterations": max(1, int(0.02e9 / t)), "real_time": t, "cpu_time": t,
            "time_unit": "ns", "GFLOPS": flops / t,
        }
        if with_probe:
            row["probe_kind"] = kind
            row["probe_gflops" if kind == "fma" else "probe_gbs"] = p
            row["frac_of_ceiling"] = rate / p
        out.append(row)
    return out


def shift_file(times, probes, kinds=None, with_probe=True):
    """A results file of SHIFT_ROWS from {name: times}, {name: probes}."""
    benches = []
    for name, kind, _, flops in SHIFT_ROWS:
        k = (kinds or {}).get(name, kind)
        benches += shift_rows(name, k, flops, times[name], probes[name], with_probe)
    return {"context": CONTEXT, "benchmarks": benches}


def write_shift_fixtures():
    rng = random.Random(20261123)
    t0 = {n: draw(rng, fl / gf, 0.01, REPS) for n, _, gf, fl in SHIFT_ROWS}
    p0 = {n: draw(rng, PROBE[k], 0.01, REPS) for n, k, _, _ in SHIFT_ROWS}
    scale = lambda d, f, only=None: {n: [x * (f if only is None or n in only else 1) for x in v]
                                     for n, v in d.items()}
    write("shift_base.json", dump(shift_file(t0, p0)))
    write("shift_machine_slow.json", dump(shift_file(scale(t0, 1.25), scale(p0, 1 / 1.25))))
    write("shift_machine_fast.json", dump(shift_file(scale(t0, 0.80), scale(p0, 1 / 0.80))))
    plus = scale(scale(t0, 1.25), 1.10, [SHIFT_ROW])
    write("shift_machine_plus.json", dump(shift_file(plus, scale(p0, 1 / 1.25))))
    write("shift_code_slow.json", dump(shift_file(scale(t0, 1.10), p0)))
    half = [n for n, _, _, _ in SHIFT_ROWS[::2]]
    write("shift_uneven.json", dump(shift_file(scale(t0, 1.30, half), p0)))
    write("shift_disagree.json", dump(shift_file(t0, scale(p0, 1.25))))
    # the same rows probed by the bandwidth probe: 40 GB/s instead of 180 GFLOP/s, and
    # frac_of_ceiling their GB/s over it (2.25x the FMA fraction)
    flip = {n: [x * PROBE["bw"] / PROBE["fma"] for x in v] if n in KINDFLIP_ROWS else v
            for n, v in p0.items()}
    write("shift_kindflip.json", dump(shift_file(t0, flip, {n: "bw" for n in KINDFLIP_ROWS})))
    write("noprobe_base.json", dump(shift_file(t0, p0, with_probe=False)))
    write("noprobe_slow.json", dump(shift_file(scale(t0, 1.10), p0, with_probe=False)))
    small = scale(scale(t0, 1.03), 1.12 / 1.03, [SHIFT_ROW])
    write("noprobe_small.json", dump(shift_file(small, p0, with_probe=False)))


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = random.Random(20261122)
    base = {name: draw(rng, fl / gf, 0.15 if name == NOISY else 0.01, REPS)
            for name, gf, fl in ROWS}
    base_text = dump(results(base))
    write("base.json", base_text)
    write("same.json", base_text)

    slow = copy.deepcopy(base)
    slow[SLOW_ROW] = [t * 1.10 for t in base[SLOW_ROW]]
    write("slow.json", dump(results(slow)))

    fast = copy.deepcopy(base)
    fast[FAST_ROW] = [t * 0.85 for t in base[FAST_ROW]]
    write("fast.json", dump(results(fast)))

    noisy = copy.deepcopy(base)
    noisy[NOISY] = [t * 1.06 for t in base[NOISY]]
    write("noisy.json", dump(results(noisy)))

    write("ms.json", dump(results(base, unit="ms")))

    other = dict(CONTEXT, host_name="laptop", cpu_model="Intel(R) Core(TM) i7-1185G7",
                 build_id="0badc0ffee000001", cflags="-std=c11 -O2 -march=x86-64-v3")
    write("other_machine.json", dump(results(base, context=other)))

    few = {name: draw(rng, fl / gf, 0.01, 3) for name, gf, fl in ROWS}
    write("few_base.json", dump(results(few)))
    few_slow = copy.deepcopy(few)
    few_slow[SLOW_ROW] = [t * 1.10 for t in few[SLOW_ROW]]
    write("few_slow.json", dump(results(few_slow)))

    gb = {"BM_attention/256": 41.5e3, "BM_attention/1024": 612.0e3,
          "BM_attention/4096": 9.8e6, "BM_decode/8192": 355.0e3}
    write("gbench_base.json", dump(gbench(gb)))
    gb_slow = dict(gb)
    gb_slow["BM_attention/1024"] *= 1.10
    write("gbench_slow.json", dump(gbench(gb_slow)))

    write("malformed.json",
          '{\n  "context": {"host_name": "x"},\n  "benchmarks": [\n'
          '    {"name": "flash/B1", real_time: 12.5, "time_unit": "ns"}\n  ]\n}\n')
    write("truncated.json", base_text[: len(base_text) // 2])
    write("nobench.json", dump({"context": CONTEXT}))
    write_shift_fixtures()


if __name__ == "__main__":
    main()
