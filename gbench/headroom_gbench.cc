// headroom_gbench.cc — Google Benchmark front end: every kernel in the registry x a set of
// shapes, registered at start-up, run by Google Benchmark's own runner and reporters.
// Allocation and input generation happen outside the timed loop; the loop calls k->run.
// Rows are named as headroom's own (hr_row_name: kernel/B/H/G/N/M/d/full|causal/layout/T),
// and the context carries headroom's fields (machine, isa, cflags, git_commit,
// git_commit_time, build_id, ...) through AddCustomContext, so `headroom compare`,
// `export` and `history` match these files with sweep files. Google Benchmark sizes the
// iteration count only through CPU time (UseRealTime would append "/real_time" to every
// name, so it is not set; real_time is reported either way and is what headroom reads,
// and GFLOPS is timed on the wall clock around the loop).
// Counters: GFLOPS (FLOPs from counts.c as a rate), flops (per call: what headroom's
// readers take GFLOP/s from), bytes (the kernel's traffic model), workspace_bytes.
// Usage: build/native/headroom_gbench [--benchmark_filter=flash] [--benchmark_repetitions=9]
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

extern "C" {
#include <cjson/cJSON.h>

#include "counts.h"
#include "headroom.h"
#include "inputs.h"
#include "result.h"
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
    hr_args buf; // the cache in tiles where the kernel asks, as headroom run hands it
    const hr_args *a = hr_tensors_args(&x, &p, k, &t, &buf);
    const auto t0 = std::chrono::steady_clock::now();
    for (auto _ : state) {
        hr_kernel_run(k, &p, &t, a, ws);
        benchmark::DoNotOptimize(x.args.o.p);
        benchmark::ClobberMemory();
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double flops = hr_core_flops(&p), bytes = hr_kernel_bytes(k, &p, &t);
    // Against wall time, as headroom's GFLOPS: a kIsRate counter would divide by the main
    // thread's CPU time here (no UseRealTime), which is not the kernel's rate.
    state.counters["GFLOPS"] = wall > 0 ? flops * static_cast<double>(state.iterations()) / wall * 1e-9 : 0;
    state.counters["flops"] = flops;
    state.counters["bytes"] = bytes;
    state.counters["workspace_bytes"] = static_cast<double>(wsb);
    state.counters["threads_used"] = t.threads;
    free(ws);
    hr_tensors_free(&x);
}

// headroom's context fields that Google Benchmark does not write itself, as strings.
void add_headroom_context()
{
    static const char *const own[] = {"date", "host_name", "executable", "num_cpus", "mhz_per_cpu",
                                      "cpu_scaling_enabled", "caches", "load_avg", "library_build_type",
                                      "warnings", "max_threads", "oversubscribed", nullptr};
    cJSON *ctx = hr_context_json(nullptr, 0);
    for (const cJSON *it = ctx ? ctx->child : nullptr; it; it = it->next) {
        bool skip = false;
        for (int i = 0; own[i] && !skip; i++) skip = !std::strcmp(it->string, own[i]);
        if (skip) continue;
        if (cJSON_IsString(it)) {
            benchmark::AddCustomContext(it->string, it->valuestring);
        } else if (cJSON_IsNumber(it)) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "%.17g", it->valuedouble);
            benchmark::AddCustomContext(it->string, buf);
        }
    }
    benchmark::AddCustomContext("front_end", "gbench/headroom_gbench.cc");
    cJSON_Delete(ctx);
}

}  // namespace

int main(int argc, char **argv)
{
    // Same default pinning as the headroom binary (a user's settings win).
    setenv("OMP_PROC_BIND", "close", 0);
    setenv("OMP_PLACES", "cores", 0);
    // The machine's caches for the kernels' default tiles, as the headroom binary does.
    hr_sysinfo_set_machine();
    for (int i = 0; hr_kernels[i]; i++) {
        const hr_kernel *k = hr_kernels[i];
        for (const Shape &s : kShapes) {
            hr_problem p = {1, s.heads, s.kv_heads, s.seq_q, s.seq_kv, s.d, s.causal, 0.0f};
            if (hr_problem_validate(&p) != HR_OK) continue;
            if (k->applicable && k->applicable(&p)) continue;
            char name[256];
            const hr_tune t = hr_kernel_tune(k, &p, nullptr);
            hr_row_name(k, &p, HR_LAYOUT_BHND, t.threads, name, sizeof name);
            benchmark::RegisterBenchmark(name, run_kernel, k, p)->Unit(benchmark::kMicrosecond);
        }
    }
    add_headroom_context();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
