/* test_amx.c — the AMX-BF16 roof loop: present exactly where the CPU has AMX and the OS
 * grants the tile state, absent with the precise reason elsewhere; when present it does
 * the multiply-adds its counting says (the sum checked) and probes like the other loops. */
#include <string.h>

#include "ceilings.h"
#include "probe.h"
#include "t.h"
#include "vec_amx.h"

HR_TEST(amx_roof_present_where_the_cpu_and_os_allow)
{
    const hr_roof_loop *L = &hr_dot_loops[HR_DOT_AMX];
    const char *why = hr_dot_absent(HR_DOT_AMX);
    /* The table's counting: 4 accumulator tiles, 16 x 16 x 32 multiply-adds each. */
    CHECK(!strcmp(L->name, "amx_bf16") && L->madds == 16 * 16 * 32);
    CHECK(L->flops_per_iter == (double)L->chains * L->madds * 2 && L->chains == 4);
#if defined(HR_AMX_OS)
    if (!hr_amx_cpu()) {
        CHECKF(why && strstr(why, "the CPU has no AMX-BF16"), "%s", why ? why : "(present)");
        CHECK(hr_roof_loop_of(HR_ROOF_DOT + HR_DOT_AMX) == NULL);
        fprintf(stderr, "note: this CPU has no AMX: the roof loop not run (%s)\n", why);
        return;
    }
    if (why) { /* the CPU has it, the OS refused: the reason names the OS */
        CHECKF(strstr(why, "OS"), "%s", why);
        CHECK(hr_roof_loop_of(HR_ROOF_DOT + HR_DOT_AMX) == NULL);
        fprintf(stderr, "note: %s: the roof loop not run\n", why);
        return;
    }
    CHECK(hr_amx_xcr0());
    CHECK(hr_roof_loop_of(HR_ROOF_DOT + HR_DOT_AMX) == L && L->supported());
    /* m = 0.5, a = 0.25 are exact in bf16: each instruction adds 32 x 0.125 = 4 to each of
     * the 4 x 256 accumulators, so 100 iterations sum to 4 x 256 x 400, exactly. */
    CHECK_NEAR(L->run(100, 0.5f, 0.25f), 4.0 * 256 * 400, 0);
    /* Twice on one thread (config loaded and released per call), and from a team. */
    CHECK_NEAR(L->run(3, 0.5f, 0.25f), 4.0 * 256 * 12, 0);
    double per[2] = {0, 0};
    CHECK(hr_probe_run_loop(L, 2, 0.001, per) > 0 && per[0] > 0 && per[1] > 0);
#else
    CHECK(why != NULL && hr_roof_loop_of(HR_ROOF_DOT + HR_DOT_AMX) == NULL);
#endif
}
