/* test_ragged.c — ragged decode batches: every sequence against the oracle, the seeded
 * distributions, the cost order and the bad-input rules. */
#include <string.h>

#include "ragged.h"
#include "t.h"

/* Odd lengths and rows, one long cache among short ones, B larger than the threads. */
HR_TEST(ragged_oracle_every_kv_type)
{
    const hr_kernel *k = hr_kernel_find("decode");
    CHECK(k != NULL);
    hr_ragged r;
    char err[160];
    CHECK(hr_ragged_parse(&r, 5, "1,37,4099,5,130", "1,3,8,2,1", err, sizeof err) == 0);
    const hr_dtype kv[] = {HR_F32, HR_F16, HR_BF16, HR_Q8_0, HR_Q4_0};
    for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++)
        for (int th = 1; th <= 3; th++) {
            const hr_problem base = {1, 8, 2, 1, 1, 64, true, 0, HR_F32, kv[i]};
            hr_tune t = {0};
            t.threads = th;
            int bad;
            int v = hr_ragged_check(k, &r, &base, &t, 7, &bad);
            CHECKF(v == HR_CHECK_PASS || v == HR_CHECK_WARN, "kv %s T%d: sequence %d verdict %d",
                   hr_dtype_names[kv[i]], th, bad, v);
        }
}

HR_TEST(ragged_draw_deterministic)
{
    static hr_ragged a, b, c;
    char err[160];
    for (int d = 0; d < 2; d++) {
        CHECK(hr_ragged_draw(&a, 32, (hr_ragged_dist)d, 128, 32768, 4, 11, err, sizeof err) == 0);
        CHECK(hr_ragged_draw(&b, 32, (hr_ragged_dist)d, 128, 32768, 4, 11, err, sizeof err) == 0);
        CHECK(hr_ragged_draw(&c, 32, (hr_ragged_dist)d, 128, 32768, 4, 12, err, sizeof err) == 0);
        CHECK(!memcmp(a.len, b.len, sizeof(int) * 32) && !memcmp(a.rows, b.rows, sizeof(int) * 32));
        CHECK(memcmp(a.len, c.len, sizeof(int) * 32) != 0);
        for (int i = 0; i < 32; i++)
            CHECK(a.len[i] >= 128 && a.len[i] <= 32768 && a.rows[i] >= 1 && a.rows[i] <= 4);
    }
    /* zipf: more short caches than long ones (median well under the midpoint) */
    int shorter = 0;
    CHECK(hr_ragged_draw(&a, 1000, HR_RAGGED_ZIPF, 128, 32768, 1, 3, err, sizeof err) == 0);
    for (int i = 0; i < 1000; i++) shorter += a.len[i] < 2048;
    CHECK(shorter > 400 && shorter < 600);
}

HR_TEST(ragged_order_by_cost)
{
    hr_ragged r;
    char err[160];
    int o[4];
    CHECK(hr_ragged_parse(&r, 4, "100,4000,100,50", "1,1,8,1", err, sizeof err) == 0);
    hr_ragged_order(&r, o);
    CHECK(o[0] == 1 && o[1] == 2 && o[2] == 0 && o[3] == 3);
}

HR_TEST(ragged_bad_input)
{
    static hr_ragged r;
    char err[160];
    CHECK(hr_ragged_parse(&r, 3, "1,0,5", NULL, err, sizeof err) < 0 && strstr(err, "--lens") && strstr(err, "positive"));
    CHECK(hr_ragged_parse(&r, 3, "1,-4,5", NULL, err, sizeof err) < 0 && strstr(err, "entry 2"));
    CHECK(hr_ragged_parse(&r, 3, "1,x,5", NULL, err, sizeof err) < 0 && strstr(err, "--lens"));
    CHECK(hr_ragged_parse(&r, 3, "1,,5", NULL, err, sizeof err) < 0 && strstr(err, "--lens"));
    CHECK(hr_ragged_parse(&r, 3, "1,5", NULL, err, sizeof err) < 0 && strstr(err, "batch of 3"));
    CHECK(hr_ragged_parse(&r, 2, "8,5", "1,2,3", err, sizeof err) < 0 && strstr(err, "--rows"));
    CHECK(hr_ragged_parse(&r, 2, "8,5", "1,6", err, sizeof err) < 0 && strstr(err, "exceeds"));
    CHECK(hr_ragged_parse(&r, 2, "8,5", "2", err, sizeof err) == 0 && r.rows[1] == 2);
    CHECK(hr_ragged_draw(&r, 4, HR_RAGGED_ZIPF, 0, 10, 1, 1, err, sizeof err) < 0 && strstr(err, "--len-min"));
    CHECK(hr_ragged_draw(&r, 4, HR_RAGGED_ZIPF, 20, 10, 1, 1, err, sizeof err) < 0 && strstr(err, "--len-min"));
    CHECK(hr_ragged_draw(&r, 4, HR_RAGGED_UNIFORM, 16, 100, 9, 1, err, sizeof err) < 0 && strstr(err, "--rows-max"));
    CHECK(hr_ragged_draw(&r, 0, HR_RAGGED_UNIFORM, 16, 100, 1, 1, err, sizeof err) < 0 && strstr(err, "--batch"));
    CHECK(hr_ragged_dist_of("zipf") == HR_RAGGED_ZIPF && hr_ragged_dist_of("pareto") < 0);
}

HR_TEST(ragged_run_times_every_sequence)
{
    const hr_kernel *k = hr_kernel_find("decode");
    static hr_ragged r;
    static hr_ragged_time tm;
    char err[160];
    CHECK(hr_ragged_parse(&r, 3, "17,300,1", "2,1,1", err, sizeof err) == 0);
    const hr_problem base = {1, 4, 2, 1, 1, 32, true, 0, HR_F32, HR_Q8_0};
    hr_tune t = {0};
    t.threads = 2;
    CHECK(hr_ragged_run(k, &r, &base, &t, 3, &tm) == 0);
    double sum = 0;
    for (int i = 0; i < 3; i++) {
        CHECK(tm.seq_seconds[i] > 0);
        sum += tm.seq_seconds[i];
    }
    CHECK(tm.seconds > 0 && sum <= tm.seconds * 1.0001);
    CHECK(tm.bytes > 2.0 * 318 * 2 * 32); /* at least K and V of every key, one byte each */
}
