/* test_ragged.c — ragged decode batches: every sequence against the oracle (fused and
 * serial), the seeded distributions, the cost order and the bad-input rules. */
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
            for (int sc = 0; sc < 2; sc++) {
                int v = hr_ragged_check(k, &r, &base, &t, 7, (hr_ragged_schedule)sc, &bad);
                CHECKF(v == HR_CHECK_PASS || v == HR_CHECK_WARN, "kv %s T%d %s: sequence %d verdict %d",
                       hr_dtype_names[kv[i]], th, hr_ragged_schedule_names[sc], bad, v);
            }
        }
}

/* Fused: many short caches and a few long ones, more threads than some sequences have
 * keys, query rows that make the costs uneven, odd heads (H6/3) and d 96; bf16 Q/O. */
HR_TEST(ragged_fused_odd_shapes)
{
    const hr_kernel *k = hr_kernel_find("decode");
    static hr_ragged r;
    char err[160];
    CHECK(hr_ragged_parse(&r, 9, "1,2,3,16,17,31,33,900,2500", "1,2,1,5,1,7,2,1,3", err, sizeof err) == 0);
    const hr_dtype kv[] = {HR_F32, HR_BF16, HR_Q8_0};
    const hr_dtype qo[] = {HR_F32, HR_BF16};
    for (size_t i = 0; i < 3; i++)
        for (size_t q = 0; q < 2; q++)
            for (int th = 1; th <= 5; th++) {
                const hr_problem base = {1, 6, 3, 1, 1, 96, true, 0, qo[q], kv[i]};
                hr_tune t = {0};
                t.threads = th;
                int bad, v = hr_ragged_check(k, &r, &base, &t, 3, HR_RAGGED_FUSED, &bad);
                CHECKF(v == HR_CHECK_PASS || v == HR_CHECK_WARN, "q %s kv %s T%d: sequence %d verdict %d",
                       hr_dtype_names[qo[q]], hr_dtype_names[kv[i]], th, bad, v);
            }
    /* fused runs decode only */
    hr_tune t = {0};
    int bad;
    const hr_problem base = {1, 6, 3, 1, 1, 96, true, 0, HR_F32, HR_F32};
    CHECK(hr_ragged_check(hr_kernel_find("flash"), &r, &base, &t, 3, HR_RAGGED_FUSED, &bad) == -1);
    CHECK(hr_ragged_why_not(hr_kernel_find("flash"), HR_RAGGED_FUSED) != NULL);
    CHECK(hr_ragged_why_not(hr_kernel_find("flash"), HR_RAGGED_SERIAL) == NULL);
}

HR_TEST(ragged_draw_deterministic)
{
    static hr_ragged a, b, c;
    char err[160];
    for (int d = 0; d < 3; d++) {
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
    /* chat: lognormal, median about 345 tokens of context, clamped to the bounds */
    CHECK(hr_ragged_draw(&a, 1000, HR_RAGGED_CHAT, 1, 1 << 20, 1, 3, err, sizeof err) == 0);
    shorter = 0;
    for (int i = 0; i < 1000; i++) shorter += a.len[i] < 345;
    CHECK(shorter > 430 && shorter < 570);
    CHECK(hr_ragged_draw(&a, 200, HR_RAGGED_CHAT, 300, 400, 1, 3, err, sizeof err) == 0);
    for (int i = 0; i < 200; i++) CHECK(a.len[i] >= 300 && a.len[i] <= 400);
    hr_rng g;
    hr_rng_seed(&g, 5);
    int o = 0;
    for (int i = 0; i < 1000; i++) o += hr_ragged_out_len(&g, 1, 1 << 20) < 130;
    CHECK(o > 430 && o < 570);
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
    CHECK(hr_ragged_dist_of("chat") == HR_RAGGED_CHAT);
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
    CHECK(hr_ragged_run(k, &r, &base, &t, 3, HR_RAGGED_SERIAL, &tm) == 0);
    for (int i = 0; i < 3; i++) CHECK(tm.seq_seconds[i] > 0);
    CHECK(tm.seconds > 0);
    CHECK(tm.bytes > 2.0 * 318 * 2 * 32); /* at least K and V of every key, one byte each */
    const double serial_bytes = tm.bytes;
    CHECK(hr_ragged_run(k, &r, &base, &t, 3, HR_RAGGED_FUSED, &tm) == 0);
    CHECK(tm.seconds > 0 && tm.bytes == serial_bytes && tm.seq_seconds[0] == 0);
    CHECK(hr_ragged_run(hr_kernel_find("flash"), &r, &base, &t, 1, HR_RAGGED_FUSED, &tm) == HR_EUSAGE);
}
