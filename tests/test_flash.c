/* test_flash.c — properties of the flash and gqa kernels beyond the oracle battery. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "headroom.h"
#include "inputs.h"
#include "t.h"

/* Runs kernel name on t's inputs with the given tune (threads, blocks); O is first
 * filled with NaN so every element must be written. Returns a copy of O (nq floats). */
static float *run_copy(const char *name, const hr_problem *p, hr_tensors *t, hr_tune req)
{
    const hr_kernel *k = hr_kernel_find(name);
    CHECKF(k != NULL, "kernel %s not registered", name);
    if (!k) return NULL;
    hr_tune tune = hr_kernel_tune(k, p, &req);
    size_t nq = (size_t)p->batch * p->heads * p->seq_q * p->d_head;
    for (size_t i = 0; i < nq; i++) t->args.o.p[i] = NAN;
    void *ws = hr_alloc(k->workspace_bytes(p, &tune) + 64);
    float *copy = malloc(nq * sizeof(float));
    CHECK(ws && copy);
    if (!ws || !copy) return NULL;
    CHECK(k->run(p, &tune, &t->args, ws) == HR_OK);
    memcpy(copy, t->args.o.p, nq * sizeof(float));
    free(ws);
    return copy;
}

/* A row's result depends only on its own scores and the K/V tile boundaries, never on
 * which rows share its stack or its thread: gqa (stacked heads) and flash at 1 and 2
 * threads must agree to the bit, here with tails in every dimension and strided rows. */
HR_TEST(flash_gqa_bitwise_equal)
{
    hr_problem p = {.batch = 2, .heads = 6, .kv_heads = 2, .seq_q = 150, .seq_kv = 170,
                    .d_head = 80, .causal = true};
    hr_tensors t;
    CHECK(hr_tensors_alloc(&t, &p, HR_LAYOUT_BNHD, HR_DIST_NORMAL, 7) == HR_OK);
    size_t nq = (size_t)p.batch * p.heads * p.seq_q * p.d_head;
    float *f1 = run_copy("flash", &p, &t, (hr_tune){.threads = 1});
    float *f2 = run_copy("flash", &p, &t, (hr_tune){.threads = 2, .block_q = 25});
    float *g2 = run_copy("gqa", &p, &t, (hr_tune){.threads = 2, .block_q = 9});
    if (f1 && f2 && g2) {
        CHECK(memcmp(f1, f2, nq * sizeof(float)) == 0);
        CHECK(memcmp(f1, g2, nq * sizeof(float)) == 0);
        long nonfinite = 0;
        for (size_t i = 0; i < nq; i++) nonfinite += !isfinite(f1[i]);
        CHECK(nonfinite == 0);
    }
    free(f1), free(f2), free(g2);
    hr_tensors_free(&t);
}

/* Causal with Nq > Nkv: rows i < Nq - Nkv see no key and are exactly 0; the rest are
 * not all zero. */
HR_TEST(flash_masked_rows_exact_zero)
{
    hr_problem p = {.batch = 1, .heads = 4, .kv_heads = 2, .seq_q = 40, .seq_kv = 16,
                    .d_head = 20, .causal = true};
    hr_tensors t;
    CHECK(hr_tensors_alloc(&t, &p, HR_LAYOUT_BHND, HR_DIST_LARGE, 3) == HR_OK);
    const char *names[] = {"flash", "gqa"};
    for (int n = 0; n < 2; n++) {
        float *o = run_copy(names[n], &p, &t, (hr_tune){.threads = 2, .block_q = 7, .block_kv = 5});
        if (!o) continue;
        for (int h = 0; h < p.heads; h++)
            for (int i = 0; i < p.seq_q; i++) {
                const float *row = o + ((size_t)h * p.seq_q + i) * p.d_head;
                int zeros = 0;
                for (int c = 0; c < p.d_head; c++) zeros += row[c] == 0.0f && !signbit(row[c]);
                if (i < p.seq_q - p.seq_kv)
                    CHECKF(zeros == p.d_head, "%s h%d row %d: %d of %d exact +0", names[n], h,
                           i, zeros, p.d_head);
                else
                    CHECKF(zeros < p.d_head, "%s h%d row %d sees keys but is all 0", names[n],
                           h, i);
            }
        free(o);
    }
    hr_tensors_free(&t);
}

/* The workspace is O(threads * tile): the same for N = 64 and N = 1M. */
HR_TEST(flash_workspace_independent_of_n)
{
    const char *names[] = {"flash", "gqa"};
    for (int n = 0; n < 2; n++) {
        const hr_kernel *k = hr_kernel_find(names[n]);
        CHECK(k != NULL);
        if (!k) continue;
        size_t ws[4];
        int seqs[4] = {64, 4096, 1 << 20, 1 << 22};
        for (int s = 0; s < 4; s++) {
            hr_problem p = {.batch = 1, .heads = 32, .kv_heads = 8, .seq_q = seqs[s],
                            .seq_kv = seqs[s], .d_head = 128, .causal = true};
            hr_tune t = hr_kernel_tune(k, &p, &(hr_tune){.threads = 2});
            ws[s] = k->workspace_bytes(&p, &t);
        }
        /* A shorter N may get a smaller even block (hr_ft_even_blocks), never a larger one;
         * a long N the default block itself, whatever N. */
        CHECKF(ws[0] <= ws[2] && ws[1] <= ws[2] && ws[2] == ws[3], "%s: %zu %zu %zu %zu bytes", names[n],
               ws[0], ws[1], ws[2], ws[3]);
        CHECKF(ws[0] < (size_t)8 << 20, "%s: %zu bytes for 2 threads", names[n], ws[0]);
    }
}
