/* ragged.c — ragged decode batches: lists, seeded distributions, the cost order and the
 * oracle over every sequence. */
#include "ragged.h"

#include "counts.h"
#include "timer.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parses a comma list of positive ints into out[0..n); returns the count, or -1 with err. */
static int parse_list(const char *flag, const char *s, int *out, int max, char *err, size_t len)
{
    int n = 0;
    const char *p = s;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t w = e ? (size_t)(e - p) : strlen(p);
        char tok[32], *end;
        if (w == 0 || w >= sizeof tok) {
            snprintf(err, len, "%s: entry %d is not a positive integer", flag, n + 1);
            return -1;
        }
        memcpy(tok, p, w);
        tok[w] = 0;
        errno = 0;
        long v = strtol(tok, &end, 10);
        if (*end || errno || v <= 0 || v > (1L << 30)) {
            snprintf(err, len, "%s: entry %d (\"%s\") is not a positive integer", flag, n + 1, tok);
            return -1;
        }
        if (n == max) {
            snprintf(err, len, "%s: more than %d entries", flag, max);
            return -1;
        }
        out[n++] = (int)v;
        if (!e) return n;
        p = e + 1;
    }
}

int hr_ragged_parse(hr_ragged *r, int batch, const char *lens, const char *rows, char *err, size_t len)
{
    if (batch < 1 || batch > HR_RAGGED_MAX) {
        snprintf(err, len, "--batch: must be 1..%d", HR_RAGGED_MAX);
        return -1;
    }
    int n = parse_list("--lens", lens ? lens : "", r->len, HR_RAGGED_MAX, err, len);
    if (n < 0) return -1;
    if (n != batch) {
        snprintf(err, len, "--lens: %d entries for a batch of %d (one per sequence)", n, batch);
        return -1;
    }
    r->n = batch;
    if (!rows || !*rows) {
        for (int i = 0; i < batch; i++) r->rows[i] = 1;
        return 0;
    }
    int m = parse_list("--rows", rows, r->rows, HR_RAGGED_MAX, err, len);
    if (m < 0) return -1;
    if (m == 1)
        for (int i = 1; i < batch; i++) r->rows[i] = r->rows[0];
    else if (m != batch) {
        snprintf(err, len, "--rows: %d entries for a batch of %d (one, or one per sequence)", m, batch);
        return -1;
    }
    for (int i = 0; i < batch; i++)
        if (r->rows[i] > r->len[i]) {
            snprintf(err, len, "--rows: entry %d (%d) exceeds its cache length %d", i + 1, r->rows[i], r->len[i]);
            return -1;
        }
    return 0;
}

int hr_ragged_dist_of(const char *name)
{
    if (!strcmp(name, "uniform")) return HR_RAGGED_UNIFORM;
    if (!strcmp(name, "zipf")) return HR_RAGGED_ZIPF;
    return -1;
}

int hr_ragged_draw(hr_ragged *r, int batch, hr_ragged_dist dist, int lo, int hi, int rows_max,
                   uint64_t seed, char *err, size_t len)
{
    if (batch < 1 || batch > HR_RAGGED_MAX) {
        snprintf(err, len, "--batch: must be 1..%d", HR_RAGGED_MAX);
        return -1;
    }
    if (lo < 1 || hi < lo) {
        snprintf(err, len, "--len-min/--len-max: need 1 <= min <= max (got %d, %d)", lo, hi);
        return -1;
    }
    if (rows_max < 1 || rows_max > 8 || rows_max > lo) {
        snprintf(err, len, "--rows-max: must be 1..8 and at most --len-min");
        return -1;
    }
    hr_rng g;
    hr_rng_seed(&g, seed);
    r->n = batch;
    for (int i = 0; i < batch; i++) {
        double u = hr_rng_uniform(&g), x;
        if (dist == HR_RAGGED_ZIPF) x = lo * pow((double)hi / lo, u);
        else x = lo + u * ((double)hi - lo + 1);
        int v = (int)x;
        r->len[i] = v < lo ? lo : v > hi ? hi : v;
        r->rows[i] = 1 + (int)(hr_rng_uniform(&g) * rows_max);
        if (r->rows[i] > rows_max) r->rows[i] = rows_max;
    }
    return 0;
}

hr_problem hr_ragged_problem(const hr_ragged *r, int i, const hr_problem *base)
{
    hr_problem p = *base;
    p.batch = 1;
    p.seq_q = r->rows[i];
    p.seq_kv = r->len[i];
    p.causal = true;
    return p;
}

static const hr_ragged *order_of;
static int by_cost(const void *a, const void *b)
{
    int i = *(const int *)a, j = *(const int *)b;
    long long ci = (long long)order_of->len[i] * order_of->rows[i];
    long long cj = (long long)order_of->len[j] * order_of->rows[j];
    return ci != cj ? (ci < cj ? 1 : -1) : (i > j) - (i < j);
}

void hr_ragged_order(const hr_ragged *r, int *order)
{
    for (int i = 0; i < r->n; i++) order[i] = i;
    order_of = r;
    qsort(order, (size_t)r->n, sizeof *order, by_cost);
}

int hr_ragged_check(const hr_kernel *k, const hr_ragged *r, const hr_problem *base, const hr_tune *t,
                    uint64_t seed, int *bad)
{
    int worst = HR_CHECK_PASS;
    *bad = -1;
    for (int i = 0; i < r->n; i++) {
        hr_case c = {hr_ragged_problem(r, i, base), HR_LAYOUT_BHND, HR_DIST_NORMAL};
        hr_check res;
        char line[512];
        int v = hr_check_case(k, &c, t, seed + (uint64_t)i, &res, line, sizeof line);
        if (v < 0 || v == HR_CHECK_FAIL) {
            *bad = i;
            return v;
        }
        if (v > worst) worst = v;
    }
    return worst;
}

int hr_ragged_run(const hr_kernel *k, const hr_ragged *r, const hr_problem *base, const hr_tune *t,
                  int reps, hr_ragged_time *out)
{
    const int n = r->n;
    hr_tensors *ts = calloc((size_t)n, sizeof *ts);
    hr_problem *ps = calloc((size_t)n, sizeof *ps);
    hr_tune *tu = calloc((size_t)n, sizeof *tu);
    hr_args *ab = calloc((size_t)n, sizeof *ab);
    const hr_args **as = calloc((size_t)n, sizeof *as);
    void **ws = calloc((size_t)n, sizeof *ws);
    int *order = calloc((size_t)n, sizeof *order);
    double *rep_s = calloc((size_t)(reps > 0 ? reps : 1) * (size_t)(n + 1), sizeof *rep_s);
    int rc = HR_OK, made = 0;
    if (!ts || !ps || !tu || !ab || !as || !ws || !order || !rep_s) {
        rc = hr_failc(HR_EUSAGE, "ragged batch: out of memory");
        goto done;
    }
    out->bytes = 0;
    for (int i = 0; i < n; i++, made++) {
        ps[i] = hr_ragged_problem(r, i, base);
        const char *why = hr_kernel_why_not(k, &ps[i]);
        if (why) {
            rc = hr_failc(HR_EUSAGE, "--kernel: %s refuses sequence %d: %s", k->name, i + 1, why);
            goto done;
        }
        tu[i] = hr_kernel_tune(k, &ps[i], t);
        if ((rc = hr_tensors_alloc(&ts[i], &ps[i], HR_LAYOUT_BHND, HR_DIST_NORMAL, 1 + (uint64_t)i))) goto done;
        as[i] = hr_tensors_args(&ts[i], &ps[i], k, &tu[i], &ab[i]);
        size_t w = hr_kernel_workspace(k, &ps[i], &tu[i]);
        ws[i] = w ? aligned_alloc(64, (w + 63) / 64 * 64) : NULL;
        if (w && !ws[i]) {
            rc = hr_failc(HR_EUSAGE, "ragged batch: no memory for sequence %d's workspace", i + 1);
            goto done;
        }
        out->bytes += hr_min_bytes(&ps[i]);
    }
    hr_ragged_order(r, order);
    if (reps < 1) reps = 1;
    for (int rep = -1; rep < reps; rep++) { /* rep -1: warm-up, not kept */
        double t0 = hr_now(), tot0 = t0;
        for (int x = 0; x < n; x++) {
            const int i = order[x];
            if ((rc = hr_kernel_run(k, &ps[i], &tu[i], as[i], ws[i]))) goto done;
            const double t1 = hr_now();
            if (rep >= 0) rep_s[(size_t)rep * (n + 1) + 1 + i] = t1 - t0;
            t0 = t1;
        }
        if (rep >= 0) rep_s[(size_t)rep * (n + 1)] = t0 - tot0;
    }
    int med = 0; /* the repetition whose total is the median (the lower of two) */
    for (int a = 0; a < reps; a++) {
        int below = 0, same = 0;
        for (int b = 0; b < reps; b++) {
            below += rep_s[(size_t)b * (n + 1)] < rep_s[(size_t)a * (n + 1)];
            same += rep_s[(size_t)b * (n + 1)] == rep_s[(size_t)a * (n + 1)];
        }
        if (below <= (reps - 1) / 2 && below + same > (reps - 1) / 2) med = a;
    }
    out->seconds = rep_s[(size_t)med * (n + 1)];
    for (int i = 0; i < n; i++) out->seq_seconds[i] = rep_s[(size_t)med * (n + 1) + 1 + i];
done:
    for (int i = 0; i < made; i++) {
        hr_tensors_free(&ts[i]);
        free(ws[i]);
    }
    free(ts); free(ps); free(tu); free(ab); free(as); free(ws); free(order); free(rep_s);
    return rc;
}
