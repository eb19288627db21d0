/* test_decode_variants.c — decode's sliding window, soft cap and ALiBi on every K/V type and path against the oracle; a plain kernel's output fails it (hr_vsoftcap itself: test_vec.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inputs.h"
#include "isa.h"
#include "oracle.h"
#include "result.h"
#include "t.h"
#include "t_decode.h"
#include "vec_tanh.h"

/* Odd shapes: Nkv no multiple of 16 or 64, d 32/64/128, GQA 4/1 and 6/2, Nq 1 to 8, and
 * 1, 2 and 3 threads, so a window's visible keys are cut between threads and merged. */
static const struct {
    int heads, kv_heads, seq_q, seq_kv, d, threads, batch;
} shapes[] = {
    {4, 1, 1, 301, 64, 2, 1}, {6, 2, 3, 333, 128, 3, 1}, {4, 1, 8, 97, 32, 1, 2}, {6, 2, 5, 1000, 64, 2, 1},
    {4, 1, 2, 517, 128, 3, 2},
};

/* Each variant alone and together, causal and not where the variant allows it. */
static const struct {
    bool causal;
    int window;
    float softcap, alibi;
} variants[] = {
    {false, 0, 5.0f, 0}, {true, 0, 2.0f, 0},  {false, 0, 0, 8.0f},     {true, 0, 0, 8.0f},
    {true, 37, 0, 0},    {true, 200, 0, 0},   {true, 45, 3.0f, 8.0f},  {false, 0, 20.0f, 4.0f},
};
#define NSHAPE (int)(sizeof shapes / sizeof shapes[0])
#define NVAR (int)(sizeof variants / sizeof variants[0])

static hr_problem make_problem(int si, int vi, hr_dtype kv, hr_dtype qt)
{
    hr_problem p = {.batch = shapes[si].batch, .heads = shapes[si].heads, .kv_heads = shapes[si].kv_heads,
                    .seq_q = shapes[si].seq_q, .seq_kv = shapes[si].seq_kv, .d_head = shapes[si].d,
                    .causal = variants[vi].causal, .dtype = qt, .kv_dtype = kv, .window = variants[vi].window,
                    .softcap = variants[vi].softcap, .alibi = variants[vi].alibi};
    return p;
}

/* Runs decode on p (its own tensors, K/V in tiles where decode asks for them) and returns
 * the oracle's check of the output with the path's quantization; *path its name. With
 * plain, the kernel runs p without its variants and the check is still of p's. */
static hr_check run_variant(const hr_problem *p, hr_layout lay, int threads, int plain, const char **path)
{
    const hr_kernel *k = hr_kernel_find("decode");
    hr_check c = {.verdict = -1};
    hr_problem run = *p;
    if (plain) run.window = 0, run.softcap = 0, run.alibi = 0;
    hr_tensors ts;
    if (hr_tensors_alloc(&ts, p, lay, HR_DIST_NORMAL, 17)) return c;
    hr_tune t = hr_kernel_tune(k, &run, &(hr_tune){0, 0, threads});
    hr_args buf;
    const hr_args *a = hr_tensors_args(&ts, &run, k, &t, &buf);
    const size_t wb = hr_kernel_workspace(k, &run, &t);
    void *ws = hr_alloc(wb ? wb : 64);
    hr_tensors_poison(&run, a, 1e30f); /* every row must be written */
    if (hr_kernel_run(k, &run, &t, a, ws) == HR_OK) {
        hr_tensors_output(p, a);
        *path = hr_kernel_path(k, p);
        c = hr_oracle_check_q(p, a, 0, hr_path_quant(*path));
    }
    free(ws);
    hr_tensors_free(&ts);
    return c;
}

/* Every shape and variant on a cache of type kv, Q of type qt, on the path the
 * environment sets now; returns the cases run. */
static int battery(hr_dtype kv, hr_dtype qt, hr_layout lay, const char *env)
{
    const hr_kernel *k = hr_kernel_find("decode");
    int ran = 0;
    for (int si = 0; si < NSHAPE; si++)
        for (int vi = 0; vi < NVAR; vi++) {
            const hr_problem p = make_problem(si, vi, kv, qt);
            const char *why = hr_kernel_why_not(k, &p);
            CHECKF(!why, "%s/kv %s shape %d variant %d refused: %s", hr_dtype_names[qt], hr_dtype_names[kv], si, vi,
                   why);
            if (why) continue;
            const char *path = "";
            const hr_check c = run_variant(&p, lay, shapes[si].threads, 0, &path);
            char s[160];
            hr_problem_str(&p, s, sizeof s);
            CHECKF(c.verdict == HR_CHECK_PASS, "%s T%d %s env %s [%s]: %s (max_rel %.3g)", s, shapes[si].threads,
                   lay == HR_LAYOUT_BNHD ? "bnhd" : "bhnd", env, path,
                   c.verdict < 0 ? "did not run" : hr_check_names[c.verdict], c.max_rel_err);
            ran++;
        }
    return ran;
}

static const hr_dtype kvs[] = {HR_F32, HR_BF16, HR_F16, HR_Q8_0, HR_Q4_0};
#define NKV (int)(sizeof kvs / sizeof kvs[0])

HR_TEST(decode_declares_variants)
{
    const hr_kernel *k = hr_kernel_find("decode");
    CHECK(k && (k->caps & HR_CAP_WINDOW) && (k->caps & HR_CAP_SOFTCAP) && (k->caps & HR_CAP_ALIBI));
}

/* The default path of every K/V type (int8 on a VNNI CPU for q8_0/q4_0, in tiles; bf16dot
 * off Intel for bf16), both layouts (BNHD: the heads' interleaved walk). */
HR_TEST(decode_variants_default_paths)
{
    decode_path_env(NULL);
    for (int t = 0; t < NKV; t++) {
        CHECK(battery(kvs[t], HR_F32, HR_LAYOUT_BHND, "auto") == NSHAPE * NVAR);
        CHECK(battery(kvs[t], HR_F32, HR_LAYOUT_BNHD, "auto") == NSHAPE * NVAR);
    }
    /* a bf16 Q, scored by vdpbf16ps as given where bf16dot runs */
    CHECK(battery(HR_BF16, HR_BF16, HR_LAYOUT_BHND, "auto") == NSHAPE * NVAR);
}

/* At every ISA level this CPU runs: the conversion path on every type, the level's own
 * choice for q8_0/q4_0/bf16, the int8 step's rows (not tiles), its fp32 P·V, its
 * vpmaddubsw instance, and the forced bf16dot step, where the level has them. */
HR_TEST(decode_variants_every_level)
{
    const char *was = hr_isa;
    for (int l = 0; l < hr_isa_count(); l++) {
        const hr_isa_level *lv = hr_isa_at(l);
        if (hr_isa_lacks(lv)) continue;
        CHECK(hr_isa_select(lv->name) == HR_OK);
        decode_path_env("convert");
        for (int t = 0; t < NKV; t++) battery(kvs[t], HR_F32, HR_LAYOUT_BHND, "convert");
        decode_path_env(NULL);
        for (int t = 1; t < NKV; t++) battery(kvs[t], HR_F32, HR_LAYOUT_BHND, "auto");
        setenv("HEADROOM_DECODE_KV", "rows", 1);
        battery(HR_Q8_0, HR_F32, HR_LAYOUT_BHND, "KV=rows");
        battery(HR_Q4_0, HR_F32, HR_LAYOUT_BHND, "KV=rows");
        unsetenv("HEADROOM_DECODE_KV");
        setenv("HEADROOM_DECODE_PV", "fp32", 1);
        battery(HR_Q8_0, HR_F32, HR_LAYOUT_BHND, "PV=fp32");
        unsetenv("HEADROOM_DECODE_PV");
        if (int8_instance(1)) {
            battery(HR_Q8_0, HR_F32, HR_LAYOUT_BHND, "emu");
            battery(HR_Q4_0, HR_F32, HR_LAYOUT_BHND, "emu");
        }
        if (bf16dot_forced()) {
            battery(HR_BF16, HR_F32, HR_LAYOUT_BHND, "bf16dot");
            battery(HR_BF16, HR_BF16, HR_LAYOUT_BHND, "bf16dot");
        }
        decode_path_env(NULL);
        printf("     note: decode variants at %-7s: %s\n", lv->name,
               hr_kernel_path(hr_kernel_find("decode"), &(hr_problem){1, 8, 2, 1, 100, 64, false, 0, HR_F32, HR_Q8_0}));
    }
    CHECK(hr_isa_select(was) == HR_OK);
}

/* The check can fail: the output of the problem without its variant fails the oracle of
 * the problem with it, for each variant on every type. */
HR_TEST(decode_plain_output_fails_variants)
{
    static const struct {
        int window;
        float softcap, alibi;
    } vs[] = {{37, 0, 0}, {0, 0.5f, 0}, {0, 0, 8.0f}};
    for (int t = 0; t < NKV; t++)
        for (int v = 0; v < 3; v++) {
            hr_problem p = make_problem(1, 0, kvs[t], HR_F32);
            p.causal = true, p.window = vs[v].window, p.softcap = vs[v].softcap, p.alibi = vs[v].alibi;
            const char *path = "";
            const hr_check plain = run_variant(&p, HR_LAYOUT_BHND, 2, 1, &path);
            CHECKF(plain.verdict == HR_CHECK_FAIL, "kv %s variant %d: the plain output is %s", hr_dtype_names[kvs[t]], v,
                   plain.verdict < 0 ? "not run" : hr_check_names[plain.verdict]);
            const hr_check own = run_variant(&p, HR_LAYOUT_BHND, 2, 0, &path);
            CHECK(own.verdict == HR_CHECK_PASS);
        }
}
