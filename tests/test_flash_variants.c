/* test_flash_variants.c — flash and gqa with a sliding window, a soft cap and ALiBi (and
 * all three at once) over the odd-shape battery, f32, bf16 and f16, 1 to 3 threads and odd
 * tiles, against the oracle; and the oracle's side: a kernel that ignores a variant fails. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "counts.h"
#include "headroom.h"
#include "inputs.h"
#include "oracle.h"
#include "t.h"

/* The variants tried on a case of Nkv keys: windows shorter than a tile, odd, about a tile
 * and longer than the cache; a soft cap that bends the scores (3: the battery's logits
 * reach it); ALiBi with the paper's max bias; all of them together. */
static void variant(int v, int nkv, hr_problem *p)
{
    p->window = 0, p->softcap = 0, p->alibi = 0;
    switch (v) {
    case 0: p->window = 1; break;
    case 1: p->window = 7; break;
    case 2: p->window = 65; break;
    case 3: p->window = nkv + 3; break;
    case 4: p->softcap = 3; break;
    case 5: p->alibi = 8; break;
    case 6: p->window = 33, p->softcap = 2, p->alibi = 4; break;
    }
    p->causal = p->causal || p->window > 0;
}
#define NVARIANTS 7

HR_TEST(flash_variants_battery)
{
    static hr_case cases[HR_MAX_CASES];
    const int n = hr_battery(cases, HR_MAX_CASES, true);
    const hr_dtype types[] = {HR_F32, HR_BF16, HR_F16};
    const char *const kernels[] = {"flash", "gqa"};
    for (int kn = 0; kn < 2; kn++) {
        const hr_kernel *k = hr_kernel_find(kernels[kn]);
        int ran = 0, bad = 0;
        char first[700] = "";
        for (int c = 0; c < n; c++)
            for (int v = 0; v < NVARIANTS; v++) {
                if ((c + v) % 3) continue; /* a third of the grid: every case, every variant */
                hr_case cs = cases[c];
                if (cs.prob.page_size || !hr_problem_plain(&cs.prob)) continue; /* paged: test_paged.c; own variants below */
                if (cs.prob.seq_q * (double)cs.prob.seq_kv * cs.prob.heads * cs.prob.d_head > 2e7) continue;
                variant(v, cs.prob.seq_kv, &cs.prob);
                cs.prob.dtype = cs.prob.kv_dtype = types[(c + v) % 3];
                hr_tune t = {.threads = 1 + (c + v) % 3, .block_kv = c % 5 == 0 ? 17 : 0,
                             .block_q = c % 7 == 0 ? 13 : 0};
                hr_check r;
                char line[700];
                const int verdict = hr_check_case(k, &cs, &t, 1 + (uint64_t)v, &r, line, sizeof line);
                CHECKF(verdict >= 0, "%s refused %s", kernels[kn], line);
                if (verdict < 0) continue;
                ran++;
                if (verdict != HR_CHECK_PASS && !bad++) snprintf(first, sizeof first, "%s", line);
            }
        CHECKF(ran >= 40, "%s: only %d variant cases ran", kernels[kn], ran);
        CHECKF(!bad, "%s: %d of %d variant cases not passing, first: %s", kernels[kn], bad, ran, first);
    }
}

/* Each variant changes the output well past the tolerance on the same inputs: flash run
 * on the plain problem fails the oracle of the variant one (so a kernel that ignores a
 * variant cannot pass), and run on the variant problem passes it. */
HR_TEST(flash_variants_oracle_discriminates)
{
    const hr_kernel *k = hr_kernel_find("flash");
    for (int v = 0; v < NVARIANTS; v++) {
        hr_problem p = {1, 6, 2, 70, 90, 64, true, 0, HR_F32, HR_F32};
        if (v == 3) continue; /* a window past the cache is the causal problem itself */
        variant(v, p.seq_kv, &p);
        hr_problem plain = p;
        plain.window = 0, plain.softcap = 0, plain.alibi = 0;
        hr_tensors t;
        CHECK(hr_tensors_alloc(&t, &p, HR_LAYOUT_BHND, HR_DIST_NORMAL, 7) == HR_OK);
        /* logits of a few units, so a soft cap of 2-3 bends them */
        const size_t nq = (size_t)p.heads * p.seq_q * p.d_head;
        for (size_t i = 0; i < nq; i++) ((float *)t.args.q.p)[i] *= 3.0f;
        for (int which = 0; which < 2; which++) {
            const hr_problem *run = which ? &p : &plain;
            hr_tune tune = hr_kernel_tune(k, run, &(hr_tune){.threads = 2});
            void *ws = hr_alloc(hr_kernel_workspace(k, run, &tune) + 64);
            CHECK(hr_kernel_run(k, run, &tune, &t.args, ws) == HR_OK);
            free(ws);
            const hr_check c = hr_oracle_check(&p, &t.args, 0);
            if (which) CHECKF(c.verdict == HR_CHECK_PASS, "variant %d: flash %g > %g", v, c.max_rel_err, c.tol_pass);
            else CHECKF(c.verdict == HR_CHECK_FAIL, "variant %d: the plain output passes (%g, warn %g)", v,
                        c.max_rel_err, c.tol_warn);
        }
        hr_tensors_free(&t);
    }
}

/* The visible pairs and keys the counts use: a window of W keys is about W per row, and a
 * decode row with a window reads W keys, not the cache. */
HR_TEST(flash_variants_visible_keys)
{
    hr_problem p = {1, 1, 1, 1, 16384, 128, true, 0, HR_F32, HR_F32, 4096, 0, 0};
    CHECK(hr_window_begin(&p, 0) == 16384 - 4096);
    p.seq_q = 5;
    CHECK(hr_window_begin(&p, 4) == 16384 - 4096 && hr_window_begin(&p, 0) == 16384 - 4096 - 4);
    p.seq_q = p.seq_kv = 100, p.window = 10;
    long pairs = 0;
    for (int i = 0; i < 100; i++) pairs += i + 1 < 10 ? i + 1 : 10;
    CHECK(hr_window_begin(&p, 0) == 0 && hr_window_begin(&p, 99) == 90);
    CHECK(hr_causal_end(&p, 99) - hr_window_begin(&p, 99) == 10);
    CHECK(hr_visible_pairs(&p) == (double)pairs && hr_visible_keys(&p) == 100);
    p.seq_q = 1, p.seq_kv = 16384, p.window = 4096;
    CHECK(hr_visible_pairs(&p) == 4096 && hr_visible_keys(&p) == 4096);
}
