/* probe.c — FMA and dot-product chain loops per ISA and the short concurrent-ceiling probes (FMA and triad). */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "headroom.h"
#include "inputs.h"
#include "probe.h"
#include "ceilings.h"
#include "sysinfo.h"
#include "timer.h"
#include "vec_amx.h"

#if defined(__x86_64__) || defined(__i386__)
#define HR_X86 1
#include <cpuid.h>
#include <immintrin.h>
#else
#define HR_X86 0
#endif

/* ---- FMA loops ------------------------------------------------------------------
 * Chains per loop: an FMA has a latency of 4 cycles on current x86 cores and two
 * ports issue one each per cycle, so 8 chains keep them busy; 16 (AVX-512, 32
 * registers) and 12 (16 registers, 2 of them holding m and a) leave a margin for
 * slower cores. mul + add chains (sse2, scalar) have twice the latency but also two
 * add ports, so 12 chains cover 2 x 2 x 3 cycles. The inner loop over chains is fully
 * unrolled and the chains live in registers (checked with objdump: no loads or stores
 * in the loop). */

#define CHAINS_512 16
#define CHAINS_256 12
#define CHAINS_128 12
#define CHAINS_1 12

#if HR_X86
__attribute__((target("avx512f"))) static float fma_avx512(long iters, float m, float a)
{
    __m512 x[CHAINS_512], vm = _mm512_set1_ps(m), va = _mm512_set1_ps(a);
#pragma GCC unroll 16
    for (int j = 0; j < CHAINS_512; j++) x[j] = _mm512_set1_ps(1.0f + 0.01f * (float)j);
    for (long i = 0; i < iters; i++) {
#pragma GCC unroll 16
        for (int j = 0; j < CHAINS_512; j++) x[j] = _mm512_fmadd_ps(x[j], vm, va);
    }
#pragma GCC unroll 16
    for (int j = 1; j < CHAINS_512; j++) x[0] = _mm512_add_ps(x[0], x[j]);
    return _mm512_reduce_add_ps(x[0]);
}

__attribute__((target("avx2,fma"))) static float fma_avx2(long iters, float m, float a)
{
    __m256 x[CHAINS_256], vm = _mm256_set1_ps(m), va = _mm256_set1_ps(a);
#pragma GCC unroll 16
    for (int j = 0; j < CHAINS_256; j++) x[j] = _mm256_set1_ps(1.0f + 0.01f * (float)j);
    for (long i = 0; i < iters; i++) {
#pragma GCC unroll 16
        for (int j = 0; j < CHAINS_256; j++) x[j] = _mm256_fmadd_ps(x[j], vm, va);
    }
#pragma GCC unroll 16
    for (int j = 1; j < CHAINS_256; j++) x[0] = _mm256_add_ps(x[0], x[j]);
    float out[8];
    _mm256_storeu_ps(out, x[0]);
    return out[0] + out[1] + out[2] + out[3] + out[4] + out[5] + out[6] + out[7];
}

static float fma_sse2(long iters, float m, float a)
{
    __m128 x[CHAINS_128], vm = _mm_set1_ps(m), va = _mm_set1_ps(a);
#pragma GCC unroll 16
    for (int j = 0; j < CHAINS_128; j++) x[j] = _mm_set1_ps(1.0f + 0.01f * (float)j);
    for (long i = 0; i < iters; i++) {
#pragma GCC unroll 16
        for (int j = 0; j < CHAINS_128; j++) x[j] = _mm_add_ps(_mm_mul_ps(x[j], vm), va);
    }
#pragma GCC unroll 16
    for (int j = 1; j < CHAINS_128; j++) x[0] = _mm_add_ps(x[0], x[j]);
    float out[4];
    _mm_storeu_ps(out, x[0]);
    return out[0] + out[1] + out[2] + out[3];
}

/* Scalar lanes via the _ss intrinsics, so the auto-vectorizer cannot pack the chains. */
static float fma_scalar(long iters, float m, float a)
{
    __m128 x[CHAINS_1], vm = _mm_set_ss(m), va = _mm_set_ss(a);
#pragma GCC unroll 16
    for (int j = 0; j < CHAINS_1; j++) x[j] = _mm_set_ss(1.0f + 0.01f * (float)j);
    for (long i = 0; i < iters; i++) {
#pragma GCC unroll 16
        for (int j = 0; j < CHAINS_1; j++) x[j] = _mm_add_ss(_mm_mul_ss(x[j], vm), va);
    }
    float s = 0;
    for (int j = 0; j < CHAINS_1; j++) s += _mm_cvtss_f32(x[j]);
    return s;
}

static bool has_avx512(void) { return __builtin_cpu_supports("avx512f"); }
static bool has_avx2(void) { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }

/* ---- dot-product loops ----------------------------------------------------------
 * vdpbf16ps and vpdpbusd have a latency of 4-6 cycles and issue on up to two ports, so
 * 16 chains (zmm, 32 registers) and 12 (ymm, 16 registers, 2 holding the operands)
 * cover them as for FMA. */
#define CHAINS_DOT512 16
#define CHAINS_DOT256 12

__attribute__((target("avx512f,avx512bf16"))) static float dot_bf16_512(long iters, float m, float a)
{
    __m512 x[CHAINS_DOT512];
    __m512bh A = (__m512bh)_mm512_set1_epi16((short)hr_f32_to_bf16(m));
    __m512bh B = (__m512bh)_mm512_set1_epi16((short)hr_f32_to_bf16(a));
#pragma GCC unroll 16
    for (int j = 0; j < CHAINS_DOT512; j++) x[j] = _mm512_set1_ps(1.0f + 0.01f * (float)j);
    for (long i = 0; i < iters; i++) {
#pragma GCC unroll 16
        for (int j = 0; j < CHAINS_DOT512; j++) x[j] = _mm512_dpbf16_ps(x[j], A, B);
    }
#pragma GCC unroll 16
    for (int j = 1; j < CHAINS_DOT512; j++) x[0] = _mm512_add_ps(x[0], x[j]);
    return _mm512_reduce_add_ps(x[0]);
}

/* The chains' int32 lanes summed in double (they wrap; the sum must not overflow too). */
static float sum_i32(const int32_t *v, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) s += v[i];
    return (float)s;
}

__attribute__((target("avx512f,avx512vnni"))) static float dot_vnni_512(long iters, float m, float a)
{
    __m512i x[CHAINS_DOT512];
    __m512i U = _mm512_set1_epi8((char)(1 + lrintf(4 * a))), S = _mm512_set1_epi8((char)lrintf(4 * m));
#pragma GCC unroll 16
    for (int j = 0; j < CHAINS_DOT512; j++) x[j] = _mm512_set1_epi32(j);
    for (long i = 0; i < iters; i++) {
#pragma GCC unroll 16
        for (int j = 0; j < CHAINS_DOT512; j++) x[j] = _mm512_dpbusd_epi32(x[j], U, S);
    }
    int32_t out[CHAINS_DOT512 * 16];
#pragma GCC unroll 16 /* else GCC copies and stores the chains inside the loop */
    for (int j = 0; j < CHAINS_DOT512; j++) _mm512_storeu_si512((void *)(out + 16 * j), x[j]);
    return sum_i32(out, CHAINS_DOT512 * 16);
}

__attribute__((target("avx2,avxvnni"))) static float dot_vnni_256(long iters, float m, float a)
{
    __m256i x[CHAINS_DOT256];
    __m256i U = _mm256_set1_epi8((char)(1 + lrintf(4 * a))), S = _mm256_set1_epi8((char)lrintf(4 * m));
#pragma GCC unroll 16
    for (int j = 0; j < CHAINS_DOT256; j++) x[j] = _mm256_set1_epi32(j);
    for (long i = 0; i < iters; i++) {
#pragma GCC unroll 16
        for (int j = 0; j < CHAINS_DOT256; j++) x[j] = _mm256_dpbusd_avx_epi32(x[j], U, S);
    }
    int32_t out[CHAINS_DOT256 * 8];
#pragma GCC unroll 16 /* else GCC copies and stores the chains inside the loop */
    for (int j = 0; j < CHAINS_DOT256; j++) _mm256_storeu_si256((void *)(out + 8 * j), x[j]);
    return sum_i32(out, CHAINS_DOT256 * 8);
}

/* AVX2 without VNNI (decode_i8.c's decode_i8e copy): vpmaddubsw (u8 x s8 pairs into int16) + vpmaddwd by
 * ones (pairs of int16 into int32) + vpaddd into the chain, 32 multiply-adds per three
 * instructions. Spelled in asm: from intrinsics the compiler would hoist the loop-invariant
 * products out of the loop (U and S are the same every iteration); here each chain issues
 * the three instructions every iteration, its accumulator the only dependence (one
 * vpaddd a step). The chain count still sets the rate: 12 chains, all 16 registers with
 * U, S, the ones and the product, reach one triple a cycle; fewer chains, or S and the
 * ones as memory operands, do not (perf-log 0241). */
#define CHAINS_MADDUBS 12
__attribute__((target("avx2"))) static float dot_maddubs_256(long iters, float m, float a)
{
    __m256i x[CHAINS_MADDUBS];
    __m256i U = _mm256_set1_epi8((char)(1 + lrintf(4 * a))), S = _mm256_set1_epi8((char)lrintf(4 * m)),
            one = _mm256_set1_epi16(1);
#pragma GCC unroll 16
    for (int j = 0; j < CHAINS_MADDUBS; j++) x[j] = _mm256_set1_epi32(j);
    for (long i = 0; i < iters; i++) {
#pragma GCC unroll 16
        for (int j = 0; j < CHAINS_MADDUBS; j++) {
            __m256i t;
            __asm__("vpmaddubsw %[s], %[u], %[t]\n\tvpmaddwd %[one], %[t], %[t]\n\tvpaddd %[t], %[x], %[x]"
                    : [t] "=&x"(t), [x] "+x"(x[j])
                    : [u] "x"(U), [s] "x"(S), [one] "x"(one));
        }
    }
    int32_t out[CHAINS_MADDUBS * 8];
#pragma GCC unroll 16 /* else x lives in memory, the loop's chains with it */
    for (int j = 0; j < CHAINS_MADDUBS; j++) _mm256_storeu_si256((void *)(out + 8 * j), x[j]);
    return sum_i32(out, CHAINS_MADDUBS * 8);
}

#if defined(HR_AMX_OS)
/* tdpbf16ps into 4 accumulator tiles (0-3) from two A tiles (4, 7: every element bf16(m))
 * and two B tiles (5, 6: bf16(a)), 2 x 2 as a kernel's tile block would be: one
 * tdpbf16ps issues every 16 cycles per core and its latency is longer, so 4 independent
 * accumulators keep the unit busy (measured: 3.2 TFLOP/s per core on the dev machine).
 * Each element of C adds 32 m a per instruction. Config loaded and released per call:
 * the roofline runs every loop on its own OpenMP threads, each needs its own. */
__attribute__((target("amx-tile,amx-bf16"))) static float dot_amx(long iters, float m, float a)
{
    hr_amx_cfg cfg;
    hr_amx_cfg_init(&cfg);
    for (int t = 0; t < 8; t++) hr_amx_cfg_tile(&cfg, t, 16, 64);
    uint16_t A[16 * 32], B[16 * 32];
    const uint16_t am = hr_f32_to_bf16(m), ba = hr_f32_to_bf16(a);
    for (int i = 0; i < 16 * 32; i++) A[i] = am, B[i] = ba;
    float out[4][16 * 16];
    hr_amx_load(&cfg);
    _tile_loadd(4, A, 64);
    _tile_loadd(7, A, 64);
    _tile_loadd(5, B, 64);
    _tile_loadd(6, B, 64);
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    for (long i = 0; i < iters; i++) {
        _tile_dpbf16ps(0, 4, 5);
        _tile_dpbf16ps(1, 4, 6);
        _tile_dpbf16ps(2, 7, 5);
        _tile_dpbf16ps(3, 7, 6);
    }
    _tile_stored(0, out[0], 64);
    _tile_stored(1, out[1], 64);
    _tile_stored(2, out[2], 64);
    _tile_stored(3, out[3], 64);
    hr_amx_release();
    double s = 0;
    for (int t = 0; t < 4; t++)
        for (int i = 0; i < 16 * 16; i++) s += out[t][i];
    return (float)s;
}
static bool has_amx(void) { return hr_amx_why_not() == NULL; }
#else
#define dot_amx NULL
static bool has_amx(void) { return false; }
#endif

/* CPUID.(leaf, sub).reg[bit]; false when the leaf is beyond the CPU's maximum. */
static bool cpuid_bit(unsigned leaf, unsigned sub, int reg, int bit)
{
    unsigned r[4];
    if (!__get_cpuid_count(leaf, sub, &r[0], &r[1], &r[2], &r[3])) return false;
    return (r[reg] >> bit) & 1;
}
enum { EAX, EBX, ECX, EDX };
/* The OS check (XCR0 saves the state) comes with avx512f / avx2 in __builtin_cpu_supports;
 * the newer bits are read from cpuid, which every compiler here has. */
static bool has_bf16_512(void) { return has_avx512() && cpuid_bit(7, 1, EAX, 5); }
static bool has_vnni_512(void) { return has_avx512() && cpuid_bit(7, 0, ECX, 11); }
static bool has_avx_vnni(void) { return has_avx2() && cpuid_bit(7, 1, EAX, 4); }
#else
/* Not x86: one portable scalar loop (the compiler may vectorize or contract it; it is
 * only a fallback). */
static float fma_scalar(long iters, float m, float a)
{
    float x[CHAINS_1];
    for (int j = 0; j < CHAINS_1; j++) x[j] = 1.0f + 0.01f * (float)j;
    for (long i = 0; i < iters; i++)
        for (int j = 0; j < CHAINS_1; j++) x[j] = x[j] * m + a;
    float s = 0;
    for (int j = 0; j < CHAINS_1; j++) s += x[j];
    return s;
}
static bool has_avx512(void) { return false; }
static bool has_avx2(void) { return false; }
static bool has_bf16_512(void) { return false; }
static bool has_vnni_512(void) { return false; }
static bool has_avx_vnni(void) { return false; }
#define fma_avx512 NULL
#define fma_avx2 NULL
#define fma_sse2 NULL
#define dot_bf16_512 NULL
#define dot_vnni_512 NULL
#define dot_vnni_256 NULL
#define dot_maddubs_256 NULL
#define CHAINS_MADDUBS 12
#define CHAINS_DOT512 16
#define CHAINS_DOT256 12
#endif

static bool has_sse2(void) { return HR_X86; }
static bool has_scalar(void) { return true; }

const hr_roof_loop hr_fma_loops[HR_FMA_NISA] = {
    [HR_FMA_AVX512] = {"avx512", CHAINS_512, 16, CHAINS_512 * 16 * 2, has_avx512, fma_avx512, 16},
    [HR_FMA_AVX2] = {"avx2", CHAINS_256, 8, CHAINS_256 * 8 * 2, has_avx2, fma_avx2, 8},
    [HR_FMA_SSE2] = {"sse2", CHAINS_128, 4, CHAINS_128 * 4 * 2, has_sse2, fma_sse2, 4},
    [HR_FMA_SCALAR] = {"scalar", CHAINS_1, 1, CHAINS_1 * 2, has_scalar, fma_scalar, 1},
};

/* vdpbf16ps zmm: 16 fp32 lanes, 2 bf16 pairs each = 32 multiply-adds = 64 FLOPs;
 * vpdpbusd zmm: 16 int32 lanes, 4 u8 x s8 each = 64 multiply-adds = 128 ops; ymm half. */
const hr_roof_loop hr_dot_loops[HR_DOT_N] = {
    [HR_DOT_BF16] = {"avx512_bf16", CHAINS_DOT512, 16, CHAINS_DOT512 * 32 * 2, has_bf16_512, dot_bf16_512, 32},
    [HR_DOT_VNNI512] = {"avx512_vnni", CHAINS_DOT512, 16, CHAINS_DOT512 * 64 * 2, has_vnni_512, dot_vnni_512, 64},
    [HR_DOT_AVXVNNI] = {"avx_vnni", CHAINS_DOT256, 8, CHAINS_DOT256 * 32 * 2, has_avx_vnni, dot_vnni_256, 32},
    /* AMX tiles: tdpbf16ps, 16 rows x 16 columns x 32 bf16 = 8192 multiply-adds per
     * instruction (16384 FLOPs); 4 accumulator tiles of 256 fp32 lanes. */
    [HR_DOT_AMX] = {"amx_bf16", 4, 256, 4 * 16 * 16 * 32 * 2, has_amx, dot_amx, 16 * 16 * 32},
    /* three instructions per chain and iteration: 32 multiply-adds */
    [HR_DOT_MADDUBS] = {"avx2_maddubs", CHAINS_MADDUBS, 8, CHAINS_MADDUBS * 32 * 2, has_avx2, dot_maddubs_256, 32},
};

const char *hr_dot_absent(int i)
{
    if (i < 0 || i >= HR_DOT_N) return "no such dot-product loop";
#if defined(HR_AMX_OS)
    if (i == HR_DOT_AMX) return hr_amx_why_not();
#else
    if (i == HR_DOT_AMX) return HR_X86 ? "AMX needs x86-64 Linux (arch_prctl) and a GCC-compatible compiler" : "not an x86 CPU";
#endif
    if (hr_dot_loops[i].run && hr_dot_loops[i].supported()) return NULL;
    static const char *const why[HR_DOT_N] = {
        [HR_DOT_BF16] = "the CPU has no AVX512-BF16 (cpuid; or the OS does not save AVX-512 state)",
        [HR_DOT_VNNI512] = "the CPU has no AVX512-VNNI (cpuid; or the OS does not save AVX-512 state)",
        [HR_DOT_AVXVNNI] = "the CPU has no AVX-VNNI (cpuid)",
        [HR_DOT_MADDUBS] = "the CPU has no AVX2 and FMA (cpuid; or the OS does not save AVX state)",
    };
    return HR_X86 ? why[i] : "not an x86 CPU";
}

const hr_roof_loop *hr_roof_loop_of(int roof)
{
    const hr_roof_loop *L = roof >= 0 && roof < HR_FMA_NISA ? &hr_fma_loops[roof]
                            : roof >= HR_ROOF_DOT && roof < HR_NROOFS ? &hr_dot_loops[roof - HR_ROOF_DOT]
                                                                       : NULL;
    return L && L->run && L->supported() ? L : NULL;
}

int hr_roof_of(const hr_kernel *k, const hr_problem *p, const char *isa)
{
    const int roof = hr_roof_for_path(k && p ? hr_kernel_path(k, p) : NULL, isa);
    /* A plugin's path names its library ("libtorch 2.15.0 sdpa flash_attention"), not an
     * instruction. On a bf16 problem (Q, K and V in bf16) the library may issue bf16 dot
     * products or AMX tiles, so its bound is the best bf16 roof this CPU runs: judged by
     * the FMA, PyTorch's bf16 SDPA read 54-69% of a roof that headroom's bf16 rows, judged
     * by the bf16 dot, read 78-87% of, while 2.4-2.9x faster. */
    if (k && p && k->plugin && roof < HR_FMA_NISA && p->dtype == HR_BF16 && p->kv_dtype == HR_BF16) {
        if (hr_roof_loop_of(HR_ROOF_DOT + HR_DOT_AMX)) return HR_ROOF_DOT + HR_DOT_AMX;
        if (hr_roof_loop_of(HR_ROOF_DOT + HR_DOT_BF16)) return HR_ROOF_DOT + HR_DOT_BF16;
    }
    return roof;
}

int hr_probe_roof(const hr_kernel *k, const hr_problem *p)
{
    const int roof = hr_roof_of(k, p, hr_isa);
    return hr_roof_loop_of(roof) ? roof : hr_fma_build_loop();
}

int hr_fma_build_loop(void)
{
    if (!strcmp(hr_isa, "avx512")) return HR_FMA_AVX512;
    if (!strcmp(hr_isa, "avx2")) return HR_FMA_AVX2;
    return HR_X86 ? HR_FMA_SSE2 : HR_FMA_SCALAR;
}

/* m and a are read from volatiles so the compiler cannot specialize the chains. */
static volatile float probe_m = 0.9999999f, probe_a = 1e-7f;
static volatile float probe_sink;

/* ---- the concurrent FMA probe -------------------------------------------------- */

#define PROBE_CHUNK 1024 /* iterations between clock reads: ~2-6 us */

double hr_probe_run(int threads, double seconds, double *per_thread)
{
    return hr_probe_run_loop(&hr_fma_loops[hr_fma_build_loop()], threads, seconds, per_thread);
}

double hr_probe_run_loop(const hr_roof_loop *L, int threads, double seconds, double *per_thread)
{
    float m = probe_m, a = probe_a, sink = 0;
    double min_rate = HUGE_VAL;
    if (threads < 1) threads = 1;
    if (per_thread)
        for (int i = 0; i < threads; i++) per_thread[i] = 0; /* threads OpenMP withheld */
#pragma omp parallel num_threads(threads) reduction(+ : sink) reduction(min : min_rate)
    {
        long chunks = 0;
#pragma omp barrier
        double t0 = hr_now(), t;
        do {
            sink += L->run(PROBE_CHUNK, m, a);
            chunks++;
        } while ((t = hr_now()) - t0 < seconds);
        double rate = (double)chunks * PROBE_CHUNK * L->flops_per_iter / fmax(t - t0, 1e-9) * 1e-9;
        if (per_thread) per_thread[omp_get_thread_num()] = rate;
        min_rate = rate;
    }
    probe_sink = sink;
    return min_rate;
}

/* ---- the bandwidth probe -------------------------------------------------------- */

/* Thread me's slice [*lo, *hi) of n elements, in whole cache lines. The same split is
 * used for the first touch, so on NUMA machines each slice lives near its thread. */
void hr_probe_slice(size_t n, int me, int nt, size_t *lo, size_t *hi)
{
    size_t lines = n / 16;
    *lo = lines * (size_t)me / (size_t)nt * 16;
    *hi = me == nt - 1 ? n : lines * (size_t)(me + 1) / (size_t)nt * 16;
}

size_t hr_probe_buf_default_bytes(void)
{
    const hr_sysinfo *si = hr_sysinfo_get();
    size_t l2 = si->l2 ? si->l2 : (size_t)1 << 20;
    size_t bytes = 8 * l2 * (size_t)(si->cpus > 0 ? si->cpus : 1);
    return bytes < ((size_t)16 << 20) ? (size_t)16 << 20 : bytes;
}

int hr_probe_buf_alloc(hr_probe_buf *pb, size_t bytes, int threads)
{
    memset(pb, 0, sizeof *pb);
    size_t n = bytes / (3 * sizeof(float)) / 16 * 16;
    if (n < 16) return hr_fail("probe buffer of %zu bytes is too small", bytes);
    pb->a = hr_alloc(n * sizeof(float));
    pb->b = hr_alloc(n * sizeof(float));
    pb->c = hr_alloc(n * sizeof(float));
    pb->pos = calloc(HR_PROBE_MAX_THREADS, sizeof *pb->pos);
    if (!pb->a || !pb->b || !pb->c || !pb->pos) {
        hr_probe_buf_free(pb);
        return hr_fail("cannot allocate %.1f MiB for the bandwidth probe", bytes / 1048576.0);
    }
    pb->n = n;
    if (threads < 1) threads = 1;
#pragma omp parallel num_threads(threads)
    {
        size_t lo, hi;
        hr_probe_slice(n, omp_get_thread_num(), omp_get_num_threads(), &lo, &hi);
        for (size_t i = lo; i < hi; i++) {
            pb->a[i] = 0.0f;
            pb->b[i] = 1.0f;
            pb->c[i] = 2.0f;
        }
    }
    return HR_OK;
}

void hr_probe_buf_free(hr_probe_buf *pb)
{
    free(pb->a);
    free(pb->b);
    free(pb->c);
    free(pb->pos);
    memset(pb, 0, sizeof *pb);
}

static volatile float triad_scale = 3.0f;

double hr_probe_bw(int threads, const hr_probe_buf *pb, double seconds, double *per_thread)
{
    double total = 0;
    float s = triad_scale;
    if (threads < 1) threads = 1;
    if (threads > HR_PROBE_MAX_THREADS) threads = HR_PROBE_MAX_THREADS;
    if (per_thread)
        for (int i = 0; i < threads; i++) per_thread[i] = 0;
    /* 64 KiB chunks of each array: a clock read every ~10 us of streaming. */
    const size_t chunk = 16384;
#pragma omp parallel num_threads(threads) reduction(+ : total)
    {
        const int me = omp_get_thread_num();
        size_t lo, hi;
        hr_probe_slice(pb->n, me, omp_get_num_threads(), &lo, &hi);
        size_t at = pb->pos[me], done = 0;
        if (at < lo || at >= hi) at = lo; /* first probe, or the team size changed */
#pragma omp barrier
        double t0 = hr_now(), t;
        do {
            size_t end = hi - at < chunk ? hi : at + chunk;
            hr_triad(pb->a, pb->b, pb->c, s, at, end);
            done += end - at;
            at = end == hi ? lo : end;
        } while (hi > lo && (t = hr_now()) - t0 < seconds);
        if (hi <= lo) t = hr_now();
        pb->pos[me] = at;
        double rate = (double)done * 3 * sizeof(float) / fmax(t - t0, 1e-9) * 1e-9;
        if (per_thread) per_thread[me] = rate;
        total = rate;
    }
    return total;
}

/* ---- timer hooks ----------------------------------------------------------------- */

static void probe_log(hr_probe_log *log, double *slot, int rep)
{
    if (rep < 0 || rep >= HR_MAX_REPS) return;
    double sec = log->seconds > 0 ? log->seconds : 0.002;
    int t = log->threads > 0 ? log->threads : 1;
    slot[rep] = t * hr_probe_run(t, sec, NULL);
    if (rep + 1 > log->n) log->n = rep + 1;
}

void hr_probe_before_rep(void *log, int rep)
{
    hr_probe_log *l = log;
    probe_log(l, l->before, rep);
}

void hr_probe_after_rep(void *log, int rep)
{
    hr_probe_log *l = log;
    probe_log(l, l->after, rep);
}
