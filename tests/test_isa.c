/* test_isa.c — the ISA levels (isa.h, dispatch.c): which are built in, which this CPU runs, --isa. */
#include <string.h>

#include "check.h"
#include "headroom.h"
#include "isa.h"
#include "t.h"

/* The levels are lowest first with distinct known names; generic runs anywhere; the
 * best is the highest one this CPU runs, and it is what runs unless HEADROOM_ISA chose. */
HR_TEST(isa_levels_are_ordered_and_the_best_runs)
{
    static const char *const order[] = {"generic", "avx2", "avx512"};
    int last = -1;
    CHECK(hr_isa_count() >= 1 && hr_isa_at(hr_isa_count()) == NULL && hr_isa_at(-1) == NULL);
    for (int i = 0; i < hr_isa_count(); i++) {
        int rank = -1;
        for (int j = 0; j < 3; j++)
            if (!strcmp(hr_isa_at(i)->name, order[j])) rank = j;
        CHECKF(rank > last, "level %d '%s' out of order", i, hr_isa_at(i)->name);
        last = rank;
        if (!strcmp(hr_isa_at(i)->name, "generic")) CHECK(hr_isa_lacks(hr_isa_at(i)) == NULL);
        /* a level the CPU lacks is never above the best */
        if (hr_isa_lacks(hr_isa_at(i)) == NULL)
            for (int j = 0; j < i; j++) CHECK(hr_isa_lacks(hr_isa_at(j)) == NULL || hr_isa_count() == 1);
    }
    const hr_isa_level *best = hr_isa_best();
    for (int i = hr_isa_count() - 1; i >= 0 && hr_isa_at(i) != best; i--)
        CHECKF(hr_isa_lacks(hr_isa_at(i)) != NULL, "%s runs here but %s was picked", hr_isa_at(i)->name, best->name);
    CHECK(strcmp(hr_isa, hr_isa_now()->name) == 0 && hr_kernels == hr_isa_now()->kernels);
}

/* Selecting a level switches the registry's kernels, their paths and the level's loops;
 * every level gives the oracle's answer on a GQA causal case with odd sizes. */
HR_TEST(isa_select_switches_kernels_and_each_level_is_right)
{
    const char *was = hr_isa;
    hr_case c = {{1, 4, 2, 37, 53, 24, true, 0}, HR_LAYOUT_BNHD, HR_DIST_NORMAL};
    for (int l = 0; l < hr_isa_count(); l++) {
        const hr_isa_level *lv = hr_isa_at(l);
        if (hr_isa_lacks(lv)) {
            CHECK(hr_isa_select(lv->name) == HR_EUSAGE && strstr(hr_errmsg(), "lacks"));
            continue;
        }
        CHECK(hr_isa_select(lv->name) == HR_OK);
        CHECK(hr_isa_now() == lv && hr_kernels == lv->kernels && !strcmp(hr_isa, lv->name));
        const hr_kernel *flash = hr_kernel_find("flash");
        CHECK(flash && flash == lv->kernels[4]);
        const hr_problem p = c.prob;
        const char *path = hr_kernel_path(flash, &p);
        CHECKF(path && !strncmp(path, lv->name, strlen(lv->name)), "[%s] flash path '%s'", lv->name, path);
        static const char *const names[] = {"simd", "flash", "gqa", "decode"};
        for (int k = 0; k < 4; k++) {
            hr_check res;
            char line[512];
            int v = hr_check_case(hr_kernel_find(names[k]), &c, NULL, 1, &res, line, sizeof line);
            CHECKF(v == HR_CHECK_PASS || v == -1, "[%s] %s", lv->name, line);
        }
        /* the level's loops: triad and load sum on 8 vectors' worth of floats */
        float a[128], b[128], x[128];
        for (int i = 0; i < 128; i++) b[i] = (float)i, x[i] = 1.0f;
        hr_triad(a, b, x, 2.0f, 0, 128);
        CHECK(a[0] == 2.0f && a[127] == 129.0f);
        CHECK(lv->load_sum(x, 128) == 128.0f);
        float in[16] = {0}, out[16];
        CHECK(lv->exp_sweep(in, out, 16, 2) == 1.0f);
    }
    if (hr_isa_count() > 1) {
        /* levels compiled from the same source are still distinct code */
        CHECK(hr_isa_at(0)->kernels[4] != hr_isa_at(1)->kernels[4]);
    }
    CHECK(hr_isa_select(was) == HR_OK);
}

HR_TEST(isa_select_refuses_unknown_and_absent_levels)
{
    const char *was = hr_isa;
    CHECK(hr_isa_select("avx9") == HR_EUSAGE && strstr(hr_errmsg(), "unknown ISA level 'avx9'"));
    CHECK(hr_isa_select("") == HR_EUSAGE);
    CHECK(!strcmp(hr_isa, was)); /* a refusal changes nothing */
    if (hr_isa_count() == 1) {
        const char *other = strcmp(hr_isa, "generic") ? "generic" : "avx2";
        CHECK(hr_isa_select(other) == HR_EUSAGE && strstr(hr_errmsg(), "not built into this binary"));
    }
}
