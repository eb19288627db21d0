/* test_battery.c — every registered kernel against the oracle battery (hr_battery): the
 * quick battery, odd block sizes, and N = 16384 under make test-long. */
#include "check.h"
#include "isa.h"
#include "t.h"

/* Every registered kernel passes the quick battery (the per-kernel report is
 * `headroom check`; this keeps make test honest about it), on every ISA level of the
 * binary this CPU runs (the portable build has three; isa.h). */
HR_TEST(every_kernel_passes_quick_battery)
{
    static hr_case cases[HR_MAX_CASES];
    int n = hr_battery(cases, HR_MAX_CASES, true);
    CHECK(n > 100);
    const char *was = hr_isa;
    for (int l = 0; l < hr_isa_count(); l++) {
        if (hr_isa_lacks(hr_isa_at(l))) continue;
        CHECK(hr_isa_select(hr_isa_at(l)->name) == HR_OK);
        for (int i = 0; hr_kernels[i]; i++)
            for (int c = 0; c < n; c++) {
                hr_check res;
                char line[512];
                int v = hr_check_case(hr_kernels[i], &cases[c], NULL, 1, &res, line, sizeof line);
                CHECKF(v != HR_CHECK_FAIL, "[%s] %s", hr_isa, line);
            }
    }
    CHECK(hr_isa_select(was) == HR_OK);
}

/* Tunables are not allowed to change the answer: every kernel that reads block sizes
 * passes odd ones (not multiples of the vector width, 1, larger than N) on a spread of
 * the quick battery (flash once lost keys at block_kv = 8 and 24; tune caught it). */
HR_TEST(every_kernel_passes_with_odd_block_sizes)
{
    static hr_case cases[HR_MAX_CASES];
    int n = hr_battery(cases, HR_MAX_CASES, true);
    static const int bq[] = {1, 5, 13, 300}, bkv[] = {1, 7, 8, 24, 33, 1000};
    for (int i = 0; hr_kernels[i]; i++) {
        const hr_kernel *k = hr_kernels[i];
        if (!(k->caps & (HR_CAP_BLOCK_Q | HR_CAP_BLOCK_KV))) continue;
        for (size_t a = 0; a < sizeof bq / sizeof *bq; a++)
            for (size_t b = 0; b < sizeof bkv / sizeof *bkv; b++)
                for (int c = (int)(a * 7 + b) % 9; c < n; c += 9) {
                    hr_check res;
                    char line[512];
                    hr_tune t = {bq[a], bkv[b], 0};
                    int v = hr_check_case(k, &cases[c], &t, 1, &res, line, sizeof line);
                    CHECKF(v != HR_CHECK_FAIL, "%s", line);
                }
    }
}

/* fp32 pass must hold up to N = 16384 (rows sampled by the oracle). */
HR_TEST_LONG(every_kernel_passes_at_16k)
{
    hr_case c = {{1, 1, 1, 16384, 16384, 64, true, 0}, HR_LAYOUT_BHND, HR_DIST_NORMAL};
    hr_check res;
    char line[512];
    for (int i = 0; hr_kernels[i]; i++) {
        int v = hr_check_case(hr_kernels[i], &c, NULL, 1, &res, line, sizeof line);
        CHECKF(v < 0 || v == HR_CHECK_PASS, "%s", line);
    }
}
