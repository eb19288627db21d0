/* check.c — the oracle battery and running one kernel on one case. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "guard.h"

static int add(hr_case *c, int n, int max, int B, int H, int G, int Nq, int Nk, int d,
               bool causal, int layout, int dist)
{
    if (n >= max) return n;
    c[n] = (hr_case){{B, H, G, Nq, Nk, d, causal, 0, HR_F32, HR_F32, 0, 0, 0, 0}, (hr_layout)layout, (hr_dist)dist};
    return n + 1;
}

int hr_battery(hr_case *c, int max, bool quick)
{
    static const int Ns[] = {1, 2, 3, 17, 64, 127, 257};
    static const int ds[] = {1, 7, 16, 63, 64, 80, 128, 256};
    static const int HG[][2] = {{1, 1}, {4, 4}, {4, 2}, {8, 1}, {6, 3}};
    int n = 0, idx = 0;
    /* Every (N, d) pair; heads, causality, layout and distribution rotate. */
    for (size_t i = 0; i < sizeof Ns / sizeof *Ns; i++)
        for (size_t j = 0; j < sizeof ds / sizeof *ds; j++, idx++) {
            const int *hg = HG[idx % 5];
            n = add(c, n, max, 1 + (idx % 7 == 3), hg[0], hg[1], Ns[i], Ns[i], ds[j], idx % 3 == 1,
                    idx % 2, (idx / 2) % 3);
        }
    /* Causal edges: Nq < Nkv (prefix), Nq > Nkv (leading rows see nothing: zeros). */
    static const int NN[][2] = {{1, 1}, {1, 300}, {5, 37}, {17, 64}, {64, 17}, {37, 5}, {3, 1}, {2, 3}};
    for (size_t i = 0; i < sizeof NN / sizeof *NN; i++)
        for (int v = 0; v < 4; v++, idx++)
            n = add(c, n, max, 1, v < 2 ? 4 : 8, v < 2 ? 2 : 1, NN[i][0], NN[i][1],
                    v % 2 ? 63 : 16, true, v % 2, idx % 3);
    /* Decode: a few queries against a long cache, causal and not, GQA. */
    static const int Dq[] = {1, 2, 4, 8}, Dk[] = {1, 7, 129, 1000, 4099};
    for (size_t i = 0; i < sizeof Dq / sizeof *Dq; i++)
        for (size_t j = 0; j < sizeof Dk / sizeof *Dk; j++, idx++)
            n = add(c, n, max, 1 + (idx % 5 == 0), 8, idx % 3 ? 2 : 1, Dq[i], Dk[j],
                    idx % 2 ? 128 : 64, idx % 2 == 0, idx % 2, idx % 3);
    /* Paged decode (--page-size 16, 64, 256): lengths not a multiple of P (the last page
     * part full), one page and a half, several sequences sharing the shuffled pool. */
    static const int Pg[][8] = {{16, 2, 8, 2, 1, 1001, 64, 0}, {16, 1, 8, 1, 4, 129, 128, 1},
                                {64, 1, 4, 2, 2, 4099, 64, 0}, {64, 3, 8, 2, 1, 97, 128, 1},
                                {256, 2, 8, 2, 1, 1000, 128, 0}, {256, 1, 4, 4, 3, 257, 64, 1}};
    for (size_t i = 0; i < sizeof Pg / sizeof *Pg; i++, idx++) {
        const int *g = Pg[i], m = n;
        n = add(c, n, max, g[1], g[2], g[3], g[4], g[5], g[6], idx % 2 == 0, g[7], idx % 3);
        if (n > m) c[m].prob.page_size = g[0];
    }
    /* Every distribution x layout x head grouping, causal with Nq < Nkv. */
    for (int dist = 0; dist < 3; dist++)
        for (int lay = 0; lay < 2; lay++)
            for (int h = 1; h < 5; h++)
                n = add(c, n, max, 2, HG[h][0], HG[h][1], 100, 150, 64, (dist + lay + h) % 2, lay, dist);
    if (!quick) {
        static const int Ls[] = {509, 1024, 2048};
        for (size_t i = 0; i < sizeof Ls / sizeof *Ls; i++)
            for (int v = 0; v < 4; v++, idx++)
                n = add(c, n, max, 1, v < 2 ? 4 : 2, 2, Ls[i], Ls[i] + (v == 3 ? 77 : 0),
                        v % 2 ? 128 : 64, v >= 2, v % 2, idx % 3);
        n = add(c, n, max, 1, 1, 1, 4096, 4096, 64, true, 0, 0);
        n = add(c, n, max, 3, 2, 1, 300, 700, 96, true, 1, 2);
    }
    return n;
}

/* One case of the variant battery: the shape of add() with the variants w, c, b. */
static int vadd(hr_case *c, int n, int max, int H, int G, int Nq, int Nk, int d, bool causal, int idx,
                int w, float cap, float bias)
{
    if (n >= max) return n;
    c[n] = (hr_case){{1 + (idx % 5 == 4), H, G, Nq, Nk, d, causal, 0, HR_F32, HR_F32, w, cap, bias, 0},
                     (hr_layout)(idx % 2), (hr_dist)(idx % 3)};
    return n + 1;
}

int hr_variant_battery(hr_case *c, int max, unsigned caps, const hr_problem *fixed)
{
    static const int HG[][2] = {{1, 1}, {4, 4}, {4, 2}, {8, 1}, {6, 3}, {12, 4}};
    static const int ds[] = {16, 63, 64, 128};
    int n = 0, idx = 0;
    const unsigned all = HR_CAP_WINDOW | HR_CAP_SOFTCAP | HR_CAP_ALIBI;
    const bool combo = (caps & all) == all && !fixed; /* only the cases of the three at once */
    if ((caps & HR_CAP_WINDOW) && !combo) {
        /* Windows smaller than, equal to and larger than Nkv, odd ones among them, over
         * the causal edges: a decode row, Nq < Nkv, Nq = Nkv, Nq > Nkv (rows that see
         * nothing stay zeros, rows whose window starts past key 0). */
        static const int NN[][2] = {{1, 1}, {1, 300}, {2, 3}, {5, 37}, {17, 64}, {64, 64}, {37, 5}, {127, 127}, {8, 129}};
        for (size_t i = 0; i < sizeof NN / sizeof *NN; i++) {
            const int nk = NN[i][1], ws[] = {1, 7, nk > 2 ? nk - 1 : 2, nk, nk + 13};
            for (int v = 0; v < 5; v++, idx++)
                n = vadd(c, n, max, HG[idx % 6][0], HG[idx % 6][1], NN[i][0], nk, ds[idx % 4], true, idx, ws[v], 0, 0);
        }
    }
    if ((caps & HR_CAP_SOFTCAP) && !combo) {
        /* A cap that bites (5: most scores of the large distribution are clipped) and
         * Gemma 2's 50, causal and not. */
        static const int NN[][2] = {{1, 1}, {17, 17}, {64, 17}, {1, 1000}, {100, 150}};
        for (size_t i = 0; i < sizeof NN / sizeof *NN; i++)
            for (int v = 0; v < 2; v++, idx++)
                n = vadd(c, n, max, HG[idx % 6][0], HG[idx % 6][1], NN[i][0], NN[i][1], ds[idx % 4], (i + v) % 2,
                         idx, 0, v ? 50.0f : 5.0f, 0);
    }
    if ((caps & HR_CAP_ALIBI) && !combo) {
        /* The paper's max bias 8 and another, over head counts a power of two (8) and not
         * (6, 12: ALiBi's interleaved second series), GQA among them. */
        static const int AH[][2] = {{8, 8}, {6, 3}, {12, 4}, {1, 1}, {5, 5}};
        static const int NN[][2] = {{17, 64}, {1, 300}, {64, 64}};
        for (size_t h = 0; h < sizeof AH / sizeof *AH; h++)
            for (int v = 0; v < 2; v++, idx++)
                n = vadd(c, n, max, AH[h][0], AH[h][1], NN[idx % 3][0], NN[idx % 3][1], ds[idx % 4], v == 0, idx, 0,
                         0, v ? 4.5f : 8.0f);
    }
    if (combo) {
        /* All three at once, as Gemma 2's local layers (window and cap) with ALiBi on top. */
        static const int NN[][3] = {{64, 64, 16}, {1, 300, 300}, {17, 64, 7}, {37, 5, 3}, {1, 4099, 1024}};
        for (size_t i = 0; i < sizeof NN / sizeof *NN; i++, idx++)
            n = vadd(c, n, max, HG[idx % 6][0], HG[idx % 6][1], NN[i][0], NN[i][1], ds[idx % 4], true, idx, NN[i][2],
                     50.0f, 8.0f);
    }
    for (int i = 0; fixed && i < n; i++) { /* the values given, on every case */
        hr_problem *p = &c[i].prob;
        p->window = fixed->window, p->softcap = fixed->softcap, p->alibi = fixed->alibi;
        if (fixed->window > 0) p->causal = true;
    }
    return n;
}

double hr_format_check_bytes(const hr_problem *p)
{
    if (p->dtype == HR_F32 && p->kv_dtype == HR_F32) return 0;
    hr_problem p32 = *p;
    p32.dtype = p32.kv_dtype = HR_F32;
    return hr_tensors_bytes(&p32);
}

int hr_format_check(const hr_problem *p, const hr_args *a, hr_layout layout, hr_dist dist,
                    uint64_t seed, hr_check *out)
{
    hr_problem p32 = *p;
    p32.dtype = p32.kv_dtype = HR_F32;
    hr_tensors orig;
    int st = hr_tensors_alloc(&orig, &p32, layout, dist, seed);
    if (st) return st;
    orig.args.o = a->o;
    *out = hr_oracle_check(&p32, &orig.args, 0);
    hr_tensors_free(&orig);
    return HR_OK;
}

void hr_format_str(const hr_check *c, char *buf, size_t len)
{
    snprintf(buf, len, "format max_rel %.2e nmse %.2e (vs the fp32 inputs, not judged)", c->max_rel_err, c->nmse);
}

int hr_check_case(const hr_kernel *k, const hr_case *c, const hr_tune *tune, uint64_t seed,
                  hr_check *res, char *line, size_t len)
{
    const hr_problem *p = &c->prob;
    char shape[96], msg[300], fmt[120] = "";
    hr_problem_str(p, shape, sizeof shape);
    if (hr_kernel_why_not(k, p)) return -1;
    hr_tune t = hr_kernel_tune(k, p, tune);
    hr_tensors ten;
    void *ws = NULL;
    if (hr_tensors_alloc(&ten, p, c->layout, c->dist, seed) ||
        !(ws = hr_galloc(hr_kernel_workspace(k, p, &t), "workspace"))) {
        snprintf(line, len, "%s %s: cannot allocate", k->name, shape);
        memset(res, 0, sizeof *res);
        res->verdict = HR_CHECK_FAIL;
        hr_tensors_free(&ten);
        return HR_CHECK_FAIL;
    }
    hr_args buf; /* K and V in tiles where the kernel asks (hr_tensors_args) */
    const hr_args *a = hr_tensors_args(&ten, p, k, &t, &buf);
    /* Poison the output so a kernel that skips rows cannot pass by the zeroed buffer. */
    hr_tensors_poison(p, a, 12345.0f);
    /* The inputs read-only for the call; a fault or a damaged canary names the kernel. */
    hr_tensors_lock(&ten, true);
    hr_guard_kernel(k->name);
    const int failed = hr_kernel_run(k, p, &t, a, ws);
    hr_guard_kernel(NULL);
    hr_tensors_lock(&ten, false);
    hr_guard_verify(k->name);
    if (failed) {
        snprintf(line, len, "%s", hr_errmsg());
        memset(res, 0, sizeof *res);
        res->verdict = HR_CHECK_FAIL;
        hr_gfree(ws);
        hr_tensors_free(&ten);
        return HR_CHECK_ERROR;
    }
    hr_tensors_output(p, a);
    *res = hr_oracle_check_q(p, a, 0, hr_path_quant(hr_kernel_path(k, p)));
    hr_check_str(res, msg, sizeof msg);
    hr_check f;
    if ((p->dtype != HR_F32 || p->kv_dtype != HR_F32) &&
        hr_format_check(p, a, c->layout, c->dist, seed, &f) == HR_OK) {
        fmt[0] = ';';
        fmt[1] = ' ';
        hr_format_str(&f, fmt + 2, sizeof fmt - 2);
    }
    char path[512];
    snprintf(line, len, "%s %s %s %s T%d bq%d bkv%d [%s]: %s%s", k->name, shape,
             hr_layout_names[c->layout], hr_dist_names[c->dist], t.threads, t.block_q, t.block_kv,
             hr_kernel_path_kv(k, p, a->xk.tile, path, sizeof path), msg, fmt);
    hr_gfree(ws);
    hr_tensors_free(&ten);
    return res->verdict;
}
