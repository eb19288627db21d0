// bench.cpp — sdpa_bench: oneDNN's SDPA graph timed on its own, outside headroom, the way
// oneDNN's benchdnn times a compiled partition (compile once untimed, warm up, then execute
// repeatedly and report the distribution): the fairness reference for the onednn_sdpa plugin
// (fairness.sh). It runs the same compiled partitions as the plugin (sdpa_graph.cpp).
//   sdpa_bench [--batch B] [--heads H] [--kv-heads G] [--seq N] [--seq-kv M] [--d-head D]
//              [--causal] [--layout bhnd|bnhd] [--threads T] [--reps R] [--min-time S] [--warmup S]
//              [--hugepages]
// --hugepages allocates the tensors as headroom does (hr_alloc: 2 MiB aligned, MADV_HUGEPAGE);
// without it they are plain heap memory, as benchdnn's are (4 KiB pages where THP is madvise).
// Prints one line: median and min wall milliseconds per call, the median process CPU
// milliseconds per call, GFLOP/s of the median, the path.
#include "sdpa_graph.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <sys/mman.h>
#include <time.h>

static double now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Process CPU seconds (all threads): under a loaded machine it says what the calls cost,
// where wall time also says how much of the cores the process was given.
static double cpu_now()
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

// n floats of zeros: plain heap memory, or headroom's large-buffer allocation.
static float *alloc_floats(size_t n, bool huge)
{
    const size_t two = (size_t)2 << 20, bytes = n * sizeof(float);
    if (!huge || bytes < two) return (float *)calloc(n ? n : 1, sizeof(float));
    const size_t m = (bytes + two - 1) / two * two;
    float *p = (float *)aligned_alloc(two, m);
    if (!p) return nullptr;
    madvise(p, m, MADV_HUGEPAGE);
    memset(p, 0, bytes);
    return p;
}

static int usage(const char *why)
{
    fprintf(stderr, "sdpa_bench: %s\n", why);
    return 2;
}

// Core FLOPs as headroom counts them: 4*B*Hq*D*(visible (i, j) pairs).
static double flops(const sdpa::problem &p)
{
    double pairs = 0;
    for (int64_t i = 0; i < p.nq; i++) {
        int64_t vis = p.causal ? std::min<int64_t>(p.nkv, std::max<int64_t>(0, i + (p.nkv - p.nq) + 1)) : p.nkv;
        pairs += (double)vis;
    }
    return 4.0 * p.b * p.hq * p.d * pairs;
}

int main(int argc, char **argv)
{
    long b = 1, h = 8, g = 0, n = 512, m = 0, d = 64, threads = 0, reps = 9;
    double min_time = 0.05, warmup = 0.1;
    bool causal = false, bnhd = false, huge = false;
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        auto num = [&](long &x) {
            if (i + 1 >= argc) return false;
            char *e;
            x = strtol(argv[++i], &e, 10);
            return *e == 0 && x > 0 && x <= (1L << 24);
        };
        auto dbl = [&](double &x) {
            if (i + 1 >= argc) return false;
            char *e;
            x = strtod(argv[++i], &e);
            return *e == 0 && x >= 0 && x <= 3600;
        };
        bool ok = true;
        if (a == "--batch") ok = num(b);
        else if (a == "--heads") ok = num(h);
        else if (a == "--kv-heads") ok = num(g);
        else if (a == "--seq") ok = num(n);
        else if (a == "--seq-kv") ok = num(m);
        else if (a == "--d-head") ok = num(d);
        else if (a == "--threads") ok = num(threads);
        else if (a == "--reps") ok = num(reps);
        else if (a == "--min-time") ok = dbl(min_time);
        else if (a == "--warmup") ok = dbl(warmup);
        else if (a == "--causal") causal = true;
        else if (a == "--hugepages") huge = true;
        else if (a == "--layout" && i + 1 < argc) {
            const std::string l = argv[++i];
            ok = l == "bhnd" || l == "bnhd";
            bnhd = l == "bnhd";
        } else return usage(("unknown or incomplete option " + a).c_str());
        if (!ok) return usage(("bad value for " + a).c_str());
    }
    if (!g) g = h;
    if (!m) m = n;
    if (h % g) return usage("--kv-heads must divide --heads");
    if (!threads) threads = omp_get_max_threads();
    const sdpa::problem p = {b, h, g, n, m, d, causal, (float)(1.0 / std::sqrt((double)d)), 0, 0.0f};
    const size_t ws = sdpa::workspace_bytes(p);
    if (!ws) return usage("the problem does not fit in memory");
    // Tensors in headroom's layouts: BHND [B][H][N][D] or BNHD [B][N][H][D] (kept to the end).
    auto mk = [&](long heads, long rows) {
        const size_t n = (size_t)(b * heads * rows * d);
        float *x = alloc_floats(n, huge);
        if (!x) exit(usage("out of memory"));
        return bnhd ? sdpa::view{x, heads * rows * d, d, heads * d} : sdpa::view{x, heads * rows * d, rows * d, d};
    };
    const sdpa::view q = mk(h, n), k = mk(g, m), v = mk(g, m), o = mk(h, n);
    std::mt19937 rng(1);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    for (const sdpa::view *x : {&q, &k, &v})
        for (size_t i = 0, e = (size_t)(b * (x == &q ? h * n : g * m) * d); i < e; i++) x->data[i] = nd(rng);
    char *wsb = (char *)alloc_floats((ws + sizeof(float) - 1) / sizeof(float), huge);
    if (!wsb) return usage("out of memory");
    std::string err;
    const double c0 = now();
    sdpa::plan *pl = sdpa::prepare(p, q, k, v, o, (int)threads, err);
    const double compile_s = now() - c0;
    if (!pl) return fprintf(stderr, "sdpa_bench: %s\n", err.c_str()), 1;
    auto call = [&] {
        if (sdpa::execute(pl, q, k, v, o, wsb, err)) {
            fprintf(stderr, "sdpa_bench: %s\n", err.c_str());
            exit(1);
        }
    };
    // Warm-up: at least one call, then until `warmup` seconds.
    double t0 = now();
    call();
    double once = now() - t0;
    while (now() - t0 < warmup) call();
    // Calls per repetition so that one repetition lasts min_time.
    long iters = once > 0 ? std::max(1L, (long)std::ceil(min_time / once)) : 1;
    std::vector<double> per, cpu;
    for (long r = 0; r < reps; r++) {
        const double s = now(), c = cpu_now();
        for (long i = 0; i < iters; i++) call();
        per.push_back((now() - s) / (double)iters);
        cpu.push_back((cpu_now() - c) / (double)iters);
    }
    std::sort(cpu.begin(), cpu.end());
    std::vector<double> sorted = per;
    std::sort(sorted.begin(), sorted.end());
    const double med = sorted.size() % 2 ? sorted[sorted.size() / 2]
                                         : 0.5 * (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]);
    const double cmed = cpu.size() % 2 ? cpu[cpu.size() / 2] : 0.5 * (cpu[cpu.size() / 2 - 1] + cpu[cpu.size() / 2]);
    printf("sdpa_bench median_ms %.4f min_ms %.4f cpu_ms %.4f gflops %.2f threads %ld reps %ld iters %ld compile_ms %.2f "
           "path %s\n",
           med * 1e3, sorted[0] * 1e3, cmed * 1e3, flops(p) / med * 1e-9, threads, reps, iters, compile_s * 1e3,
           sdpa::path_name(p));
    return 0;
}
