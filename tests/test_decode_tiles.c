/* test_decode_tiles.c — q8_0 and q4_0 caches in 16-key tiles (headroom.h hr_kv_tile_offset): the layout is a permutation of the rows' bytes, the harness hands it only to a kernel that asks, and decode reads it to the same output as the rows. */
#include <stdlib.h>
#include <string.h>

#include "inputs.h"
#include "kvcache.h"
#include "oracle.h"
#include "result.h"
#include "t.h"
#include "t_decode.h"

/* Every byte of a tile comes from exactly one byte of its 16 keys' rows, both sides, any
 * d (a lone last block where d / 32 is odd), and a row put and got back is the same. */
HR_TEST(kv_tile_layout_is_a_permutation)
{
    static const int ds[] = {32, 64, 96, 128, 160, 256};
    static const hr_dtype ts[] = {HR_Q4_0, HR_Q8_0};
    for (int ti = 0; ti < 2; ti++)
        for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++)
            for (int v = 0; v < 2; v++) {
                const hr_dtype t = ts[ti];
                const int d = ds[i], nb = d / 32, bb = (int)hr_dtype_row_bytes(t, 32), bytes = 16 * bb * nb;
                unsigned char *seen = calloc((size_t)bytes, 1), *tile = calloc((size_t)bytes, 1);
                int bad = 0;
                for (int slot = 0; slot < HR_KV_TILE; slot++)
                    for (int b = 0; b < nb; b++)
                        for (int k = 0; k < bb; k++) {
                            const size_t o = hr_kv_tile_offset(t, v, nb, slot, b, k);
                            if (o >= (size_t)bytes || seen[o]++) bad++;
                        }
                CHECKF(bad == 0, "%s d %d side %d: %d tile bytes out of range or taken twice", hr_dtype_names[t], d, v, bad);
                unsigned char row[8 * 34], back[8 * 34];
                for (int slot = 0; slot < HR_KV_TILE; slot++) {
                    for (int j = 0; j < bb * nb; j++) row[j] = (unsigned char)(j * 7 + slot * 13 + v);
                    hr_kv_tile_put(t, v, row, tile, slot, d);
                }
                for (int slot = 0; slot < HR_KV_TILE; slot++) {
                    hr_kv_tile_get(t, v, tile, slot, back, d);
                    for (int j = 0; j < bb * nb; j++) bad += back[j] != (unsigned char)(j * 7 + slot * 13 + v);
                }
                CHECKF(bad == 0, "%s d %d side %d: %d bytes differ after put and get", hr_dtype_names[t], d, v, bad);
                free(seen);
                free(tile);
            }
}

/* Runs decode on t's args a (rows or tiles) into O; returns the run's status. */
static int run_on(const hr_kernel *k, const hr_problem *p, hr_tune *t, const hr_args *a)
{
    const size_t wb = hr_kernel_workspace(k, p, t);
    void *ws = hr_alloc(wb ? wb : 64);
    hr_tensors_poison(p, a, 1e30f);
    const int st = hr_kernel_run(k, p, t, a, ws);
    free(ws);
    hr_tensors_output(p, a);
    return st;
}

static int o_same(const hr_problem *p, const hr_args *a, const float *o0)
{
    size_t i = 0;
    int diff = 0;
    for (int b = 0; b < p->batch; b++)
        for (int h = 0; h < p->heads; h++)
            for (int r = 0; r < p->seq_q; r++)
                for (int x = 0; x < p->d_head; x++, i++) diff += memcmp(&hr_row(a->o, b, h, r)[x], &o0[i], 4) != 0;
    return diff;
}

/* Where decode asks for tiles (the int8 step with int8 P·V: VNNI at the level that runs,
 * and the vpmaddubsw step at the avx2 level), one thread reads them to the rows' output
 * bit for bit (the same ops in the same order), over lengths that end inside a tile, odd
 * block counts of d, causal rows and short blocks; at 2 and 3 threads (cuts at tile
 * starts) the oracle passes. */
static void tiles_match_rows(const hr_kernel *k);
HR_TEST(decode_tiles_match_rows)
{
    const hr_kernel *k = hr_kernel_find("decode");
    CHECK(k != NULL);
    if (!k) return;
    for (int emu = 0; emu < 2 && int8_instance(emu); emu++) tiles_match_rows(k);
    decode_path_env(NULL);
}

static void tiles_match_rows(const hr_kernel *k)
{
    static const struct {
        int heads, kv_heads, seq_q, seq_kv, d, causal, block;
    } cs[] = {{32, 8, 1, 1000, 128, 0, 0},  {4, 4, 1, 37, 96, 0, 0},   {8, 2, 3, 300, 64, 1, 64},
              {2, 1, 1, 70, 256, 0, 32},    {6, 3, 2, 529, 160, 1, 0}, {4, 1, 1, 15, 128, 0, 0}};
    int ran = 0;
    const size_t nc = sizeof cs / sizeof cs[0];
    for (size_t ii = 0; ii < 2 * nc; ii++) { /* q4_0, then q8_0 */
        const size_t i = ii % nc;
        hr_problem p = {.batch = 1 + (int)(i % 2), .heads = cs[i].heads, .kv_heads = cs[i].kv_heads,
                        .seq_q = cs[i].seq_q, .seq_kv = cs[i].seq_kv, .d_head = cs[i].d, .causal = cs[i].causal,
                        .dtype = HR_F32, .kv_dtype = ii < nc ? HR_Q4_0 : HR_Q8_0};
        hr_tune t = hr_kernel_tune(k, &p, &(hr_tune){0, cs[i].block, 1});
        if (hr_kernel_kv_tile(k, &p, &t) != HR_KV_TILE) continue; /* rows only on this CPU or level */
        hr_tensors ts;
        CHECK(hr_tensors_alloc(&ts, &p, HR_LAYOUT_BHND, HR_DIST_NORMAL, 5) == HR_OK);
        hr_args buf;
        const hr_args *ta = hr_tensors_args(&ts, &p, k, &t, &buf);
        CHECK(ta == &buf && ta->xk.tile == HR_KV_TILE && ta->xv.tile == HR_KV_TILE);
        const size_t n = (size_t)p.batch * p.heads * p.seq_q * p.d_head;
        float *o0 = malloc(n * sizeof(float));
        CHECK(run_on(k, &p, &t, &ts.args) == HR_OK);
        size_t j = 0;
        for (int b = 0; b < p.batch; b++)
            for (int h = 0; h < p.heads; h++)
                for (int r = 0; r < p.seq_q; r++, j += (size_t)p.d_head)
                    memcpy(o0 + j, hr_row(ts.args.o, b, h, r), (size_t)p.d_head * sizeof(float));
        CHECK(run_on(k, &p, &t, ta) == HR_OK);
        const int diff = o_same(&p, ta, o0);
        CHECKF(diff == 0, "%s case %zu: %d of %zu outputs differ between rows and tiles at one thread (%s)",
               hr_dtype_names[p.kv_dtype], i, diff, n, hr_kernel_path(k, &p));
        for (int th = 2; th <= 3; th++) {
            hr_tune t2 = hr_kernel_tune(k, &p, &(hr_tune){0, cs[i].block, th});
            CHECK(run_on(k, &p, &t2, hr_tensors_args(&ts, &p, k, &t2, &buf)) == HR_OK);
            const hr_check c = hr_oracle_check_q(&p, &buf, 0, hr_path_quant(hr_kernel_path(k, &p)));
            CHECKF(c.verdict == HR_CHECK_PASS, "%s case %zu T%d: tiles fail the oracle (max_rel %.3g)",
                   hr_dtype_names[p.kv_dtype], i, th, c.max_rel_err);
        }
        free(o0);
        hr_tensors_free(&ts);
        ran++;
    }
    /* none on a CPU without AVX512-VNNI or at a lower level (rows: the battery's); else
     * every case (all take the default or a 16-multiple block) */
    CHECKF(ran == 0 || ran == (int)(2 * nc), "%d cases on tiles", ran);
}

/* Tiles go only where asked: an f16 cache has none, flash (rows) gets the rows, and
 * decode handed tiles on a path that reads rows (HEADROOM_DECODE_PV=fp32) refuses. */
HR_TEST(decode_tiles_only_where_asked)
{
    const hr_kernel *k = hr_kernel_find("decode"), *f = hr_kernel_find("flash");
    CHECK(k && f);
    if (!k || !f) return;
    hr_problem p = {.batch = 1, .heads = 4, .kv_heads = 2, .seq_q = 1, .seq_kv = 100, .d_head = 64,
                    .dtype = HR_F32, .kv_dtype = HR_F16};
    hr_tensors ts;
    hr_args buf;
    hr_tune t = hr_kernel_tune(k, &p, &(hr_tune){0, 0, 1});
    CHECK(hr_tensors_alloc(&ts, &p, HR_LAYOUT_BHND, HR_DIST_NORMAL, 5) == HR_OK);
    CHECK(ts.tmem == NULL && hr_tensors_args(&ts, &p, k, &t, &buf) == &ts.args);
    hr_tensors_free(&ts);
    p.kv_dtype = HR_Q4_0;
    CHECK(hr_tensors_alloc(&ts, &p, HR_LAYOUT_BNHD, HR_DIST_NORMAL, 5) == HR_OK);
    CHECK(ts.tmem != NULL && ts.xkt.tile == HR_KV_TILE); /* tiles whatever the rows' layout */
    hr_tune tf = hr_kernel_tune(f, &p, &(hr_tune){0});
    CHECK(hr_tensors_args(&ts, &p, f, &tf, &buf) == &ts.args);
    setenv("HEADROOM_DECODE_KV", "rows", 1); /* rows asked for by name */
    CHECK(hr_kernel_kv_tile(k, &p, &t) == 0);
    setenv("HEADROOM_DECODE_KV", "tiles", 1);
    CHECK(hr_kernel_why_not(k, &p) != NULL && strstr(hr_kernel_why_not(k, &p), "HEADROOM_DECODE_KV"));
    unsetenv("HEADROOM_DECODE_KV");
    setenv("HEADROOM_DECODE_PV", "fp32", 1);
    CHECK(hr_kernel_kv_tile(k, &p, &t) == 0);
    buf = ts.args;
    buf.xk = ts.xkt;
    buf.xv = ts.xvt;
    CHECK(run_on(k, &p, &t, &buf) != HR_OK);
    unsetenv("HEADROOM_DECODE_PV");
    hr_tensors_free(&ts);
}

/* decode-loop's cache in tiles: appended row by row, read back key by key it holds what
 * a cache in rows holds; tiles only on an empty q4_0 cache. */
static void kvcache_tiles_case(hr_dtype ty)
{
    const int B = 2, G = 3, d = 96, cap = 45, T = 19;
    hr_kvcache rows, tiles, q8;
    CHECK(hr_kvcache_init_typed(&rows, ty, 2, B, G, d, cap, 0) == HR_OK);
    CHECK(hr_kvcache_init_typed(&tiles, ty, 2, B, G, d, cap, 0) == HR_OK);
    CHECK(hr_kvcache_init_typed(&q8, HR_F16, 1, B, G, d, cap, 0) == HR_OK);
    CHECK(hr_kvcache_set_tile(&q8, HR_KV_TILE) != HR_OK);
    CHECK(hr_kvcache_set_tile(&tiles, 8) != HR_OK);
    CHECK(hr_kvcache_set_tile(&tiles, HR_KV_TILE) == HR_OK);
    float *x = malloc(sizeof(float) * (size_t)2 * B * G * T * d);
    hr_view kn = hr_view_dense(x, HR_LAYOUT_BHND, B, G, T, d), vn = hr_view_dense(x + (size_t)B * G * T * d, HR_LAYOUT_BHND, B, G, T, d);
    for (int step = 0; step < 2; step++) { /* 19 keys, then 19 more: the second batch starts inside a tile */
        hr_fill(kn, B, G, T, d, HR_DIST_NORMAL, 3 + step, 1);
        hr_fill(vn, B, G, T, d, HR_DIST_NORMAL, 3 + step, 2);
        CHECK(hr_kvcache_append(&rows, 1, hr_cv(kn), hr_cv(vn), T) == HR_OK);
        CHECK(hr_kvcache_append(&tiles, 1, hr_cv(kn), hr_cv(vn), T) == HR_OK);
    }
    CHECK(hr_kvcache_set_tile(&tiles, 0) != HR_OK); /* no longer empty */
    CHECK(hr_kvcache_xk(&tiles, 1).tile == HR_KV_TILE && hr_kvcache_xv(&rows, 1).tile == 0);
    int bad = 0;
    unsigned char r0[4 * 34], r1[4 * 34];
    for (int w = 0; w < 2; w++) {
        const hr_xcview a = w ? hr_kvcache_xv(&rows, 1) : hr_kvcache_xk(&rows, 1);
        const hr_xcview t = w ? hr_kvcache_xv(&tiles, 1) : hr_kvcache_xk(&tiles, 1);
        for (int b = 0; b < B; b++)
            for (int g = 0; g < G; g++)
                for (int n = 0; n < 2 * T; n++)
                    bad += memcmp(hr_xc_key_row(a, w, ty, d, b, g, n, r0), hr_xc_key_row(t, w, ty, d, b, g, n, r1),
                                  hr_dtype_row_bytes(ty, d)) != 0;
    }
    CHECKF(bad == 0, "%s: %d rows differ between the cache in rows and in tiles", hr_dtype_names[ty], bad);
    free(x);
    hr_kvcache_free(&rows);
    hr_kvcache_free(&tiles);
    hr_kvcache_free(&q8);
}
HR_TEST(kvcache_tiles_hold_the_rows)
{
    kvcache_tiles_case(HR_Q4_0);
    kvcache_tiles_case(HR_Q8_0);
}
