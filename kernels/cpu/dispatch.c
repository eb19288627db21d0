/* dispatch.c — which ISA level runs: the levels built in, what this CPU and OS support (cpuid, xgetbv), --isa. */
#include <stdio.h>
#include <string.h>

#include "gemm.h"
#include "headroom.h"
#include "isa.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define HR_X86 1
#endif

/* The portable build (make) links one table per level, lowest first; a fixed build
 * (make ISA=..., make NATIVE=1) links one. */
#ifdef HR_ISA_MULTI
extern const hr_isa_level hr_isa_generic, hr_isa_avx2, hr_isa_avx512;
static const hr_isa_level *const levels[] = {&hr_isa_generic, &hr_isa_avx2, &hr_isa_avx512};
#else
extern const hr_isa_level hr_isa_only;
static const hr_isa_level *const levels[] = {&hr_isa_only};
#endif
#define NLEVELS ((int)(sizeof levels / sizeof levels[0]))

int hr_isa_count(void) { return NLEVELS; }
const hr_isa_level *hr_isa_at(int i) { return i >= 0 && i < NLEVELS ? levels[i] : NULL; }

/* What each level's compile flags assume (the Makefile's ARCH_avx2 = x86-64-v3 and
 * ARCH_avx512 = x86-64-v4): the CPU's feature bits and the OS's saved register state
 * (XCR0: SSE and AVX state for ymm, plus opmask and both zmm halves for AVX-512). */
typedef struct {
    int leaf, reg; /* reg: 0 eax, 1 ebx, 2 ecx, 3 edx */
    unsigned bit;
    const char *name;
} feature;

static const feature need_v3[] = {
    {1, 2, 1u << 12, "FMA"},   {1, 2, 1u << 22, "MOVBE"}, {1, 2, 1u << 28, "AVX"},
    {1, 2, 1u << 29, "F16C"},  {7, 1, 1u << 3, "BMI1"},   {7, 1, 1u << 5, "AVX2"},
    {7, 1, 1u << 8, "BMI2"},   {0x80000001, 2, 1u << 5, "LZCNT"},
};
static const feature need_v4[] = {
    {7, 1, 1u << 16, "AVX512F"}, {7, 1, 1u << 17, "AVX512DQ"}, {7, 1, 1u << 28, "AVX512CD"},
    {7, 1, 1u << 30, "AVX512BW"}, {7, 1, 1u << 31, "AVX512VL"},
};

#ifdef HR_X86
static int has(const feature *f)
{
    unsigned r[4] = {0};
    unsigned max = __get_cpuid_max(f->leaf & 0x80000000u, NULL);
    if ((unsigned)f->leaf > max) return 0;
    __cpuid_count(f->leaf, 0, r[0], r[1], r[2], r[3]);
    return (r[f->reg] & f->bit) != 0;
}

/* XCR0 by xgetbv, 0 when the OS has not enabled XSAVE (OSXSAVE clear). */
static unsigned long long xcr0(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27))) return 0;
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (unsigned long long)hi << 32 | lo;
}
#endif

const char *hr_isa_lacks(const hr_isa_level *l)
{
    int v3 = !strcmp(l->name, "avx2"), v4 = !strcmp(l->name, "avx512");
    if (!v3 && !v4) return NULL; /* generic: x86-64's SSE2, or portable C */
#ifdef HR_X86
    for (size_t i = 0; i < sizeof need_v3 / sizeof need_v3[0]; i++)
        if (!has(&need_v3[i])) return need_v3[i].name;
    unsigned long long x = xcr0();
    if ((x & 0x6) != 0x6) return "OS support for the ymm state (XCR0)";
    if (v4) {
        for (size_t i = 0; i < sizeof need_v4 / sizeof need_v4[0]; i++)
            if (!has(&need_v4[i])) return need_v4[i].name;
        if ((x & 0xe0) != 0xe0) return "OS support for the zmm and opmask state (XCR0)";
    }
    return NULL;
#else
    return "an x86-64 CPU";
#endif
}

/* The level that runs, and the names every caller reads (headroom.h). */
static const hr_isa_level *now;
const char *hr_isa = "generic";
const hr_kernel *const *hr_kernels;
static const char *how = "best for this CPU";

const hr_isa_level *hr_isa_best(void)
{
    for (int i = NLEVELS - 1; i > 0; i--)
        if (!hr_isa_lacks(levels[i])) return levels[i];
    return levels[0];
}

static void set_level(const hr_isa_level *l)
{
    now = l;
    hr_isa = l->name;
    hr_kernels = l->kernels;
}

/* Before main (and before any test or the Google Benchmark front end looks at a kernel):
 * the best level. A fixed build whose one level this CPU lacks is left selected: it is
 * what the user built, and main says so. */
__attribute__((constructor)) static void pick_best(void) { set_level(hr_isa_best()); }

const hr_isa_level *hr_isa_now(void)
{
    if (!now) pick_best();
    return now;
}

const char *hr_isa_how(void) { return how; }
void hr_isa_set_how(const char *h) { how = h; }

int hr_isa_select(const char *name)
{
    static const char *const known[] = {"generic", "avx2", "avx512", NULL};
    if (hr_choice(known, name) < 0)
        return hr_fail("unknown ISA level '%s' (generic, avx2, avx512)", name);
    char built[64] = "";
    for (int i = 0; i < NLEVELS; i++) {
        if (!strcmp(levels[i]->name, name)) {
            const char *lacks = hr_isa_lacks(levels[i]);
            if (lacks) return hr_fail("ISA level %s: this CPU lacks %s (it runs up to %s)", name, lacks,
                                      hr_isa_best()->name);
            set_level(levels[i]);
            return HR_OK;
        }
        snprintf(built + strlen(built), sizeof built - strlen(built), "%s%s", i ? ", " : "", levels[i]->name);
    }
    return hr_fail("ISA level %s is not built into this binary (it has %s; the portable build, make, has "
                   "generic, avx2, avx512)", name, built);
}

/* ---- the running level's GEMM and triad ------------------------------------------ */

const char *const hr_gemm_names[] = {"own", "blas", NULL};

size_t hr_sgemm_workspace(hr_gemm_backend be, int M, int N, int K, int threads)
{
    return hr_isa_now()->sgemm_workspace(be, M, N, K, threads);
}

int hr_sgemm(hr_gemm_backend be, int M, int N, int K, float alpha, const float *A, int lda, const float *B,
             int ldb, float beta, float *C, int ldc, int threads, void *ws)
{
    return hr_isa_now()->sgemm(be, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, threads, ws);
}

void hr_triad(float *restrict a, const float *restrict b, const float *restrict c, float s, size_t lo,
              size_t hi)
{
    hr_isa_now()->triad(a, b, c, s, lo, hi);
}
