/* test_tune.c — the tuner: value sets, every candidate oracle-checked before it is timed,
 * a planted wrong configuration rejected and never chosen, fixed flags respected. */
#include <stdlib.h>
#include <string.h>

#include "sysinfo.h"
#include "t.h"
#include "tune.h"

/* A test kernel: naive underneath, wrong when block_q == 32 (and the cheapest then, so a
 * tuner that skipped the oracle would prefer it); correct but doing the work three times
 * otherwise. */
static void faulty_resolve(const hr_problem *p, const hr_machine *m, hr_tune *t)
{
    (void)p;
    if (t->block_q <= 0) t->block_q = 64;
    if (t->block_kv <= 0) t->block_kv = 64;
}
static size_t faulty_ws(const hr_problem *p, const hr_tune *t) { return hr_kernel_workspace(hr_kernel_find("naive"), p, t); }
static int faulty_run(const hr_problem *p, const hr_tune *t, const hr_args *a, void *ws)
{
    int reps = t->block_q == 32 ? 1 : 3;
    for (int r = 0; r < reps; r++) hr_kernel_run(hr_kernel_find("naive"), p, t, a, ws);
    if (t->block_q == 32) hr_row(a->o, 0, 0, p->seq_q / 2)[0] += 0.5f;
    return HR_OK;
}
static const hr_kernel faulty = {
    .name = "faulty",
    .summary = "test: wrong at block_q 32",
    .caps = HR_CAP_CAUSAL | HR_CAP_BLOCK_Q | HR_CAP_BLOCK_KV,
    .traffic = HR_TRAFFIC_SCORES,
    .resolve = faulty_resolve,
    .workspace_bytes = faulty_ws,
    .run = faulty_run,
};

static hr_tune_spec tiny_spec(void)
{
    return (hr_tune_spec){.prob = {1, 1, 1, 64, 64, 16, false, 0},
                          .seed = 1,
                          .budget = 60, /* tiny shape: the search converges long before */
                          .rounds = 3,
                          .margin = 0.03,
                          .min_time = 0.001};
}

HR_TEST(tune_values_are_sane)
{
    const hr_kernel *k = hr_kernel_find("flash");
    hr_problem p = {1, 16, 16, 2048, 2048, 64, false, 0};
    int v[64];
    int n = hr_tune_values(k, &p, HR_CAP_BLOCK_Q, 96, v, 64);
    CHECK(n >= 7);
    int has96 = 0;
    for (int i = 0; i < n; i++) {
        CHECKF(v[i] >= 8 && v[i] <= 512, "value %d", v[i]);
        CHECKF((v[i] & (v[i] - 1)) == 0 || v[i] % 8 == 0, "value %d neither 2^k nor a vector multiple", v[i]);
        if (i) CHECK(v[i] > v[i - 1]); /* sorted, no duplicates */
        has96 |= v[i] == 96;
    }
    CHECK(has96); /* the default is always a candidate */
    /* Blocks never exceed the next power of two of the dimension they block. */
    p.seq_q = 20;
    n = hr_tune_values(k, &p, HR_CAP_BLOCK_Q, 0, v, 64);
    for (int i = 0; i < n; i++) CHECKF(v[i] <= 32, "value %d for Nq 20", v[i]);
    n = hr_tune_values(k, &p, HR_CAP_THREADED, 0, v, 64);
    CHECK(n >= 1 && v[0] == 1 && v[n - 1] == hr_sysinfo_get()->cpus);
}

static void check_no_wrong_choice(const hr_tune_result *r)
{
    CHECK(r->best.block_q != 32);
    int saw32 = 0;
    for (int i = 0; i < r->ncands; i++) {
        const hr_tune_cand *c = &r->cands[i];
        /* Checked before timed: nothing is timed without a verdict no worse than the
         * defaults' (pass). */
        if (c->timed) CHECKF(c->verdict == HR_CHECK_PASS, "cand %d timed with verdict %d", i, c->verdict);
        if (c->tune.block_q == 32) {
            saw32 = 1;
            CHECK(c->verdict == HR_CHECK_FAIL);
            CHECK(!c->timed && !c->adopted);
        }
    }
    CHECK(saw32);
    CHECK(r->nrejected >= 1);
    CHECK(r->nchecked == r->ncands); /* every candidate met the oracle */
    CHECK(r->def_gflops > 0 && r->best_gflops > 0 && r->speedup > 0);
}

HR_TEST(tune_coord_rejects_planted_wrong_config)
{
    hr_tune_spec s = tiny_spec();
    hr_tune_result *r = malloc(sizeof *r);
    CHECK(hr_tune_run(&faulty, &s, r) == HR_OK);
    check_no_wrong_choice(r);
    CHECK(r->def.block_q == 64 && r->def.block_kv == 64);
    CHECK(r->passes >= 1);
    free(r);
}

HR_TEST(tune_bandit_rejects_planted_wrong_config)
{
    hr_tune_spec s = tiny_spec();
    s.strategy = HR_TUNE_BANDIT;
    hr_tune_result *r = malloc(sizeof *r);
    CHECK(hr_tune_run(&faulty, &s, r) == HR_OK);
    check_no_wrong_choice(r);
    free(r);
}

HR_TEST(tune_fixed_parameter_is_not_searched)
{
    hr_tune_spec s = tiny_spec();
    s.fixed.block_kv = 16;
    hr_tune_result *r = malloc(sizeof *r);
    CHECK(hr_tune_run(&faulty, &s, r) == HR_OK);
    for (int i = 0; i < r->ncands; i++) CHECK(r->cands[i].tune.block_kv == 16);
    CHECK(r->best.block_kv == 16);
    free(r);
}

HR_TEST(tune_refuses_kernels_without_tunables)
{
    hr_tune_spec s = tiny_spec();
    hr_tune_result *r = malloc(sizeof *r);
    CHECK(hr_tune_run(hr_kernel_find("naive"), &s, r) == HR_EUSAGE);
    CHECK(strstr(hr_errmsg(), "no tunable"));
    s.prob.kv_heads = 3; /* does not divide heads */
    CHECK(hr_tune_run(&faulty, &s, r) == HR_EUSAGE);
    free(r);
}

HR_TEST(tune_budget_is_honoured)
{
    /* A budget far below a full search stops it, and says so (how close elapsed time
     * comes to the budget is a timing, not asserted here). */
    hr_tune_spec s = tiny_spec();
    s.prob = (hr_problem){1, 2, 2, 256, 256, 32, false, 0};
    s.budget = 0.3;
    s.min_time = 0.01;
    hr_tune_result *r = malloc(sizeof *r);
    CHECK(hr_tune_run(&faulty, &s, r) == HR_OK);
    CHECK(r->budget_spent);
    free(r);
}
