/* test_decode.c — the flash-decoding kernel against the oracle: splits, merges, GQA/MQA, causal,
 * layouts; the decode loop over a growing KV cache. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_vendor.h"
#include "decode_loop.h"
#include "inputs.h"
#include "oracle.h"
#include "t.h"
#include "t_decode.h"

static const hr_kernel *decode(void) { return hr_kernel_find("decode"); }

/* Runs decode on p with the given threads/block and returns the oracle's verdict. */
static int run_case(const hr_problem *p, hr_layout lay, hr_dist dist, int threads, int block,
                    double *rel)
{
    const hr_kernel *k = decode();
    hr_tensors ts;
    *rel = NAN;
    if (hr_tensors_alloc(&ts, p, lay, dist, 11)) return -1;
    hr_tune t = hr_kernel_tune(k, p, &(hr_tune){0, block, threads});
    size_t wb = k->workspace_bytes(p, &t);
    void *ws = hr_alloc(wb ? wb : 64);
    /* O starts as garbage: every row must be written, including rows with no key. */
    for (int b = 0; b < p->batch; b++)
        for (int h = 0; h < p->heads; h++)
            for (int i = 0; i < p->seq_q; i++)
                for (int x = 0; x < p->d_head; x++) hr_row(ts.args.o, b, h, i)[x] = 1e30f;
    k->run(p, &t, &ts.args, ws);
    hr_check c = hr_oracle_check(p, &ts.args, 0);
    *rel = c.max_rel_err;
    free(ws);
    hr_tensors_free(&ts);
    return c.verdict;
}

HR_TEST(decode_registered)
{
    const hr_kernel *k = decode();
    CHECK(k != NULL);
    if (!k) return;
    CHECK((k->caps & (HR_CAP_DECODE | HR_CAP_GQA | HR_CAP_CAUSAL | HR_CAP_THREADED)) ==
          (HR_CAP_DECODE | HR_CAP_GQA | HR_CAP_CAUSAL | HR_CAP_THREADED));
    CHECK(k->traffic == HR_TRAFFIC_KV_PER_GROUP);
    hr_problem p = {1, 8, 2, 16, 100, 64, true, 0};
    CHECK(k->applicable(&p) == NULL);
    p.seq_q = 17;
    CHECK(k->applicable(&p) != NULL);
}

/* Shapes chosen to hit every path: the cache split inside one head (B*Hkv < threads),
 * pieces spanning heads, threads with empty ranges (S < T), blocks not dividing the
 * cache, d not a multiple of the vector width, rows of fewer than 4 keys. */
HR_TEST(decode_matches_oracle)
{
    static const int shapes[][6] = {
        /* B, Hq, Hkv, Nq, Nkv, d */
        {1, 1, 1, 1, 1, 4},     {1, 4, 4, 1, 100, 16},  {2, 8, 2, 3, 257, 64},
        {1, 32, 8, 1, 1000, 128}, {1, 6, 1, 16, 77, 33}, {3, 4, 2, 5, 5, 7},
        {1, 4, 1, 7, 3, 128},   {2, 2, 2, 1, 999, 96},  {1, 16, 16, 2, 130, 200},
    };
    static const int threads[] = {1, 2, 3, 5};
    int fails = 0, n = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int causal = 0; causal < 2; causal++)
            for (int lay = 0; lay < 2; lay++)
                for (size_t ti = 0; ti < 4; ti++) {
                    const int *x = shapes[s];
                    hr_problem p = {x[0], x[1], x[2], x[3], x[4], x[5], causal, 0};
                    int block = (int)(s + ti) % 3 == 0 ? 0 : (int)(s + ti) % 3 == 1 ? 5 : 64;
                    hr_dist dist = (hr_dist)((s + ti + causal) % 3);
                    double rel = NAN;
                    int v = run_case(&p, (hr_layout)lay, dist, threads[ti], block, &rel);
                    n++;
                    if (v != HR_CHECK_PASS) {
                        fails++;
                        CHECKF(0, "B%d H%d/%d Nq%d Nkv%d d%d causal %d %s T%d block %d %s: "
                                  "verdict %d max_rel %g",
                               x[0], x[1], x[2], x[3], x[4], x[5], causal, hr_layout_names[lay],
                               threads[ti], block, hr_dist_names[dist], v, rel);
                    }
                }
    CHECK(n == 9 * 2 * 2 * 4 && fails == 0);
}

/* The default key block: 64 for an fp32 cache, but once K + V stream from DRAM (past the
 * machine's L3) with R <= 4 rows per group, at the avx512 level 8 KiB of K rows (16 keys
 * at d 128, 32 at d 64, 8 to 64 keys) where the steps prefetch into L2, 64 KiB (8 to 256
 * keys) where they prefetch into L1 (HEADROOM_DECODE_PF=l1, an AMD family 1Ah CPU's default), at the
 * avx2 level 64 KiB but at most 128 keys, at generic 64; 256 for typed caches, but for
 * the int8 step: q4_0 512 at any level (its path says vpdpbusd or vpmaddubsw), q8_0 at
 * the avx512 level 256 in tiles (128 in rows); 64 when the L3 is unknown (the unit
 * tests' machine). Each case under both prefetch hints. */
/* A streamed fp32 cache's expected block at this level: l2 / l1 at the avx512 level with
 * the prefetches into L2 / L1 (hint 2 / 1), avx2 at the avx2 level, 64 at generic. */
static int streamed_block(int l2, int l1, int avx2, int hint)
{
    return !strcmp(hr_isa, "avx512") ? (hint == 1 ? l1 : l2) : !strcmp(hr_isa, "avx2") ? avx2 : 64;
}

HR_TEST(decode_default_block_follows_the_cache)
{
    const hr_kernel *k = decode();
    CHECK(k != NULL);
    if (!k) return;
    const hr_machine zen4 = {32768, 1 << 20, 0, (size_t)32 << 20}, unknown = {0};
    /* eight L3 instances of 32 MiB, 8 CPUs each */
    const hr_machine ccds = {32768, 1 << 20, 0, (size_t)32 << 20, 8, 8};
    static const struct {
        int hq, hkv, nq, nkv, d;
        hr_dtype kv;
        int l2, l1, avx2, unknown; /* streamed f32: avx512 into L2, into L1; avx2 */
    } cases[] = {
        {32, 8, 1, 16384, 128, HR_F32, 16, 128, 128, 64},  /* 128 MiB, R 4: streamed      */
        {32, 8, 1, 4096, 128, HR_F32, 64, 64, 64, 64},     /* 32 MiB: not past the L3     */
        {32, 8, 1, 65536, 64, HR_F32, 32, 256, 128, 64},   /* d 64: 32 keys are 8 KiB     */
        {8, 8, 4, 65536, 64, HR_F32, 32, 256, 128, 64},    /* R = 4 (Nq 4, MHA)           */
        {32, 8, 4, 65536, 64, HR_F32, 64, 64, 64, 64},     /* R = 16: compute-bound, kept */
        {32, 8, 1, 8192, 256, HR_F32, 8, 64, 64, 64},      /* d 256: 64 KiB is 64 keys     */
        {32, 8, 1, 16384, 128, HR_Q8_0, 256, 256, 256, 256}, /* int8 step at avx512: 256 (tiles) */
        {32, 8, 1, 16384, 128, HR_Q4_0, 256, 256, 256, 256}, /* there: 512            */
        {32, 8, 1, 16384, 512, HR_F32, 8, 32, 32, 64},     /* at least 8 keys             */
        {32, 8, 1, 4096, 4096, HR_F32, 8, 8, 8, 64},       /* 16 KiB rows: still 8        */
    };
    const char *pf = getenv("HEADROOM_DECODE_PF");
    char *saved = pf ? strdup(pf) : NULL;
    for (int hint = 1; hint <= 2; hint++) {
        setenv("HEADROOM_DECODE_PF", hint == 1 ? "l1" : "l2", 1);
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            hr_problem p = {1, cases[i].hq, cases[i].hkv, cases[i].nq, cases[i].nkv, cases[i].d, false, 0};
            p.kv_dtype = cases[i].kv;
            hr_tune a = {0}, b = {0};
            k->resolve(&p, &zen4, &a);
            k->resolve(&p, &unknown, &b);
            const int i8 =
                (p.kv_dtype == HR_Q4_0 && (strstr(k->path(&p), "vpdpbusd") || strstr(k->path(&p), "vpmaddubsw"))) ||
                (p.kv_dtype == HR_Q8_0 && !strcmp(hr_isa, "avx512") && strstr(k->path(&p), "vpdpbusd"));
            const int i8kb = p.kv_dtype == HR_Q4_0 ? 512 : hr_kernel_kv_tile(k, &p, NULL) ? 256 : 128;
            const int known = i8                       ? i8kb
                              : p.kv_dtype != HR_F32 ? cases[i].l2
                                                     : streamed_block(cases[i].l2, cases[i].l1, cases[i].avx2, hint);
            const int unk = i8 ? i8kb : cases[i].unknown;
            CHECKF(a.block_kv == known && b.block_kv == unk,
                   "case %zu (%s, prefetch into %s): block_kv %d (L3 32 MiB) %d (unknown), expected %d %d", i,
                   hr_isa, hint == 1 ? "L1" : "L2", a.block_kv, b.block_kv, known, unk);
        }
        /* Over ccds 16 threads reach 64 MiB, so a 48 MiB cache (L6144) is in their L3 and
         * keeps 64 keys; 8 threads reach 32 MiB and stream it, as case 0 at d 128. */
        hr_problem pc = {1, 32, 8, 1, 6144, 128, false, 0};
        hr_tune t16 = {.threads = 16}, t8 = {.threads = 8};
        k->resolve(&pc, &ccds, &t16);
        k->resolve(&pc, &ccds, &t8);
        const int dram = streamed_block(cases[0].l2, cases[0].l1, cases[0].avx2, hint);
        CHECKF(t16.block_kv == 64 && t8.block_kv == dram,
               "%s: 48 MiB over 8 L3s of 32 MiB: block_kv %d at T16, %d at T8", hr_isa, t16.block_kv,
               t8.block_kv);
    }
    if (saved) setenv("HEADROOM_DECODE_PF", saved, 1);
    else unsetenv("HEADROOM_DECODE_PF");
    free(saved);
    CHECK(hr_machine_l3_reach(&ccds, 1) == 32.0 * 1048576 && hr_machine_l3_reach(&ccds, 9) == 64.0 * 1048576 &&
          hr_machine_l3_reach(&ccds, 1000) == 256.0 * 1048576 && hr_machine_l3_reach(&zen4, 2) == 32.0 * 1048576 &&
          hr_machine_l3_reach(&unknown, 4) == 0);
    hr_problem p = {1, 32, 8, 1, 16384, 128, false, 0};
    hr_tune held = {.block_kv = 48};
    k->resolve(&p, &zen4, &held);
    CHECK(held.block_kv == 48); /* a block the user set stays */
}

/* A typed cache's default block: 256, but on an Intel CPU at the avx512 level, once K + V
 * are past the threads' L2s (decode_tune.c typed_block), f16 and bf16 on the conversion
 * step (a path without vdpbf16ps) take 32 KiB of K rows: 128 keys at d 128, 64 at d 256,
 * d 96 160 (170 to a multiple of 16), d 64 keeps 256; q8_0 read in tiles by the int8
 * step takes its 256 keys' 34 KiB at d 128: 128 at d 256, 256 at d 64. bf16 forced onto
 * the vdpbf16ps step keeps 256, and so does an unknown L2 (the unit tests' machine). */
HR_TEST(decode_typed_block_follows_the_cpu)
{
    const hr_kernel *k = decode();
    CHECK(k != NULL);
    if (!k) return;
    const hr_machine spr = {49152, 2 << 20, 0, (size_t)480 << 20}, unknown = {0};
    static const struct {
        int nq, nkv, d;
        hr_dtype kv;
        int t1, t2; /* the block where the rule applies, at one / two threads */
    } cases[] = {
        {1, 16384, 128, HR_F16, 128, 128}, /* 64 MiB: past the L2s               */
        {1, 16384, 128, HR_BF16, 128, 128},
        {1, 4096, 256, HR_F16, 64, 64},    /* d 256: 32 KiB is 64 keys           */
        {1, 4096, 96, HR_F16, 160, 160},   /* d 96: 170 keys, 160                */
        {1, 16384, 64, HR_F16, 256, 256},  /* d 64: 256 keys are 32 KiB          */
        {1, 256, 128, HR_F16, 256, 256},   /* 1 MiB: in one L2                   */
        {1, 1024, 128, HR_BF16, 128, 256}, /* 4 MiB: past one L2, not past two   */
        {4, 16384, 128, HR_F16, 128, 128}, /* R = 16 too                         */
        {1, 16384, 256, HR_Q8_0, 128, 128}, /* q8_0 tiles: 34 KiB is 128 keys    */
        {1, 16384, 128, HR_Q8_0, 256, 256}, /* its d 128 default                  */
        {1, 65536, 64, HR_Q8_0, 256, 256},  /* 512 keys' bytes, at most 256       */
        {1, 512, 256, HR_Q8_0, 128, 256},   /* 2.1 MiB: past one L2, not past two */
    };
    for (int forced = 0; forced <= 1; forced++) {
        if (!forced) decode_path_env(NULL);
        else if (!bf16dot_forced()) continue;
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            for (int T = 1; T <= 2; T++) {
                hr_problem p = {1, 32, 8, cases[i].nq, cases[i].nkv, cases[i].d, false, 0};
                p.kv_dtype = cases[i].kv;
                if (forced && p.kv_dtype != HR_BF16) continue;
                const char *path = hr_kernel_path(k, &p);
                const int q8 = p.kv_dtype == HR_Q8_0, avx512 = !strcmp(hr_isa, "avx512");
                /* q8_0: the int8 step in tiles (else 128 keys a block in rows, 256 converting) */
                const int i8 = q8 && avx512 && strstr(path, "vpdpbusd"), tiles = i8 && hr_kernel_kv_tile(k, &p, NULL);
                const int rule = avx512 && hr_cpu_intel() && (q8 ? tiles : !strstr(path, "vdpbf16ps"));
                const int dflt = i8 && !tiles ? 128 : 256;
                hr_tune a = {.threads = T}, b = {.threads = T};
                k->resolve(&p, &spr, &a);
                k->resolve(&p, &unknown, &b);
                const int want = rule ? (T == 1 ? cases[i].t1 : cases[i].t2) : dflt;
                CHECKF(a.block_kv == want && b.block_kv == dflt,
                       "case %zu %s T%d (%s%s): block_kv %d (L2 2 MiB) %d (unknown), expected %d %d", i,
                       hr_dtype_names[p.kv_dtype], T, hr_isa, forced ? ", bf16dot" : "", a.block_kv, b.block_kv,
                       want, dflt);
            }
    }
    decode_path_env(NULL);
}

/* Causal with Nq > Nkv: the first Nq - Nkv rows see no key and must be exactly 0. */
HR_TEST(decode_rows_without_keys_are_zero)
{
    const hr_kernel *k = decode();
    hr_problem p = {1, 2, 1, 6, 2, 8, true, 0};
    hr_tensors ts;
    CHECK(hr_tensors_alloc(&ts, &p, HR_LAYOUT_BHND, HR_DIST_NORMAL, 5) == HR_OK);
    for (int T = 1; T <= 4; T++) {
        hr_tune t = hr_kernel_tune(k, &p, &(hr_tune){0, 0, T});
        void *ws = hr_alloc(k->workspace_bytes(&p, &t));
        for (int h = 0; h < 2; h++)
            for (int i = 0; i < 6; i++)
                for (int x = 0; x < 8; x++) hr_row(ts.args.o, 0, h, i)[x] = 7.0f;
        k->run(&p, &t, &ts.args, ws);
        int nonzero = 0;
        for (int h = 0; h < 2; h++)
            for (int i = 0; i < 4; i++)
                for (int x = 0; x < 8; x++) nonzero += hr_row(ts.args.o, 0, h, i)[x] != 0.0f;
        CHECKF(nonzero == 0, "T%d: %d nonzero values in rows without keys", T, nonzero);
        CHECK(hr_oracle_check(&p, &ts.args, 0).verdict == HR_CHECK_PASS);
        free(ws);
    }
    hr_tensors_free(&ts);
}

/* The workspace is O(threads x Hq x Nq x d) (a query block and three states per KV
 * head, for the interleaved BNHD path): it does not grow with the cache. */
HR_TEST(decode_workspace_independent_of_cache)
{
    const hr_kernel *k = decode();
    hr_problem a = {1, 32, 8, 1, 1024, 128, false, 0}, b = a;
    b.seq_kv = 131072;
    hr_tune t = hr_kernel_tune(k, &a, &(hr_tune){0, 0, 2});
    CHECK(k->workspace_bytes(&a, &t) == k->workspace_bytes(&b, &t));
    CHECK(k->workspace_bytes(&a, &t) < 2 * 4 * 32 * 1 * (128 + 16) * sizeof(float)); /* 2 threads, 4 per head */
    hr_tune t4 = t;
    t4.threads = 4;
    CHECK(k->workspace_bytes(&a, &t4) == 2 * k->workspace_bytes(&a, &t));
}

/* Splitting the cache across threads changes only rounding: 1 vs 4 threads agree
 * closely, and a call is deterministic for a fixed thread count. */
HR_TEST(decode_split_agrees_with_single_thread)
{
    const hr_kernel *k = decode();
    hr_problem p = {1, 8, 2, 2, 3000, 64, true, 0};
    hr_tensors ts;
    CHECK(hr_tensors_alloc(&ts, &p, HR_LAYOUT_BHND, HR_DIST_NORMAL, 9) == HR_OK);
    size_t n = (size_t)p.batch * p.heads * p.seq_q * p.d_head;
    float *o1 = malloc(n * sizeof *o1), *o4 = malloc(n * sizeof *o4);
    for (int pass = 0; pass < 3; pass++) {
        int T = pass == 0 ? 1 : 4;
        hr_tune t = hr_kernel_tune(k, &p, &(hr_tune){0, 0, T});
        void *ws = hr_alloc(k->workspace_bytes(&p, &t));
        k->run(&p, &t, &ts.args, ws);
        if (pass == 0) memcpy(o1, ts.args.o.p, n * sizeof *o1);
        else if (pass == 1) memcpy(o4, ts.args.o.p, n * sizeof *o4);
        else CHECK(memcmp(o4, ts.args.o.p, n * sizeof *o4) == 0);
        free(ws);
    }
    double maxd = 0;
    for (size_t i = 0; i < n; i++) maxd = fmax(maxd, fabs((double)o1[i] - o4[i]));
    CHECKF(maxd < 1e-5, "1 vs 4 threads differ by %g", maxd);
    free(o1);
    free(o4);
    hr_tensors_free(&ts);
}

HR_TEST(decode_loop_steps_ranges_and_check)
{
    hr_decode_spec s = {.kernel = decode(), .batch = 1, .heads = 4, .kv_heads = 2, .d_head = 16,
                        .layers = 2, .prompt = 5, .tokens = 7, .tune = {0, 0, 1}, .seed = 3,
                        .check = true};
    hr_decode_result r;
    CHECK(hr_decode_loop(&s, &r) == HR_OK);
    CHECK(r.tune.threads == 1 && r.checked && r.check.verdict == HR_CHECK_PASS);
    CHECK(r.cache_bytes == 2.0 * 2 * 1 * 2 * 16 * 12 * 4);
    double sum = 0;
    for (int i = 0; i < s.tokens; i++) {
        CHECK(r.step[i] > 0 && r.attn[i] > 0 && r.attn[i] <= r.step[i]);
        /* the cache grows by a token per step: the kernel reads more every step */
        if (i) CHECK(r.bytes[i] > r.bytes[i - 1]);
        sum += r.step[i];
    }
    CHECK_NEAR(r.seconds, sum, 1e-12);
    hr_decode_range rows[3];
    hr_decode_ranges(&r, 3, rows);
    CHECK(rows[0].first == 0 && rows[0].len0 == 6 && rows[2].last == 6 && rows[2].len1 == 12);
    for (int i = 1; i < 3; i++) CHECK(rows[i].first == rows[i - 1].last + 1);
    CHECK(rows[1].step_min <= rows[1].step_med && rows[1].tokens_per_s > 0 && rows[1].kv_gbps > 0);
    hr_decode_free(&r);
    CHECK(r.step == NULL);
}

HR_TEST(decode_loop_refuses_bad_specs)
{
    hr_decode_spec s = {.kernel = decode(), .batch = 1, .heads = 4, .kv_heads = 2, .d_head = 16,
                        .layers = 1, .prompt = HR_MAX_SEQ - 1, .tokens = 2};
    hr_decode_result r;
    CHECK(hr_decode_loop(&s, &r) == HR_EUSAGE && strstr(hr_errmsg(), "--tokens") && !r.step);
    s.prompt = 8;
    s.kv_heads = 3;
    CHECK(hr_decode_loop(&s, &r) == HR_EUSAGE && strstr(hr_errmsg(), "--kv-heads"));
    s.kv_heads = 2;
    s.max_mem = 1024;
    CHECK(hr_decode_loop(&s, &r) == HR_EUSAGE && strstr(hr_errmsg(), "--max-mem"));
}
