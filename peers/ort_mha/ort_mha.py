"""ort_mha.py — the Python half of the ort_mha plugin (ort_mha.c embeds the interpreter and
calls this module): ONNX Runtime's contrib attention operators, one model and one session
per problem, run with IOBinding over headroom's own buffers.

Runner(...) builds, once per problem, thread count and view layout, a one-node model with
the onnx package's helpers (opset 17 plus com.microsoft 1):
  - MultiHeadAttention when Hkv == Hq. "bsnh": query, key, value and output as ORT's 3-D
    BSNH [B, S, H*d], which is headroom's BNHD layout as it lies in memory. "heads1":
    headroom's BHND layout as B*H sequences of one head each, [B*H, S, d] (attention is
    independent per (b, h), so this is the same computation, with no copy).
    Causal: Nq == Nkv through the `unidirectional` attribute (aligned top-left, which is
    bottom-right when Nq == Nkv); Nq == 1 needs no mask; Nq < Nkv through an
    attention_bias [1, 1, Nq, Nkv] of 0 / -inf, an initializer of the model (built once
    per shape, not per call). Nq > Nkv causal is refused by the plugin (ort_mha.c).
  - MultiHeadAttention over query groups ("groups") when Hkv < Hq and Nq != Nkv (which
    GroupQueryAttention takes only as past_key/past_value, copied into present_key and
    present_value on every call): headroom's BHND as B*Hkv sequences of one head, each
    holding the r = Hq/Hkv query heads of its KV group one after another ([B*Hkv, r*Nq,
    d]: the same memory, no copy) against that group's K and V [B*Hkv, Nkv, d]. Causal
    with Nq > 1: the bottom-right attention_bias, its rows repeated r times ([1, 1,
    r*Nq, Nkv]); a decode row (Nq == 1) needs none.
  - GroupQueryAttention (gqa: ort_mha.c chooses) when Nq == Nkv and Hkv < Hq, or a soft
    cap or a sliding window asks for it: query [B, S, Hq*d], key and value [B, S, Hkv*d]
    (BSNH), or with Hkv == Hq over BHND ("heads1") B*H sequences of one head,
    seqlens_k = Nkv - 1 per sequence and total_sequence_length = Nkv as inputs bound
    once, `causal` 0 or 1, no present_key / present_value outputs (optional: no cache is
    written). The soft cap is its `softcap` attribute, the window its `local_window_size`
    (row i sees i - W < j <= i, headroom's W: tested against the oracle), and ALiBi with a
    soft cap its attention_bias, which it adds after the cap as headroom's rule does.
Otherwise a sliding window and ALiBi (window, alibi: 0 when off) are an attention_bias of
MultiHeadAttention in each of its modes: -inf where the bottom-right causal rule or the
window hides a key, else 0, or -m_h |i' - j| under ALiBi, with one plane per query head
(bias_rows), an initializer like the causal bias.
Per call, ort_mha.c calls Runner.bind only when an address changed (IOBinding.bind_input /
bind_output with buffer_ptr: ORT reads Q, K, V and writes O in place), then the session's
bound run_with_iobinding(io) itself, the call a Python loop makes (__call__ does both,
for use from Python). Nothing is copied on our side.
"""
import os

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

VERSION = ort.__version__


def session_options(threads):
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.log_severity_level = 3  # errors reach headroom through the exception, not stderr
    # ORT's intra-op pool is its own (not OpenMP): its threads inherit the affinity of the
    # thread that makes the session. Under headroom's pinning (OMP_PROC_BIND=close) that
    # is one core, and all T threads would share it. Then the pool's T-1 threads get the
    # next CPUs, one each, as OpenMP's close binding places its threads; an unpinned
    # caller (a mask of several CPUs) leaves ORT's threads unpinned, as under Python.
    mine = sorted(os.sched_getaffinity(0))
    if threads > 1 and len(mine) == 1:
        n = os.cpu_count() or 1
        cpus = [(mine[0] + i) % n for i in range(1, threads)]
        so.add_session_config_entry("session.intra_op_thread_affinities", ";".join(str(c + 1) for c in cpus))
    return so


def alibi_slopes(H, b):
    """ALiBi's slope per query head (headroom's plugin.h rule, ggml's and the paper's)."""
    n = 1 << (H.bit_length() - 1)
    return np.array([2.0 ** (-b * (h + 1) / n) if h < n else 2.0 ** (-b * (2 * (h - n) + 1) / (2 * n))
                     for h in range(H)])


def bias_rows(N, M, causal, window, slopes):
    """The additive bias [len(slopes) or 1][N][M]: -inf where row i (i' = i + M - N) does
    not see key j (j > i' when causal or windowed, j <= i' - window), else 0, or
    -m_h |i' - j| under ALiBi."""
    ip = (np.arange(N) + (M - N))[:, None]
    j = np.arange(M)[None, :]
    seen = np.ones((N, M), bool)
    if causal or window:
        seen &= j <= ip
    if window:
        seen &= j > ip - window
    dist = np.abs(ip - j).astype(np.float64)
    s = slopes if slopes is not None else np.zeros(1)
    return np.where(seen[None], -s[:, None, None] * dist[None], -np.inf)


def variant_bias(B, H, G, N, M, causal, window, alibi, f16, mode):
    """The attention_bias initializer's array: the bottom-right causal rule, the window
    and ALiBi as bias_rows, with the leading dims ORT broadcasts: [1, 1 or H, rows, M]
    over "bsnh"; per sequence of one head otherwise ("heads1": B*H sequences, b-major;
    "groups": B*G sequences of r heads' rows)."""
    r = H // G
    slopes = alibi_slopes(H, alibi) if alibi > 0 else None
    rows = bias_rows(N, M, causal, window, slopes)  # [H or 1][N][M]
    if mode == "bsnh":
        bias = rows[None]
    elif mode == "heads1":
        bias = np.tile(rows, (B, 1, 1))[:, None] if slopes is not None else rows[None]
    else:  # groups: row block t of sequence (b, g) is head g * r + t
        if slopes is not None:
            bias = np.tile(rows.reshape(G, r * N, M), (B, 1, 1))[:, None]
        else:
            bias = np.tile(rows, (1, r, 1))[None]
    return bias.astype(np.float16 if f16 else np.float32)


def model(B, H, G, N, M, d, causal, scale, f16, mode, window=0, alibi=0.0, softcap=0.0, gqa=0):
    """The one-node model and its input/output shapes (name -> shape)."""
    et = TensorProto.FLOAT16 if f16 else TensorProto.FLOAT
    vi = helper.make_tensor_value_info
    inits = []
    if not gqa:
        r = H // G  # "groups": query head h is row block h % r of KV group h // r
        if mode == "groups":
            shapes = {"query": [B * G, r * N, d], "key": [B * G, M, d], "value": [B * G, M, d],
                      "output": [B * G, r * N, d]}
            nh = 1
        elif mode == "heads1":
            shapes = {"query": [B * H, N, d], "key": [B * H, M, d], "value": [B * H, M, d], "output": [B * H, N, d]}
            nh = 1
        else:
            shapes = {"query": [B, N, H * d], "key": [B, M, H * d], "value": [B, M, H * d], "output": [B, N, H * d]}
            nh = H
        inputs = ["query", "key", "value"]
        attrs = {"num_heads": nh, "scale": float(scale)}
        variant = window > 0 or alibi > 0
        if causal and N == M and N > 1 and mode != "groups" and not variant:
            attrs["unidirectional"] = 1
        elif (causal and N > 1) or variant:
            # The window and ALiBi ride on the same additive bias as the bottom-right causal
            # rule, built here once per problem.
            inits.append(numpy_helper.from_array(variant_bias(B, H, G, N, M, causal, window, alibi, f16, mode),
                                                 "attention_bias"))
            inputs += ["", "", "attention_bias"]  # bias, key_padding_mask left out
        node = helper.make_node("MultiHeadAttention", inputs, ["output"], domain="com.microsoft", **attrs)
        ins = [vi(n, et, shapes[n]) for n in ("query", "key", "value")]
    else:
        # GroupQueryAttention (N == M): "bsnh" as ORT's BSNH; "heads1" (Hkv == Hq over
        # BHND) as B*H sequences of one head, num_heads = kv_num_heads = 1.
        b, nh, nk = (B * H, 1, 1) if mode == "heads1" else (B, H, G)
        shapes = {"query": [b, N, nh * d], "key": [b, M, nk * d], "value": [b, M, nk * d], "output": [b, N, nh * d]}
        attrs = {"num_heads": nh, "kv_num_heads": nk, "causal": int(bool(causal or window)), "scale": float(scale)}
        if window > 0:
            attrs["local_window_size"] = int(window)  # row i sees i - W < j <= i, as headroom's W
        if softcap > 0:
            attrs["softcap"] = float(softcap)  # c tanh(s / c) after the scale, before the bias
        inputs = ["query", "key", "value", "", "", "seqlens_k", "total_sequence_length"]
        if alibi > 0:  # ALiBi alone: the bias is added after the soft cap, as headroom's rule
            inits.append(numpy_helper.from_array(variant_bias(B, H, G, N, M, 0, 0, alibi, f16, mode), "attention_bias"))
            inputs += ["", "", "", "attention_bias"]  # cos_cache, sin_cache, position_ids left out
        node = helper.make_node("GroupQueryAttention", inputs, ["output"], domain="com.microsoft", **attrs)
        ins = [vi(n, et, shapes[n]) for n in ("query", "key", "value")]
        ins += [vi("seqlens_k", TensorProto.INT32, [b]), vi("total_sequence_length", TensorProto.INT32, [])]
    graph = helper.make_graph([node], "headroom_attention", ins, [vi("output", et, shapes["output"])],
                              initializer=inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    onnx.checker.check_model(m)
    return m, shapes


class Runner:
    """One problem's session and binding; call it with the addresses of Q, K, V, O."""

    def __init__(self, B, H, G, N, M, d, causal, scale, f16, threads, mode, window=0, alibi=0.0, softcap=0.0, gqa=0):
        m, self.shapes = model(B, H, G, N, M, d, causal, scale, f16, mode, window, alibi, softcap, gqa)
        self.sess = ort.InferenceSession(m.SerializeToString(), session_options(threads),
                                         providers=["CPUExecutionProvider"])
        self.io = self.sess.io_binding()
        self.dt = np.float16 if f16 else np.float32
        self.last = None
        if gqa:  # GroupQueryAttention: bound once, live as long as the runner
            self.seqlens_k = np.full(self.shapes["query"][0], M - 1, np.int32)
            self.total = np.array(M, np.int32)
            self.io.bind_cpu_input("seqlens_k", self.seqlens_k)
            self.io.bind_cpu_input("total_sequence_length", self.total)

    def bind(self, q, k, v, o):
        s, dt, io = self.shapes, self.dt, self.io
        io.bind_input("query", "cpu", 0, dt, s["query"], q)
        io.bind_input("key", "cpu", 0, dt, s["key"], k)
        io.bind_input("value", "cpu", 0, dt, s["value"], v)
        io.bind_output("output", "cpu", 0, dt, s["output"], o)
        self.last = (q, k, v, o)

    def __call__(self, q, k, v, o):
        if self.last != (q, k, v, o):
            self.bind(q, k, v, o)
        self.sess.run_with_iobinding(self.io)
