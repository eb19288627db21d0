/* ragged.c — ragged decode batches: lists, seeded distributions, the fused and serial
 * schedules and the oracle over every sequence. */
#include "ragged.h"

#include "counts.h"
#include "guard.h"
#include "isa.h"
#include "stats.h"
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

const char *const hr_ragged_dist_names[] = {"uniform", "zipf", "chat", NULL};
const char *const hr_ragged_schedule_names[] = {"fused", "serial", NULL};

int hr_ragged_dist_of(const char *name) { return hr_choice(hr_ragged_dist_names, name); }

/* Chat: LMSYS-Chat-1M (Zheng et al., "LMSYS-Chat-1M: A Large-Scale Real-World LLM
 * Conversation Dataset", ICLR 2024, arXiv 2309.11998, Table 1) reports 2.0 turns per
 * conversation, 69.5 tokens per prompt and 214.5 per response on average, so a
 * conversation's context holds 2 x (69.5 + 214.5) = 568 tokens on average. The dataset's
 * length histograms are long-tailed; as a fit to those means, lengths are lognormal
 * with sigma 1 (a 90th percentile 3.6x the median) and the median that gives the
 * reported mean, median = mean / e^(sigma^2 / 2): 345 tokens of context, 130 tokens a
 * reply. A fit to the means, not to the histograms. */
#define CHAT_SIGMA 1.0
#define CHAT_CTX_MEDIAN 344.5
#define CHAT_OUT_MEDIAN 130.1

static int clamp_len(double x, int lo, int hi)
{
    return x < lo ? lo : x >= (double)hi ? hi : (int)x;
}

int hr_ragged_len(hr_rng *g, hr_ragged_dist dist, int lo, int hi)
{
    if (dist == HR_RAGGED_CHAT) return clamp_len(CHAT_CTX_MEDIAN * exp(CHAT_SIGMA * hr_rng_normal(g)), lo, hi);
    const double u = hr_rng_uniform(g);
    if (dist == HR_RAGGED_ZIPF) return clamp_len(lo * pow((double)hi / lo, u), lo, hi);
    return clamp_len(lo + u * ((double)hi - lo + 1), lo, hi);
}

int hr_ragged_out_len(hr_rng *g, int lo, int hi)
{
    return clamp_len(CHAT_OUT_MEDIAN * exp(CHAT_SIGMA * hr_rng_normal(g)), lo, hi);
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
        r->len[i] = hr_ragged_len(&g, dist, lo, hi);
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

const char *hr_ragged_why_not(const hr_kernel *k, hr_ragged_schedule sched)
{
    if (sched == HR_RAGGED_FUSED && (k->plugin || strcmp(k->name, "decode")))
        return "--schedule: fused runs the decode kernel (give --schedule serial for another)";
    return NULL;
}

size_t hr_ragged_fused_workspace(const hr_decode_seq *s, int n, int threads)
{
    return hr_isa_now()->decode_batch_workspace(s, n, threads);
}

int hr_ragged_fused(const hr_decode_seq *s, int n, int threads, void *ws)
{
    return hr_isa_now()->decode_batch(s, n, threads, ws);
}

/* A batch's inputs, tunables and operands, allocated outside any timing: one workspace
 * per sequence (serial) or one for the fused call. */
typedef struct {
    int n, made;
    hr_tensors *ts;
    hr_problem *ps;
    hr_tune *tu;
    hr_args *ab;
    const hr_args **as;
    void **ws;
    hr_decode_seq *seq;
    double bytes;
} batch;

static void batch_close(batch *b)
{
    for (int i = 0; i < b->made; i++) hr_tensors_free(&b->ts[i]);
    if (b->ws)
        for (int i = 0; i <= b->n; i++) free(b->ws[i]);
    free(b->ts); free(b->ps); free(b->tu); free(b->ab); free(b->as); free(b->ws); free(b->seq);
}

static void *ws_alloc(size_t w) { return w ? aligned_alloc(64, (w + 63) / 64 * 64) : NULL; }

/* Sequence i's inputs are drawn with seed + i. */
static int batch_open(batch *b, const hr_kernel *k, const hr_ragged *r, const hr_problem *base, const hr_tune *t,
                      hr_ragged_schedule sched, uint64_t seed)
{
    const int n = r->n;
    const char *why = hr_ragged_why_not(k, sched);
    memset(b, 0, sizeof *b);
    if (why) return hr_fail("%s", why);
    b->n = n;
    b->ts = calloc((size_t)n, sizeof *b->ts);
    b->ps = calloc((size_t)n, sizeof *b->ps);
    b->tu = calloc((size_t)n, sizeof *b->tu);
    b->ab = calloc((size_t)n, sizeof *b->ab);
    b->as = calloc((size_t)n, sizeof *b->as);
    b->ws = calloc((size_t)n + 1, sizeof *b->ws);
    b->seq = calloc((size_t)n, sizeof *b->seq);
    if (!b->ts || !b->ps || !b->tu || !b->ab || !b->as || !b->ws || !b->seq) {
        batch_close(b);
        return hr_failc(HR_EUSAGE, "ragged batch: out of memory");
    }
    int rc;
    for (int i = 0; i < n; i++, b->made++) {
        b->ps[i] = hr_ragged_problem(r, i, base);
        if ((why = hr_kernel_why_not(k, &b->ps[i]))) {
            rc = hr_failc(HR_EUSAGE, "--kernel: %s refuses sequence %d: %s", k->name, i + 1, why);
            goto fail;
        }
        b->tu[i] = hr_kernel_tune(k, &b->ps[i], t);
        if ((rc = hr_tensors_alloc(&b->ts[i], &b->ps[i], HR_LAYOUT_BHND, HR_DIST_NORMAL, seed + (uint64_t)i)))
            goto fail;
        b->as[i] = hr_tensors_args(&b->ts[i], &b->ps[i], k, &b->tu[i], &b->ab[i]);
        b->seq[i] = (hr_decode_seq){&b->ps[i], &b->tu[i], b->as[i]};
        size_t w = sched == HR_RAGGED_SERIAL ? hr_kernel_workspace(k, &b->ps[i], &b->tu[i]) : 0;
        if (w && !(b->ws[i] = ws_alloc(w))) {
            rc = hr_failc(HR_EUSAGE, "ragged batch: no memory for sequence %d's workspace", i + 1);
            goto fail;
        }
        b->bytes += hr_min_bytes(&b->ps[i]);
    }
    if (sched == HR_RAGGED_FUSED && !(b->ws[n] = ws_alloc(hr_ragged_fused_workspace(b->seq, n, b->tu[0].threads)))) {
        rc = hr_failc(HR_EUSAGE, "ragged batch: no memory for the fused call's workspace");
        goto fail;
    }
    return HR_OK;
fail:
    batch_close(b);
    return rc;
}

/* One fused call of the whole batch. */
static int batch_fused(const batch *b)
{
    return hr_ragged_fused(b->seq, b->n, b->tu[0].threads, b->ws[b->n]);
}

static int check_fused(const hr_kernel *k, const hr_ragged *r, const hr_problem *base, const hr_tune *t,
                       uint64_t seed, int *bad)
{
    batch b;
    if (batch_open(&b, k, r, base, t, HR_RAGGED_FUSED, seed)) {
        *bad = 0;
        return HR_CHECK_ERROR;
    }
    int worst = HR_CHECK_PASS;
    for (int i = 0; i < b.n; i++) hr_tensors_poison(&b.ps[i], b.as[i], 12345.0f);
    hr_guard_kernel(k->name);
    const int failed = batch_fused(&b);
    hr_guard_kernel(NULL);
    for (int i = 0; i < b.n && !failed; i++) {
        hr_tensors_output(&b.ps[i], b.as[i]);
        hr_check res = hr_oracle_check_q(&b.ps[i], b.as[i], 0, hr_path_quant(hr_kernel_path(k, &b.ps[i])));
        if (res.verdict == HR_CHECK_FAIL) {
            *bad = i;
            worst = HR_CHECK_FAIL;
            break;
        }
        worst = res.verdict > worst ? res.verdict : worst;
    }
    batch_close(&b);
    if (failed) *bad = 0;
    return failed ? HR_CHECK_ERROR : worst;
}

int hr_ragged_check(const hr_kernel *k, const hr_ragged *r, const hr_problem *base, const hr_tune *t,
                    uint64_t seed, hr_ragged_schedule sched, int *bad)
{
    int worst = HR_CHECK_PASS;
    *bad = -1;
    if (hr_ragged_why_not(k, sched)) return -1;
    if (sched == HR_RAGGED_FUSED) return check_fused(k, r, base, t, seed, bad);
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
                  int reps, hr_ragged_schedule sched, hr_ragged_time *out)
{
    const int n = r->n;
    batch b;
    int rc, *order = calloc((size_t)n, sizeof *order);
    if (reps < 1) reps = 1;
    /* rep_s[i][rep]: sequence i's seconds, [n][rep] the batch's */
    double *rep_s = calloc((size_t)reps * (size_t)(n + 1), sizeof *rep_s);
    if (!order || !rep_s) {
        free(order);
        free(rep_s);
        return hr_failc(HR_EUSAGE, "ragged batch: out of memory");
    }
    if ((rc = batch_open(&b, k, r, base, t, sched, 1))) goto done;
    out->bytes = b.bytes;
    hr_ragged_order(r, order);
    for (int rep = -1; rep < reps; rep++) { /* rep -1: warm-up, not kept */
        double t0 = hr_now(), tot0 = t0;
        if (sched == HR_RAGGED_FUSED) {
            if ((rc = batch_fused(&b))) goto closed;
            t0 = hr_now();
        } else
            for (int x = 0; x < n; x++) {
                const int i = order[x];
                if ((rc = hr_kernel_run(k, &b.ps[i], &b.tu[i], b.as[i], b.ws[i]))) goto closed;
                const double t1 = hr_now();
                if (rep >= 0) rep_s[(size_t)i * reps + rep] = t1 - t0;
                t0 = t1;
            }
        if (rep >= 0) rep_s[(size_t)n * reps + rep] = t0 - tot0;
    }
    out->seconds = hr_median(rep_s + (size_t)n * reps, (size_t)reps);
    for (int i = 0; i < n; i++)
        out->seq_seconds[i] = sched == HR_RAGGED_SERIAL ? hr_median(rep_s + (size_t)i * reps, (size_t)reps) : 0;
closed:
    batch_close(&b);
done:
    free(order);
    free(rep_s);
    return rc;
}
