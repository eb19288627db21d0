/* test_decode_cont.c — continuous batching: every token made, the slots refilled, a
 * checked step, and the bad-input rules. */
#include <string.h>

#include "decode_cont.h"
#include "t.h"

static hr_cont_spec small(void)
{
    return (hr_cont_spec){.heads = 4, .kv_heads = 2, .d_head = 32, .threads = 3, .max_batch = 3, .requests = 7,
                          .arrival = 0, .dist = HR_RAGGED_CHAT, .len_min = 1, .len_max = 600, .out_min = 1,
                          .out_max = 40, .kv_dtype = HR_F32, .seed = 5, .check = true};
}

HR_TEST(cont_every_token_and_check)
{
    const hr_dtype kv[] = {HR_F32, HR_BF16, HR_Q8_0};
    for (size_t i = 0; i < 3; i++)
        for (int arrival = 0; arrival < 2; arrival++) {
            hr_cont_spec s = small();
            s.kv_dtype = kv[i];
            s.arrival = arrival ? 0.3 : 0;
            hr_cont_result r;
            CHECK(hr_decode_cont(&s, &r) == HR_OK);
            /* the same draws give the outputs: tokens are their sum, whatever the timing */
            hr_rng g;
            hr_rng_seed(&g, s.seed);
            long want = 0;
            int longest = 0;
            for (int q = 0; q < s.requests; q++) {
                if (s.arrival > 0) hr_rng_uniform(&g);
                hr_ragged_len(&g, s.dist, s.len_min, s.len_max);
                const int o = hr_ragged_out_len(&g, s.out_min, s.out_max);
                want += o;
                longest = o > longest ? o : longest;
            }
            CHECKF(r.tokens == want, "kv %s: %ld tokens, want %ld", hr_dtype_names[kv[i]], r.tokens, want);
            CHECK(r.steps >= longest && r.steps <= want);
            CHECK(r.occupancy > 0 && r.occupancy <= 1);
            CHECK(r.seq_tps_median > 0 && r.seq_tps_p90 >= r.seq_tps_median);
            CHECKF(r.checked && r.check_batch == 3 && r.check.verdict != HR_CHECK_FAIL, "kv %s: check %d",
                   hr_dtype_names[kv[i]], r.check.verdict);
        }
}

HR_TEST(cont_bad_input)
{
    hr_cont_result r;
    hr_cont_spec s = small();
    s.max_batch = 0;
    CHECK(hr_decode_cont(&s, &r) == HR_EUSAGE && strstr(hr_errmsg(), "--max-batch"));
    s = small();
    s.len_min = 50;
    s.len_max = 5;
    CHECK(hr_decode_cont(&s, &r) == HR_EUSAGE && strstr(hr_errmsg(), "--len-min"));
    s = small();
    s.out_min = 0;
    CHECK(hr_decode_cont(&s, &r) == HR_EUSAGE && strstr(hr_errmsg(), "--out-min"));
    s = small();
    s.arrival = -1;
    CHECK(hr_decode_cont(&s, &r) == HR_EUSAGE && strstr(hr_errmsg(), "--arrival"));
    s = small();
    s.requests = 0;
    CHECK(hr_decode_cont(&s, &r) == HR_EUSAGE && strstr(hr_errmsg(), "--requests"));
    s = small();
    s.max_mem = 1024;
    CHECK(hr_decode_cont(&s, &r) == HR_EUSAGE && strstr(hr_errmsg(), "--max-mem"));
}
