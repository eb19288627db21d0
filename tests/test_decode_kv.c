/* test_decode_kv.c — decode on a typed KV cache (f16, bf16, q8_0, q4_0) against the fp64 oracle: the kernel's own error on the dequantized K/V, and the format's error on the original ones. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ceilings.h"
#include "cpu_vendor.h"
#include "inputs.h"
#include "isa.h"
#include "oracle.h"
#include "result.h"
#include "t.h"
#include "t_decode.h"

/* The kernel's own error is judged by the oracle's tolerance for the types: the
 * conversions (vec.h's reduced-precision loads) are exact, so the kernel computes in fp32
 * on exactly the values hr_dtype_load_row hands the oracle, and its error is that of
 * fp32 accumulation (eps * (8 sqrt(d) + 16 log2(Nkv + 1) + 16) plus the logits'
 * rounding, oracle.c), whatever the stored type; a bf16 cache on a CPU with AVX512-BF16
 * (decode_bf16.c) also rounds P to bf16 for vdpbf16ps, which the oracle's P·V term
 * allows for a bf16 cache (both paths run here). On q8_0/q4_0 the int8 path (decode_i8.c, where
 * the CPU has VNNI) also quantizes Q to q8_0, and the oracle adds that term's exact
 * size; both paths run here (HEADROOM_DECODE_PATH), and queries that q8_0 holds exactly
 * hold the int8 path to the fp32 terms alone. The format's error (the oracle on the
 * original fp32 K/V) is only reported and held to a sanity bound. */

/* hr_tensors_alloc hands a typed problem its K/V stored as p->kv_dtype (args.xk/xv) and
 * a->k/v as their dequantized values; the originals are the same draw for the fp32
 * problem. */
typedef struct {
    hr_tensors ts;   /* p's tensors: the stored cache and its dequantized values */
    hr_tensors orig; /* p with an f32 cache: the original K and V                 */
} kv_case;

static int kv_case_alloc(kv_case *kc, const hr_problem *p, hr_layout lay, hr_dist dist)
{
    memset(kc, 0, sizeof *kc);
    hr_problem p32 = *p;
    p32.kv_dtype = HR_F32;
    if (hr_tensors_alloc(&kc->ts, p, lay, dist, 23)) return -1;
    return hr_tensors_alloc(&kc->orig, &p32, lay, dist, 23) ? -1 : 0;
}

static void kv_case_free(kv_case *kc)
{
    hr_tensors_free(&kc->ts);
    hr_tensors_free(&kc->orig);
}

/* Runs decode on p; *own is the check on the dequantized K/V, *fmt on the originals. */
static int run_kv_q(const hr_problem *p, hr_layout lay, hr_dist dist, int threads, int block, hr_check *own,
                    hr_check *fmt, int exact_q)
{
    const hr_kernel *k = hr_kernel_find("decode");
    kv_case kc;
    if (!k || kv_case_alloc(&kc, p, lay, dist)) {
        kv_case_free(&kc);
        return -1;
    }
    if (exact_q) /* Q that q8_0 holds exactly after the power-of-2 scale: integers in
                  * [-127, 127] times 2^-4, each block's first value +-127 */
        for (int b = 0; b < p->batch; b++)
            for (int h = 0; h < p->heads; h++)
                for (int i = 0; i < p->seq_q; i++) {
                    float *q = hr_row(kc.ts.q, b, h, i);
                    for (int x = 0; x < p->d_head; x++) {
                        const int v = x % HR_QBLOCK ? (int)((x * 37u + i * 11u + h * 5u) % 255u) - 127 : (x & 32 ? -127 : 127);
                        q[x] = (float)v * 0x1p-4f;
                    }
                }
    hr_tune t = hr_kernel_tune(k, p, &(hr_tune){0, block, threads});
    size_t wb = k->workspace_bytes(p, &t);
    void *ws = hr_alloc(wb ? wb : 64);
    hr_args *a = &kc.ts.args;
    hr_tensors_poison(p, a, 1e30f);
    /* The kernel must read the stored cache (and a bf16/f16 Q as stored), not the
     * dequantized floats: poison them while it runs. */
    const size_t n = (size_t)p->batch * p->kv_heads * p->seq_kv * p->d_head;
    const size_t nq = (size_t)p->batch * p->heads * p->seq_q * p->d_head;
    float *kdq = malloc(n * sizeof(float)), *vdq = malloc(n * sizeof(float)), *qdq = malloc(nq * sizeof(float));
    hr_view kd = hr_view_dense(kdq, lay, p->batch, p->kv_heads, p->seq_kv, p->d_head);
    hr_view vd = hr_view_dense(vdq, lay, p->batch, p->kv_heads, p->seq_kv, p->d_head);
    hr_view qd = hr_view_dense(qdq, lay, p->batch, p->heads, p->seq_q, p->d_head);
    hr_cview keep_k = a->k, keep_v = a->v, keep_q = a->q;
    if (p->kv_dtype != HR_F32) {
        a->k = hr_cv(kd);
        a->v = hr_cv(vd);
    }
    if (p->dtype != HR_F32) a->q = hr_cv(qd);
    for (size_t i = 0; i < n; i++) kdq[i] = vdq[i] = NAN;
    for (size_t i = 0; i < nq; i++) qdq[i] = NAN;
    k->run(p, &t, a, ws);
    a->k = keep_k;
    a->v = keep_v;
    a->q = keep_q;
    hr_tensors_output(p, a);
    *own = hr_oracle_check_q(p, a, 0, hr_path_quant(hr_kernel_path(k, p)));
    a->k = kc.orig.args.k;
    a->v = kc.orig.args.v;
    *fmt = hr_oracle_check(p, a, 0);
    free(kdq);
    free(vdq);
    free(qdq);
    free(ws);
    kv_case_free(&kc);
    return 0;
}

static int run_kv(const hr_problem *p, hr_layout lay, hr_dist dist, int threads, int block, hr_check *own,
                  hr_check *fmt)
{
    return run_kv_q(p, lay, dist, threads, block, own, fmt, 0);
}

HR_TEST(decode_declares_kv_types)
{
    const hr_kernel *k = hr_kernel_find("decode");
    CHECK(k != NULL);
    if (!k) return;
    hr_problem p = {1, 8, 2, 1, 100, 64, false, 0, HR_F32, HR_F32};
    for (int t = 0; t < HR_NDTYPES; t++) {
        p.kv_dtype = (hr_dtype)t;
        CHECKF(hr_kernel_why_not(k, &p) == NULL, "kv %s refused: %s", hr_dtype_names[t], hr_kernel_why_not(k, &p));
        const char *path = hr_kernel_path(k, &p);
        CHECKF(path && strstr(path, hr_isa) == path && (t == HR_F32 || strstr(path, hr_dtype_names[t])),
               "kv %s path '%s'", hr_dtype_names[t], path ? path : "(null)");
    }
    p.kv_dtype = HR_Q4_0;
    p.d_head = 48; /* block types need d % 32 == 0 */
    CHECK(hr_kernel_why_not(k, &p) != NULL);
    /* Q and O in bf16 or f16 beside every cache type; a block type for Q is refused. */
    p.d_head = 64;
    for (int qt = HR_BF16; qt <= HR_F16; qt++)
        for (int t = 0; t < HR_NDTYPES; t++) {
            p.dtype = (hr_dtype)qt;
            p.kv_dtype = (hr_dtype)t;
            CHECKF(hr_kernel_why_not(k, &p) == NULL, "%s/kv %s refused: %s", hr_dtype_names[qt], hr_dtype_names[t],
                   hr_kernel_why_not(k, &p));
            /* The f32 Q's path, but a bf16 Q on a bf16 cache where P·V takes vdpbf16ps:
             * the scores by vdpbf16ps too. */
            const char *path = hr_kernel_path(k, &p);
            p.dtype = HR_F32;
            const char *path32 = hr_kernel_path(k, &p);
            const int bfq = qt == HR_BF16 && t == HR_BF16 && strstr(path32, "vdpbf16ps") != NULL;
            CHECKF(path && (bfq ? strstr(path, "scores and P·V vdpbf16ps") != NULL : !strcmp(path, path32)),
                   "%s/kv %s path '%s' (f32 Q: '%s')", hr_dtype_names[qt], hr_dtype_names[t], path ? path : "(null)",
                   path32);
        }
    p.dtype = HR_Q8_0;
    p.kv_dtype = HR_F32;
    CHECK(hr_kernel_why_not(k, &p) != NULL);
}

/* Q and O in bf16 or f16 with every cache type on the battery's shapes, both paths where
 * there are two (a bf16 Q on a bf16 cache with AVX512-BF16: scores by vdpbf16ps on Q as
 * given, decode_bf16.c): the kernel reads Q as stored (the fp32 Q is poisoned while it
 * runs) and writes O rounded to the type, which the oracle's O term allows. */
HR_TEST(decode_typed_query_matches_oracle)
{
    static const int shapes[][6] = {
        {1, 4, 1, 1, 77, 32}, {2, 8, 2, 3, 257, 64}, {1, 32, 8, 1, 1000, 128}, {1, 4, 2, 16, 45, 160}, {2, 2, 1, 3, 19, 7},
    };
    static const int threads[] = {1, 2, 3};
    for (int qt = HR_BF16; qt <= HR_F16; qt++)
        for (int t = 0; t < HR_NDTYPES; t++)
            for (int conv = 0; conv < 3; conv++) {
                if (conv && t != HR_BF16) continue; /* one path but for a bf16 cache */
                decode_path_env(conv == 1 ? "convert" : NULL);
                if (conv == 2 && !bf16dot_beside_auto()) continue; /* vdpbf16ps where auto is not it */
                const char *cname = conv == 1 ? "convert" : conv ? "bf16dot" : "auto";
                int n = 0, fails = 0;
                double own_max = 0;
                for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
                    const int *x = shapes[s];
                    if (x[5] % hr_dtype_block((hr_dtype)t)) continue;
                    for (int causal = 0; causal < 2; causal++) {
                        const int lay = (int)(s + causal) % 2, T = threads[(s + causal + (size_t)qt) % 3];
                        hr_problem p = {x[0], x[1], x[2], x[3], x[4], x[5], causal, 0, (hr_dtype)qt, (hr_dtype)t};
                        hr_check own, fmt;
                        n++;
                        if (run_kv(&p, (hr_layout)lay, (hr_dist)(s % 2), T, s % 2 ? 5 : 0, &own, &fmt)) {
                            fails++;
                            CHECKF(0, "%s/kv %s: allocation failed", hr_dtype_names[qt], hr_dtype_names[t]);
                            continue;
                        }
                        own_max = own.max_rel_err > own_max ? own.max_rel_err : own_max;
                        if (own.verdict != HR_CHECK_PASS) {
                            fails++;
                            CHECKF(0, "%s/kv %s %s shape %zu causal %d T%d: max_rel %g (tol %g) verdict %d",
                                   hr_dtype_names[qt], hr_dtype_names[t], cname, s, causal, T,
                                   own.max_rel_err, own.tol_pass, own.verdict);
                        }
                    }
                }
                CHECK(n >= 8 && fails == 0);
                printf("     note: decode %s/kv %-4s %-7s %d cases: kernel max_rel %.2e\n", hr_dtype_names[qt],
                       hr_dtype_names[t], cname, n, own_max);
            }
    decode_path_env(NULL);
}

/* Every kv type on odd shapes: d 32 .. 256 (and tails for the half types), Nkv not a
 * multiple of the block, causal with Nq > 1, GQA and MQA, both layouts (BNHD takes the
 * interleaved-heads walk), 1, 2 and 3 threads (splits inside a head, empty ranges). */
HR_TEST(decode_kv_types_match_oracle)
{
    static const int shapes[][6] = {
        /* B, Hq, Hkv, Nq, Nkv, d */
        {1, 4, 1, 1, 77, 32},   {2, 8, 2, 3, 257, 64}, {1, 6, 3, 5, 130, 96}, {1, 32, 8, 1, 1000, 128},
        {1, 4, 2, 16, 45, 160}, {3, 2, 2, 2, 5, 32},   {1, 4, 2, 1, 50, 33},  {2, 2, 1, 3, 19, 7},
        {1, 8, 2, 1, 300, 256}, /* d 256 with 4-row groups: decode_kv.c's constant-d scores */
    };
    static const int threads[] = {1, 2, 3};
    static const char *const conv_names[] = {"auto", "convert", "Q exact", "bf16dot"};
    for (int run = 0; run < 4 * (HR_NDTYPES - HR_BF16); run++) {
        /* conv 1: HEADROOM_DECODE_PATH=convert; 2: HEADROOM_DECODE_Q=exact on the
         * vdpbf16ps step; 3: that step (forced where auto takes the conversion path: an
         * Intel CPU) */
        const int t = HR_BF16 + run / 4, conv = run % 4;
        if (conv && t == HR_F16) continue; /* one path for f16 */
        if (conv >= 2 && t != HR_BF16) continue; /* bf16: auto, convert, Q exact, vdpbf16ps */
        unsetenv("HEADROOM_DECODE_Q");
        decode_path_env(conv == 1 ? "convert" : NULL);
        if (conv == 3 && !bf16dot_beside_auto()) continue;
        if (conv == 2 && !bf16dot_forced()) continue;
        if (conv == 2) setenv("HEADROOM_DECODE_Q", "exact", 1);
        int n = 0, fails = 0;
        double own_max = 0, own_tol = 0, fmt_max = 0;
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            const int *x = shapes[s];
            if (x[5] % hr_dtype_block((hr_dtype)t)) continue; /* refused by validation */
            for (int causal = 0; causal < 2; causal++)
                for (int lay = 0; lay < 2; lay++) {
                    hr_problem p = {x[0], x[1], x[2], x[3], x[4], x[5], causal, 0, HR_F32, (hr_dtype)t};
                    const int T = threads[(s + causal + lay) % 3];
                    const int block = (s + lay) % 3 == 0 ? 0 : (s + lay) % 3 == 1 ? 5 : 64;
                    hr_dist dist = (hr_dist)((s + causal) % 2); /* normal, uniform */
                    hr_check own, fmt;
                    n++;
                    if (run_kv(&p, (hr_layout)lay, dist, T, block, &own, &fmt)) {
                        fails++;
                        CHECKF(0, "%s: allocation failed", hr_dtype_names[t]);
                        continue;
                    }
                    own_max = own.max_rel_err > own_max ? own.max_rel_err : own_max;
                    own_tol = own.tol_pass > own_tol ? own.tol_pass : own_tol;
                    fmt_max = fmt.max_rel_err > fmt_max ? fmt.max_rel_err : fmt_max;
                    /* The format's error: q4_0 keeps ~3 bits; a distance past 0.5 of
                     * the output's scale means the rows were not the format's at all. */
                    if (own.verdict != HR_CHECK_PASS || !(fmt.max_rel_err < 0.5)) {
                        fails++;
                        CHECKF(0, "kv %s B%d H%d/%d Nq%d Nkv%d d%d causal %d %s T%d block %d: own %g (tol %g) "
                                  "verdict %d, format %g",
                               hr_dtype_names[t], x[0], x[1], x[2], x[3], x[4], x[5], causal,
                               hr_layout_names[lay], T, block, own.max_rel_err, own.tol_pass, own.verdict,
                               fmt.max_rel_err);
                    }
                }
        }
        CHECK(n >= 24 && fails == 0);
        /* The format's error is the type's rounding seen through attention: at least 1/8
         * of one rounding (bf16 2^-9, f16 2^-12, q8_0 1/254 and q4_0 1/16 of a block's
         * amax) over the set, where the kernel's own error on the conversion path is
         * fp32's: the two are different measurements. */
        const double u = t == HR_BF16 ? 0x1p-9 : t == HR_F16 ? 0x1p-12 : t == HR_Q8_0 ? 1.0 / 254 : 1.0 / 16;
        CHECKF(fmt_max > u / 8 && fmt_max > own_max, "kv %s: format max_rel %g, kernel %g", hr_dtype_names[t],
               fmt_max, own_max);
        printf("     note: decode kv %-4s %-7s %d cases: kernel max_rel %.2e (tol up to %.2e), format max_rel %.2e\n",
               hr_dtype_names[t], t == HR_F16 ? "" : conv_names[conv], n, own_max, own_tol, fmt_max);
    }
    decode_path_env(NULL);
    unsetenv("HEADROOM_DECODE_Q");
}

/* A bf16 cache with AVX512-BF16 scores by vdpbf16ps on Q rounded to bf16 unless
 * HEADROOM_DECODE_Q=exact, and the path says which (the oracle adds that rounding's
 * exact effect only where it is named). A query whose values bf16 holds exactly gives
 * both the same scores: the two outputs then agree to fp32's rounding, and the rounded
 * one is held to the tolerance without the query's term. */
HR_TEST(decode_bf16_cache_rounds_q_where_named)
{
    hr_problem p = {1, 8, 2, 1, 300, 64, false, 0, HR_F32, HR_BF16};
    const hr_kernel *k = hr_kernel_find("decode");
    unsetenv("HEADROOM_DECODE_Q");
    bf16dot_forced(); /* the vdpbf16ps step where this level and CPU have it */
    const char *path = hr_kernel_path(k, &p);
    const int vdp = path && strstr(path, "vdpbf16ps") != NULL;
    CHECKF(path && (vdp ? strstr(path, "Q as bf16") != NULL : strstr(path, "Q as") == NULL), "path '%s'",
           path ? path : "(null)");
    setenv("HEADROOM_DECODE_Q", "exact", 1);
    const char *exact = hr_kernel_path(k, &p);
    CHECKF(exact && !strstr(exact, "Q as"), "exact path '%s'", exact ? exact : "(null)");
    setenv("HEADROOM_DECODE_Q", "fast", 1);
    const char *why = hr_kernel_why_not(k, &p);
    CHECKF(why && strstr(why, "HEADROOM_DECODE_Q"), "a bad HEADROOM_DECODE_Q: '%s'", why ? why : "(null)");
    unsetenv("HEADROOM_DECODE_Q");
    static const int shapes[][6] = {{1, 8, 2, 1, 300, 64}, {1, 32, 8, 1, 1000, 128}, {2, 4, 1, 3, 77, 32}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const int *x = shapes[s];
        hr_problem pe = {x[0], x[1], x[2], x[3], x[4], x[5], s == 2, 0, HR_F32, HR_BF16};
        hr_check own, fmt;
        CHECK(run_kv_q(&pe, (hr_layout)(s % 2), HR_DIST_NORMAL, 1 + (int)s, 0, &own, &fmt, 1) == 0);
        CHECKF(own.verdict == HR_CHECK_PASS, "bf16-exact Q, shape %zu: max_rel %g (tol %g)", s, own.max_rel_err,
               own.tol_pass);
    }
    hr_quant_path qp = hr_path_quant("avx512 bf16 K, Q as bf16 (nearest even), scores and P·V vdpbf16ps");
    CHECK(qp.bf16_query && !qp.q8_query);
    CHECK(!hr_path_quant("avx512 fp32").bf16_query);
    unsetenv("HEADROOM_DECODE_Q");
    decode_path_env(NULL);
}

/* q8_0/q4_0 on the conversion path at every level this CPU runs: the suite's own level
 * is the best one, and the avx2 level (AVX2 CPUs without VNNI) has its own q block tiles
 * (decode_kvq.h: scores a q block at a time, V's scales folded into P per chunk of 64
 * keys). Row counts R 4, 12, 10 (a tile of 2 rows), key blocks of 5, 100 (a chunk and
 * a part, a partial vector of scales) and the default, both layouts, causal. */
HR_TEST(decode_kv_convert_every_level)
{
    static const int shapes[][6] = {
        /* B, Hq, Hkv, Nq, Nkv, d */
        {1, 4, 1, 1, 77, 32}, {2, 8, 2, 3, 257, 64}, {1, 6, 3, 5, 130, 96}, {1, 32, 8, 1, 1000, 128},
    };
    static const int blocks[] = {0, 5, 100};
    const char *was = hr_isa;
    decode_path_env("convert");
    for (int l = 0; l < hr_isa_count(); l++) {
        const hr_isa_level *lv = hr_isa_at(l);
        if (hr_isa_lacks(lv)) continue;
        CHECK(hr_isa_select(lv->name) == HR_OK);
        for (int t = HR_Q8_0; t <= HR_Q4_0; t++) {
            const hr_problem pp = {1, 8, 2, 1, 100, 64, false, 0, HR_F32, (hr_dtype)t};
            const char *path = hr_kernel_path(hr_kernel_find("decode"), &pp);
            CHECKF(path && !strncmp(path, lv->name, strlen(lv->name)) && strstr(path, "fp32 FMA"), "[%s] %s path '%s'",
                   lv->name, hr_dtype_names[t], path ? path : "(null)");
            int n = 0, fails = 0;
            double own_max = 0;
            for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
                for (int lay = 0; lay < 2; lay++) {
                    const int *x = shapes[s];
                    hr_problem p = {x[0], x[1], x[2], x[3], x[4], x[5], (s + lay) % 2, 0, HR_F32, (hr_dtype)t};
                    const int T = 1 + (int)(s + lay) % 3, block = blocks[(s + 2 * lay) % 3];
                    hr_check own, fmt;
                    n++;
                    if (run_kv(&p, (hr_layout)lay, HR_DIST_NORMAL, T, block, &own, &fmt)) {
                        fails++;
                        CHECKF(0, "[%s] %s: allocation failed", lv->name, hr_dtype_names[t]);
                        continue;
                    }
                    own_max = own.max_rel_err > own_max ? own.max_rel_err : own_max;
                    if (own.verdict != HR_CHECK_PASS || !(fmt.max_rel_err < 0.5)) {
                        fails++;
                        CHECKF(0, "[%s] kv %s shape %zu %s T%d block %d: own %g (tol %g), format %g", lv->name,
                               hr_dtype_names[t], s, hr_layout_names[lay], T, block, own.max_rel_err, own.tol_pass,
                               fmt.max_rel_err);
                    }
                }
            CHECK(n == 8 && fails == 0);
            printf("     note: decode kv %-4s convert at %-7s %d cases: kernel max_rel %.2e\n", hr_dtype_names[t],
                   lv->name, n, own_max);
        }
    }
    CHECK(hr_isa_select(was) == HR_OK);
    decode_path_env(NULL);
}

/* Queries q8_0 holds exactly (a power-of-2 scale, integer multiples of the block's
 * amax/127): quantizing them costs nothing, so the oracle's tolerance is the fp32 one
 * and the int8 path must meet it: the offsets, the corrections, the nibble order and
 * the lanes' scales all exact. Odd shapes, both layouts, 1-3 threads. */
HR_TEST(decode_int8_exact_query)
{
    static const int shapes[][6] = {
        {1, 4, 1, 1, 77, 32}, {2, 8, 2, 3, 257, 64}, {1, 6, 3, 5, 130, 96}, {1, 32, 8, 1, 1000, 128}, {1, 4, 2, 16, 45, 160},
    };
    setenv("HEADROOM_DECODE_PV", "fp32", 1); /* the int8 P·V rounds the weights: decode_int8_pv_bound */
    for (int emu = 0; emu < 2 && int8_instance(emu); emu++) {
        for (int t = HR_Q8_0; t <= HR_Q4_0; t++) {
            double worst = 0, tol = 0;
            for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
                for (int lay = 0; lay < 2; lay++) {
                    const int *x = shapes[s];
                    hr_problem p = {x[0], x[1], x[2], x[3], x[4], x[5], (s + lay) % 2, 0.125, HR_F32, (hr_dtype)t};
                    hr_check own, fmt;
                    if (run_kv_q(&p, (hr_layout)lay, HR_DIST_NORMAL, 1 + (int)(s + lay) % 3, 0, &own, &fmt, 1)) {
                        CHECKF(0, "%s: allocation failed", hr_dtype_names[t]);
                        continue;
                    }
                    worst = own.max_rel_err > worst ? own.max_rel_err : worst;
                    tol = own.tol_pass > tol ? own.tol_pass : tol;
                    /* fp32 terms only: eps (8 sqrt(d) + 16 log2(Nkv + 1) + 16) is at most
                     * ~3e-5 here; a lane or offset wrong is O(1). */
                    CHECKF(own.verdict == HR_CHECK_PASS && own.tol_pass < 1e-4,
                           "kv %s shape %zu %s: max_rel %g tol %g", hr_dtype_names[t], s, hr_layout_names[lay],
                           own.max_rel_err, own.tol_pass);
                }
            const hr_problem p = {1, 8, 2, 1, 100, 64, false, 0, HR_F32, (hr_dtype)t};
            printf("     note: decode kv %s exact-q8_0 queries, path '%s': max_rel %.2e (tol up to %.2e)\n",
                   hr_dtype_names[t], hr_kernel_path(hr_kernel_find("decode"), &p), worst, tol);
        }
    }
    decode_path_env(NULL);
    unsetenv("HEADROOM_DECODE_PV");
}

/* The int8 P·V (AVX-512 with VNNI, AVX2 with AVX-VNNI): P·dv rounded to s8 per row, q block and group of
 * keys. A long flat context (L 4096, Q = 0: every score equal, each weight 1/L) must
 * keep its small weights (one scale per group, not one per row), a peaked one (Q along
 * one key) its large one; the error must stay inside the oracle's tolerance with the
 * weights' term (oracle.c, pv8_term) and, flat, exceed it without the term (so the term
 * is needed and the test fails if it is dropped), not by orders of magnitude less. */
HR_TEST(decode_int8_pv_bound)
{
    const hr_kernel *k = hr_kernel_find("decode");
    CHECK(k != NULL);
    const hr_problem p0 = {1, 8, 2, 1, 4096, 128, false, 0, HR_F32, HR_Q8_0};
    if (!k || !(strstr(hr_kernel_path(k, &p0), "P·V vpdpbusd") || strstr(hr_kernel_path(k, &p0), "P·V vpmaddubsw"))) {
        printf("     note: no int8 P·V on this build or CPU ('%s')\n", k ? hr_kernel_path(k, &p0) : "");
        return;
    }
    for (int emu = 0; emu < 2 && int8_instance(emu); emu++) {
        for (int t = HR_Q8_0; t <= HR_Q4_0; t++)
            for (int peaked = 0; peaked < 2; peaked++) {
                hr_problem p = p0;
                p.kv_dtype = (hr_dtype)t;
                kv_case kc;
                if (kv_case_alloc(&kc, &p, HR_LAYOUT_BHND, HR_DIST_NORMAL)) {
                    CHECKF(0, "%s: allocation failed", hr_dtype_names[t]);
                    continue;
                }
                hr_args *a = &kc.ts.args;
                for (int h = 0; h < p.heads; h++) {
                    float *q = hr_row(kc.ts.q, 0, h, 0);
                    const float *kj = hr_crow(a->k, 0, h / 4, 1000 + 7 * h);
                    for (int x = 0; x < p.d_head; x++) q[x] = peaked ? 2.0f * kj[x] : 0.0f;
                }
                hr_tune tn = hr_kernel_tune(k, &p, &(hr_tune){0, 0, 2});
                size_t wb = k->workspace_bytes(&p, &tn);
                void *ws = hr_alloc(wb ? wb : 64);
                k->run(&p, &tn, a, ws);
                const hr_quant_path q8 = hr_path_quant(hr_kernel_path(k, &p));
                const hr_check own = hr_oracle_check_q(&p, a, 0, q8), bare = hr_oracle_check_q(&p, a, 0, (hr_quant_path){true, 0});
                const double term = own.tol_pass - bare.tol_pass;
                /* groups of 4 vectors: 64 keys on AVX-512, 32 on AVX2 (decode_i8pv.h's GK) */
                const int gk = !strcmp(hr_isa, "avx2") ? 32 : 64;
                /* u8 weights (c = max/255) on q8_0 but on the vpmaddubsw step (within 127) */
                const int u8 = t == HR_Q8_0 && !strstr(hr_kernel_path(k, &p), "vpmaddubsw");
                CHECKF(q8.q8_query && q8.pv8_group == gk && q8.pv8_u8 == u8, "%s path '%s'", hr_dtype_names[t],
                       hr_kernel_path(k, &p));
                CHECKF(own.verdict == HR_CHECK_PASS, "%s %s: max_rel %g tol %g", hr_dtype_names[t],
                       peaked ? "peaked" : "flat", own.max_rel_err, own.tol_pass);
                if (!peaked) /* the flat context's weights all round: the term carries it */
                    CHECKF(own.max_rel_err > bare.tol_pass && own.max_rel_err > term / 1000, "%s flat: max_rel %g, tol %g without "
                           "the term, term %g", hr_dtype_names[t], own.max_rel_err, bare.tol_pass, term);
                printf("     note: decode kv %s int8 P·V%s L4096 %s: max_rel %.2e, tol %.2e (weights' term %.2e, err/tol "
                       "%.3f; without the term tol %.2e)\n", hr_dtype_names[t], emu ? " (vpmaddubsw)" : "",
                       peaked ? "peaked" : "flat  ", own.max_rel_err, own.tol_pass, term, own.max_rel_err / own.tol_pass,
                       bare.tol_pass);
                free(ws);
                kv_case_free(&kc);
            }
    }
    decode_path_env(NULL);
}

/* V row j's block blk of head g stored negated: the same values (q8_0's q in [-127, 127]) */
static void q8_negate(hr_args *a, int g, int j, int blk)
{
    unsigned char *x = (unsigned char *)hr_xcrow(a->xv, 0, g, j) + (size_t)blk * (2 + HR_QBLOCK);
    x[1] ^= 0x80; /* the fp16 scale's sign bit (little-endian) */
    for (int i = 0; i < HR_QBLOCK; i++) x[2 + i] = (unsigned char)(-(signed char)x[2 + i]);
}

/* q8_0's int8 P·V takes u8 weights against V signed where a block step's V scales are
 * all >= 0 (every cache this project or llama.cpp quantizes), s8 weights against V + 128
 * elsewhere (the vpmaddubsw step: against V signed, by the sign trick; its u8 weights
 * within 127, so its path says s8). A cache with the same values stored negated (d -> -d,
 * q -> -q) in some keys must take the s8 step there and pass the oracle: keys 300-339
 * (inside one 128-key step) negated, or one key's third block; each query row along the
 * negated key, so that its weight carries the output (u8 weights would clamp its negative
 * P·dv to 0: O(1) wrong). The oracle's weights' term is the u8 one (c = max/255) only
 * without a negative scale in the head, else the s8 one. */
HR_TEST(decode_int8_pv_sign)
{
    const hr_kernel *k = hr_kernel_find("decode");
    CHECK(k != NULL);
    const hr_problem p = {1, 8, 2, 1, 1000, 128, false, 0, HR_F32, HR_Q8_0};
    for (int emu = 0; k && emu < 2 && int8_instance(emu); emu++) {
        const char *path = hr_kernel_path(k, &p);
        if (!strstr(path, emu ? "P·V vpmaddubsw" : "P·dv u8")) {
            printf("     note: no %s int8 P·V on this build or CPU ('%s')\n", emu ? "vpmaddubsw" : "u8", path);
            continue;
        }
        const hr_quant_path qp = hr_path_quant(path);
        hr_quant_path s8 = qp;
        s8.pv8_u8 = false;
        CHECK(qp.q8_query && qp.pv8_u8 == !emu && qp.pv8_group > 0);
        for (int variant = 0; variant < 3; variant++) {
            kv_case kc;
            if (kv_case_alloc(&kc, &p, HR_LAYOUT_BHND, HR_DIST_NORMAL)) {
                CHECKF(0, "allocation failed");
                continue;
            }
            hr_args *a = &kc.ts.args;
            const int peak = variant == 2 ? 517 : 310;
            for (int g = 0; g < p.kv_heads; g++) {
                if (variant == 1)
                    for (int j = 300; j < 340; j++)
                        for (int blk = 0; blk < p.d_head / HR_QBLOCK; blk++) q8_negate(a, g, j, blk);
                if (variant == 2) q8_negate(a, g, peak, 2);
            }
            for (int h = 0; h < p.heads; h++) {
                float *q = hr_row(kc.ts.q, 0, h, 0);
                const float *kj = hr_crow(a->k, 0, h / 4, peak);
                for (int x = 0; x < p.d_head; x++) q[x] = 2.0f * kj[x];
            }
            hr_tune tn = hr_kernel_tune(k, &p, &(hr_tune){0, 128, 1});
            size_t wb = k->workspace_bytes(&p, &tn);
            void *ws = hr_alloc(wb ? wb : 64);
            k->run(&p, &tn, a, ws);
            const hr_check own = hr_oracle_check_q(&p, a, 0, qp), as_s8 = hr_oracle_check_q(&p, a, 0, s8);
            CHECKF(own.verdict == HR_CHECK_PASS, "variant %d: max_rel %g tol %g", variant, own.max_rel_err, own.tol_pass);
            if (variant == 0 && !emu)
                CHECKF(own.tol_pass < as_s8.tol_pass, "tol %g not below the s8 one %g", own.tol_pass, as_s8.tol_pass);
            else CHECKF(own.tol_pass == as_s8.tol_pass, "variant %d: tol %g, the s8 one %g", variant, own.tol_pass, as_s8.tol_pass);
            printf("     note: decode kv q8_0 int8 P·V%s, %s: max_rel %.2e, tol %.2e (with s8 weights %.2e)\n",
                   emu ? " (vpmaddubsw)" : "",
                   variant == 0 ? "V scales >= 0 (u8)      " : variant == 1 ? "keys 300-339 negated (s8)" : "one block negated (s8)   ",
                   own.max_rel_err, own.tol_pass, as_s8.tol_pass);
            free(ws);
            kv_case_free(&kc);
        }
    }
    decode_path_env(NULL);
}

/* HEADROOM_DECODE_PATH: convert names the conversion path, int8 the VNNI one (where the
 * CPU has none, the avx2 level's vpmaddubsw step stands in: decode_path.c; elsewhere it is
 * refused), anything else is refused. */
HR_TEST(decode_path_env)
{
    const hr_kernel *k = hr_kernel_find("decode");
    CHECK(k != NULL);
    if (!k) return;
    hr_problem p = {1, 8, 2, 1, 100, 64, false, 0, HR_F32, HR_Q8_0};
    decode_path_env("convert");
    const char *conv = hr_kernel_path(k, &p);
    CHECKF(conv && !strstr(conv, "vpdpbusd") && hr_kernel_why_not(k, &p) == NULL, "convert: '%s'", conv ? conv : "");
    decode_path_env("int8");
    const char *why = hr_kernel_why_not(k, &p), *i8 = hr_kernel_path(k, &p);
    const int emu = !why && i8 && strstr(i8, "vpmaddubsw") != NULL;
    CHECKF(why ? strstr(why, "HEADROOM_DECODE_PATH") != NULL : i8 && (strstr(i8, "vpdpbusd") != NULL || emu),
           "int8: '%s' / '%s'", why ? why : "", i8 ? i8 : "");
    if (!why && i8) { /* a result row keeps the whole path, and its roof is the series one */
        CHECKF(strlen(i8) < sizeof ((hr_result *)0)->path, "int8 path of %zu bytes: '%s'", strlen(i8), i8);
        /* two VNNI dots (int8 P·V): the VNNI roof; int8 scores and P·V by FMA: the series;
         * the vpmaddubsw step's: the same under avx2_maddubs */
        const int roof = hr_roof_for_path(i8, hr_isa);
        const int dots = strstr(i8, emu ? "P·V vpmaddubsw" : "P·V vpdpbusd") != NULL;
        const int base = dots ? HR_ROOF_DOT : HR_ROOF_SERIES;
        CHECKF(emu ? roof == base + HR_DOT_MADDUBS : roof == base + HR_DOT_VNNI512 || roof == base + HR_DOT_AVXVNNI,
               "roof %s of '%s'", hr_roof_name(roof), i8);
    }
    p.kv_dtype = HR_F16; /* not a block type: int8 asks nothing of it */
    CHECK(hr_kernel_why_not(k, &p) == NULL);
    /* bf16dot: a bf16 cache's vdpbf16ps step, or refused where this level or CPU has
     * none; auto takes it where the CPU has it but is not an Intel one (vdpbf16ps at half
     * its FMAs' rate there: decode_bf16.c); convert never. */
    p.kv_dtype = HR_BF16;
    decode_path_env("bf16dot");
    why = hr_kernel_why_not(k, &p);
    const char *dot = why ? NULL : hr_kernel_path(k, &p);
    CHECKF(why ? strstr(why, "HEADROOM_DECODE_PATH=bf16dot") != NULL : dot && strstr(dot, "vdpbf16ps") != NULL,
           "bf16dot: '%s' / '%s'", why ? why : "", dot ? dot : "");
    p.kv_dtype = HR_Q8_0; /* not a bf16 cache: bf16dot asks nothing of it */
    CHECK(hr_kernel_why_not(k, &p) == NULL);
    p.kv_dtype = HR_BF16;
    decode_path_env("convert");
    CHECK(!strstr(hr_kernel_path(k, &p), "vdpbf16ps"));
    decode_path_env(NULL);
    const char *autop = hr_kernel_path(k, &p);
    CHECKF(!!strstr(autop, "vdpbf16ps") == (!why && !hr_cpu_intel()), "auto: '%s' (bf16dot %s)", autop,
           why ? "refused" : "runs");
    decode_path_env("fast");
    why = hr_kernel_why_not(k, &p);
    CHECKF(why && strstr(why, "HEADROOM_DECODE_PATH"), "bad value: '%s'", why ? why : "(accepted)");
    decode_path_env(NULL);
    p.kv_dtype = HR_Q4_0;
    CHECK(hr_kernel_why_not(k, &p) == NULL);
}

/* HEADROOM_DECODE_PF: the block steps' _l1 copies (Makefile VARIANTS) differ from the L2 ones
 * only in the prefetch hint, so every type gives the same bits either way, on blocks
 * cut short (Nkv 1000, 1 and 3 threads, a split head); the path says which ran, and a
 * bad value is refused. */
HR_TEST(decode_pf_copies_same)
{
    const hr_kernel *k = hr_kernel_find("decode");
    CHECK(k != NULL);
    if (!k) return;
    const hr_dtype types[] = {HR_F32, HR_F16, HR_BF16, HR_Q8_0, HR_Q4_0};
    for (size_t ti = 0; ti < sizeof types / sizeof *types; ti++)
        for (int lt = 0; lt < 4; lt++) { /* BHND and BNHD (decode.c's attend_heads), 1 and 3 threads */
            const hr_layout lay = lt & 1 ? HR_LAYOUT_BNHD : HR_LAYOUT_BHND;
            const int threads = lt & 2 ? 3 : 1;
            hr_problem p = {1, 8, 2, 1, 1000, 64, false, 0, HR_F32, types[ti]};
            hr_tensors ts;
            if (hr_tensors_alloc(&ts, &p, lay, HR_DIST_NORMAL, 31)) {
                CHECK(0);
                continue;
            }
            hr_tune t = hr_kernel_tune(k, &p, &(hr_tune){0, 0, threads});
            const size_t wb = k->workspace_bytes(&p, &t), no = (size_t)p.heads * p.d_head;
            void *ws = hr_alloc(wb ? wb : 64);
            float *out[2] = {malloc(no * sizeof(float)), malloc(no * sizeof(float))};
            const char *pf[2] = {"l2", "l1"}, *path[2];
            for (int i = 0; i < 2; i++) {
                setenv("HEADROOM_DECODE_PF", pf[i], 1);
                path[i] = hr_kernel_path(k, &p);
                k->run(&p, &t, &ts.args, ws);
                for (int h = 0; h < p.heads; h++)
                    memcpy(out[i] + (size_t)h * p.d_head, hr_row(ts.args.o, 0, h, 0), p.d_head * sizeof(float));
            }
            CHECKF(!memcmp(out[0], out[1], no * sizeof(float)), "kv %s %s T%d: the L1 copy's output differs",
                   hr_dtype_names[types[ti]], hr_layout_names[lay], threads);
            CHECKF(path[1] && strstr(path[1], "prefetch into L1") && path[0] && !strstr(path[0], "prefetch into L1"),
                   "kv %s paths: '%s' / '%s'", hr_dtype_names[types[ti]], path[0] ? path[0] : "", path[1] ? path[1] : "");
            free(out[0]);
            free(out[1]);
            free(ws);
            hr_tensors_free(&ts);
        }
    hr_problem p = {1, 8, 2, 1, 100, 64, false, 0, HR_F32, HR_F16};
    setenv("HEADROOM_DECODE_PF", "l3", 1);
    const char *why = hr_kernel_why_not(k, &p);
    CHECKF(why && strstr(why, "HEADROOM_DECODE_PF must be auto, l1 or l2"), "bad value: '%s'", why ? why : "(accepted)");
    unsetenv("HEADROOM_DECODE_PF");
    CHECK(hr_kernel_why_not(k, &p) == NULL);
}
