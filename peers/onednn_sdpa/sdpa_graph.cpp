// sdpa_graph.cpp — builds, compiles, caches and executes the oneDNN Graph SDPA (sdpa_graph.hpp).
// The graph follows oneDNN's own MHA/SDPA examples (examples/graph/sdpa.cpp, gqa.cpp): MatMul
// (Q, K^T) -> Multiply(scale) -> [Add(mask)] -> SoftMax -> MatMul(., V). oneDNN 3.2 (the newest
// CPU-only GNU OpenMP build on PyPI, see README.md) has no GenIndex/GreaterEqual ops, so the
// bottom-right causal mask is an explicit additive mask (0 or -inf), built once at compile time.
#include "sdpa_graph.hpp"

#include "headroom/plugin.h" /* hrp_alibi_slope_of */

#include <oneapi/dnnl/dnnl.hpp>
#include <oneapi/dnnl/dnnl_graph.hpp>
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

namespace sdpa {

using dnnl::graph::compiled_partition;
using dnnl::graph::graph;
using dnnl::graph::logical_tensor;
using dnnl::graph::op;
using dnnl::graph::partition;
using dnnl::graph::tensor;
using lt = logical_tensor;
using dims = std::vector<int64_t>;
static const lt::data_type F32 = lt::data_type::f32;

// The buffers a partition's port can be bound to.
enum slot { S_Q, S_K, S_V, S_O, S_SCALE, S_MASK, S_SCORES, S_STAGE, S_NSLOTS };
// Logical tensor ids of the graph.
enum { T_Q, T_K, T_S1, T_SCALE, T_S2, T_MASK, T_S3, T_P, T_V, T_O, T_OT, T_OUT };

struct part {
    compiled_partition cp;
    std::vector<lt> ins, outs;
    std::vector<int> in_slot, out_slot;
    std::vector<tensor> tin, tout;
};

struct plan {
    problem p;     // the rows that see keys: nq = Nq - first_row
    int64_t r0;    // first_row of the caller's problem
    int threads;
    bool staged;   // FUSED whose O heads are not adjacent: output staged in ws, then copied
    float scale;
    std::vector<float> mask;
    std::vector<part> parts;
};

static dnnl::engine &engine()
{
    static dnnl::engine e(dnnl::engine::kind::cpu, 0);
    return e;
}
static dnnl::stream &stream()
{
    static dnnl::stream s(engine());
    return s;
}

const char *version()
{
    static char v[32];
    if (!v[0]) {
        const dnnl_version_t *x = dnnl_version();
        snprintf(v, sizeof v, "%d.%d.%d", x->major, x->minor, x->patch);
    }
    return v;
}

int64_t first_row(const problem &p) { return p.causal && p.nq > p.nkv ? p.nq - p.nkv : 0; }

// How the heads become tensor dimensions:
//   G_FUSED  4-D [B][H][M][D], ending in the Transpose + Reshape of the fused MHA pattern;
//   G_FOLDED 4-D [B][Hkv][G*M][D]: a group's query rows as one matrix against its K/V head
//            (GQA/MQA when those rows are evenly strided: BHND, or one query row);
//   G_BCAST  5-D [B][Hkv][G][M][D] with K/V [B][Hkv][1][N][D] broadcast over the group.
enum mode { G_FUSED, G_FOLDED, G_BCAST };

static dims dense(const dims &d)
{
    dims s(d.size(), 1);
    for (size_t i = d.size() - 1; i > 0; i--) s[i - 1] = s[i] * d[i];
    return s;
}

// Whether the causal mask changes anything: with one query row (after dropping the rows
// that see no key) that row sees every key, so the problem is the non-causal one exactly.
// A window always needs one (it hides keys from a decode row too).
// ALiBi always needs one (its bias planes).
static bool needs_mask(const problem &p) { return (p.causal && p.nq > 1) || p.window > 0 || p.alibi > 0; }

// The mask's dims: a full [rows][N] causal mask, or one zero row (FUSED's pattern needs the Add);
// under ALiBi a plane a query head, [Hq][M][N] in memory whichever mode shapes it.
static dims mask_dims(const problem &p, mode m)
{
    const int64_t G = p.hq / p.hkv, R = m == G_FOLDED ? G * p.nq : p.nq, N = p.nkv;
    if (p.alibi > 0)
        return m == G_BCAST ? dims{1, p.hkv, G, p.nq, N} : dims{1, m == G_FUSED ? p.hq : p.hkv, R, N};
    if (m == G_BCAST) return needs_mask(p) ? dims{1, 1, 1, p.nq, N} : dims{1, 1, 1, 1, N};
    return needs_mask(p) ? dims{1, 1, R, N} : dims{1, 1, 1, N};
}

// The graph of p in mode m, ids T_*, dense strides for every intermediate (they are partition
// boundaries when oneDNN splits the graph); qs..os: the strides of the caller's tensors.
static graph build(const problem &p, mode m, const dims &qs, const dims &ks, const dims &vs, const dims &os)
{
    const int64_t B = p.b, G = p.hq / p.hkv, H = p.hkv, M = p.nq, N = p.nkv, D = p.d;
    const int64_t R = m == G_FOLDED ? G * M : M;
    const bool five = m == G_BCAST;
    const dims qd = five ? dims{B, H, G, M, D} : dims{B, H, R, D};
    const dims kd = five ? dims{B, H, 1, N, D} : dims{B, H, N, D};
    const dims sd = five ? dims{B, H, G, M, N} : dims{B, H, R, N};
    const dims md = mask_dims(p, m);
    lt q(T_Q, F32, qd, qs), k(T_K, F32, kd, ks), v(T_V, F32, kd, vs);
    lt s1(T_S1, F32, sd, dense(sd)), s2(T_S2, F32, sd, dense(sd)), s3(T_S3, F32, sd, dense(sd));
    lt pr(T_P, F32, sd, dense(sd));
    lt sc(T_SCALE, F32, dims{1}, dims{1});
    const bool masked = needs_mask(p) || m == G_FUSED;
    lt mk(T_MASK, F32, md, dense(md));
    op mm1(0, op::kind::MatMul, "qk");
    mm1.set_attr<bool>(op::attr::transpose_b, true);
    mm1.add_inputs({q, k});
    mm1.add_output(s1);
    op mul(1, op::kind::Multiply, "scale");
    mul.add_inputs({s1, sc});
    mul.add_output(s2);
    op add(2, op::kind::Add, "mask");
    add.add_inputs({s2, mk});
    add.add_output(s3);
    op smx(3, op::kind::SoftMax, "softmax");
    smx.set_attr<int64_t>(op::attr::axis, -1);
    smx.add_input(masked ? s3 : s2);
    smx.add_output(pr);
    graph g(dnnl::engine::kind::cpu);
    g.add_op(mm1);
    g.add_op(mul);
    if (masked) g.add_op(add);
    g.add_op(smx);
    if (m != G_FUSED) {
        lt o(T_O, F32, qd, os);
        op mm2(4, op::kind::MatMul, "pv");
        mm2.add_inputs({pr, v});
        mm2.add_output(o);
        g.add_op(mm2);
    } else {
        lt o(T_O, F32, qd, dims{H * M * D, M * D, D, 1}), ot(T_OT, F32, dims{B, M, H, D}, dims{M * H * D, H * D, D, 1});
        lt out(T_OUT, F32, dims{B, M, H * D}, os);
        op mm2(4, op::kind::MatMul, "pv");
        mm2.add_inputs({pr, v});
        mm2.add_output(o);
        op tr(5, op::kind::StaticTranspose, "bnhd");
        tr.set_attr<dims>(op::attr::order, {0, 2, 1, 3});
        tr.add_input(o);
        tr.add_output(ot);
        op rs(6, op::kind::StaticReshape, "merge_heads");
        rs.set_attr<dims>(op::attr::shape, {B, M, H * D});
        rs.set_attr<bool>(op::attr::special_zero, false);
        rs.add_input(ot);
        rs.add_output(out);
        g.add_op(mm2);
        g.add_op(tr);
        g.add_op(rs);
    }
    g.finalize();
    return g;
}

static int slot_of(size_t id, bool staged)
{
    switch (id) {
    case T_Q: return S_Q;
    case T_K: return S_K;
    case T_V: return S_V;
    case T_SCALE: return S_SCALE;
    case T_MASK: return S_MASK;
    case T_S1: case T_S2: case T_S3: case T_P: return S_SCORES; // one buffer, in place
    case T_O: return S_O;                                       // UNFUSED's output
    case T_OUT: return staged ? S_STAGE : S_O;
    default: return -1;
    }
}

// Dense [B][H][N][D] strides.
static dims dense4(int64_t h, int64_t n, int64_t d) { return {h * n * d, n * d, d, 1}; }

// Whether the fused pattern forms one partition for p (pattern matching needs no strides).
static bool fuses(const problem &p)
{
    static std::mutex mu;
    static std::map<std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, bool, bool, bool>, bool> seen;
    std::lock_guard<std::mutex> lock(mu);
    auto key = std::make_tuple(p.b, p.hq, p.nq, p.nkv, p.d, p.causal, p.window > 0, p.alibi > 0);
    auto it = seen.find(key);
    if (it != seen.end()) return it->second;
    problem q = p;
    q.nq = p.nq - first_row(p);
    bool one = false;
    try {
        const dims kv = dense4(q.hkv, q.nkv, q.d);
        graph g = build(q, G_FUSED, dense4(q.hq, q.nq, q.d), kv, kv, dims{q.nq * q.hq * q.d, q.hq * q.d, 1});
        one = g.get_partitions().size() == 1;
    } catch (const dnnl::error &) {
        one = false;
    }
    seen[key] = one;
    return one;
}

path choose(const problem &p) { return p.hq == p.hkv && fuses(p) ? FUSED : UNFUSED; }

const char *path_name(const problem &p)
{
    static char fused[96], unfused[96];
    if (!fused[0]) {
        snprintf(fused, sizeof fused, "onednn %s graph fused f32_MHA partition", version());
        snprintf(unfused, sizeof unfused, "onednn %s graph partitions (matmul, softmax, matmul)", version());
    }
    return choose(p) == FUSED ? fused : unfused;
}

double mask_bytes(const problem &p)
{
    const double m = (double)(p.nq - first_row(p));
    return (p.alibi > 0 ? (double)p.hq * m : m) * (double)p.nkv * sizeof(float);
}

size_t workspace_bytes(const problem &p)
{
    const double m = (double)(p.nq - first_row(p));
    const double n = choose(p) == FUSED ? (double)p.b * m * p.hq * p.d : (double)p.b * p.hq * m * p.nkv;
    const double bytes = n * sizeof(float);
    return bytes > 0 && bytes < 9.0e18 ? (size_t)bytes : 0;
}

// The cache key: the effective problem, the strides, the thread count.
typedef std::tuple<std::vector<int64_t>, float, float> key_t;

static key_t key_of(const problem &p, const view &q, const view &k, const view &v, const view &o, int threads)
{
    return key_t({p.b, p.hq, p.hkv, p.nq, p.nkv, p.d, p.causal, p.window, q.sb, q.sh, q.sn, k.sb, k.sh, k.sn, v.sb, v.sh, v.sn,
                  o.sb, o.sh, o.sn, threads},
                 p.scale, p.alibi);
}

// Sets OpenMP's thread count for this thread for the life of the object (oneDNN's OpenMP
// build sizes its parallel regions by omp_get_max_threads() at creation and execution).
struct omp_threads {
    int saved;
    explicit omp_threads(int n) : saved(omp_get_max_threads()) { omp_set_num_threads(n > 0 ? n : 1); }
    ~omp_threads() { omp_set_num_threads(saved); }
};

static plan *compile(const problem &full, const view &q, const view &k, const view &v, const view &o, int threads)
{
    std::unique_ptr<plan> pl(new plan());
    pl->r0 = first_row(full);
    pl->p = full;
    pl->p.nq = full.nq - pl->r0;
    pl->threads = threads;
    pl->scale = full.scale;
    const problem &p = pl->p;
    const path which = choose(full);
    const int64_t G = p.hq / p.hkv, M = p.nq;
    // A group's query rows are evenly strided when there is one, or a head follows the
    // previous head's last row (BHND): then they fold into one matrix (G_FOLDED).
    const bool fold = M == 1 || (q.sh == M * q.sn && o.sh == M * o.sn);
    const mode m = which == FUSED ? G_FUSED : fold ? G_FOLDED : G_BCAST;
    dims qs, ks, vs, os;
    if (m == G_BCAST) {
        qs = {q.sb, q.sh * G, q.sh, q.sn, 1};
        ks = {k.sb, k.sh, k.sh, k.sn, 1};
        vs = {v.sb, v.sh, v.sh, v.sn, 1};
        os = {o.sb, o.sh * G, o.sh, o.sn, 1};
    } else {
        qs = {q.sb, q.sh * (m == G_FOLDED ? G : 1), M == 1 && m == G_FOLDED ? q.sh : q.sn, 1};
        ks = {k.sb, k.sh, k.sn, 1};
        vs = {v.sb, v.sh, v.sn, 1};
        os = {o.sb, o.sh * (m == G_FOLDED ? G : 1), M == 1 && m == G_FOLDED ? o.sh : o.sn, 1};
    }
    if (m == G_FUSED) {
        pl->staged = o.sh != p.d; // [B][Nq][Hq*D] needs a head's row right after the previous head's
        os = pl->staged ? dims{M * p.hq * p.d, p.hq * p.d, 1} : dims{o.sb, o.sn, 1};
    }
    // The mask: row r is query row r % M; bottom-right, key j visible iff j <= i + (N - M)
    // when causal, and under a window W iff j > i + (N - M) - W too; a visible key adds 0,
    // under ALiBi -m_h |i' - j| in plane h = r / M (the same mask, built once here).
    const dims md = mask_dims(p, m);
    const int64_t N = p.nkv, rows = p.alibi > 0 ? p.hq * M : md[md.size() - 2];
    pl->mask.assign((size_t)(rows * N), 0.0f);
    for (int64_t r = 0; r < rows && needs_mask(p); r++) {
        const int64_t ip = r % M + (N - M);
        const float sl = hrp_alibi_slope_of((int)p.hq, p.alibi, (int)(r / M));
        float *row = pl->mask.data() + r * N;
        for (int64_t j = 0; j < N; j++) {
            const bool seen = (!p.causal || j <= ip) && (p.window == 0 || j > ip - p.window);
            row[j] = seen ? -sl * (float)(ip > j ? ip - j : j - ip) : -INFINITY;
        }
    }
    graph g = build(p, m, qs, ks, vs, os);
    std::vector<partition> parts = g.get_partitions();
    if (which == FUSED && parts.size() != 1) throw std::runtime_error("the fused MHA pattern did not form one partition");
    for (partition &pt : parts) {
        if (!pt.is_supported()) throw std::runtime_error("oneDNN left an op of the graph unsupported");
        part x;
        x.ins = pt.get_input_ports();
        x.outs = pt.get_output_ports();
        x.cp = pt.compile(x.ins, x.outs, engine());
        for (const lt &t : x.ins) x.in_slot.push_back(slot_of(t.get_id(), pl->staged));
        for (const lt &t : x.outs) {
            x.out_slot.push_back(slot_of(t.get_id(), pl->staged));
            // The output must keep the strides asked for (it is the caller's memory).
            lt c = x.cp.query_logical_tensor(t.get_id());
            if (c.get_layout_type() != lt::layout_type::strided || c.get_strides() != t.get_strides())
                throw std::runtime_error("oneDNN changed the layout of a partition output");
        }
        for (int s : x.in_slot)
            if (s < 0) throw std::runtime_error("a partition reads a tensor that has no buffer");
        for (int s : x.out_slot)
            if (s < 0) throw std::runtime_error("a partition writes a tensor that has no buffer");
        for (const lt &t : x.ins) x.tin.emplace_back(t, engine(), nullptr);
        for (const lt &t : x.outs) x.tout.emplace_back(t, engine(), nullptr);
        pl->parts.push_back(std::move(x));
    }
    return pl.release();
}

plan *prepare(const problem &p, const view &q, const view &k, const view &v, const view &o, int threads,
              std::string &err)
{
    static std::mutex mu;
    static std::map<key_t, std::unique_ptr<plan>> cache;
    std::lock_guard<std::mutex> lock(mu);
    const key_t key = key_of(p, q, k, v, o, threads);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second.get();
    // A sweep compiles one plan per point: keep the last few (a plan holds its mask, up to
    // G*Nq*Nkv floats), dropping them all when full (a caller uses one plan at a time).
    if (cache.size() >= 4) cache.clear();
    try {
        omp_threads t(threads);
        plan *pl = compile(p, q, k, v, o, threads);
        cache[key].reset(pl);
        return pl;
    } catch (const dnnl::error &e) {
        err = std::string("oneDNN: ") + e.what();
    } catch (const std::exception &e) {
        err = e.what();
    }
    return nullptr;
}

static float *row(const view &x, int64_t b, int64_t h, int64_t n) { return x.data + b * x.sb + h * x.sh + n * x.sn; }

int execute(plan *pl, const view &q0, const view &k, const view &v, const view &o0, void *ws, std::string &err)
{
    const problem &p = pl->p;
    // The rows that see keys start at r0 (causal, Nq > Nkv): the graph runs on them alone.
    const view q = {q0.data + pl->r0 * q0.sn, q0.sb, q0.sh, q0.sn};
    const view o = {o0.data + pl->r0 * o0.sn, o0.sb, o0.sh, o0.sn};
    void *buf[S_NSLOTS] = {q.data, k.data, v.data, o.data, &pl->scale, pl->mask.data(), ws, ws};
    try {
        omp_threads t(pl->threads);
        for (part &x : pl->parts) {
            for (size_t i = 0; i < x.tin.size(); i++) x.tin[i].set_data_handle(buf[x.in_slot[i]]);
            for (size_t i = 0; i < x.tout.size(); i++) x.tout[i].set_data_handle(buf[x.out_slot[i]]);
            x.cp.execute(stream(), x.tin, x.tout);
        }
        stream().wait();
    } catch (const dnnl::error &e) {
        err = std::string("oneDNN: ") + e.what();
        return -1;
    }
    const int64_t rows = p.b * p.hq;
    if (pl->staged) { // [B][M][Hq*D] -> O's rows
        const float *st = (const float *)ws;
#pragma omp parallel for num_threads(pl->threads) schedule(static)
        for (int64_t bh = 0; bh < rows; bh++) {
            const int64_t b = bh / p.hq, h = bh % p.hq;
            for (int64_t i = 0; i < p.nq; i++)
                memcpy(row(o, b, h, i), st + ((b * p.nq + i) * p.hq + h) * p.d, (size_t)p.d * sizeof(float));
        }
    }
    for (int64_t bh = 0; bh < rows && pl->r0 > 0; bh++) // rows that see no key
        for (int64_t i = 0; i < pl->r0; i++) memset(row(o0, bh / p.hq, bh % p.hq, i), 0, (size_t)p.d * sizeof(float));
    return 0;
}

int run(const problem &p, const view &q, const view &k, const view &v, const view &o, void *ws, int threads,
        std::string &err)
{
    plan *pl = prepare(p, q, k, v, o, threads, err);
    return pl ? execute(pl, q, k, v, o, ws, err) : -1;
}

} // namespace sdpa
