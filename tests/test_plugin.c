/* test_plugin.c — the plugin adapter in process (no dlopen): what a plugin's kernel is
 * handed (problem with the scale resolved, views in bytes, typed views, tunables), what
 * it may change, and the registry's name rules. tests/sh_plugin.sh loads real files. */
#include <math.h>
#include <string.h>

#include "ceilings.h"
#include "headroom.h"
#include "headroom/plugin.h"
#include "inputs.h"
#include "plugin_kernel.h"
#include "probe.h"
#include "t.h"

/* What the last call of the recording kernel saw. */
static hrp_problem seen_p;
static hrp_args seen_a;
static hrp_tune seen_t;
static hrp_machine seen_m;
static int fail_with;

static int rec_run(const hrp_problem *p, const hrp_tune *t, const hrp_args *a, void *ws)
{
    (void)ws;
    seen_p = *p, seen_t = *t, seen_a = *a;
    return fail_with;
}

static void rec_resolve(const hrp_problem *p, const hrp_machine *m, hrp_tune *t)
{
    (void)p;
    seen_m = *m;
    if (!t->block_q) t->block_q = 24;
    t->threads = 99; /* not the plugin's to change */
}

static size_t rec_ws(const hrp_problem *p, const hrp_tune *t) { return (size_t)p->seq_kv * 4 + (size_t)t->block_q; }
static const char *rec_applicable(const hrp_problem *p) { return p->d_head > 128 ? "d > 128" : NULL; }
static const char *rec_error(void) { return "out of tea"; }

static const hrp_kernel rec = {
    .size = sizeof(hrp_kernel), .name = "rec", .summary = "records its calls",
    .caps = HRP_CAP_CAUSAL | HRP_CAP_THREADED | HRP_CAP_BLOCK_Q, .traffic = HRP_TRAFFIC_KV_PER_GROUP,
    .dtypes = HRP_TYPE_BIT(HRP_F32) | HRP_TYPE_BIT(HRP_BF16), .kv_dtypes = HRP_TYPE_BIT(HRP_F32) | HRP_TYPE_BIT(HRP_Q8_0),
    .applicable = rec_applicable, .resolve = rec_resolve, .workspace_bytes = rec_ws, .run = rec_run,
};

static void make(hr_plugin_origin *o, hr_kernel *k, const hrp_kernel *pk)
{
    *o = (hr_plugin_origin){"test.so", "testlib", "9.9", 1, 0, NULL, rec_error};
    CHECK(hr_pk_make(pk, o, k) == NULL);
}

/* A plugin's path names its library, not an instruction: on a bf16 problem its bound is
 * the best bf16 roof this CPU runs (AMX, else the bf16 dot, else the FMA); an f32 problem,
 * and a built-in kernel on bf16, keep the roof their path names. */
HR_TEST(plugin_bf16_roof_is_the_types_best)
{
    hr_plugin_origin o;
    hr_kernel k;
    make(&o, &k, &rec);
    hr_problem p = {.batch = 1, .heads = 4, .kv_heads = 2, .seq_q = 5, .seq_kv = 7, .d_head = 64,
                    .dtype = HR_BF16, .kv_dtype = HR_BF16};
    const int fma = hr_roof_for_path("testlib", hr_isa);
    const int want = hr_roof_loop_of(HR_ROOF_DOT + HR_DOT_AMX)    ? HR_ROOF_DOT + HR_DOT_AMX
                     : hr_roof_loop_of(HR_ROOF_DOT + HR_DOT_BF16) ? HR_ROOF_DOT + HR_DOT_BF16
                                                                   : fma;
    CHECKF(hr_roof_of(&k, &p, hr_isa) == want, "roof %s, want %s", hr_roof_name(hr_roof_of(&k, &p, hr_isa)),
           hr_roof_name(want));
    const hr_kernel *naive = hr_kernel_find("naive");
    CHECK(naive && hr_roof_of(naive, &p, hr_isa) == hr_roof_for_path(hr_kernel_path(naive, &p), hr_isa));
    p.kv_dtype = HR_Q8_0; /* not a bf16 problem */
    CHECK(hr_roof_of(&k, &p, hr_isa) == fma);
    p.dtype = p.kv_dtype = HR_F32;
    CHECK(hr_roof_of(&k, &p, hr_isa) == fma);
}

HR_TEST(plugin_adapter_converts_every_call)
{
    hr_plugin_origin o;
    hr_kernel k;
    make(&o, &k, &rec);
    CHECK(k.plugin == &o && !k.run && !strcmp(k.name, "rec") && k.traffic == HR_TRAFFIC_KV_PER_GROUP);
    hr_problem p = {.batch = 2, .heads = 4, .kv_heads = 2, .seq_q = 5, .seq_kv = 7, .d_head = 64, .causal = true};
    CHECK(hr_kernel_why_not(&k, &p) == NULL);
    hr_problem big = p;
    big.d_head = 256;
    CHECK(hr_kernel_why_not(&k, &big) && !strcmp(hr_kernel_why_not(&k, &big), "d > 128"));
    hr_problem f16 = p;
    f16.dtype = f16.kv_dtype = HR_F16;
    CHECK(hr_kernel_why_not(&k, &f16) != NULL); /* the masks, before applicable */

    hr_tune t = hr_kernel_tune(&k, &p, &(hr_tune){.threads = 2});
    CHECK(t.block_q == 24 && t.threads == 2 && seen_m.size == sizeof(hrp_machine));
    CHECK(hr_kernel_workspace(&k, &p, &t) == 7 * 4 + 24);
    CHECK(!strcmp(hr_kernel_path(&k, &p), "testlib")); /* no path(): the library */

    hr_tensors ten;
    CHECK(hr_tensors_alloc(&ten, &p, HR_LAYOUT_BNHD, HR_DIST_NORMAL, 3) == HR_OK);
    fail_with = HRP_OK;
    CHECK(hr_kernel_run(&k, &p, &t, &ten.args, NULL) == HR_OK);
    CHECK(seen_p.size == sizeof(hrp_problem) && seen_p.causal == 1 && seen_p.seq_kv == 7);
    CHECK(fabsf(seen_p.scale - 0.125f) < 1e-7f); /* 1/sqrt(64), resolved */
    CHECK(seen_t.block_q == 24 && seen_t.threads == 2);
    /* Float strides become bytes; the data is the same memory. */
    CHECK(seen_a.q.data == ten.args.q.p && seen_a.q.sn == 4 * ten.args.q.sn && seen_a.q.sh == 4 * ten.args.q.sh &&
          seen_a.q.sb == 4 * ten.args.q.sb);
    CHECK(seen_a.o.data == ten.args.o.p && seen_a.k.sn == 4 * ten.args.k.sn);
    CHECK(hrp_row(seen_a.k, 1, 1, 3) == (const void *)hr_crow(ten.args.k, 1, 1, 3));
    CHECK(seen_a.xq.data == NULL && seen_a.xk.data == NULL); /* f32: no typed views */
    hr_tensors_free(&ten);

    /* Typed operands travel as they are (byte strides already). */
    hr_problem pt = p;
    pt.dtype = HR_BF16, pt.kv_dtype = HR_Q8_0;
    CHECK(hr_tensors_alloc(&ten, &pt, HR_LAYOUT_BHND, HR_DIST_NORMAL, 3) == HR_OK);
    CHECK(hr_kernel_run(&k, &pt, &t, &ten.args, NULL) == HR_OK);
    CHECK(seen_p.dtype == HRP_BF16 && seen_p.kv_dtype == HRP_Q8_0);
    CHECK(seen_a.xk.data == ten.args.xk.p && seen_a.xk.sn == ten.args.xk.sn && seen_a.xo.data == ten.args.xo.p);

    /* A failed run: HR_EUSAGE, the kernel, the file and the plugin's own reason. */
    fail_with = 5;
    CHECK(hr_kernel_run(&k, &pt, &t, &ten.args, NULL) == HR_EUSAGE);
    CHECK(strstr(hr_errmsg(), "kernel rec (plugin test.so): run failed: out of tea") != NULL);
    fail_with = HRP_OK;
    hr_tensors_free(&ten);
}

HR_TEST(plugin_kernel_rules)
{
    hr_plugin_origin o = {"bad.so", "x", "0", 1, 0, NULL, NULL};
    hr_kernel k;
    hrp_kernel bad = rec;
    bad.size = 8;
    CHECK(hr_pk_make(&bad, &o, &k) && strstr(hr_pk_make(&bad, &o, &k), "struct size too small"));
    bad = rec, bad.run = NULL;
    CHECK(hr_pk_make(&bad, &o, &k) && strstr(hr_pk_make(&bad, &o, &k), "no run function"));
    bad = rec, bad.caps = 1u << 20;
    CHECK(hr_pk_make(&bad, &o, &k) && strstr(hr_pk_make(&bad, &o, &k), "unknown bits"));
    bad = rec, bad.caps = HRP_CAP_ALIBI << 1; /* the first bit past ABI 1.1's */
    CHECK(hr_pk_make(&bad, &o, &k) && strstr(hr_pk_make(&bad, &o, &k), "unknown bits"));
    /* 1.1's variant caps are known bits, and reach the kernel as headroom's own. */
    hrp_kernel var = rec;
    var.caps |= HRP_CAP_WINDOW | HRP_CAP_SOFTCAP | HRP_CAP_ALIBI;
    CHECK(hr_pk_make(&var, &o, &k) == NULL);
    CHECK((k.caps & (HR_CAP_WINDOW | HR_CAP_SOFTCAP | HR_CAP_ALIBI)) == (HR_CAP_WINDOW | HR_CAP_SOFTCAP | HR_CAP_ALIBI));
    bad = rec, bad.traffic = 3;
    CHECK(hr_pk_make(&bad, &o, &k) != NULL);
    bad = rec, bad.name = "";
    CHECK(hr_pk_make(&bad, &o, &k) != NULL);
    /* A later minor's larger kernel struct is fine: headroom reads what it knows. */
    struct {
        hrp_kernel k;
        int newer_field;
    } newer = {rec, 1};
    newer.k.size = sizeof newer;
    CHECK(hr_pk_make(&newer.k, &o, &k) == NULL);

    /* Names: refused ones never reach the registry. */
    int n0 = 0;
    while (hr_kernel_at(n0)) n0++;
    static const char *const bad_names[] = {"naive", "Flash", "a/b", "a,b", "a b", "1abc", "", NULL};
    for (int i = 0; bad_names[i]; i++) {
        make(&o, &k, &rec);
        k.name = bad_names[i];
        CHECKF(hr_kernel_add(&k) == HR_EUSAGE, "name '%s' accepted", bad_names[i]);
    }
    k.name = "naive";
    CHECK(hr_kernel_add(&k) == HR_EUSAGE && strstr(hr_errmsg(), "clashes with a built-in kernel"));
    int n1 = 0;
    while (hr_kernel_at(n1)) n1++;
    CHECK(n1 == n0 && hr_kernel_at(-1) == NULL);
}
