"""fairness_timer.py — PyTorch's own measurement of F.scaled_dot_product_attention, the
reference the torch_sdpa plugin is held to (peers/torch_sdpa/fairness.sh runs it
interleaved with `headroom run`).

As a PyTorch user measures it: torch.utils.benchmark.Timer.blocked_autorange over the
call alone, torch.set_num_threads(T), contiguous BHND fp32 tensors (randn), the same
arguments the plugin passes (is_causal when Nq == Nkv, no mask when Nq == 1, enable_gqa
when Hkv < Hq, scale 1/sqrt(d)). With --thp-inputs, Q, K and V sit on transparent huge
pages as headroom's inputs do (hr_alloc: 2 MiB aligned, madvise(MADV_HUGEPAGE)), while
PyTorch's own allocations (output, workspaces) stay on its default allocator, as they are
inside headroom. THP_MEM_ALLOC_ENABLE=1 is not the same: it puts every allocation PyTorch
makes per call on huge pages too, and at 2 threads that alone made S2 13-27% slower (sys
time doubled: fresh 2 MiB pages faulted and zeroed on every call). Prints one line: median seconds per call, the backend
torch chose, the threads torch reports, and the OpenMP library loaded.

usage: fairness_timer.py --heads H --kv-heads G --seq-q N --seq-kv M --d-head D
                         [--causal] --threads T [--min-run-time SEC] [--thp-inputs]
"""
import ctypes
import math
import mmap
import os
import sys

import torch
import torch.nn.functional as F
from torch.utils.benchmark import Timer

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import fairness_args  # noqa: E402  (peers/fairness_args.py)


HUGE = 2 << 20
_maps = []  # the mappings behind --thp-inputs tensors, alive as long as the process


def randn_thp(*shape):
    """torch.randn(*shape) in a 2 MiB aligned anonymous mapping marked MADV_HUGEPAGE."""
    n = math.prod(shape)
    size = (n * 4 + HUGE - 1) // HUGE * HUGE
    mm = mmap.mmap(-1, size + HUGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(mm))
    off = -addr % HUGE
    mm.madvise(mmap.MADV_HUGEPAGE, off, size)
    _maps.append(mm)
    t = torch.frombuffer(mm, dtype=torch.float32, count=n, offset=off).view(*shape)
    t.copy_(torch.randn(*shape))
    return t


def main():
    ap = fairness_args.parser()
    ap.add_argument("--thp-inputs", action="store_true")
    a = ap.parse_args()
    if a.causal and a.seq_q not in (1, a.seq_kv):
        sys.exit("fairness_timer.py: causal with Nq != Nkv (other than 1) needs the lower-right mask: not timed here")
    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    randn = randn_thp if a.thp_inputs else torch.randn
    q = randn(a.batch, a.heads, a.seq_q, a.d_head)
    k = randn(a.batch, a.kv_heads, a.seq_kv, a.d_head)
    v = randn(a.batch, a.kv_heads, a.seq_kv, a.d_head)
    is_causal = a.causal and a.seq_q == a.seq_kv and a.seq_q > 1
    gqa = a.kv_heads != a.heads
    scale = 1.0 / math.sqrt(a.d_head)
    backend = torch._fused_sdp_choice(q, k, v, None, 0.0, is_causal, scale=scale, enable_gqa=gqa)
    names = {0: "math", 1: "flash_attention", 2: "efficient", 3: "cudnn", 4: "overrideable"}
    t = Timer(
        "F.scaled_dot_product_attention(q, k, v, is_causal=is_causal, scale=scale, enable_gqa=gqa)",
        globals={"F": F, "q": q, "k": k, "v": v, "is_causal": is_causal, "scale": scale, "gqa": gqa},
        num_threads=a.threads,
    )
    t.timeit(1)  # warm-up: first-call allocations
    m = t.blocked_autorange(min_run_time=a.min_run_time)
    gomp = sorted({l.split()[-1] for l in open("/proc/self/maps") if "libgomp" in l})
    print(f"{m.median:.9f} backend={names.get(backend, backend)} threads={torch.get_num_threads()} "
          f"runs={len(m.times)}x{m.number_per_run} gomp={','.join(gomp)}")


if __name__ == "__main__":
    main()
