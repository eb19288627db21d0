// sdpa_graph.hpp — scaled-dot-product attention as a oneDNN Graph API graph, compiled once per
// problem, strides and thread count, executed on the caller's memory. Shared by the headroom
// plugin (plugin.cpp) and the standalone timing driver (bench.cpp), so both time the same
// compiled partitions.
#ifndef ONEDNN_SDPA_GRAPH_HPP
#define ONEDNN_SDPA_GRAPH_HPP

#include <cstddef>
#include <cstdint>
#include <string>

namespace sdpa {

// One problem in headroom's terms: Q [B][Hq][Nq][D], K/V [B][Hkv][Nkv][D], f32. Causal is
// bottom-right aligned (key j visible to query i iff j <= i + Nkv - Nq), and a window hides
// keys j <= i + Nkv - Nq - window as well.
struct problem {
    int64_t b, hq, hkv, nq, nkv, d;
    bool causal;
    float scale;
    int64_t window; // a sliding window (causal): row i sees keys i' - window < j <= i'; 0: off
    // ALiBi's max bias b: query head h's score of key j gains -m_h |i' - j| (plugin.h's
    // hrp_alibi_slope_of), as an explicit additive bias, one plane of [Nq][Nkv] a query
    // head; 0: off
    float alibi;
};

// Bytes of p's mask (the bias planes under ALiBi), which the plan holds beside the workspace.
double mask_bytes(const problem &p);

// A 4-D strided view [b][h][n][e], strides in ELEMENTS (floats), elements of a row contiguous.
struct view {
    float *data;
    int64_t sb, sh, sn;
};

// Which graph runs p (a function of p alone, so it can be named before a run):
//   FUSED   MHA (Hq == Hkv): oneDNN's fused f32 MHA partition, one compiled partition of
//           MatMul -> Multiply(scale) -> Add(mask) -> SoftMax -> MatMul -> Transpose -> Reshape
//           (the only SDPA pattern oneDNN 3.2 fuses for f32; its output is [B][Nq][Hq*D]);
//   UNFUSED GQA/MQA, or where the fused pattern does not form one partition: the same ops
//           over 5-D tensors [B][Hkv][G][N][D] (K/V broadcast over the group G) in the
//           partitions oneDNN forms (matmul+scale[+mask], softmax, matmul), scores in the
//           caller's workspace.
enum path { FUSED, UNFUSED };
path choose(const problem &p);
const char *path_name(const problem &p); // "onednn 3.2.0 graph fused f32_MHA (...)"
const char *version();                   // "3.2.0" of the loaded library

// Rows of Q that see at least one key: causal with Nq > Nkv leaves the first Nq - Nkv rows
// with none (their output is zeros); otherwise 0.
int64_t first_row(const problem &p);

// Scratch bytes the caller provides to run(): the scores [B][Hq][Nq][Nkv] (UNFUSED) or the
// fused output [B][Nq][Hq*D] staged when O's heads are not adjacent (FUSED). 0 on overflow.
size_t workspace_bytes(const problem &p);

struct plan; // compiled partitions, the mask, the tensors

// The compiled plan for p with these views' strides and this thread count, compiled now if
// not cached (compilation is outside any timed call when the caller warms up once). The plan
// stays valid until prepare compiles a fifth one (the cache keeps four). Returns NULL and
// sets err on failure. Not for two threads executing one plan at once.
plan *prepare(const problem &p, const view &q, const view &k, const view &v, const view &o, int threads,
              std::string &err);

// Executes pl on these views (same strides as at prepare) with ws of workspace_bytes(p):
// O written whole (rows that see no key as zeros). 0 on success, else -1 and err set.
int execute(plan *pl, const view &q, const view &k, const view &v, const view &o, void *ws, std::string &err);

// prepare + execute.
int run(const problem &p, const view &q, const view &k, const view &v, const view &o, void *ws, int threads,
        std::string &err);

} // namespace sdpa

#endif
