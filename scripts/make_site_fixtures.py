#!/usr/bin/env python3
"""make_site_fixtures.py — writes the results sets `headroom site` is tested on.

Deterministic (seeded) and stdlib only. Usage: python3 scripts/make_site_fixtures.py OUTDIR [COPIES]

Three machines, in headroom's results schema (numbers invented, not measured):
  OUTDIR/zen5-2c/r<k>-ci/          five commits, one run each; flash is 12% slower at the
                                   fifth (a slower change point), decode rows give a KV story
  OUTDIR/xeon-8480-16c/r<k>-ci/    two commits
  OUTDIR/graviton-4c/r1-peers/     one run with a peer library's rows (plugin_library)
COPIES (for the benchmark) repeats zen5's five commits that many times (one run each).
"""
import json
import os
import random
import sys

SHAPES = [  # seq_q, seq_kv, causal
    (512, 512, False), (1024, 1024, False), (2048, 2048, True), (1, 4096, False), (1, 16384, False)]
KERNELS = [("naive", 0.05), ("blocked", 0.25), ("flash", 0.55)]


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
            times = []
            for rep in range(3):
                t = flops / g * (1 + rng.uniform(-0.01, 0.01))
                times.append(t)
                r = dict(base, run_type="iteration", repetition_index=rep, real_time=t, cpu_time=t,
                         GFLOPS=flops / t, pct_of_roofline=100 * flops / t / roof)
                out.append(r)
            med = sorted(times)[1]
            out.append(dict(base, name=name + "_median", run_type="aggregate", aggregate_name="median",
                            aggregate_unit="time", real_time=med, cpu_time=med, GFLOPS=flops / med))
    return out


def write(path, ctx, bench):
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "results.json"), "w") as f:
        json.dump({"context": ctx, "benchmarks": bench}, f)
        f.write("\n")


def context(machine, cpu, threads, commit, ctime, date, peer):
    c = {"date": date, "host_name": "fixture", "executable": "headroom", "num_cpus": threads, "mhz_per_cpu": 2400,
         "cpu_scaling_enabled": False, "caches": [], "load_avg": [0, 0, 0], "library_build_type": "release",
         "cpu_model": cpu, "machine": machine, "isa": "avx512", "compiler": "fixture", "cflags": "fixture",
         "headroom_version": "0.0.0-fixture", "git_commit": commit, "git_commit_time": ctime,
         "omp_max_threads": threads, "warnings": ["hand-made fixture for tests: the numbers are invented, not measured"]}
    if peer:
        c["plugins"] = [{"file": "peers/torch_sdpa.so", "library": "torch", "version": "2.5.1", "abi": 1,
                         "kernels": ["torch_sdpa"]}]
    return c


def main():
    out = sys.argv[1]
    copies = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    rng = random.Random(63)
    commits = ["1111aaaa2222", "3333bbbb4444", "5555cccc6666", "7777dddd8888", "9999eeeeffff"]
    for c in range(copies):
        for i, commit in enumerate(commits):
            n = c * len(commits) + i
            day = 1 + n % 28
            month = 1 + n // 28
            ctime = f"2026-{month:02d}-{day:02d}T10:00:00+00:00"
            slow = 1.12 if (i == 4 and c == copies - 1) else 1.0
            write(os.path.join(out, "zen5-2c", f"r{n + 1:03d}-ci"),
                  context("zen5-2c", "AMD Ryzen 9 9950X", 2, commit if copies == 1 else f"{commit[:8]}{n:04d}",
                          ctime, ctime.replace("10:00", "11:00"), False),
                  rows(rng, "zen5-2c", 140.0, 60.0, 2, slow, False))
    for i, commit in enumerate(commits[3:]):
        ctime = f"2026-03-{10 + i:02d}T10:00:00+00:00"
        write(os.path.join(out, "xeon-8480-16c", f"r{i + 1}-ci"),
              context("xeon-8480-16c", "Intel Xeon Platinum 8480+", 16, commit, ctime, ctime, False),
              rows(rng, "xeon-8480-16c", 1900.0, 250.0, 16, 1.0, False))
    ctime = "2026-03-20T10:00:00+00:00"
    write(os.path.join(out, "graviton-4c", "r1-peers"),
          context("graviton-4c", "AWS Graviton4", 4, commits[4], ctime, ctime, True),
          rows(rng, "graviton-4c", 180.0, 90.0, 4, 1.0, True))


if __name__ == "__main__":
    main()
