/* test_flash_typed.c — flash and gqa on bf16/f16 operands, both paths: vdpbf16ps where
 * this build and CPU have it, and the conversion path (forced by HEADROOM_FLASH_PATH=convert,
 * so it is tested on a BF16 machine too), against the oracle with the types' tolerances. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "headroom.h"
#include "inputs.h"
#include "t.h"
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

/* Whether this binary on this CPU takes the vdpbf16ps path for bf16 Q/K/V: the ISA level
 * that runs is avx512 (the one compiled with vec_bf16.h's path) and the CPU has
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

static void force_convert(int on)
{
    if (on) setenv("HEADROOM_FLASH_PATH", "convert", 1);
    else unsetenv("HEADROOM_FLASH_PATH");
}

/* The quick battery (odd N and d, MHA/GQA/MQA, causal Nq <> Nkv, both layouts, the three
 * distributions) for every type pair flash declares, on both paths, at 1, 2 and 3 threads
 * and with odd tiles (block_kv 17, block_q 13) on some cases; the path each ran is the
 * one hr_kernel_path names. */
HR_TEST(flash_typed_battery_both_paths)
{
    static hr_case cases[HR_MAX_CASES];
    const int n = hr_battery(cases, HR_MAX_CASES, true);
    const hr_dtype pairs[][2] = {{HR_BF16, HR_BF16}, {HR_F16, HR_F16}, {HR_BF16, HR_F32},
                                 {HR_F32, HR_BF16}, {HR_F16, HR_BF16}};
    const char *const kernels[] = {"flash", "gqa"};
    for (int kn = 0; kn < 2; kn++)
        for (int pi = 0; pi < 5; pi++)
            for (int convert = 0; convert < 2; convert++) {
                const hr_kernel *k = hr_kernel_find(kernels[kn]);
                const int dot = !convert && dot_here() && pairs[pi][0] == HR_BF16 && pairs[pi][1] == HR_BF16;
                if (convert && !(pairs[pi][0] == HR_BF16 && pairs[pi][1] == HR_BF16)) continue;
                force_convert(convert);
                int ran = 0, bad = 0;
                char first[700] = "";
                for (int c = 0; c < n; c += 3) {
                    hr_case cs = cases[c];
                    cs.prob.dtype = pairs[pi][0];
                    cs.prob.kv_dtype = pairs[pi][1];
                    if (cs.prob.seq_q * (double)cs.prob.seq_kv * cs.prob.heads * cs.prob.d_head > 4e7) continue;
                    hr_tune t = {.threads = 1 + c / 3 % 3, .block_kv = c % 5 == 0 ? 17 : 0,
                                 .block_q = c % 7 == 0 ? 13 : 0};
                    hr_check r;
                    char line[700];
                    const int v = hr_check_case(k, &cs, &t, 1, &r, line, sizeof line);
                    if (v < 0) continue;
                    ran++;
                    const int named = strstr(line, "vdpbf16ps") != NULL;
                    if ((v != HR_CHECK_PASS || named != dot) && !bad++) snprintf(first, sizeof first, "%s", line);
                }
                CHECKF(ran >= 20, "%s %s/%s: only %d cases ran", kernels[kn], hr_dtype_names[pairs[pi][0]],
                       hr_dtype_names[pairs[pi][1]], ran);
                CHECKF(!bad, "%s %s/kv=%s convert=%d: %d bad cases, first: %s", kernels[kn],
                       hr_dtype_names[pairs[pi][0]], hr_dtype_names[pairs[pi][1]], convert, bad, first);
            }
    force_convert(0);
    if (!dot_here()) fprintf(stderr, "note: no AVX512-BF16 path in this build/CPU: the conversion path only\n");
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

/* The two paths on one shape with tails everywhere (d 72, N 150 x 170, BNHD): each
 * within the bf16 tolerance of the oracle, the two within twice it of each other, and
 * where the dot path runs, it differs from the conversion path (P rounded to bf16) --
 * so the test would see a dispatch that silently took one path for both. */
HR_TEST(flash_bf16_paths_agree)
{
    hr_problem p = {2, 6, 2, 150, 170, 72, true, 0, HR_BF16, HR_BF16};
    hr_tensors t;
    CHECK(hr_tensors_alloc(&t, &p, HR_LAYOUT_BNHD, HR_DIST_NORMAL, 11) == HR_OK);
    const size_t nq = (size_t)p.batch * p.heads * p.seq_q * p.d_head;
    const char *const kernels[] = {"flash", "gqa"};
    for (int kn = 0; kn < 2; kn++) {
        const hr_kernel *k = hr_kernel_find(kernels[kn]);
        force_convert(1);
        CHECK(!strstr(hr_kernel_path(k, &p), "vdpbf16ps"));
        float *oc = run_o(k, &p, &t);
        hr_check cc = hr_oracle_check(&p, &t.args, 0);
        force_convert(0);
        CHECK(!!strstr(hr_kernel_path(k, &p), "vdpbf16ps") == dot_here());
        float *od = run_o(k, &p, &t);
        hr_check cd = hr_oracle_check(&p, &t.args, 0);
        CHECKF(cc.verdict == HR_CHECK_PASS && cd.verdict == HR_CHECK_PASS, "%s: convert %g, dot %g (pass %g)",
               kernels[kn], cc.max_rel_err, cd.max_rel_err, cd.tol_pass);
        double omax = 0, diff = 0;
        for (size_t i = 0; i < nq; i++) {
            omax = fmax(omax, fabs(oc[i]));
            diff = fmax(diff, fabs((double)oc[i] - od[i]));
        }
        CHECKF(diff <= 2 * cd.tol_pass * omax, "%s: paths differ by %g of max|O| %g", kernels[kn], diff / omax, omax);
        if (dot_here()) CHECKF(diff > 0, "%s: the dot path gave the conversion path's bits", kernels[kn]);
        free(oc);
        free(od);
    }
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
