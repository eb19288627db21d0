/* vec_amx.h — the vector layer's AMX part: the CPU and OS checks, the tile-data permission, tile configurations. */
#ifndef HR_VEC_AMX_H
#define HR_VEC_AMX_H

/* AMX (Advanced Matrix Extensions, Sapphire Rapids on) adds 8 tile registers of up to 16
 * rows x 64 bytes and tdpbf16ps: C[16][16] fp32 += A[16][32] bf16 . B, B in the "VNNI"
 * layout (row k holds the 16 columns' pairs (B[2k][n], B[2k+1][n]), 64 bytes), i.e.
 * 16 x 16 x 32 = 8192 multiply-adds per instruction. Intel's definition (SDM vol. 2,
 * TDPBF16PS): products in fp32, accumulated with FMA semantics in round-to-nearest-even,
 * denormal inputs treated as zero, denormal results flushed; MXCSR is not consulted.
 *
 * Using it takes three things before the first tile instruction:
 *   the CPU   CPUID.(7,0):EDX bit 22 AMX-BF16 and bit 24 AMX-TILE (hr_amx_cpu);
 *   the OS    Linux 5.16+ keeps the 8 KiB tile data out of a thread's state until the
 *             process asks: arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA); after it
 *             XCR0 bits 17 (XTILECFG) and 18 (XTILEDATA) say the state is enabled
 *             (hr_amx_why_not: asks once, caches the answer, thread-safe, and gives the
 *             reason when refused);
 *   a config  each thread loads a tile configuration (ldtilecfg: palette 1, rows and
 *             bytes per row of every tile) before its tile instructions and releases the
 *             state after (tilerelease), so the kernel does not keep saving 8 KiB per
 *             context switch for it (hr_amx_cfg_*, hr_amx_load, hr_amx_release).
 * The permission is per process; the request is idempotent, so each file that includes
 * this header caches its own answer (one arch_prctl per including file, not per call).
 *
 *   HR_AMX_OS        defined on x86-64 Linux with GCC/Clang: hr_amx_cpu, hr_amx_why_not
 *                    and the tile helpers (target attributes, any -march) exist;
 *                    harness/measure/probe.c's AMX roof loop uses them in every build.
 *   HR_HAVE_AMX      defined where also vec.h is the AVX-512 level (HR_VEC_AVX512): only
 *                    that level's kernels compile an AMX path (flash_amx.c), so the
 *                    generic and avx2 levels, `--isa avx2` included, never run AMX, as
 *                    vec_bf16.h does for vdpbf16ps.
 *   hr_amx_cfg       the 64-byte tile configuration; hr_amx_cfg_tile(c, t, rows, bytes)
 *                    sets tile t's shape (hr_amx_cfg_all: every tile 16 x 64 bytes);
 *                    hr_amx_load(c) ldtilecfg; hr_amx_release() tilerelease
 *   hr_amx_block32   C[32][32] (+)= sum of A[32][32] . B[32][32] bf16 steps: 2 x 2 tiles
 * Tile numbers of the intrinsics (_tile_loadd, _tile_dpbf16ps, _tile_stored, _tile_zero)
 * are compile-time constants; kernels use them through HR_AMX_TARGET functions here. */

#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__)
#define HR_AMX_OS 1

#include <cpuid.h>
#include <immintrin.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#define HR_AMX_TARGET __attribute__((target("amx-tile,amx-bf16")))
#define HR_AMX_INLINE static inline __attribute__((always_inline)) HR_AMX_TARGET

enum { HR_ARCH_REQ_XCOMP_PERM = 0x1023, HR_XFEATURE_XTILEDATA = 18 };

/* CPUID.(7,0):EDX bits 22 (AMX-BF16) and 24 (AMX-TILE). */
static inline int hr_amx_cpu(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    return (d >> 22 & 1) && (d >> 24 & 1);
}

/* XCR0 bits 17-18 (tile config and data state enabled); 0 without OSXSAVE. */
static inline int hr_amx_xcr0(void)
{
    unsigned a, b, c, d, lo, hi;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c >> 27 & 1)) return 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (lo >> 17 & 3) == 3;
}

static const char *hr_amx_answer_;
static void hr_amx_ask_(void)
{
    if (!hr_amx_cpu()) {
        hr_amx_answer_ = "the CPU has no AMX-BF16/AMX-TILE (cpuid)";
        return;
    }
    if (syscall(SYS_arch_prctl, HR_ARCH_REQ_XCOMP_PERM, HR_XFEATURE_XTILEDATA) != 0) {
        hr_amx_answer_ = "the OS refused AMX tile data (arch_prctl(ARCH_REQ_XCOMP_PERM) failed: "
                         "Linux before 5.16, or a seccomp/VM policy)";
        return;
    }
    if (!hr_amx_xcr0()) {
        hr_amx_answer_ = "the OS does not enable AMX tile state (XCR0 bits 17-18 clear)";
        return;
    }
    hr_amx_answer_ = NULL;
}
/* NULL when this process may run tile instructions (asked once, thread-safe); else why not. */
static inline const char *hr_amx_why_not(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, hr_amx_ask_);
    return hr_amx_answer_;
}

/* ldtilecfg's 64-byte operand, palette 1. */
typedef struct {
    uint8_t palette, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
} hr_amx_cfg;

static inline void hr_amx_cfg_init(hr_amx_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->palette = 1;
}
static inline void hr_amx_cfg_tile(hr_amx_cfg *c, int t, int rows, int bytes)
{
    c->rows[t] = (uint8_t)rows;
    c->colsb[t] = (uint16_t)bytes;
}
/* The barrier makes the configuration's stores happen first: GCC 12 does not see
 * ldtilecfg read its operand, and in a small function that built a configuration and
 * loaded it (a decode step tried and not kept: perf-log 0230) it dropped the rows and
 * bytes per row, so the next tile instruction raised SIGILL. flash_amx.c's happened to
 * keep them. */
HR_AMX_INLINE void hr_amx_load(const hr_amx_cfg *c)
{
    __asm__ volatile("" : : "r"(c) : "memory");
    _tile_loadconfig(c);
}
HR_AMX_INLINE void hr_amx_release(void) { _tile_release(); }

/* The 2 x 2 tile block every AMX product here is made of: C[32][32] fp32 (tiles 0-3,
 * c with rows ldc bytes apart) = (zero ? 0 : C) + sum over s < steps of A_s . B_s, where
 * A_s is 32 rows x 32 bf16 (tiles 4, 5: a + s*astep, rows lda bytes apart) and B_s the
 * VNNI-layout 16 pair rows x 32 columns (tiles 6, 7: b + s*bstep and 64 bytes on, rows
 * ldb bytes apart). Per step 4 tile loads for 4 tdpbf16ps; C loaded (unless zero) and
 * stored once. Needs a configuration with tiles 0-7 at 16 rows x 64 bytes (hr_amx_cfg_all). */
HR_AMX_INLINE void hr_amx_block32(int zero, int steps, const char *a, size_t lda, size_t astep,
                                  const char *b, size_t ldb, size_t bstep, float *c, size_t ldc)
{
    char *cb = (char *)c;
    if (zero) {
        _tile_zero(0);
        _tile_zero(1);
        _tile_zero(2);
        _tile_zero(3);
    } else {
        _tile_loadd(0, cb, ldc);
        _tile_loadd(1, cb + 64, ldc);
        _tile_loadd(2, cb + 16 * ldc, ldc);
        _tile_loadd(3, cb + 16 * ldc + 64, ldc);
    }
    for (int s = 0; s < steps; s++) {
        const char *as = a + s * astep, *bs = b + s * bstep;
        _tile_loadd(4, as, lda);
        _tile_loadd(6, bs, ldb);
        _tile_loadd(5, as + 16 * lda, lda);
        _tile_loadd(7, bs + 64, ldb);
        _tile_dpbf16ps(0, 4, 6);
        _tile_dpbf16ps(1, 4, 7);
        _tile_dpbf16ps(2, 5, 6);
        _tile_dpbf16ps(3, 5, 7);
    }
    _tile_stored(0, cb, ldc);
    _tile_stored(1, cb + 64, ldc);
    _tile_stored(2, cb + 16 * ldc, ldc);
    _tile_stored(3, cb + 16 * ldc + 64, ldc);
}
/* All 8 tiles 16 rows x 64 bytes. */
static inline void hr_amx_cfg_all(hr_amx_cfg *c)
{
    hr_amx_cfg_init(c);
    for (int t = 0; t < 8; t++) hr_amx_cfg_tile(c, t, 16, 64);
}

#if defined(HR_VEC_AVX512)
#define HR_HAVE_AMX 1
#endif
#endif

#endif
