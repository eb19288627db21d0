/* i8amx.c — decode_i8.c's tiled scores (scores_tiles: q8_0/q4_0 in 16-key tiles, vpdpbusd)
 * against the same scores on AMX-INT8 tiles (tdpbsud), timed alone on one block's keys
 * (the kernel's: q4_0 512, q8_0 256) over NBLK copies (1: L1/L2, 64: L3), ABBA rounds,
 * the scores and V scales compared bit for bit first. Built to see whether AMX pays in
 * decode's int8 step on a Sapphire Rapids class core; it did not (perf-log 0072,
 * 0206), so the kernel has no AMX path and this stays a measurement.
 *
 * A K tile's q block (headroom.h's HR_KV_TILE layout: 8 rows of 64 bytes, row i the
 * values 4i..4i+3 of each of the 16 keys) is the B operand of AMX's int8 product, and the
 * quantized query rows (qx: d int8 values a row, qrow_f floats apart) its A operand as
 * they lie. Two forms:
 *   amx   per 16 keys and q block one tdpbsud (M = R rows, K = 32 bytes) into the block's
 *         own accumulator tile (0-3), then per row and block the vpdpbusd step's own tail
 *         (+ the offset correction, a conversion, an FMA by dk dq, in its order);
 *   amx2  (R 4, d 128 only) two tiles of 2R (block, row) pairs per 16 keys, A zero
 *         outside its block, consecutive 16-key groups on alternate tile sets so that one
 *         group's products can overlap the next group's vector work.
 * K goes through vector registers into an L1 buffer first (q4_0 must be unpacked; q8_0
 * takes its + 128 as the vpdpbusd step does). AB=BITS skips parts of amx (its scores are
 * then wrong): 1 the K buffer's stores, 2 the tile products and stores, 4 the rows'
 * tails. PF=0: no V prefetch in either.
 * usage: i8amx q4_0|q8_0 [NBLK [ROUNDS]]   (V2=1 times amx2 in amx's place; built by
 *        studies/cputime/build.sh studies/cputime/i8amx.c build/cputime/i8amx -O3 -march=native) */
#define HR_DECODE_PF_COPY 1
#define HR_DECODE_PF_HINT 3
#define HR_I8_STEP hr_amx_i8
#include "decode_i8.c"
#include "vec_amx.h"

#include <stdio.h>

#include "inputs.h"
#include "stats.h"
#include "timer.h"
#include "abba.h"

#if !defined(HR_HAVE_AMX) || !defined(HR_HAVE_I8PV) || HR_VW != 16
int main(void)
{
    fprintf(stderr, "i8amx: needs a native AVX-512 build (make NATIVE=1) with VNNI\n");
    return 2;
}
#else
#include "i8bench.h"

#define I8X_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,amx-tile,amx-int8")))
#define I8X_FN static inline __attribute__((always_inline)) I8X_TARGET
#define I8X_BLK 4 /* q blocks a pass: accumulator tiles 0-3 */
static int i8x_ab; /* AB: the parts of scores_amx skipped */

/* AMX-INT8 (CPUID.(7,0):EDX bit 25) and the tile state granted (vec_amx.h). */
static inline int i8x_cpu(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(d >> 25 & 1)) return 0;
    return hr_amx_why_not() == NULL;
}

/* Floats of the buffer both forms take: scores_amx's K blocks of one pass (I8X_BLK x 512
 * bytes) and the pass's accumulators (I8X_BLK x R x 64, R <= 16), scores_amx2's 7 KiB. */
#define I8X_BUF 2048

I8X_FN void i8x_cfg(int R)
{
    hr_amx_cfg g;
    hr_amx_cfg_init(&g);
    for (int t = 0; t < 4; t++) hr_amx_cfg_tile(&g, t, R, 64);
    hr_amx_cfg_tile(&g, 4, R, 32);
    hr_amx_cfg_tile(&g, 7, R, 32);
    hr_amx_cfg_tile(&g, 5, 8, 64);
    hr_amx_cfg_tile(&g, 6, 8, 64);
    hr_amx_load(&g);
}

/* Block i of the pass (a constant) into accumulator tile T: A from row block b of qx
 * (rows qs bytes apart), B the unpacked block at kb. */
#define I8X_DOT(T, TA, TB, i)                                                                                      \
    do {                                                                                                           \
        if (np > (i)) {                                                                                            \
            _tile_loadd(TA, qa + 32 * (b0 + (i)), qs);                                                             \
            _tile_loadd(TB, kbuf + 512 * (i), 64);                                                                 \
            _tile_dpbsud(T, TA, TB);                                                                               \
        }                                                                                                          \
    } while (0)

/* scores_tiles on AMX: keys [0, n) of the tile at kt (V's at vt), scores into s[r kbp +
 * j], V's block scales into sv[b kbp + j], the next block's V prefetched (pf, one step per
 * q block of 16 keys, as scores_tiles). buf: I8X_BUF floats. */
I8X_FN void scores_amx(const dctx *c, int q4, const float *qx, const unsigned char *kt, int n, float *s,
                       const unsigned char *vt, float *sv, const unsigned char *pf, ptrdiff_t psn, int nv, float *buf)
{
    const int nb = c->d / HR_QBLOCK, R = c->R, d4 = c->d / 4;
    const size_t kbp = (size_t)c->kbp, qf = qrow_f(c), bt = HR_KV_TILE * QBYTES(q4), qs = qf * sizeof(float);
    const char *qa = (const char *)qx;
    unsigned char *kbuf = (unsigned char *)buf;
    int32_t *cb = (int32_t *)(buf + round16(I8X_BLK * 128));
    pf_seq pq = pf_rows(c, pf, psn, nv, nb * ((n + HR_VW - 1) / HR_VW));
    i8x_cfg(R);
    for (int j = 0; j < n; j += HR_VW) {
        const tile_vec x = tile_at(c, 0, kt, vt, j);
        for (int b0 = 0; b0 < nb; b0 += I8X_BLK) {
            const int np = nb - b0 < I8X_BLK ? nb - b0 : I8X_BLK;
            hr_vf dk[I8X_BLK];
            for (int i = 0; i < np; i++) {
                const int b = b0 + i;
                pf_step(&pq);
                hr_vi k[8];
                const unsigned char *kb = x.k + bt * b; /* the block's scales, then its data */
                if (q4) hr_vi_kt_q4t(kb + 32, k);
                else hr_vi_kt_q8t(kb + 32, k);
                if (!(i8x_ab & 1)) for (int e = 0; e < 8; e++) _mm512_store_si512(kbuf + 512 * i + 64 * e, k[e]);
                dk[i] = hr_vload_f16(kb);
                hr_vstore(sv + b * kbp + j, hr_vload_f16(x.v + 32 * b));
            }
            if (!(i8x_ab & 2)) {
            _tile_zero(0);
            _tile_zero(1);
            _tile_zero(2);
            _tile_zero(3);
            I8X_DOT(0, 4, 5, 0);
            I8X_DOT(1, 7, 6, 1);
            I8X_DOT(2, 4, 5, 2);
            I8X_DOT(3, 7, 6, 3);
            _tile_stored(0, cb, 64);
            if (np > 1) _tile_stored(1, cb + 16 * R, 64);
            if (np > 2) _tile_stored(2, cb + 32 * R, 64);
            if (np > 3) _tile_stored(3, cb + 48 * R, 64);
            }
            for (int r = 0; r < R && !(i8x_ab & 4); r++) {
                const float *row = qx + (size_t)r * qf;
                float *sr = s + r * kbp + j;
                hr_vf acc = b0 ? hr_vload(sr) : hr_vzero();
                for (int i = 0; i < np; i++) {
                    const int b = b0 + i;
                    const hr_vi x0 = hr_vi_add(_mm512_load_si512(cb + 16 * (i * R + r)), hr_vi_set1(row + d4 + nb + b));
                    const hr_vf xi = hr_vi_cvt(x0), t = hr_vmul(dk[i], hr_vset1(row[d4 + b]));
                    acc = b ? hr_vfma(xi, t, acc) : hr_vmul(xi, t);
                }
                hr_vstore(sr, acc);
            }
        }
    }
    hr_amx_release();
}
I8X_FN void i8x_cfg2(int R)
{
    hr_amx_cfg g;
    hr_amx_cfg_init(&g);
    for (int t = 0; t < 4; t++) hr_amx_cfg_tile(&g, t, 2 * R, 64);
    hr_amx_cfg_tile(&g, 4, 2 * R, 32);
    hr_amx_cfg_tile(&g, 7, 2 * R, 32);
    hr_amx_cfg_tile(&g, 5, 8, 64);
    hr_amx_cfg_tile(&g, 6, 8, 64);
    hr_amx_load(&g);
}
#define X2(TC0, TC1, TA, TB, kb_)                                                                  \
    do {                                                                                           \
        _tile_zero(TC0); _tile_zero(TC1);                                                          \
        _tile_loadd(TA, abuf, 32); _tile_loadd(TB, kb_, 64); _tile_dpbsud(TC0, TA, TB);             \
        _tile_loadd(TA, abuf + 256, 32); _tile_loadd(TB, kb_ + 512, 64); _tile_dpbsud(TC0, TA, TB); \
        _tile_loadd(TA, abuf + 512, 32); _tile_loadd(TB, kb_ + 1024, 64); _tile_dpbsud(TC1, TA, TB);\
        _tile_loadd(TA, abuf + 768, 32); _tile_loadd(TB, kb_ + 1536, 64); _tile_dpbsud(TC1, TA, TB);\
    } while (0)
I8X_FN void i8x_post(const dctx *c, const float *qx, const int32_t *cb, const hr_vf *dk, float *s, int j)
{
    const int nb = 4, R = 4, d4 = c->d / 4;
    const size_t kbp = (size_t)c->kbp, qf = qrow_f(c);
    for (int r = 0; r < R; r++) {
        const float *row = qx + (size_t)r * qf;
        hr_vf acc = hr_vzero();
        for (int b = 0; b < nb; b++) {
            const hr_vi x0 = hr_vi_add(_mm512_load_si512(cb + 16 * (b * R + r)), hr_vi_set1(row + d4 + nb + b));
            const hr_vf xi = hr_vi_cvt(x0), t = hr_vmul(dk[b], hr_vset1(row[d4 + b]));
            acc = b ? hr_vfma(xi, t, acc) : hr_vmul(xi, t);
        }
        hr_vstore(s + r * kbp + j, acc);
    }
}
I8X_FN void scores_amx2(const dctx *c, int q4, const float *qx, const unsigned char *kt, int n, float *s,
                       const unsigned char *vt, float *sv, const unsigned char *pf, ptrdiff_t psn, int nv, float *buf)
{
    const int nb = 4, R = 4;
    const size_t kbp = (size_t)c->kbp, qf = qrow_f(c), bt = HR_KV_TILE * QBYTES(q4);
    unsigned char *kbuf = (unsigned char *)buf; /* 2 sets x 2048 */
    char *abuf = (char *)(kbuf + 4096);         /* 4 x 8 rows x 32 */
    int32_t *cb = (int32_t *)(abuf + 1024);     /* 2 sets x 2 tiles x 8 rows x 64 */
    memset(abuf, 0, 1024);
    for (int b = 0; b < nb; b++)
        for (int r = 0; r < R; r++) memcpy(abuf + 256 * b + 32 * ((b & 1) * R + r), (const char *)(qx + r * qf) + 32 * b, 32);
    pf_seq pq = pf_rows(c, pf, psn, nv, nb * ((n + HR_VW - 1) / HR_VW));
    i8x_cfg2(R);
    hr_vf dk[2][4];
    for (int j = 0; j < n; j += HR_VW) {
        const int set = (j / HR_VW) & 1;
        const tile_vec x = tile_at(c, 0, kt, vt, j);
        unsigned char *kb_ = kbuf + 2048 * set;
        for (int b = 0; b < nb; b++) {
            pf_step(&pq);
            hr_vi k[8];
            const unsigned char *kb = x.k + bt * b;
            if (q4) hr_vi_kt_q4t(kb + 32, k);
            else hr_vi_kt_q8t(kb + 32, k);
            for (int e = 0; e < 8; e++) _mm512_store_si512(kb_ + 512 * b + 64 * e, k[e]);
            dk[set][b] = hr_vload_f16(kb);
            hr_vstore(sv + b * kbp + j, hr_vload_f16(x.v + 32 * b));
        }
        if (set == 0) X2(0, 1, 4, 5, kb_); else X2(2, 3, 7, 6, kb_);
        if (j >= HR_VW) { /* the previous group's post */
            if (set == 0) { _tile_stored(2, cb + 512, 64); _tile_stored(3, cb + 512 + 128, 64); }
            else { _tile_stored(0, cb, 64); _tile_stored(1, cb + 128, 64); }
            i8x_post(c, qx, cb + 512 * !set, dk[!set], s, j - HR_VW);
        }
    }
    const int last = ((n + HR_VW - 1) / HR_VW - 1) & 1;
    if (last == 0) { _tile_stored(0, cb, 64); _tile_stored(1, cb + 128, 64); }
    else { _tile_stored(2, cb + 512, 64); _tile_stored(3, cb + 512 + 128, 64); }
    i8x_post(c, qx, cb + 512 * last, dk[last], s, (n + HR_VW - 1) / HR_VW * HR_VW - HR_VW);
    hr_amx_release();
}

enum { IT = 2000, REPMAX = ABBA_MAX };

/* One timed variant: IT calls over the blocks in turn, the next block's V prefetched. */
typedef struct {
    const dctx *c;
    const i8bench *ib;
    unsigned char **tiles;
    float *buf;
    size_t blk;
    int q4, v2, N, nv, nblk;
} amx_run;
static void run_scores(int v, void *ctx)
{
    const amx_run *x = ctx;
    float *s = x->ib->s, *sv = x->ib->u.sv;
    for (int i = 0; i < IT; i++) {
        const size_t o = (size_t)(i % x->nblk) * x->blk, nx = (size_t)((i + 1) % x->nblk) * x->blk;
        const unsigned char *k = x->tiles[0] + o, *vt = x->tiles[1] + o, *pf = x->tiles[1] + nx;
        if (!v) scores_tiles(x->c, x->q4, 0, x->ib->qx, k, x->N, s, vt, sv, pf, x->c->rb, x->nv);
        else if (x->v2) scores_amx2(x->c, x->q4, x->ib->qx, k, x->N, s, vt, sv, pf, x->c->rb, x->nv, x->buf);
        else scores_amx(x->c, x->q4, x->ib->qx, k, x->N, s, vt, sv, pf, x->c->rb, x->nv, x->buf);
    }
}

int main(int argc, char **argv)
{
    int q4, nblk, rounds;
    if (i8bench_args(argc, argv, "i8amx", REPMAX, &q4, &nblk, &rounds)) return 2;
    if (!hr_cpu_i8dot() || !i8x_cpu()) {
        fprintf(stderr, "i8amx: this CPU or OS has no VNNI or no AMX-INT8 tiles\n");
        return 2;
    }
    i8x_ab = getenv("AB") ? atoi(getenv("AB")) : 0;
    const int v2 = getenv("V2") != NULL, N = q4 ? DECODE_BLOCK_KV_Q4 : DECODE_BLOCK_KV_Q8T;
    const int nv = getenv("PF") && !atoi(getenv("PF")) ? 0 : N;
    i8bench ib;
    unsigned char *tiles[2];
    i8bench_init_tiled(&ib, q4, N, nblk, tiles);
    dctx c = ib.c;
    c.k.tile = c.v.tile = HR_KV_TILE;
    const size_t blk = ib.blk, ns = 4 * (size_t)N;
    float *s = ib.s, *sv = ib.u.sv, *s0 = malloc(ns * sizeof(float)), *sv0 = malloc(ns * sizeof(float));
    float *buf = aligned_alloc(64, I8X_BUF * sizeof(float));
    scores_tiles(&c, q4, 0, ib.qx, tiles[0], N, s, tiles[1], sv, tiles[1], c.rb, N);
    memcpy(s0, s, ns * sizeof(float)), memcpy(sv0, sv, ns * sizeof(float));
    for (int v = 0; v < 2; v++) {
        memset(s, 0, ns * sizeof(float)), memset(sv, 0, ns * sizeof(float));
        if (v) scores_amx2(&c, q4, ib.qx, tiles[0], N, s, tiles[1], sv, tiles[1], c.rb, N, buf);
        else scores_amx(&c, q4, ib.qx, tiles[0], N, s, tiles[1], sv, tiles[1], c.rb, N, buf);
        int bad = 0;
        for (size_t i = 0; i < ns; i++) bad += s[i] != s0[i] || sv[i] != sv0[i];
        if (bad && !i8x_ab) {
            fprintf(stderr, "i8amx: amx%s's scores differ from the vpdpbusd ones in %d of %zu values\n", v ? "2" : "", bad, ns);
            return 1;
        }
    }
    amx_run x = {&c, &ib, tiles, buf, blk, q4, v2, N, nv, nblk};
    double t[2][ABBA_MAX];
    abba_rounds(rounds, run_scores, &x, (double)IT * N, t);
    printf("%s H32/8 d128, %d-key blocks, %d block%s, the scores alone, ns per key and KV head (medians of %d ABBA "
           "rounds): vpdpbusd %.2f, %s %.2f\n",
           argv[1], N, nblk, nblk > 1 ? "s" : "", rounds, hr_median(t[0], (size_t)rounds), v2 ? "amx2" : "amx",
           hr_median(t[1], (size_t)rounds));
    return 0;
}
#endif
