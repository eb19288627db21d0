/* test_flash_typed.c — flash and gqa on bf16/f16 operands, every path: tdpbf16ps (amx)
 * and vdpbf16ps (bf16dot) where this build and CPU have them, and the conversion path,
 * each forced by HEADROOM_FLASH_PATH (so all are tested on an AMX machine too), against
 * the oracle with the types' tolerances; the path choice and its forcing on every machine. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ceilings.h"
#include "check.h"
#include "headroom.h"
#include "inputs.h"
#include "probe.h"
#include "t.h"
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

/* Whether this binary on this CPU can take the vdpbf16ps path for bf16 Q/K/V: the ISA
 * level that runs is avx512 (the one compiled with vec_bf16.h's path) and the CPU has
 * AVX512-BF16 (CPUID.(7,1):EAX bit 5). */
static int dot_here(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    return !strcmp(hr_isa, "avx512") && __get_cpuid_count(7, 1, &a, &b, &c, &d) && (a >> 5 & 1);
#else
    return 0;
#endif
}

/* And the amx path: that, the CPU's AMX-BF16 and AMX-TILE (CPUID.(7,0):EDX bits 22, 24)
 * and the OS's permission, which the AMX roof's presence reports (probe.c). */
static int amx_here(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    const int cpu = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (d >> 22 & 1) && (d >> 24 & 1);
    return dot_here() && cpu && hr_dot_absent(HR_DOT_AMX) == NULL;
#else
    return 0;
#endif
}

static void force(const char *path)
{
    if (path) setenv("HEADROOM_FLASH_PATH", path, 1);
    else unsetenv("HEADROOM_FLASH_PATH");
}

/* HEADROOM_FLASH_PATH values (NULL: unset) and what bf16/bf16 runs under each here: the
 * word its path names, or NULL where the kernel must refuse (a forced path this level or
 * CPU lacks). Unforced: amx > vdpbf16ps > conversion. */
static const char *const modes[] = {NULL, "convert", "bf16dot", "amx"};
static const char *expected(int mode)
{
    switch (mode) {
    case 0: return amx_here() ? "amx tdpbf16ps" : dot_here() ? "vdpbf16ps" : "convert to fp32";
    case 1: return "convert to fp32";
    case 2: return dot_here() ? "vdpbf16ps" : NULL;
    default: return amx_here() ? "amx tdpbf16ps" : NULL;
    }
}

/* The quick battery (odd N and d, MHA/GQA/MQA, causal Nq <> Nkv, both layouts, the three
 * distributions) for every type pair flash declares, on every path (bf16/bf16 under each
 * forcing), at 1, 2 and 3 threads and with odd tiles (block_kv 17, block_q 13) on some
 * cases; the path each ran is the one hr_kernel_path names. */
HR_TEST(flash_typed_battery_every_path)
{
    static hr_case cases[HR_MAX_CASES];
    const int n = hr_battery(cases, HR_MAX_CASES, true);
    const hr_dtype pairs[][2] = {{HR_BF16, HR_BF16}, {HR_F16, HR_F16}, {HR_BF16, HR_F32},
                                 {HR_F32, HR_BF16}, {HR_F16, HR_BF16}};
    const char *const kernels[] = {"flash", "gqa"};
    for (int kn = 0; kn < 2; kn++)
        for (int pi = 0; pi < 5; pi++)
            for (int mode = 0; mode < 4; mode++) {
                const hr_kernel *k = hr_kernel_find(kernels[kn]);
                const int bf = pairs[pi][0] == HR_BF16 && pairs[pi][1] == HR_BF16;
                if (mode && !bf) continue;
                const char *want = bf ? expected(mode) : "convert to fp32";
                force(modes[mode]);
                int ran = 0, bad = 0;
                char first[700] = "";
                for (int c = 0; c < n; c += 3) {
                    hr_case cs = cases[c];
                    cs.prob.dtype = pairs[pi][0];
                    cs.prob.kv_dtype = pairs[pi][1];
                    if (cs.prob.seq_q * (double)cs.prob.seq_kv * cs.prob.heads * cs.prob.d_head > 4e7) continue;
                    if (cs.prob.page_size) continue; /* flash and gqa have no paged path (test_paged.c) */
                    if (!want) { /* refused with the reason, never run on another path */
                        const char *why = hr_kernel_why_not(k, &cs.prob);
                        CHECKF(why && strstr(why, "HEADROOM_FLASH_PATH="), "%s forced %s: %s", kernels[kn],
                               modes[mode], why ? why : "(runs)");
                        continue;
                    }
                    hr_tune t = {.threads = 1 + c / 3 % 3, .block_kv = c % 5 == 0 ? 17 : 0,
                                 .block_q = c % 7 == 0 ? 13 : 0};
                    hr_check r;
                    char line[700];
                    const int v = hr_check_case(k, &cs, &t, 1, &r, line, sizeof line);
                    if (v < 0) continue;
                    ran++;
                    if ((v != HR_CHECK_PASS || !strstr(line, want)) && !bad++) snprintf(first, sizeof first, "%s", line);
                }
                if (!want) {
                    fprintf(stderr, "note: %s forced %s: this build/CPU lacks it, refused (checked)\n", kernels[kn],
                            modes[mode]);
                    continue;
                }
                CHECKF(ran >= 20, "%s %s/%s: only %d cases ran", kernels[kn], hr_dtype_names[pairs[pi][0]],
                       hr_dtype_names[pairs[pi][1]], ran);
                CHECKF(!bad, "%s %s/kv=%s path %s: %d bad cases, first: %s", kernels[kn],
                       hr_dtype_names[pairs[pi][0]], hr_dtype_names[pairs[pi][1]], want, bad, first);
            }
    force(NULL);
    if (!amx_here()) fprintf(stderr, "note: no AMX path in this build/CPU/OS: amx not run\n");
    if (!dot_here()) fprintf(stderr, "note: no AVX512-BF16 path in this build/CPU: the conversion path only\n");
}

/* HEADROOM_FLASH_PATH on every machine: a value not among the three is refused for every
 * problem (a typo never passes as the default); a valid one concerns bf16/bf16 only (f32
 * runs its own path); empty is unset; forcing a path this machine lacks refuses the kernel
 * with the level's or the CPU's reason, forcing one it has names it. */
HR_TEST(flash_path_forcing)
{
    hr_problem p = {1, 4, 4, 64, 64, 64, false, 0, HR_BF16, HR_BF16}, p32 = p;
    p32.dtype = p32.kv_dtype = HR_F32;
    const hr_kernel *k = hr_kernel_find("flash"), *g = hr_kernel_find("gqa");
    force("tiles");
    const char *why = hr_kernel_why_not(k, &p);
    CHECKF(why && strstr(why, "HEADROOM_FLASH_PATH=tiles: not one of convert, bf16dot, amx"), "%s", why ? why : "-");
    CHECK(hr_kernel_why_not(g, &p32) != NULL);
    force("amx");
    CHECK(hr_kernel_why_not(k, &p32) == NULL && strstr(hr_kernel_path(k, &p32), "fp32"));
    for (int mode = 0; mode < 4; mode++) {
        force(modes[mode]);
        const char *want = expected(mode);
        for (const hr_kernel *kk = k; kk; kk = kk == k ? g : NULL) {
            why = hr_kernel_why_not(kk, &p);
            if (want)
                CHECKF(!why && strstr(hr_kernel_path(kk, &p), want), "%s mode %d: %s / %s", kk->name, mode,
                       why ? why : "-", hr_kernel_path(kk, &p));
            else
                CHECKF(why && strstr(why, modes[mode]) && (strstr(why, "level has no") || strstr(why, "CPU has no") ||
                                                           strstr(why, "OS ")),
                       "%s mode %d: %s", kk->name, mode, why ? why : "(runs)");
        }
    }
    force("");
    CHECK(hr_kernel_why_not(k, &p) == NULL && strstr(hr_kernel_path(k, &p), expected(0)));
    /* Rows take the roof of the instruction their path runs: amx_bf16 for the amx path. */
    force("amx");
    if (amx_here()) CHECK(hr_roof_of(k, &p, "avx512") == HR_ROOF_DOT + HR_DOT_AMX);
    force("bf16dot");
    if (dot_here()) CHECK(hr_roof_of(g, &p, "avx512") == HR_ROOF_DOT + HR_DOT_BF16);
    CHECK(hr_roof_for_path("amx tdpbf16ps, fp32 accumulate, P in bf16", "avx512") == HR_ROOF_DOT + HR_DOT_AMX);
    force(NULL);
}

/* Runs k on t (o poisoned first) and returns O as fp32 (hr_tensors_output), malloc'ed. */
static float *run_o(const hr_kernel *k, const hr_problem *p, hr_tensors *t)
{
    const size_t nq = (size_t)p->batch * p->heads * p->seq_q * p->d_head;
    hr_tune tune = hr_kernel_tune(k, p, &(hr_tune){.threads = 2});
    void *ws = hr_alloc(k->workspace_bytes(p, &tune) + 64);
    float *o = malloc(nq * sizeof(float));
    hr_tensors_poison(p, &t->args, NAN);
    CHECK(k->run(p, &tune, &t->args, ws) == HR_OK);
    hr_tensors_output(p, &t->args);
    memcpy(o, t->args.o.p, nq * sizeof(float));
    free(ws);
    return o;
}

/* The paths on one shape with tails everywhere (d 72, N 150 x 170, BNHD): each within
 * the bf16 tolerance of the oracle, each within twice it of the conversion path, and a
 * dot-product path (P rounded to bf16) differs from the conversion path -- so the test
 * would see a dispatch that silently took one path for all. */
HR_TEST(flash_bf16_paths_agree)
{
    hr_problem p = {2, 6, 2, 150, 170, 72, true, 0, HR_BF16, HR_BF16};
    hr_tensors t;
    CHECK(hr_tensors_alloc(&t, &p, HR_LAYOUT_BNHD, HR_DIST_NORMAL, 11) == HR_OK);
    const size_t nq = (size_t)p.batch * p.heads * p.seq_q * p.d_head;
    const char *const kernels[] = {"flash", "gqa"};
    for (int kn = 0; kn < 2; kn++) {
        const hr_kernel *k = hr_kernel_find(kernels[kn]);
        force("convert");
        CHECK(strstr(hr_kernel_path(k, &p), "convert"));
        float *oc = run_o(k, &p, &t);
        hr_check cc = hr_oracle_check(&p, &t.args, 0);
        CHECKF(cc.verdict == HR_CHECK_PASS, "%s convert: %g (pass %g)", kernels[kn], cc.max_rel_err, cc.tol_pass);
        for (int mode = 2; mode < 4; mode++) {
            if (!expected(mode)) continue;
            force(modes[mode]);
            CHECK(strstr(hr_kernel_path(k, &p), expected(mode)));
            float *od = run_o(k, &p, &t);
            hr_check cd = hr_oracle_check(&p, &t.args, 0);
            CHECKF(cd.verdict == HR_CHECK_PASS, "%s %s: %g (pass %g)", kernels[kn], modes[mode], cd.max_rel_err,
                   cd.tol_pass);
            double omax = 0, diff = 0;
            for (size_t i = 0; i < nq; i++) {
                omax = fmax(omax, fabs(oc[i]));
                diff = fmax(diff, fabs((double)oc[i] - od[i]));
            }
            CHECKF(diff <= 2 * cd.tol_pass * omax, "%s %s: differs from convert by %g of max|O| %g", kernels[kn],
                   modes[mode], diff / omax, omax);
            CHECKF(diff > 0, "%s: the %s path gave the conversion path's bits", kernels[kn], modes[mode]);
            free(od);
        }
        free(oc);
    }
    force(NULL);
    hr_tensors_free(&t);
}

/* Sets element (row, c) of Q (w 0), K (1) or V (2) of a bf16 problem, B = H = 1, in both
 * the fp32 view the oracle reads and the bf16 tensor the kernel reads (x exact in bf16). */
static void set_bf16(hr_tensors *t, int w, int row, int c, float x)
{
    hr_view f = w == 0 ? t->q : w == 1 ? t->k : t->v;
    hr_xcview b = w == 0 ? t->args.xq : w == 1 ? t->args.xk : t->args.xv;
    hr_row(f, 0, 0, row)[c] = x;
    ((uint16_t *)hr_xcrow(b, 0, 0, row))[c] = hr_f32_to_bf16(x);
}

/* The bf16 softmax takes each row's maximum from the S kernel, which also scores the keys
 * a causal row must not see (the diagonal's tail of its last vector): a bound it may use
 * only while the bound stays within the running max's slack. Here row 11 of 32 (causal,
 * 300 keys, tiles of 256) sees keys 0-279, all scoring 0 but key 270 (2^20 the weight of
 * the others after the scale), while keys 280-287, in its last vector of scores, score
 * ~255 in log2 units: a max taken from the bound would flush its weights to 0. Every row
 * within the oracle's tolerance, row 11 at V[270] to 1%, on every bf16 path. */
HR_TEST(flash_bf16_masked_scores_bound)
{
    hr_problem p = {1, 1, 1, 32, 300, 32, true, 0, HR_BF16, HR_BF16};
    hr_tensors t;
    CHECK(hr_tensors_alloc(&t, &p, HR_LAYOUT_BHND, HR_DIST_NORMAL, 5) == HR_OK);
    for (int i = 0; i < p.seq_q; i++)
        for (int c = 0; c < p.d_head; c++) set_bf16(&t, 0, i, c, c == 0 ? 1.0f : 0.0f);
    for (int j = 0; j < p.seq_kv; j++) set_bf16(&t, 1, j, 0, j == 270 ? 78.0f : j >= 280 && j < 288 ? 1000.0f : 0.0f);
    const char *const kernels[] = {"flash", "gqa"};
    for (int kn = 0; kn < 2; kn++)
        for (int mode = 0; mode < 4; mode++) {
            if (mode == 1 || !expected(mode)) continue;
            force(modes[mode]);
            const hr_kernel *k = hr_kernel_find(kernels[kn]);
            float *o = run_o(k, &p, &t);
            hr_check r = hr_oracle_check(&p, &t.args, 0);
            CHECKF(r.verdict == HR_CHECK_PASS, "%s %s: %g (pass %g)", kernels[kn], expected(mode), r.max_rel_err,
                   r.tol_pass);
            double err = 0, vmax = 0;
            for (int c = 0; c < p.d_head; c++) {
                err = fmax(err, fabs((double)o[11 * p.d_head + c] - hr_row(t.v, 0, 0, 270)[c]));
                vmax = fmax(vmax, fabs(hr_row(t.v, 0, 0, 270)[c]));
            }
            CHECKF(err <= 0.01 * vmax, "%s %s: row 11 off V[270] by %g of %g", kernels[kn], expected(mode), err, vmax);
            free(o);
        }
    force(NULL);
    hr_tensors_free(&t);
}

/* The conversion path is exact: f16 and bf16 inputs give the fp32 kernel's result on the
 * dequantized values, to the bit, before O is rounded to its type. */
HR_TEST(flash_convert_path_is_the_fp32_kernel)
{
    hr_problem p = {1, 4, 4, 70, 70, 40, true, 0, HR_F32, HR_F16};
    hr_tensors t;
    CHECK(hr_tensors_alloc(&t, &p, HR_LAYOUT_BHND, HR_DIST_NORMAL, 3) == HR_OK);
    const hr_kernel *k = hr_kernel_find("flash");
    float *typed = run_o(k, &p, &t);
    hr_problem p32 = p;
    p32.kv_dtype = HR_F32; /* the fp32 views hold the same (dequantized) K and V */
    float *f32 = run_o(k, &p32, &t);
    CHECK(!memcmp(typed, f32, sizeof(float) * 4 * 70 * 40));
    free(typed);
    free(f32);
    hr_tensors_free(&t);
}

/* Types flash cannot take are refused before it runs, naming the flag. */
HR_TEST(flash_typed_refuses_block_caches)
{
    hr_problem p = {1, 4, 4, 64, 64, 64, false, 0, HR_BF16, HR_Q8_0};
    const char *why = hr_kernel_why_not(hr_kernel_find("flash"), &p);
    CHECKF(why && strstr(why, "--kv-dtype"), "why: %s", why ? why : "(runs)");
    p.kv_dtype = HR_BF16;
    CHECK(hr_kernel_why_not(hr_kernel_find("gqa"), &p) == NULL);
}
