// headroom_gbench.cc — Google Benchmark front end: every kernel in the registry x a set of
// shapes, registered at start-up, run by Google Benchmark's own runner and reporters.
// Allocation and input generation happen outside the timed loop; the loop calls k->run.
// Counters: GFLOPS (FLOPs from counts.c as a rate), bytes (the kernel's traffic model),
// workspace. Usage: build/native/headroom_gbench [--benchmark_filter=flash] ...
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" {
#include "counts.h"
#include "headroom.h"
#include "inputs.h"
#include "sysinfo.h"
}

namespace {

struct Shape {
    int heads, kv_heads, seq_q, seq_kv, d;
    bool causal;
};

// Prefill shapes (MHA and GQA) and one decode step; kernels that cannot run a shape
// (applicable() gives a reason) are not registered for it.
const Shape kShapes[] = {
    {8, 8, 256, 256, 64, false},  {8, 8, 256, 256, 64, true},   {8, 8, 1024, 1024, 64, false},
    {8, 8, 1024, 1024, 64, true}, {32, 8, 512, 512, 128, true}, {32, 8, 1, 8192, 128, true},
};

void run_kernel(benchmark::State &state, const hr_kernel *k, hr_problem p)
{
    hr_tune t = hr_kernel_tune(k, &p, nullptr);
    hr_tensors x;
    if (hr_tensors_alloc(&x, &p, HR_LAYOUT_BHND, HR_DIST_NORMAL, 1) != HR_OK) {
        state.SkipWithError(hr_errmsg());
        return;
    }
    size_t wsb = hr_kernel_workspace(k, &p, &t);
    void *ws = hr_alloc(wsb ? wsb : 64);
    if (!ws) {
        hr_tensors_free(&x);
        state.SkipWithError("cannot allocate the workspace");
        return;
    }
    for (auto _ : state) {
        hr_kernel_run(k, &p, &t, &x.args, ws);
        benchmark::DoNotOptimize(x.args.o.p);
        benchmark::ClobberMemory();
    }
    double flops = hr_core_flops(&p), bytes = hr_kernel_bytes(k, &p, &t);
    state.counters["GFLOPS"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["bytes"] = bytes;
    state.counters["workspace_bytes"] = static_cast<double>(wsb);
    state.counters["threads_used"] = t.threads;
    free(ws);
    hr_tensors_free(&x);
}

}  // namespace

int main(int argc, char **argv)
{
    // Same default pinning as the headroom binary (a user's settings win).
    setenv("OMP_PROC_BIND", "close", 0);
    setenv("OMP_PLACES", "cores", 0);
    // The machine's caches for the kernels' default tiles, as the headroom binary does.
    const hr_sysinfo *si = hr_sysinfo_get();
    const hr_machine m = {si->l1d, si->l2};
    hr_kernel_set_machine(&m);
    for (int i = 0; hr_kernels[i]; i++) {
        const hr_kernel *k = hr_kernels[i];
        for (const Shape &s : kShapes) {
            hr_problem p = {1, s.heads, s.kv_heads, s.seq_q, s.seq_kv, s.d, s.causal, 0.0f};
            if (hr_problem_validate(&p) != HR_OK) continue;
            if (k->applicable && k->applicable(&p)) continue;
            char name[160];
            std::snprintf(name, sizeof name, "%s/B1/H%d/G%d/N%d/M%d/d%d/%s/bhnd", k->name, s.heads,
                          s.kv_heads, s.seq_q, s.seq_kv, s.d, s.causal ? "causal" : "full");
            benchmark::RegisterBenchmark(name, run_kernel, k, p)->UseRealTime()->Unit(benchmark::kMicrosecond);
        }
    }
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
