/* ceilings.h — a machine's measured ceilings (FMA peak per ISA, bf16 and int8 dot-product peaks, triad bandwidth, exp rate, softmax steps per thread count), the ceilings file and look-ups. */
#ifndef HR_CEILINGS_H
#define HR_CEILINGS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "headroom.h"

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

/* Dot-product ceilings of the reduced types, measured beside the FMA ones where the CPU
 * has the instruction (chosen at run time; a build for any ISA measures them):
 *   avx512_bf16  vdpbf16ps zmm: 32 bf16 multiply-adds into fp32 = 64 FLOPs   AVX512-BF16
 *   avx512_vnni  vpdpbusd zmm: 64 u8 x s8 multiply-adds into int32 = 128 ops  AVX512-VNNI
 *   avx_vnni     vpdpbusd ymm (VEX): 32 multiply-adds = 64 ops                 AVX-VNNI
 *   amx_bf16     tdpbf16ps tiles: 16 x 16 x 32 bf16 multiply-adds into fp32 = 16384
 *                FLOPs; AMX-BF16 + AMX-TILE and the OS's grant of the tile state
 *                (vec_amx.h), else absent with which of the two is missing
 *   avx2_maddubs vpmaddubsw + vpmaddwd (by ones) + vpaddd ymm: 32 u8 x s8         AVX2
 *                multiply-adds into int32 = 64 ops per three instructions: the int8
 *                step of AVX2 CPUs without VNNI (decode_i8.c's decode_i8e copy)
 * Counting is FMA's: 2 operations per multiply-add. bf16 figures are GFLOP/s, int8 ones
 * GOP/s (integer operations). */
enum { HR_DOT_BF16 = 0, HR_DOT_VNNI512, HR_DOT_AVXVNNI, HR_DOT_AMX, HR_DOT_MADDUBS, HR_DOT_N };
typedef struct {
    const char *name;        /* "avx512_bf16", "avx512_vnni", "avx_vnni", "amx_bf16",
                              * "avx2_maddubs"                                          */
    const char *key;         /* its figures in the file: "bf16_gflops" or "int8_gops" */
    const char *unit;        /* "GFLOP/s" or "GOP/s"                                   */
    const char *instruction; /* "vdpbf16ps zmm: 32 bf16 multiply-adds = 64 FLOPs", ... */
    int series_fma;          /* the FMA of its vector width (HR_FMA_*), which its series
                              * roof pairs it with; -1: no series roof (AMX)            */
    const char *series;      /* that series roof's name, "avx512_vnni+avx512"; NULL     */
} hr_dot_info;
extern const hr_dot_info hr_dots[HR_DOT_N];

/* A compute roof: an FMA ISA (0 .. HR_FMA_NISA-1) or a dot loop (HR_ROOF_DOT + HR_DOT_*). */
#define HR_ROOF_DOT HR_FMA_NISA
#define HR_NROOFS (HR_FMA_NISA + HR_DOT_N)
/* A dot loop in series with the FMA of its own width, hr_dots[].series_fma
 * (HR_ROOF_SERIES + HR_DOT_VNNI512: avx512_vnni then avx512's FMA; + HR_DOT_AVXVNNI and
 * + HR_DOT_MADDUBS: with avx2's; + HR_DOT_BF16: with avx512's; AMX has none): a path whose multiply-adds are half dots and half fp32
 * FMAs, one after the other (decode's int8 path: Q·Kᵀ by vpdpbusd, P·V by FMA, R·d of
 * each per key; its bf16 path: Q·Kᵀ by FMA, P·V by vdpbf16ps). Its rate is
 * 2 / (1/dot + 1/fma): each half at its own roof. Not a loop of its own (no probe). */
#define HR_ROOF_SERIES 64

#define HR_ROOF_MAX_ROWS 64

/* Softmax ceilings (ceilings_softmax.c): the rate of each kernel family's own
 * online-softmax step (cpu/roofloops.c's hr_softmax_sweep_lv, the kernels' inline code),
 * in scores per second (Gscores/s of the team), per ISA level and element-type path:
 *   flash_avx512 / _avx2 / _generic    flash and gqa's fp32 step at that level
 *   decode_avx512 / _avx2 / _generic   decode's fp32 block step at that level
 *   bf16dot                            flash's bf16dot path (exp, bf16 rounding of P)
 *   amx                                flash's amx path (its block softmax's exp pass)
 *   avx512_fp16                        no kernel path runs it: always absent
 * A figure is absent where the binary lacks the level or the CPU the ISA (why in
 * softmax_absent). */
enum {
    HR_SMX_FLASH_AVX512 = 0, HR_SMX_FLASH_AVX2, HR_SMX_FLASH_GENERIC, HR_SMX_DECODE_AVX512,
    HR_SMX_DECODE_AVX2, HR_SMX_DECODE_GENERIC, HR_SMX_BF16DOT, HR_SMX_AMX, HR_SMX_F16, HR_SMX_N
};
typedef struct {
    const char *name;  /* "flash_avx512", ... */
    const char *level; /* the ISA level whose code runs it ("avx512", "avx2", "generic") */
    int step;          /* HR_SMS_* of isa.h; -1: no kernel has the step              */
    const char *code;  /* the step, as the file says it                               */
} hr_softmax_info;
extern const hr_softmax_info hr_softmaxes[HR_SMX_N];


/* One figure over repetitions: best is the ceiling, median and worst show the noise.
 * All zero when not measured. */
typedef struct {
    double best, median, worst;
} hr_roof_stat;

/* Cache-level roofs: bandwidth with each thread's working set sized to sit in one cache
 * level (half of L1d, half of L2, half of L3 over the team's threads sharing one L3), by
 * two loops: load (a read-only vector sum, 4 bytes per element) and triad (a = b + s*c
 * over three arrays together of the working set, STREAM counting: 12 bytes per element).
 * GB/s of the whole team. Absent (0) in files from before them. */
enum { HR_CACHE_L1 = 0, HR_CACHE_L2, HR_CACHE_L3, HR_CACHE_N };
extern const char *const hr_cache_names[]; /* "L1", "L2", "L3", NULL */
typedef struct {
    double ws_bytes;     /* working set per thread; 0: not measured (an old file) */
    hr_roof_stat load;   /* read-only sum, GB/s                                   */
    hr_roof_stat triad;  /* a = b + s*c, GB/s (12 bytes per element)              */
} hr_cache_roof;

/* The bandwidth curve: load and triad GB/s of the team over working sets (the team's
 * bytes, split evenly over its threads) from 4 KiB a thread to four times the reported
 * last level, in geometric steps (roofline_curve.c). */
#define HR_CURVE_MAX 96
typedef struct {
    double ws_bytes;     /* the team's working set                                 */
    double load, triad;  /* best GB/s over the repetitions                          */
} hr_curve_point;

/* A cache level read off the curve (hr_curve_levels of cachecurve.h, on the triad): its
 * size is the team's working set at the knee after it; load and triad are the best GB/s
 * of its flat part. */
typedef struct {
    double size, load, triad;
} hr_level;

/* The ceilings at one thread count. Rates: GFLOP/s, GB/s (1e9 bytes), Gelem/s. */
typedef struct {
    int threads;
    hr_roof_stat fma[HR_FMA_NISA]; /* best == 0: the CPU lacks the ISA        */
    hr_roof_stat dot[HR_DOT_N];    /* best == 0: absent (see dot_absent)       */
    hr_roof_stat triad;            /* STREAM counting: 12 bytes per element    */
    hr_roof_stat load;             /* read-only sum over the triad's arrays (DRAM),
                                    * 4 bytes per element; 0: absent (an old file) */
    hr_roof_stat exp;              /* hr_vexp elements per second; 0: absent   */
    hr_roof_stat softmax[HR_SMX_N]; /* Gscores/s; best == 0: absent            */
    hr_cache_roof cache[HR_CACHE_N]; /* L1, L2, L3 roofs; ws_bytes 0: absent   */
    int ncurve;                    /* points of the curve; 0: none (an old file) */
    hr_curve_point curve[HR_CURVE_MAX];
    /* The cache levels the curve shows, smallest first, named L1, L2, L3 in that order;
     * 0 with a curve: it showed no knee (then the topology's levels are used). */
    int nlevels;
    hr_level levels[HR_CACHE_N];
    double beyond_gbs;             /* triad GB/s past the last knee; 0: none    */
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
    /* Why each dot roof is absent ("" when measured). A file from before the dot roofs
     * reads as all absent: "not in this ceilings file (...)". */
    char dot_absent[HR_DOT_N][192];
    /* Why each softmax ceiling is absent ("" when measured); softmax_in_file false: a file
     * from before the softmax ceilings (rows then get no attainable_path_gflops). */
    char softmax_absent[HR_SMX_N][160];
    bool softmax_in_file;
    /* One line on the measured levels: where the curve supports fewer than it seems to
     * (cachecurve.h's note) and where a measured size and the reported one disagree by
     * more than 2x; "" when neither. Also in the file's context warnings. */
    char level_note[480];
} hr_ceilings;

/* The ceilings as a JSON document: {"context", "headroom_ceilings": 1, ..., "dot_roofs":
 * {name: {"instruction", "counting", "measured": bool, "absent": why}}, "ceilings":
 * [{"threads", "fma_gflops": {isa: best}, "fma_gflops_median", "fma_gflops_worst",
 * "bf16_gflops": {dot: best}, "int8_gops": {dot: best} (each with _median, _worst; only
 * the measured dots), "triad_gbs", "triad_gbs_median", "triad_gbs_worst",
 * "triad_wa_gbs", "exp_gelems", "softmax_gscores" (ceilings_softmax.c), "cache_roofs": {"L1": {"working_set_bytes", "load_gbs",
 * "load_gbs_median", "load_gbs_worst", "triad_gbs", ...}, "L2", "L3"}, ...}]}. Files
 * without "cache_roofs" read with the cache roofs absent. Files without the dot keys (written before them)
 * still read: their dot roofs are absent. Caller owns it. */
cJSON *hr_ceilings_json(const hr_ceilings *c);
/* Writes the ceilings atomically to path (directories created). */
int hr_ceilings_save(const hr_ceilings *c, const char *path);
/* Reads a ceilings file. On error (missing, unreadable, malformed) returns HR_EUSAGE with
 * a one-line message naming the file; *c is then empty. */
int hr_ceilings_load(const char *path, hr_ceilings *c);
/* "results/<machine>/ceilings.json" for this machine (hr_sysinfo_get()->machine). */
void hr_ceilings_default_path(char *buf, size_t len);
/* The ceilings a command puts its GB/s beside (--ceilings): path, which must load
 * (HR_EUSAGE naming it otherwise), or with path NULL the default file where it exists
 * and reads (HR_OK either way). *have says whether c holds ceilings. */
int hr_ceilings_load_opt(const char *path, hr_ceilings *c, bool *have);

/* The measured thread count used for a row run with `threads` threads: the nearest
 * measured count, the lower one on a tie (a ceiling is never extrapolated). 0 when c has
 * no rows. */
int hr_ceiling_threads(const hr_ceilings *c, int threads);
/* Best FP32 GFLOP/s at the thread count hr_ceiling_threads picks, for isa (a name of
 * hr_fma_isa_names or an hr_isa value; "generic" reads "sse2"). 0 if not measured. */
double hr_ceiling_fma(const hr_ceilings *c, int threads, const char *isa);
/* Best triad GB/s (STREAM counting) at the thread count hr_ceiling_threads picks. */
double hr_ceiling_bw(const hr_ceilings *c, int threads);

/* Best cache-level triad GB/s of level (HR_CACHE_*) at the thread count
 * hr_ceiling_threads picks: the measured level's (its flat part on the curve) where the
 * row has measured levels, else the roof at half the reported size; level HR_CACHE_N is
 * DRAM (hr_ceiling_bw). 0 when absent (a level the curve did not show). */
double hr_ceiling_cache_bw(const hr_ceilings *c, int threads, int level);
/* Best read-only (load) GB/s of level as hr_ceiling_cache_bw picks its triad: the
 * measured level's, else the roof at half the reported size; DRAM the load over the
 * triad's arrays. 0 when absent (an old file, a level the curve did not show). */
double hr_ceiling_cache_load(const hr_ceilings *c, int threads, int level);
/* The cache level a working set of ws bytes (all threads together) fits, on this machine's
 * caches (hr_sysinfo): HR_CACHE_L1 when ws / threads <= L1d, L2 when <= L2, L3 when ws <=
 * the L3 the team shares (one instance per l3_shared threads), else HR_CACHE_N (DRAM). */
int hr_cache_level_of(double ws, int threads);
/* ---- the measured levels (ceilings_curve.c) ---------------------------------------- */

/* Whether the row hr_ceiling_threads picks has cache levels read off its curve. */
int hr_ceiling_levels_measured(const hr_ceilings *c, int threads);
/* The level of a working set of ws bytes (all threads together): the first measured
 * level (hr_ceiling_levels_measured) whose size holds it, else HR_CACHE_N (the memory
 * past the last knee); without measured levels hr_cache_level_of, the topology's. */
int hr_ceiling_level_of(const hr_ceilings *c, double ws, int threads);
/* The team's bytes of level (HR_CACHE_*) as the topology reports it (hr_sysinfo): L1d and
 * L2 times threads, L3 times the instances the team spans; 0 when unknown. */
double hr_reported_level_bytes(int level, int threads);
/* Appends to c->level_note (see level_note) each measured size more than 2x from the
 * reported one, "T2 L3 measured 30 MiB, reported 480 MiB"; returns their number. */
int hr_ceiling_levels_check(hr_ceilings *c);
/* The curve and levels of row r into o ("bandwidth_curve", "measured_levels"), and back;
 * reading returns HR_EUSAGE with a message naming the file on a malformed curve. */
void hr_curve_to_json(cJSON *o, const hr_ceiling_row *r);
int hr_curve_from_json(const cJSON *o, hr_ceiling_row *r, const char *path, int idx);

/* "L1", "L2", "L3", "DRAM" for 0 .. HR_CACHE_N. */
const char *hr_level_name(int level);

/* ---- the roof of a row's own type ---------------------------------------------------
 * The compute roof is the instruction that does a row's multiply-adds, as the kernel's
 * path (hr_kernel_path: what runs p on this CPU) names it:
 *   "amx"                                     -> amx_bf16 (flash/gqa's amx path)
 *   "vdpbf16ps", "avx512-bf16", "avx512_bf16" -> avx512_bf16
 *   "avx-vnni", "avx_vnni", "avxvnni"         -> avx_vnni
 *   "vpdpbusd", "vnni"                        -> avx512_vnni
 *   "vpmaddubsw", "maddubs"                   -> avx2_maddubs
 *   any int8 form above and "fma"             -> that dot and the FMA in series
 *                                                (HR_ROOF_SERIES: P·V by FMA)
 *   a bf16 form and "fma"                     -> avx512_bf16 and avx512 in series
 *                                                (decode's bf16 cache: scores by FMA)
 *   anything else                             -> the FMA of isa ("generic" -> sse2)
 * (case-insensitive). So f32 rows are judged by FMA; bf16 rows by the bf16 dot where the
 * path uses vdpbf16ps, else by FMA (the values are converted to f32); f16 rows by FMA
 * (F16C converts them); quantized caches by VNNI only where the path says it runs
 * vpdpbusd. The memory roof of every type is the triad (hr_ceiling_bw): the bytes are
 * counted in the stored type (counts.c), not the roof. */
int hr_roof_for_path(const char *path, const char *isa);
/* (A row's roof from its kernel and problem, hr_roof_of, is probe.h's: it asks which
 * loops this CPU runs.) */
/* "avx512" ... "scalar" for FMA roofs, "avx512_bf16" ... for dot roofs,
 * "avx512_vnni+avx512" / "avx_vnni+avx2" / "avx2_maddubs+avx2" / "avx512_bf16+avx512" for
 * the series roofs; "?" otherwise. */
const char *hr_roof_name(int roof);
/* Its unit: "GOP/s" for the int8 dots and their series roofs, else "GFLOP/s". */
const char *hr_roof_unit(int roof);
/* Best GFLOP/s (GOP/s for int8) of roof at the thread count hr_ceiling_threads picks; 0
 * when not measured (an absent dot roof, an old file): then a row has no compute
 * roof, rather than the wrong one. */
double hr_ceiling_roof(const hr_ceilings *c, int threads, int roof);

/* ---- softmax ceilings and the attainable rate (ceilings_softmax.c) ------------------ */

/* The softmax ceiling a row is held to: amx for the amx roof, bf16dot for the bf16 dot's,
 * decode_<level> for the decode kernel (kernel name "decode"), flash_<level> for every
 * other kernel (flash, gqa: their own step; the rest: the fastest fp32 step of their level,
 * a bound not their code). -1 for an unknown level. */
int hr_softmax_for(int roof, const char *kernel, const char *isa);
/* Best Gscores/s of softmax ceiling i at the thread count hr_ceiling_threads picks; 0
 * when absent (an old file, a path the CPU lacks). */
double hr_ceiling_softmax(const hr_ceilings *c, int threads, int i);
/* The softmax ceilings into a file's root ("softmax_ceilings": {name: {"code",
 * "measured", "absent"}}) and their figures into row o ("softmax_gscores": {name: v},
 * _median, _worst), and back (read: HR_EUSAGE naming the file on a bad figure). */
void hr_softmax_head_json(cJSON *root, const hr_ceilings *c);
void hr_softmax_row_json(cJSON *o, const hr_ceiling_row *r);
int hr_softmax_row_read(const cJSON *o, hr_ceiling_row *r, const char *path, int idx);
void hr_softmax_head_read(const cJSON *root, hr_ceilings *c);
/* A file without softmax ceilings: one notice per process, at the first row it leaves
 * without an attainable figure. */
void hr_softmax_tell_missing(const hr_ceilings *c);

/* The attainable rate: the least of three ceilings in GFLOP/s, the matmul roof of the
 * unit the path used, the softmax ceiling times FLOPs per score, and the bandwidth of the
 * level the working set lives in times the intensity. bound_by names the least; ties go
 * to the first in that order. */
enum { HR_BOUND_MATMUL = 0, HR_BOUND_SOFTMAX, HR_BOUND_MEMORY };
extern const char *const hr_bound_names[]; /* "matmul", "softmax", "memory", NULL */
/* Sets *att and returns the HR_BOUND_* of the least; -1 (and *att 0) when any of the
 * three is missing (<= 0 or not finite): no attainable figure rather than a made-up one. */
int hr_attainable3(double matmul_gflops, double softmax_gflops, double memory_gflops, double *att);

#endif
