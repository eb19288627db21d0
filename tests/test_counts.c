/* test_counts.c — FLOPs, visible pairs and bytes of the attention core, KV-cache bytes. */
#include "counts.h"
#include "t.h"

HR_TEST(counts_flops_and_bytes)
{
    hr_problem p = {2, 8, 2, 128, 128, 64, false, 0};
    CHECK(hr_core_flops(&p) == 4.0 * 2 * 8 * 128 * 128 * 64);
    /* Causal square: N(N+1)/2 visible pairs. */
    p.causal = true;
    CHECK(hr_visible_pairs(&p) == 128.0 * 129 / 2);
    /* Nq = 2, Nkv = 5 causal: rows see 4 and 5 keys. Nq = 5, Nkv = 2: 0,0,0,1,2. */
    hr_problem d = {1, 1, 1, 2, 5, 1, true, 0}, e = {1, 1, 1, 5, 2, 1, true, 0};
    CHECK(hr_visible_pairs(&d) == 9 && hr_visible_pairs(&e) == 3);
    CHECK(hr_min_bytes(&p) == 4.0 * (2 * 2 * 8 * 128 * 64 + 2 * 2 * 2 * 128 * 64));
    /* GPT-3 175B, 4096 tokens, fp16: 2·96·96·128·4096·2 bytes = 18 GiB. */
    CHECK(hr_kv_cache_bytes(96, 1, 96, 128, 4096, 2) == 19327352832.0);
}
