/* ceilings.h — a machine's measured ceilings (FMA peak per ISA, triad bandwidth, exp rate per thread count), the ceilings file and look-ups. */
#ifndef HR_CEILINGS_H
#define HR_CEILINGS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

/* FMA ceilings are measured for every vector ISA the CPU has, whatever the build:
 *   avx512  zmm FMA (16 independent chains)        run when the CPU has avx512f
 *   avx2    ymm FMA (12 chains)                     run when the CPU has avx2 and fma
 *   sse2    xmm mulps + addps (12 chains)           baseline x86-64: what a generic
 *           build's vectorized loops issue (x86-64 has no FMA)
 *   scalar  one lane, mulss + addss (12 chains)     non-vectorized ISO C (-std=c11 does
 *           not contract a*b+c into an FMA)
 * A build's ceiling is the figure of its hr_isa: "avx512", "avx2", "generic" -> "sse2". */
enum { HR_FMA_AVX512 = 0, HR_FMA_AVX2, HR_FMA_SSE2, HR_FMA_SCALAR, HR_FMA_NISA };
extern const char *const hr_fma_isa_names[]; /* "avx512", "avx2", "sse2", "scalar", NULL */

#define HR_ROOF_MAX_ROWS 64

/* One figure over repetitions: best is the ceiling, median and worst show the noise.
 * All zero when not measured. */
typedef struct {
    double best, median, worst;
} hr_roof_stat;

/* The ceilings at one thread count. Rates: GFLOP/s, GB/s (1e9 bytes), Gelem/s. */
typedef struct {
    int threads;
    hr_roof_stat fma[HR_FMA_NISA]; /* best == 0: the CPU lacks the ISA        */
    hr_roof_stat triad;            /* STREAM counting: 12 bytes per element    */
    hr_roof_stat exp;              /* hr_vexp elements per second; 0: absent   */
} hr_ceiling_row;

/* A machine's ceilings, as measured by hr_roofline_measure or read from a file. Rows are
 * in increasing thread order, without duplicates. */
typedef struct {
    int nrows;
    hr_ceiling_row rows[HR_ROOF_MAX_ROWS];
    bool quick;           /* measured with --quick: tiny sizes, not real ceilings    */
    int reps;             /* repetitions per figure                                 */
    double min_rep_time;  /* seconds, lower bound of one repetition                 */
    double triad_bytes;   /* bytes of the three triad arrays together               */
    char machine[96];     /* context.machine of the file                            */
    char path[512];       /* the file read ("" when measured)                       */
} hr_ceilings;

/* The ceilings as a JSON document: {"context", "headroom_ceilings": 1, ..., "ceilings":
 * [{"threads", "fma_gflops": {isa: best}, "fma_gflops_median", "fma_gflops_worst",
 * "triad_gbs", "triad_gbs_median", "triad_gbs_worst", "triad_wa_gbs", "exp_gelems", ...}]}.
 * Caller owns it. */
cJSON *hr_ceilings_json(const hr_ceilings *c);
/* Writes the ceilings atomically to path (directories created). */
int hr_ceilings_save(const hr_ceilings *c, const char *path);
/* Reads a ceilings file. On error (missing, unreadable, malformed) returns HR_EUSAGE with
 * a one-line message naming the file; *c is then empty. */
int hr_ceilings_load(const char *path, hr_ceilings *c);
/* "results/<machine>/ceilings.json" for this machine (hr_sysinfo_get()->machine). */
void hr_ceilings_default_path(char *buf, size_t len);

/* The measured thread count used for a row run with `threads` threads: the nearest
 * measured count, the lower one on a tie (a ceiling is never extrapolated). 0 when c has
 * no rows. */
int hr_ceiling_threads(const hr_ceilings *c, int threads);
/* Best FP32 GFLOP/s at the thread count hr_ceiling_threads picks, for isa (a name of
 * hr_fma_isa_names or an hr_isa value; "generic" reads "sse2"). 0 if not measured. */
double hr_ceiling_fma(const hr_ceilings *c, int threads, const char *isa);
/* Best triad GB/s (STREAM counting) at the thread count hr_ceiling_threads picks. */
double hr_ceiling_bw(const hr_ceilings *c, int threads);

#endif
