/* test_kvcache.c — KV-cache bytes (worked examples) and the KV cache structure: appends,
 * views, errors, decode on its views. */
#include <stdlib.h>
#include <string.h>

#include "counts.h"
#include "inputs.h"
#include "kvcache.h"
#include "oracle.h"
#include "t.h"

#define GiB 1073741824.0

/* Worked by hand: 2 * layers * B * Hkv * d * L * bytes. */
HR_TEST(kv_bytes_worked_examples)
{
    /* GPT-3 175B, 4096 tokens fp16: 2*96*96*128*4096*2 = 19,327,352,832 B = 18 GiB. */
    CHECK(hr_kv_cache_bytes(96, 1, 96, 128, 4096, 2) == 19327352832.0);
    CHECK(hr_kv_cache_bytes(96, 1, 96, 128, 4096, 2) == 18 * GiB);
    /* Llama-2-7B (MHA, 32 layers, 32 heads, d 128), 4096 fp16: 2 GiB. */
    CHECK(hr_kv_cache_bytes(32, 1, 32, 128, 4096, 2) == 2 * GiB);
    /* Llama-3-8B (GQA 32/8), 8192 fp16: 1 GiB; the MHA equivalent is 4x that. */
    CHECK(hr_kv_cache_bytes(32, 1, 8, 128, 8192, 2) == 1 * GiB);
    CHECK(hr_kv_cache_bytes(32, 1, 32, 128, 8192, 2) == 4 * GiB);
    /* Linear in batch and precision; Falcon-7B MQA: 2*32*1*64*2048*2 = 16 MiB. */
    CHECK(hr_kv_cache_bytes(32, 8, 8, 128, 8192, 1) == 4 * GiB);
    CHECK(hr_kv_cache_bytes(32, 1, 1, 64, 2048, 2) == 16 * 1048576.0);
    /* No int overflow at the top end: Llama-3-70B, 128K tokens, batch 64, fp32. */
    CHECK(hr_kv_cache_bytes(80, 64, 8, 128, 131072, 4) == 2.0 * 80 * 64 * 8 * 128 * 131072 * 4);
}

/* Every stored type, scales included: Llama-3-8B (32 layers, GQA 8 KV heads, d 128) at
 * 8192 tokens is 2 GiB f32, 1 GiB f16/bf16, 544 MiB q8_0 (34/32 bytes per value: llama.cpp
 * prints "KV self size = 544.00 MiB" for -ctk q8_0 -ctv q8_0 -c 8192) and 288 MiB q4_0. */
HR_TEST(kv_bytes_of_every_type)
{
    CHECK(hr_kv_bytes_of(32, 1, 8, 128, 8192, HR_F32) == 2 * GiB);
    CHECK(hr_kv_bytes_of(32, 1, 8, 128, 8192, HR_F16) == 1 * GiB);
    CHECK(hr_kv_bytes_of(32, 1, 8, 128, 8192, HR_BF16) == 1 * GiB);
    CHECK(hr_kv_bytes_of(32, 1, 8, 128, 8192, HR_Q8_0) == 544 * 1048576.0);
    CHECK(hr_kv_bytes_of(32, 1, 8, 128, 8192, HR_Q4_0) == 288 * 1048576.0);
    /* the block formats store d_head in blocks of 32: none fits d 8 or d 80 */
    CHECK(hr_kv_bytes_of(4, 1, 2, 8, 1024, HR_Q8_0) == -1);
    CHECK(hr_kv_bytes_of(4, 1, 2, 80, 1024, HR_Q4_0) == -1);
    CHECK(hr_kv_bytes_of(4, 1, 2, 8, 1024, HR_F16) == 2.0 * 4 * 2 * 8 * 1024 * 2);
    /* q8_0 is the row bytes of hr_dtype_row_bytes, per token and head */
    CHECK(hr_kv_bytes_of(1, 1, 1, 64, 1, HR_Q8_0) == 2.0 * hr_dtype_row_bytes(HR_Q8_0, 64));
    CHECK(hr_kv_bytes_of(1, 1, 1, 64, 1, HR_NDTYPES) == -1);
}

/* Appends land at the right rows; views show the valid rows with head stride cap*d. */
HR_TEST(kvcache_append_and_views)
{
    const int L = 2, B = 2, G = 3, d = 5, cap = 7;
    hr_kvcache c;
    CHECK(hr_kvcache_init(&c, L, B, G, d, cap, 0) == HR_OK);
    CHECK(c.bytes == (size_t)(2 * L * B * G * cap * d) * sizeof(float));
    /* Rows [B][G][T][d] with value 1000*b + 100*g + 10*t + x (+0.5 for V). */
    float kin[2 * 3 * 3 * 5], vin[2 * 3 * 3 * 5];
    const int T = 3;
    for (int b = 0; b < B; b++)
        for (int g = 0; g < G; g++)
            for (int t = 0; t < T; t++)
                for (int x = 0; x < d; x++) {
                    int i = ((b * G + g) * T + t) * d + x;
                    kin[i] = (float)(1000 * b + 100 * g + 10 * t + x);
                    vin[i] = kin[i] + 0.5f;
                }
    hr_cview kv = {kin, G * T * d, T * d, d}, vv = {vin, G * T * d, T * d, d};
    CHECK(hr_kvcache_append(&c, 1, kv, vv, T) == HR_OK);
    CHECK(hr_kvcache_append(&c, 1, kv, vv, 2) == HR_OK); /* first 2 rows again */
    CHECK(c.length[0] == 0 && c.length[1] == 5);
    hr_cview k = hr_kvcache_k(&c, 1), v = hr_kvcache_v(&c, 1);
    CHECK(k.sn == d && k.sh == (ptrdiff_t)cap * d && k.sb == (ptrdiff_t)G * cap * d);
    int bad = 0;
    for (int b = 0; b < B; b++)
        for (int g = 0; g < G; g++)
            for (int n = 0; n < 5; n++)
                for (int x = 0; x < d; x++) {
                    int t = n < 3 ? n : n - 3;
                    float want = (float)(1000 * b + 100 * g + 10 * t + x);
                    bad += hr_crow(k, b, g, n)[x] != want || hr_crow(v, b, g, n)[x] != want + 0.5f;
                }
    CHECK(bad == 0);
    /* Layer 0 untouched; K and V of different layers do not overlap. */
    CHECK(hr_crow(hr_kvcache_k(&c, 0), 1, 2, 6)[4] == 0.0f);
    CHECK(hr_kvcache_v(&c, 0).p + (size_t)B * G * cap * d <= hr_kvcache_k(&c, 1).p);
    /* Capacity: 5 + 3 > 7 is refused and nothing changes. */
    CHECK(hr_kvcache_append(&c, 1, kv, vv, 3) == HR_EUSAGE);
    CHECK(strstr(hr_errmsg(), "no room") != NULL);
    CHECK(c.length[1] == 5);
    hr_view kn, vn;
    CHECK(hr_kvcache_extend(&c, 1, 2, &kn, &vn) == HR_OK);
    CHECK(c.length[1] == 7 && kn.p == hr_kvcache_k(&c, 1).p + 5 * d);
    CHECK(hr_kvcache_extend(&c, 1, 1, &kn, &vn) == HR_EUSAGE);
    CHECK(hr_kvcache_extend(&c, 2, 1, &kn, &vn) == HR_EUSAGE);
    CHECK(hr_kvcache_append(&c, 0, kv, vv, 0) == HR_EUSAGE);
    hr_kvcache_reset(&c);
    CHECK(c.length[1] == 0);
    hr_kvcache_free(&c);
}

HR_TEST(kvcache_init_errors)
{
    hr_kvcache c;
    CHECK(hr_kvcache_init(&c, 0, 1, 1, 8, 8, 0) == HR_EUSAGE);
    CHECK(strstr(hr_errmsg(), "--layers") != NULL);
    CHECK(hr_kvcache_init(&c, 1, 1, 1, 0, 8, 0) == HR_EUSAGE);
    CHECK(strstr(hr_errmsg(), "--d-head") != NULL);
    CHECK(hr_kvcache_init(&c, 1, 1, 1, 8, 0, 0) == HR_EUSAGE);
    /* Over budget: refused before allocating (4 GiB asked, 1 MiB allowed). */
    CHECK(hr_kvcache_init(&c, 32, 1, 8, 128, 131072, 1048576) == HR_EUSAGE);
    CHECK(strstr(hr_errmsg(), "memory budget") != NULL);
    CHECK(c.mem == NULL);
}

/* The cache's views feed the decode kernel in place (capacity > length) and agree with
 * the oracle, step after step as the cache grows. */
HR_TEST(kvcache_views_feed_decode)
{
    const hr_kernel *k = hr_kernel_find("decode");
    CHECK(k != NULL);
    if (!k) return;
    const int B = 2, H = 4, G = 2, d = 24, cap = 100;
    hr_kvcache c;
    CHECK(hr_kvcache_init(&c, 1, B, G, d, cap, 0) == HR_OK);
    hr_view kn, vn;
    CHECK(hr_kvcache_extend(&c, 0, 60, &kn, &vn) == HR_OK);
    hr_fill(kn, B, G, 60, d, HR_DIST_NORMAL, 3, 1);
    hr_fill(vn, B, G, 60, d, HR_DIST_NORMAL, 3, 2);
    float *q = hr_alloc(sizeof(float) * B * H * d), *o = hr_alloc(sizeof(float) * B * H * d);
    hr_view qv = hr_view_dense(q, HR_LAYOUT_BHND, B, H, 1, d);
    hr_fill(qv, B, H, 1, d, HR_DIST_NORMAL, 3, 0);
    hr_problem p = {B, H, G, 1, 60, d, true, 0};
    hr_tune t = hr_kernel_tune(k, &p, &(hr_tune){0, 16, 3});
    void *ws = hr_alloc(k->workspace_bytes(&p, &t));
    for (int step = 0; step < 3; step++) {
        if (step) {
            CHECK(hr_kvcache_extend(&c, 0, 7, &kn, &vn) == HR_OK);
            hr_fill(kn, B, G, 7, d, HR_DIST_NORMAL, 10 + step, 1);
            hr_fill(vn, B, G, 7, d, HR_DIST_NORMAL, 10 + step, 2);
        }
        p.seq_kv = c.length[0];
        hr_args a = {hr_cv(qv), hr_kvcache_k(&c, 0), hr_kvcache_v(&c, 0),
                     hr_view_dense(o, HR_LAYOUT_BHND, B, H, 1, d)};
        CHECK(k->run(&p, &t, &a, ws) == HR_OK);
        hr_check r = hr_oracle_check(&p, &a, 0);
        CHECKF(r.verdict == HR_CHECK_PASS, "step %d: max_rel %g", step, r.max_rel_err);
    }
    CHECK(p.seq_kv == 74);
    free(ws);
    free(q);
    free(o);
    hr_kvcache_free(&c);
}
