#!/usr/bin/env python3
"""make_site_fixtures.py — writes the results sets `headroom site` is tested on.

Deterministic (seeded) and stdlib only. Usage: python3 scripts/make_site_fixtures.py OUTDIR [COPIES]

Three machines, in headroom's results schema (numbers invented, not measured):
  OUTDIR/zen5-2c/r<k>-ci/          five commits (each its own hash and date), one run each;
                                   flash is 12% slower at the fifth (a slower change point);
                                   decode rows in three stored K/V types give a KV story
  OUTDIR/zen5-2c/ab-pr/            `headroom ab --out`: base.json, new.json, ab.json (the
                                   paired verdicts) over three of zen5's benchmarks
  OUTDIR/zen5-2c/crossover-1/      `headroom crossover --out`: crossover.csv, crossover_table.csv
  OUTDIR/xeon-8480-16c/r<k>-ci/    two commits (zen5's fourth and fifth)
  OUTDIR/graviton-4c/r1-peers/     one run of an aarch64 build (ISA neon) with a peer
                                   library's rows (plugin_library)
COPIES (for the benchmark) repeats zen5's five commits that many times (one run each).
"""
import hashlib
import json
import math
import os
import random
import sys

SHAPES = [  # seq_q, seq_kv, causal
    (512, 512, False), (1024, 1024, False), (2048, 2048, True), (1, 4096, False), (1, 16384, False)]
KERNELS = [("naive", 0.05), ("blocked", 0.25), ("flash", 0.55)]
# decode over a KV cache in a stored type: (kv_dtype, bytes per stored element, efficiency)
DECODE_KV = [("f32", 4.0, 0.8), ("bf16", 2.0, 0.75), ("q8_0", 34 / 32, 0.6)]
DECODE_N = [1024, 4096, 16384]


def commit_of(k):
    """A deterministic 40-hex commit hash, its own for each k."""
    return hashlib.sha1(b"headroom site fixture commit %d" % k).hexdigest()


def reps(rng, base, name, flops, g, roof):
    out, times = [], []
    for rep in range(3):
        t = flops / g * (1 + rng.uniform(-0.01, 0.01))
        times.append(t)
        out.append(dict(base, run_type="iteration", repetition_index=rep, real_time=t, cpu_time=t,
                        GFLOPS=flops / t, pct_of_roofline=100 * flops / t / roof))
    med = sorted(times)[1]
    out.append(dict(base, name=name + "_median", run_type="aggregate", aggregate_name="median",
                    aggregate_unit="time", real_time=med, cpu_time=med, GFLOPS=flops / med))
    return out


def decode_rows(rng, peak, bw, threads):
    """One query over a cache of N keys, the cache stored as f32, bf16 or q8_0: the bytes
    a step reads fall with the type, and the step with them (bandwidth-bound)."""
    out = []
    for kv, width, eff in DECODE_KV:
        for nkv in DECODE_N:
            B, H, d = 1, 8, 64
            flops = 4.0 * B * H * d * nkv
            bytes_ = width * B * H * d * 2 * nkv + 4.0 * B * H * d * 2
            roof = min(peak, flops / bytes_ * bw)
            name = f"decode/B{B}/H{H}/G{H}/N1/M{nkv}/d{d}/full/bhnd/kv={kv}/T{threads}"
            base = {"name": name, "family_index": 9, "per_family_instance_index": 0, "run_name": name,
                    "repetitions": 3, "threads": threads, "iterations": 3, "time_unit": "ns", "kernel": "decode",
                    "batch": B, "heads": H, "kv_heads": H, "seq_q": 1, "seq_kv": nkv, "d_head": d,
                    "causal": False, "layout": "bhnd", "dtype": "f32", "kv_dtype": kv,
                    "flops": flops, "bytes": bytes_, "workspace_bytes": 0, "ceiling_gflops": peak,
                    "attainable_gflops": roof, "bound_level": "dram"}
            out += reps(rng, base, name, flops, roof * eff, roof)
    return out


def rows(rng, machine, peak, bw, threads, slow, peer):
    out = []
    kernels = list(KERNELS) + ([("torch_sdpa", 0.5)] if peer else [])
    for k, (kernel, eff) in enumerate(kernels):
        for nq, nkv, causal in SHAPES:
            B, H, d = 1, 8, 64
            pairs = nq * nkv if not causal else nq * (nq + 1) // 2
            flops = 4.0 * B * H * d * pairs
            bytes_ = 4.0 * B * H * d * (2 * nq + 2 * nkv)
            ai = flops / bytes_
            roof = min(peak, ai * bw)
            g = roof * eff * (1.0 / slow if kernel == "flash" else 1.0)
            name = f"{kernel}/B{B}/H{H}/G{H}/N{nq}/M{nkv}/d{d}/{'causal' if causal else 'full'}/bhnd/T{threads}"
            base = {"name": name, "family_index": k, "per_family_instance_index": 0, "run_name": name,
                    "repetitions": 3, "threads": threads, "iterations": 3, "time_unit": "ns", "kernel": kernel,
                    "batch": B, "heads": H, "kv_heads": H, "seq_q": nq, "seq_kv": nkv, "d_head": d,
                    "causal": causal, "layout": "bhnd", "dtype": "f32", "kv_dtype": "f32",
                    "flops": flops, "bytes": bytes_, "workspace_bytes": 0, "ceiling_gflops": peak,
                    "attainable_gflops": roof, "bound_level": "dram" if ai * bw < peak else "fma"}
            if kernel == "torch_sdpa":
                base.update({"plugin": "peers/torch_sdpa.so", "plugin_library": "torch", "plugin_version": "2.5.1"})
            out += reps(rng, base, name, flops, g, roof)
    return out


def write(path, ctx, bench):
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "results.json"), "w") as f:
        json.dump({"context": ctx, "benchmarks": bench}, f)
        f.write("\n")


def context(machine, cpu, threads, commit, ctime, date, peer, arm=False):
    c = {"date": date, "host_name": "fixture", "executable": "headroom", "num_cpus": threads, "mhz_per_cpu": 2400,
         "cpu_scaling_enabled": False, "caches": [], "load_avg": [0, 0, 0], "library_build_type": "release",
         "cpu_model": cpu, "machine": machine, "isa": "neon" if arm else "avx512",
         "isa_levels": "generic neon" if arm else "generic avx2 avx512", "isa_best": "neon" if arm else "avx512",
         "isa_selected_by": "best the CPU runs", "compiler": "fixture",
         "cflags": "-O2 -march=armv9-a" if arm else "-O2 -march=x86-64-v4",
         "headroom_version": "0.0.0-fixture", "git_commit": commit, "git_commit_time": ctime,
         "omp_max_threads": threads, "warnings": ["hand-made fixture for tests: the numbers are invented, not measured"]}
    if peer:
        c["plugins"] = [{"file": "peers/torch_sdpa.so", "library": "torch", "version": "2.5.1", "abi": 1,
                         "kernels": ["torch_sdpa"]}]
    return c


def wilcoxon_p(d):
    """Two-sided exact Wilcoxon signed-rank p of d (no zeros, no ties among |d|)."""
    n = len(d)
    ranks = {i: r + 1 for r, i in enumerate(sorted(range(n), key=lambda i: abs(d[i])))}
    w = sum(ranks[i] for i in range(n) if d[i] > 0)
    counts = [1] + [0] * (n * (n + 1) // 2)
    for k in range(1, n + 1):
        for s in range(len(counts) - 1, k - 1, -1):
            counts[s] += counts[s - k]
    lo = min(w, n * (n + 1) // 2 - w)
    return min(1.0, 2 * sum(counts[: lo + 1]) / 2 ** n)


def ab_dir(rng, path, ctx, bench):
    """What `headroom ab BASE NEW CONFIG --rounds 12 --reps 3 --out path` writes, over three
    of bench's points: flash 12% slower (REGRESSION), blocked unchanged (same), naive 4%
    faster (IMPROVEMENT); the verdicts as ab.c judges them (Wilcoxon over the rounds'
    median log ratios, Holm over the points, threshold 2%, alpha 0.05)."""
    rounds, per = 12, 3
    want = {"flash/B1/H8/G8/N512/M512/d64/full/bhnd/T2": 1.12, "blocked/B1/H8/G8/N1024/M1024/d64/full/bhnd/T2": 1.0,
            "naive/B1/H8/G8/N2048/M2048/d64/causal/bhnd/T2": 0.96}
    sides, rows = ([], []), []
    for name, ratio in want.items():
        row = next(b for b in bench if b["name"] == name)
        t0, n = row["real_time"], rounds * per
        tb = [t0 * (1 + rng.uniform(-0.01, 0.01)) for _ in range(n)]
        tn = [t * ratio * (1 + rng.uniform(-0.004, 0.004)) for t in tb]
        for k, ts in enumerate((tb, tn)):
            keys = {x: row[x] for x in ("name", "run_name", "kernel", "threads", "batch", "heads", "kv_heads", "seq_q",
                                        "seq_kv", "d_head", "causal", "layout", "dtype", "kv_dtype", "flops", "bytes")}
            for j, t in enumerate(ts):
                sides[k].append(dict(keys, run_type="iteration", repetitions=n, repetition_index=j, iterations=3,
                                     real_time=t, cpu_time=t, time_unit="ns", GFLOPS=row["flops"] / t))
            med = sorted(ts)[n // 2 - 1: n // 2 + 1]
            sides[k].append(dict(keys, name=name + "_median", run_type="aggregate", aggregate_name="median",
                                 aggregate_unit="time", repetitions=n, real_time=sum(med) / 2, cpu_time=sum(med) / 2,
                                 time_unit="ns"))
        d = []
        for r in range(rounds):
            lr = sorted(math.log(tn[r * per + j] / tb[r * per + j]) for j in range(per))
            d.append(lr[per // 2])
        est = sorted(d)[rounds // 2 - 1: rounds // 2 + 1]
        delta = 100 * (math.exp(sum(est) / 2) - 1)
        rows.append({"name": name, "base": sorted(tb)[n // 2], "new": sorted(tn)[n // 2], "unit": "ns",
                     "delta_pct": delta, "adj_delta_pct": delta, "probe_delta_pct": None, "n_base": rounds,
                     "n_new": rounds, "test": "exact", "u": 0, "p": wilcoxon_p(d), "can_reach_alpha": True})
    order = sorted(range(len(rows)), key=lambda i: rows[i]["p"])  # Holm
    run = 0.0
    for k, i in enumerate(order):
        run = max(run, min(1.0, (len(rows) - k) * rows[i]["p"]))
        rows[i]["p_adj"] = run
    for r in rows:
        r["verdict"] = ("same" if abs(r["delta_pct"]) <= 2 else "noise" if not r["p_adj"] < 0.05
                        else "REGRESSION" if r["delta_pct"] > 0 else "IMPROVEMENT")
    for k, side in enumerate(("base", "new")):
        os.makedirs(path, exist_ok=True)
        with open(os.path.join(path, side + ".json"), "w") as f:
            json.dump({"context": ctx, "benchmarks": sides[k]}, f)
            f.write("\n")
    counts = {v: sum(r["verdict"] == v for r in rows) for v in ("same", "noise", "REGRESSION", "IMPROVEMENT")}
    doc = {"base": "build-base/headroom", "new": "build-new/headroom",
           "title": "headroom ab (interleaved, builds %s -> %s, 12 rounds of fresh workers)" % (COMMITS[3][:16], COMMITS[4][:16]),
           "test": "paired two-sided Wilcoxon signed-rank over the rounds' median log ratios", "metric": "time",
           "threshold_pct": 2, "alpha": 0.05, "correction": "holm", "tested_rows": len(rows), "warnings": [],
           "rows": rows, "geomean_delta_pct": 100 * (math.exp(sum(math.log1p(r["delta_pct"] / 100) for r in rows) / len(rows)) - 1),
           "counts": {"same": counts["same"], "noise": counts["noise"], "regression": counts["REGRESSION"],
                      "improvement": counts["IMPROVEMENT"]},
           "exit_status": 1 if counts["REGRESSION"] else 0, "only_in_base": [], "only_in_new": [], "probe_mismatch": []}
    with open(os.path.join(path, "ab.json"), "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


def crossover_dir(path, peak, bw):
    """What `headroom crossover --d-model 512,1024 --kernels flash,naive --out path` writes:
    a layer's projections cost ~N d_model^2, its attention core ~N^2 d_model; the core's time
    overtakes them at N*."""
    os.makedirs(path, exist_ok=True)
    pts, tab = [], []
    for kernel, eff in (("flash", 0.55), ("naive", 0.05)):
        for dm in (512, 1024):
            series = []
            n = 64
            while n <= 8192:
                proj_f = 2.0 * n * dm * dm * 4
                core_f = 4.0 * n * n * dm
                proj_s, core_s = proj_f / (0.7 * peak * 1e9), core_f / (eff * peak * 1e9)
                series.append((n, proj_s, core_s))
                pts.append(f"{kernel},{dm},{n},{proj_s:.6g},{core_s:.6g},{proj_f / proj_s / 1e9:.4g},{core_f / core_s / 1e9:.4g}")
                if core_s > proj_s:
                    break
                n *= 2
            nstar_flops = 2.0 * dm
            (n0, p0, c0), (n1, p1, c1) = series[-2], series[-1]
            a, b = math.log(c0 / p0), math.log(c1 / p1)
            nstar = math.exp(math.log(n0) + (math.log(n1) - math.log(n0)) * (0 - a) / (b - a))
            tab.append(f"{kernel},{dm},{nstar:.1f},{nstar_flops:.1f},{nstar / nstar_flops:.3f},,,")
    with open(os.path.join(path, "crossover.csv"), "w") as f:
        f.write("kernel,d_model,N,proj_s,core_s,proj_gflops,core_gflops\n" + "\n".join(pts) + "\n")
    with open(os.path.join(path, "crossover_table.csv"), "w") as f:
        f.write("kernel,d_model,n_star_measured,n_star_flops,ratio,core_gflops,proj_gflops,note\n" + "\n".join(tab) + "\n")


COMMITS = [commit_of(k) for k in range(5)]


def main():
    out = sys.argv[1]
    copies = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    rng = random.Random(63)
    commits = COMMITS
    for c in range(copies):
        for i, commit in enumerate(commits):
            n = c * len(commits) + i
            day = 1 + n % 28
            month = 1 + n // 28
            ctime = f"2026-{month:02d}-{day:02d}T10:00:00+00:00"
            slow = 1.12 if (i == 4 and c == copies - 1) else 1.0
            bench = rows(rng, "zen5-2c", 140.0, 60.0, 2, slow, False) + decode_rows(rng, 140.0, 60.0, 2)
            ctx = context("zen5-2c", "AMD Ryzen 9 9950X", 2, commit if copies == 1 else commit_of(100 + n),
                          ctime, ctime.replace("10:00", "11:00"), False)
            write(os.path.join(out, "zen5-2c", f"r{n + 1:03d}-ci"), ctx, bench)
    ab_dir(rng, os.path.join(out, "zen5-2c", "ab-pr"), ctx, bench)
    crossover_dir(os.path.join(out, "zen5-2c", "crossover-1"), 140.0, 60.0)
    # The other machines ran zen5's newest commits: their commit dates, later run dates.
    for i, commit in enumerate(commits[3:]):
        ctime = f"2026-01-{4 + i:02d}T10:00:00+00:00"
        write(os.path.join(out, "xeon-8480-16c", f"r{i + 1}-ci"),
              context("xeon-8480-16c", "Intel Xeon Platinum 8480+", 16, commit, ctime, f"2026-03-{10 + i:02d}T10:00:00+00:00",
                      False),
              rows(rng, "xeon-8480-16c", 1900.0, 250.0, 16, 1.0, False))
    write(os.path.join(out, "graviton-4c", "r1-peers"),
          context("graviton-4c", "AWS Graviton4", 4, commits[4], "2026-01-05T10:00:00+00:00", "2026-03-20T10:00:00+00:00",
                  True, arm=True),
          rows(rng, "graviton-4c", 180.0, 90.0, 4, 1.0, True))

if __name__ == "__main__":
    main()
