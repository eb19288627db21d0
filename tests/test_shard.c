/* test_shard.c — shards of a sweep: K/N parsing, Slurm's array variables, the greedy LPT
 * split (every point once, balanced, ties by index), the cost estimate's monotonicity. */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "sweep_points.h"
#include "sweep_shard.h"
#include "t.h"

HR_TEST(shard_parse)
{
    hr_shard s;
    CHECK(hr_shard_parse("2/5", &s) == HR_OK && s.k == 2 && s.n == 5);
    CHECK(hr_shard_parse("1/1", &s) == HR_OK && s.k == 1 && s.n == 1);
    const char *bad[] = {"0/2", "3/2", "0/0", "1/0", "a/b", "1/", "/2", "2", "", "-1/2", "1/2/3", " 1/2", "1/4097",
                         "1/99999999999", "1.0/2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECKF(hr_shard_parse(bad[i], &s) == HR_EUSAGE && strstr(hr_errmsg(), "--shard"), "'%s' accepted", bad[i]);
}

HR_TEST(shard_slurm_env)
{
    hr_shard s;
    unsetenv("SLURM_ARRAY_TASK_ID");
    CHECK(hr_shard_slurm(&s) == HR_EUSAGE && strstr(hr_errmsg(), "SLURM_ARRAY_TASK_ID"));
    setenv("SLURM_ARRAY_TASK_ID", "12", 1);
    setenv("SLURM_ARRAY_TASK_MIN", "10", 1);
    setenv("SLURM_ARRAY_TASK_MAX", "13", 1);
    unsetenv("SLURM_ARRAY_TASK_COUNT");
    CHECK(hr_shard_slurm(&s) == HR_OK && s.k == 3 && s.n == 4);
    setenv("SLURM_ARRAY_TASK_COUNT", "4", 1);
    CHECK(hr_shard_slurm(&s) == HR_OK && s.k == 3 && s.n == 4);
    setenv("SLURM_ARRAY_TASK_COUNT", "2", 1); /* --array=10-13:3 */
    CHECK(hr_shard_slurm(&s) == HR_EUSAGE && strstr(hr_errmsg(), "contiguous"));
    unsetenv("SLURM_ARRAY_TASK_MAX");
    setenv("SLURM_ARRAY_TASK_COUNT", "2", 1);
    CHECK(hr_shard_slurm(&s) == HR_EUSAGE && strstr(hr_errmsg(), "outside")); /* 12 not in 10..11 */
    setenv("SLURM_ARRAY_TASK_ID", "x", 1);
    CHECK(hr_shard_slurm(&s) == HR_EUSAGE);
    unsetenv("SLURM_ARRAY_TASK_ID");
    unsetenv("SLURM_ARRAY_TASK_MIN");
    unsetenv("SLURM_ARRAY_TASK_COUNT");
}

HR_TEST(shard_lpt_split)
{
    /* LPT over 2 shards, sorted 7 5 4 3 3 2: 7->1, 5->2, 4->2, 3->1, 3->2, 2->1: loads 12 and 12 */
    const double cost[] = {3, 7, 2, 5, 3, 4};
    int owner[6];
    CHECK(hr_shard_assign(cost, 6, 2, owner) == HR_OK);
    double load[3] = {0};
    for (int i = 0; i < 6; i++) {
        CHECK(owner[i] >= 1 && owner[i] <= 2);
        load[owner[i]] += cost[i];
    }
    CHECK(load[1] == 12 && load[2] == 12); /* 7,3,2 | 5,4,3 */
    CHECK(owner[1] == 1 && owner[3] == 2); /* most expensive first, ties to the lowest shard */
    /* Ties by index: equal costs deal out in index order. */
    const double flat[] = {1, 1, 1, 1, 1};
    int o[5];
    CHECK(hr_shard_assign(flat, 5, 3, o) == HR_OK);
    CHECK(o[0] == 1 && o[1] == 2 && o[2] == 3 && o[3] == 1 && o[4] == 2);
    /* More shards than points: each point somewhere, the rest empty. */
    CHECK(hr_shard_assign(flat, 2, 4, o) == HR_OK && o[0] == 1 && o[1] == 2);
}

HR_TEST(shard_cost_follows_counts)
{
    static hr_sweep_config c;
    CHECK(hr_config_parse("[sweep]\nkernels = flash\nheads = 4\nd_head = 64\nseq = 64, 4096\nthreads = 1, 2\n",
                          "configs/t.ini", &c) == HR_OK);
    hr_sweep_point *p;
    int n, ndup;
    c.wisdom = false;
    CHECK(hr_sweep_expand(&c, NULL, 0, &p, &n, &ndup) == HR_OK && n == 4);
    if (n != 4) return;
    /* order: seq outer, threads inner: N64 T1, N64 T2, N4096 T1, N4096 T2 */
    const double small = hr_shard_cost(&p[0], 5, 0.01, 0), big1 = hr_shard_cost(&p[2], 5, 0.01, 0),
                 big2 = hr_shard_cost(&p[3], 5, 0.01, 0);
    CHECK_NEAR(small, 0.05, 1e-12); /* min_time-bound */
    CHECK(big1 > small && big2 < big1 && big2 > small);
    strcpy(p[2].skip, "not applicable");
    CHECK(hr_shard_cost(&p[2], 5, 0.01, 0) == 0);
    free(p);
}
