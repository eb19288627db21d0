#!/usr/bin/env python3
"""npy_attention.py — an independent numpy attention over headroom's --save files.

usage: npy_attention.py DIR [--causal] [--tol 1e-5]
Loads q.npy k.npy v.npy o.npy, recomputes attention in float64 (GQA by head index,
causal bottom-right aligned) and exits 1 if max|o - ref| / max|ref| exceeds the tolerance."""
import sys
import numpy as np

d = sys.argv[1]
causal = "--causal" in sys.argv
tol = float(sys.argv[sys.argv.index("--tol") + 1]) if "--tol" in sys.argv else 1e-5
q, k, v, o = (np.load(f"{d}/{n}.npy").astype(np.float64) for n in "qkvo")
B, H, Nq, D = q.shape
G, Nk = k.shape[1], k.shape[2]
k = np.repeat(k, H // G, axis=1)
v = np.repeat(v, H // G, axis=1)
s = np.einsum("bhid,bhjd->bhij", q, k) / np.sqrt(D)
if causal:
    i = np.arange(Nq)[:, None]
    j = np.arange(Nk)[None, :]
    s = np.where(j <= i + (Nk - Nq), s, -np.inf)
m = s.max(axis=-1, keepdims=True)
m = np.where(np.isfinite(m), m, 0)
p = np.exp(s - m)
den = p.sum(axis=-1, keepdims=True)
ref = np.einsum("bhij,bhjd->bhid", p, v) / np.where(den > 0, den, 1)
err = np.abs(o - ref).max() / np.abs(ref).max()
print(f"max_rel {err:.3e} (tol {tol:g}) shape {q.shape}")
sys.exit(0 if err <= tol else 1)
