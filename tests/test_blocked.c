/* test_blocked.c — the blocked family (blocked, simd, omp): the oracle at odd block sizes
 * and thread counts, omp against simd, workspaces and default block sizes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "headroom.h"
#include "inputs.h"
#include "oracle.h"
#include "t.h"

/* Shapes that stress the tiling: prime sizes, d with vector tails, GQA/MQA, causal with
 * Nq < Nkv, Nq = Nkv and Nq > Nkv (leading rows fully masked), both layouts. */
#define SHAPE(B, H, G, NQ, NKV, D, CAUSAL, LAYOUT)                                          \
    {{.batch = B, .heads = H, .kv_heads = G, .seq_q = NQ, .seq_kv = NKV, .d_head = D,          \
      .causal = CAUSAL},                                                                       \
     HR_LAYOUT_##LAYOUT}
static const struct {
    hr_problem p;
    hr_layout layout;
} shapes[] = {
    SHAPE(2, 4, 2, 13, 29, 7, true, BHND),  SHAPE(1, 3, 1, 37, 37, 80, true, BNHD),
    SHAPE(1, 2, 2, 40, 17, 16, true, BHND), SHAPE(2, 2, 1, 5, 70, 63, false, BNHD),
    SHAPE(1, 1, 1, 1, 1, 1, false, BHND),   SHAPE(1, 1, 1, 33, 65, 33, true, BHND),
};
static const int blocks[][2] = {{0, 0}, {1, 1}, {3, 7}, {5, 33}, {64, 1000}};

/* Runs k on t's tensors with tune (O prefilled with NaN so every element must be written);
 * returns the oracle verdict and checks that fully masked rows are exactly zero. */
static int run_one(const hr_kernel *k, const hr_problem *p, hr_tensors *ts, hr_tune tune)
{
    hr_tune r = hr_kernel_tune(k, p, &tune);
    size_t wsb = k->workspace_bytes(p, &r);
    CHECKF(wsb % 64 == 0, "%s workspace %zu not a multiple of 64", k->name, wsb);
    void *ws = hr_alloc(wsb ? wsb : 64);
    for (int b = 0; b < p->batch; b++)
        for (int h = 0; h < p->heads; h++)
            for (int i = 0; i < p->seq_q; i++)
                for (int c = 0; c < p->d_head; c++) hr_row(ts->args.o, b, h, i)[c] = NAN;
    CHECK(k->run(p, &r, &ts->args, ws) == HR_OK);
    free(ws);
    for (int b = 0; b < p->batch; b++)
        for (int h = 0; h < p->heads; h++)
            for (int i = 0; i < p->seq_q; i++) {
                if (hr_causal_end(p, i) > 0) continue;
                const float *o = hr_row(ts->args.o, b, h, i);
                for (int c = 0; c < p->d_head; c++)
                    CHECKF(o[c] == 0.0f, "%s: masked row %d col %d = %g", k->name, i, c, o[c]);
            }
    hr_check res = hr_oracle_check(p, &ts->args, 0);
    return res.verdict;
}

HR_TEST(blocked_block_sizes)
{
    const char *names[] = {"blocked", "simd", "omp"};
    for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
        const hr_kernel *k = hr_kernel_find(names[n]);
        CHECKF(k != NULL, "kernel %s not registered", names[n]);
        if (!k) continue;
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            hr_tensors ts;
            const hr_problem *p = &shapes[s].p;
            CHECK(hr_problem_validate(p) == HR_OK);
            if (hr_tensors_alloc(&ts, p, shapes[s].layout, HR_DIST_NORMAL, 7 + s) != HR_OK) {
                CHECK(!"hr_tensors_alloc");
                continue;
            }
            for (size_t bl = 0; bl < sizeof blocks / sizeof blocks[0]; bl++)
                for (int th = 1; th <= ((k->caps & HR_CAP_THREADED) ? 3 : 1); th++) {
                    hr_tune tune = {.block_q = blocks[bl][0], .block_kv = blocks[bl][1],
                                    .threads = th};
                    char buf[96];
                    hr_problem_str(p, buf, sizeof buf);
                    int v = run_one(k, p, &ts, tune);
                    CHECKF(v == HR_CHECK_PASS, "%s %s block %dx%d threads %d: %s", k->name, buf,
                           blocks[bl][0], blocks[bl][1], th, hr_check_names[v]);
                }
            hr_tensors_free(&ts);
        }
    }
}

/* omp runs the simd body row by row, and each row's arithmetic does not depend on how
 * rows are grouped or split, so every thread count gives simd's output bit for bit. */
HR_TEST(blocked_omp_matches_simd)
{
    const hr_kernel *simd = hr_kernel_find("simd"), *omp = hr_kernel_find("omp");
    CHECK(simd && omp);
    if (!simd || !omp) return;
    const hr_problem probs[] = {
        {.batch = 1, .heads = 1, .kv_heads = 1, .seq_q = 50, .seq_kv = 50, .d_head = 24,
         .causal = true},
        {.batch = 3, .heads = 4, .kv_heads = 1, .seq_q = 9, .seq_kv = 31, .d_head = 17},
        {.batch = 1, .heads = 2, .kv_heads = 2, .seq_q = 1, .seq_kv = 40, .d_head = 64,
         .causal = true},
    };
    for (size_t s = 0; s < sizeof probs / sizeof probs[0]; s++) {
        const hr_problem *p = &probs[s];
        hr_tensors ts;
        if (hr_tensors_alloc(&ts, p, HR_LAYOUT_BHND, HR_DIST_UNIFORM, 11) != HR_OK) {
            CHECK(!"hr_tensors_alloc");
            continue;
        }
        const size_t n = (size_t)p->batch * p->heads * p->seq_q * p->d_head;
        float *ref = malloc(n * sizeof *ref);
        hr_tune tune = {.block_q = 8, .block_kv = 16};
        CHECK(run_one(simd, p, &ts, tune) == HR_CHECK_PASS);
        memcpy(ref, ts.args.o.p, n * sizeof *ref);
        for (int th = 1; th <= 5; th++) {
            tune.threads = th;
            CHECK(run_one(omp, p, &ts, tune) == HR_CHECK_PASS);
            CHECKF(memcmp(ref, ts.args.o.p, n * sizeof *ref) == 0,
                   "omp with %d threads differs from simd on shape %zu", th, s);
        }
        free(ref);
        hr_tensors_free(&ts);
    }
}

HR_TEST(blocked_workspace_and_defaults)
{
    const hr_kernel *simd = hr_kernel_find("simd"), *omp = hr_kernel_find("omp"),
                    *blk = hr_kernel_find("blocked");
    CHECK(simd && omp && blk);
    if (!simd || !omp || !blk) return;
    const hr_problem p = {.batch = 1, .heads = 8, .kv_heads = 8, .seq_q = 1024, .seq_kv = 1024,
                          .d_head = 64};
    for (int th = 1; th <= 4; th++) {
        hr_tune t = hr_kernel_tune(omp, &p, &(hr_tune){.threads = th});
        CHECK(t.threads == th && t.block_q >= 1 && t.block_kv >= 1);
        CHECK(omp->workspace_bytes(&p, &t) == (size_t)th * simd->workspace_bytes(&p, &t));
    }
    /* The point of blocking: a block_q x Nkv score block, not the head's Nq x Nkv. */
    hr_tune tb = hr_kernel_tune(blk, &p, &(hr_tune){0});
    hr_tune ts = hr_kernel_tune(simd, &p, &(hr_tune){0});
    CHECK(tb.block_q < p.seq_q && ts.block_q < p.seq_q);
    CHECK(blk->workspace_bytes(&p, &tb) < (size_t)p.seq_q * p.seq_kv * sizeof(float) / 2);
    CHECK(ts.block_q % 4 == 0 && ts.block_kv >= 8);
}

/* Default tiles follow the machine resolve is given and nothing else: block_kv from L1d,
 * block_q from L2 (d = 64, Nkv = 1024); unknown caches (0) give the fixed 32 KiB / 1 MiB.
 * hr_kernel_tune hands resolve what hr_kernel_set_machine set. */
HR_TEST(blocked_defaults_follow_the_machine)
{
    const hr_kernel *blk = hr_kernel_find("blocked"), *simd = hr_kernel_find("simd");
    CHECK(blk && simd);
    if (!blk || !simd) return;
    const hr_problem p = {.batch = 1, .heads = 2, .kv_heads = 2, .seq_q = 1024, .seq_kv = 1024,
                          .d_head = 64};
    static const struct {
        hr_machine m;
        int blk_q, blk_kv, simd_q, simd_kv;
    } cases[] = {
        {{49152, 1 << 20}, 113, 96, 120, 96},
        {{0, 0}, 113, 64, 120, 64},
        {{49152, 2 << 20}, 227, 96, 240, 96},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hr_tune tb = {0}, ts = {0};
        blk->resolve(&p, &cases[i].m, &tb);
        simd->resolve(&p, &cases[i].m, &ts);
        CHECKF(tb.block_q == cases[i].blk_q && tb.block_kv == cases[i].blk_kv,
               "blocked case %zu: bq %d bkv %d", i, tb.block_q, tb.block_kv);
        CHECKF(ts.block_q == cases[i].simd_q && ts.block_kv == cases[i].simd_kv,
               "simd case %zu: bq %d bkv %d", i, ts.block_q, ts.block_kv);
        hr_kernel_set_machine(&cases[i].m);
        hr_tune tk = hr_kernel_tune(blk, &p, NULL);
        CHECKF(tk.block_q == tb.block_q && tk.block_kv == tb.block_kv,
               "hr_kernel_tune case %zu: bq %d bkv %d", i, tk.block_q, tk.block_kv);
    }
    hr_kernel_set_machine(&(hr_machine){0}); /* unit tests run with unknown caches */
}
