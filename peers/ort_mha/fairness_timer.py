"""fairness_timer.py — ONNX Runtime's own timing of the model the ort_mha plugin runs, the
reference the plugin is held to (peers/ort_mha/fairness.sh runs it interleaved with
`headroom run`).

As an ORT user measures it: the same model and session options (ort_mha.Runner: the
one-node MultiHeadAttention or GroupQueryAttention model, intra_op_num_threads = T), Q, K,
V and O as numpy arrays in BSNH (headroom's BNHD) bound once with IOBinding, and a
time.perf_counter loop over sess.run_with_iobinding alone: blocks of calls lasting about
20 ms each, for --min-run-time seconds in all; the median over blocks of the time per call.
Prints one line: median seconds per call, then the blocks and calls per block.

usage: fairness_timer.py --heads H --kv-heads G --seq-q N --seq-kv M --d-head D
                         [--batch B] [--causal] --threads T [--min-run-time SEC]
"""
import math
import os
import statistics
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [here, os.path.join(here, "..")]  # ort_mha.py, peers/fairness_args.py
import numpy as np  # noqa: E402

import fairness_args  # noqa: E402
import ort_mha  # noqa: E402


def main():
    ap = fairness_args.parser()
    a = ap.parse_args()
    B, H, G, N, M, d = a.batch, a.heads, a.kv_heads, a.seq_q, a.seq_kv, a.d_head
    r = ort_mha.Runner(B, H, G, N, M, d, a.causal, 1.0 / math.sqrt(d), False, a.threads, "bsnh")
    rng = np.random.default_rng(1)
    q = rng.standard_normal((B, N, H * d), dtype=np.float32)
    k = rng.standard_normal((B, M, G * d), dtype=np.float32)
    v = rng.standard_normal((B, M, G * d), dtype=np.float32)
    o = np.zeros((B, N, H * d), np.float32)
    r.bind(q.ctypes.data, k.ctypes.data, v.ctypes.data, o.ctypes.data)
    run, io = r.sess.run_with_iobinding, r.io
    run(io)  # warm-up: first-call allocations
    t0 = time.perf_counter()
    run(io)
    one = max(time.perf_counter() - t0, 1e-7)
    per_block = max(1, int(0.02 / one))
    blocks, end = [], time.perf_counter() + a.min_run_time
    while time.perf_counter() < end or len(blocks) < 3:
        t0 = time.perf_counter()
        for _ in range(per_block):
            run(io)
        blocks.append((time.perf_counter() - t0) / per_block)
    print(f"{statistics.median(blocks):.9f} blocks={len(blocks)}x{per_block} onnxruntime={ort_mha.VERSION}")


if __name__ == "__main__":
    main()
