/* test_paged.c — the paged KV cache: --page-size's rule, the block table's address rule, the shuffled pool the inputs fill, and decode, flash and gqa through it against the oracle. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "inputs.h"
#include "oracle.h"
#include "t.h"

static hr_problem paged(int B, int H, int G, int Nq, int Nk, int d, hr_dtype kt, int P)
{
    hr_problem p = {B, H, G, Nq, Nk, d, false, 0, HR_F32, kt};
    p.page_size = P;
    return p;
}

HR_TEST(paged_page_size_rule)
{
    static const int good[] = {0, 16, 32, 64, 256, 1024};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        const hr_problem p = paged(1, 8, 2, 1, 1024, 64, HR_F32, good[i]);
        CHECKF(hr_problem_validate(&p) == HR_OK, "P %d refused: %s", good[i], hr_errmsg());
    }
    static const int bad[] = {-16, 1, 8, 15, 24, 48, 100, 2048, 1 << 17};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const hr_problem p = paged(1, 8, 2, 1, 1024, 64, HR_F32, bad[i]);
        CHECKF(hr_problem_validate(&p) == HR_EUSAGE && strstr(hr_errmsg(), "--page-size"), "P %d: '%s'", bad[i],
               hr_errmsg());
    }
    const hr_problem over = paged(1, 8, 2, 1, 1000, 64, HR_F32, 1024); /* one block past the cache */
    CHECK(hr_problem_validate(&over) == HR_EUSAGE && strstr(hr_errmsg(), "over the cache"));
}

HR_TEST(paged_refused_without_the_capability)
{
    const hr_problem p = paged(1, 8, 2, 1, 100, 64, HR_F32, 16);
    for (int i = 0; hr_kernel_at(i); i++) {
        const hr_kernel *k = hr_kernel_at(i);
        const char *why = hr_kernel_why_not(k, &p);
        if (k->caps & HR_CAP_PAGED) continue;
        CHECKF(why && strstr(why, "no paged KV cache (--page-size; capability 'paged')"), "%s: '%s'", k->name,
               why ? why : "(accepted)");
    }
    static const char *const readers[] = {"decode", "flash", "gqa"};
    for (int i = 0; i < 3; i++) {
        const hr_kernel *d = hr_kernel_find(readers[i]);
        CHECKF(d && (d->caps & HR_CAP_PAGED) && !hr_kernel_why_not(d, &p), "%s refuses a paged cache", readers[i]);
    }
    const hr_kernel *naive = hr_kernel_find("naive"); /* the reference kernels read contiguous caches only */
    CHECK(naive && !(naive->caps & HR_CAP_PAGED) && hr_kernel_why_not(naive, &p));
}

HR_TEST(paged_row_rule)
{
    const int32_t tab[] = {5, 2, 7, 0, 3, 1};
    hr_problem p = paged(2, 4, 2, 1, 40, 64, HR_F32, 16);
    hr_args a = {0};
    CHECK(hr_kv_page_row(&p, &a, 1000, 100, 10, 1, 1, 37) == 1000 + 100 + 370); /* no table: contiguous */
    a.block_table = tab;
    a.table_stride = 3;
    /* key 37 of sequence 1: entry 1 * 3 + 37 / 16 = 5, block 1, row 5 */
    CHECK(hr_kv_page_row(&p, &a, 1000, 100, 10, 1, 1, 37) == 1 * 1000 + 100 + 5 * 10);
    CHECK(hr_kv_page_row(&p, &a, 1000, 100, 10, 0, 0, 16) == 2 * 1000 + 0 + 0);
    p.page_size = 0; /* contiguous whatever the args hold */
    CHECK(hr_kv_page_row(&p, &a, 1000, 100, 10, 1, 1, 37) == 1000 + 100 + 370);
}

/* The pool holds, key by key, the values the contiguous cache of the same seed holds (fp32
 * and stored rows), its table is a permutation that is not the identity, and the rows past
 * each sequence's end are 0. */
HR_TEST(paged_inputs_hold_the_contiguous_values)
{
    const hr_dtype kts[] = {HR_F32, HR_BF16, HR_Q8_0, HR_Q4_0};
    for (int lay = 0; lay < 2; lay++)
        for (size_t ti = 0; ti < sizeof kts / sizeof *kts; ti++) {
            const hr_problem pp = paged(3, 8, 2, 1, 77, 64, kts[ti], 16);
            hr_problem pc = pp;
            pc.page_size = 0;
            hr_tensors tp, tc;
            if (hr_tensors_alloc(&tp, &pp, (hr_layout)lay, HR_DIST_NORMAL, 9) ||
                hr_tensors_alloc(&tc, &pc, (hr_layout)lay, HR_DIST_NORMAL, 9)) {
                CHECK(!"allocation");
                return;
            }
            const hr_args *a = &tp.args;
            const int stride = (77 + 15) / 16, nblk = 3 * stride;
            CHECK(a->block_table && a->table_stride == stride);
            int seen[64] = {0}, moved = 0;
            for (int i = 0; i < nblk; i++) {
                CHECK(a->block_table[i] >= 0 && a->block_table[i] < nblk);
                if (a->block_table[i] >= 0 && a->block_table[i] < nblk) seen[a->block_table[i]]++;
                moved += a->block_table[i] != i;
            }
            for (int i = 0; i < nblk; i++) CHECKF(seen[i] == 1, "block %d appears %d times", i, seen[i]);
            CHECK(moved > 0);
            const size_t rb = hr_dtype_row_bytes(pp.kv_dtype, 64);
            int diff = 0;
            for (int b = 0; b < 3; b++)
                for (int h = 0; h < 2; h++)
                    for (int n = 0; n < 77; n++) {
                        diff += memcmp(hr_kv_crow(&pp, a, a->k, b, h, n), hr_crow(tc.args.k, b, h, n), 64 * sizeof(float)) != 0;
                        diff += memcmp(hr_kv_crow(&pp, a, a->v, b, h, n), hr_crow(tc.args.v, b, h, n), 64 * sizeof(float)) != 0;
                        if (pp.kv_dtype != HR_F32)
                            diff += memcmp(hr_kv_xcrow(&pp, a, a->xk, b, h, n), hr_xcrow(tc.args.xk, b, h, n), rb) != 0;
                    }
            CHECKF(diff == 0, "%s %s: %d rows differ", hr_dtype_names[pp.kv_dtype], hr_layout_names[lay], diff);
            const float *pad = hr_kv_crow(&pp, a, a->k, 2, 1, 79); /* row 15 of the last page: past key 76 */
            CHECK(pad[0] == 0 && pad[63] == 0);
            hr_tensors_free(&tp);
            hr_tensors_free(&tc);
        }
}

/* Kernel k on p (tunables tu) through the tensors' table; the oracle's verdict, or -1 when
 * it cannot run. With `identity` the oracle is handed the table 0, 1, 2, ... instead: it
 * must then fail, so a kernel that ignored the table could not pass. out, where not NULL,
 * gets the output's fp32 rows (B Hq Nq d, in that order). */
static int run_paged(const hr_kernel *k, const hr_problem *p, hr_layout lay, hr_dist dist, const hr_tune *tu,
                     bool identity, float *out)
{
    hr_tensors ts;
    if (!k || hr_kernel_why_not(k, p) || hr_tensors_alloc(&ts, p, lay, dist, 31)) return -1;
    const hr_tune t = hr_kernel_tune(k, p, tu);
    const size_t wb = hr_kernel_workspace(k, p, &t);
    void *ws = hr_alloc(wb ? wb : 64);
    hr_args buf;
    const hr_args *a = hr_tensors_args(&ts, p, k, &t, &buf);
    hr_tensors_poison(p, a, 1e30f);
    int rc = hr_kernel_run(k, p, &t, a, ws);
    hr_tensors_output(p, a);
    for (int b = 0; out && b < p->batch; b++)
        for (int h = 0; h < p->heads; h++)
            for (int i = 0; i < p->seq_q; i++)
                memcpy(out + (((size_t)b * p->heads + h) * p->seq_q + i) * p->d_head, hr_row(a->o, b, h, i),
                       sizeof(float) * (size_t)p->d_head);
    hr_args oa = ts.args;
    int32_t *id = NULL;
    const int n = p->batch * oa.table_stride;
    if (identity && (id = malloc(sizeof(int32_t) * (size_t)n)))
        for (int i = 0; i < n; i++) id[i] = i;
    if (id) oa.block_table = id;
    const hr_check c = hr_oracle_check_q(p, &oa, 0, hr_path_quant(hr_kernel_path(k, p)));
    free(id);
    free(ws);
    hr_tensors_free(&ts);
    return rc ? -1 : c.verdict;
}

static int decode_paged(const hr_problem *p, hr_layout lay, int T, bool identity)
{
    return run_paged(hr_kernel_find("decode"), p, lay, HR_DIST_NORMAL, &(hr_tune){0, 0, T}, identity, NULL);
}

HR_TEST(paged_decode_matches_oracle)
{
    const hr_dtype kts[] = {HR_F32, HR_F16, HR_BF16, HR_Q8_0, HR_Q4_0};
    static const int shapes[][7] = {
        /* P, B, H, G, Nq, Nkv (not a multiple of P), causal */
        {16, 2, 8, 2, 1, 1001, 1}, {64, 1, 8, 1, 3, 130, 0}, {256, 3, 4, 2, 1, 300, 1}, {16, 1, 4, 4, 2, 17, 1}};
    for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++)
        for (size_t ti = 0; ti < sizeof kts / sizeof *kts; ti++)
            for (int T = 1; T <= 3; T++) {
                const int *s = shapes[si];
                hr_problem p = paged(s[1], s[2], s[3], s[4], s[5], si % 2 ? 128 : 64, kts[ti], s[0]);
                p.causal = s[6];
                const hr_layout lay = (hr_layout)((si + (size_t)T) % 2);
                const int v = decode_paged(&p, lay, T, false);
                CHECKF(v == HR_CHECK_PASS, "P%d B%d N%d %s %s T%d: verdict %d", s[0], s[1], s[5], hr_dtype_names[kts[ti]],
                       hr_layout_names[lay], T, v);
            }
    /* The oracle follows the table: against the unshuffled one the same output fails. */
    const hr_problem p = paged(2, 8, 2, 1, 200, 64, HR_F32, 16);
    CHECK(decode_paged(&p, HR_LAYOUT_BHND, 2, true) == HR_CHECK_FAIL);
}

/* The variants flash takes, one per v: none, windows (shorter than a page, odd, longer),
 * a soft cap, ALiBi, all three at once. */
static void paged_variant(int v, hr_problem *p)
{
    p->window = 0, p->softcap = 0, p->alibi = 0;
    switch (v) {
    case 1: p->window = 7; break;
    case 2: p->window = p->page_size + 3; break;
    case 3: p->softcap = 3; break;
    case 4: p->alibi = 8; break;
    case 5: p->window = 33, p->softcap = 2, p->alibi = 4; break;
    }
    p->causal = p->causal || p->window > 0;
}

/* flash and gqa through a shuffled block table over the odd-shape battery: P 16, 64 and
 * 256 (where the cache holds a page), causal and full, every variant, f32, bf16 (its
 * bf16dot path where plain) and f16, 1 to 3 threads, default tiles, tiles that cross pages
 * at odd keys (17, 100) and short stacks (13); against the oracle, and bit for bit the
 * output of the same cache stored contiguous (the packed tiles are the same). */
HR_TEST(paged_flash_gqa_match_oracle_and_contiguous)
{
    static hr_case cases[HR_MAX_CASES];
    const int n = hr_battery(cases, HR_MAX_CASES, true);
    static const int Ps[] = {16, 64, 256};
    const hr_dtype types[] = {HR_F32, HR_BF16, HR_F16};
    const char *const kernels[] = {"flash", "gqa"};
    for (int kn = 0; kn < 2; kn++) {
        const hr_kernel *k = hr_kernel_find(kernels[kn]);
        int ran = 0, bad = 0, differ = 0, seen[3][2] = {{0}};
        char first[300] = "";
        for (int c = 0; c < n; c++)
            for (int pi = 0; pi < 3; pi++) {
                hr_problem p = cases[c].prob;
                const int idx = 3 * c + pi;
                if (Ps[pi] > p.seq_kv || p.seq_q * (double)p.seq_kv * p.heads * p.d_head > 2e7) continue;
                p.page_size = Ps[pi];
                p.causal = p.causal != ((c / 2 + pi) % 2 == 1);
                paged_variant((5 * c + pi) % 6, &p);
                p.dtype = types[idx / 6 % 3];
                p.kv_dtype = idx % 11 == 0 ? types[(idx / 6 + 1) % 3] : p.dtype;
                const hr_tune t = {idx % 7 == 0 ? 13 : 0, idx % 4 == 0 ? 17 : idx % 4 == 1 ? 100 : 0, 1 + idx % 3};
                const size_t nout = (size_t)p.batch * p.heads * p.seq_q * p.d_head;
                float *op = malloc(nout * sizeof(float)), *oc = malloc(nout * sizeof(float));
                hr_problem pc = p;
                pc.page_size = 0;
                const int v = op && oc ? run_paged(k, &p, cases[c].layout, cases[c].dist, &t, false, op) : -1;
                const int vc = v >= 0 ? run_paged(k, &pc, cases[c].layout, cases[c].dist, &t, false, oc) : -1;
                char shape[96];
                hr_problem_str(&p, shape, sizeof shape);
                CHECKF(v >= 0 && vc >= 0, "%s cannot run %s", kernels[kn], shape);
                if (v >= 0 && vc >= 0) {
                    ran++;
                    seen[pi][p.causal]++;
                    const int same = memcmp(op, oc, nout * sizeof(float)) == 0;
                    differ += !same;
                    if ((v != HR_CHECK_PASS || !same) && !bad++)
                        snprintf(first, sizeof first, "%s %s %s/%s T%d bkv %d: verdict %d, %s contiguous", shape,
                                 hr_layout_names[cases[c].layout], hr_dtype_names[p.dtype], hr_dtype_names[p.kv_dtype],
                                 t.threads, t.block_kv, v, same ? "same as" : "differs from");
                }
                free(op);
                free(oc);
            }
        for (int pi = 0; pi < 3; pi++)
            CHECKF(seen[pi][0] >= 5 && seen[pi][1] >= 5, "%s P%d: %d full, %d causal cases", kernels[kn], Ps[pi],
                   seen[pi][0], seen[pi][1]);
        CHECKF(ran >= 150, "%s: only %d paged cases ran", kernels[kn], ran);
        CHECKF(!bad, "%s: %d of %d paged cases wrong (%d differ from contiguous), first: %s", kernels[kn], bad, ran,
               differ, first);
        /* The oracle follows the table: against the unshuffled one the same output fails. */
        hr_problem p = paged(2, 8, 2, 64, 200, 64, HR_F32, 16);
        p.causal = true;
        CHECKF(run_paged(k, &p, HR_LAYOUT_BNHD, HR_DIST_NORMAL, &(hr_tune){0, 0, 2}, true, NULL) == HR_CHECK_FAIL,
               "%s passes against the identity table", kernels[kn]);
    }
}
