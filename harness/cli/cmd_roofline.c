/* cmd_roofline.c — `headroom roofline`: measures the machine's ceilings (FMA, bf16/int8 dot products, triad, L1/L2/L3 load and triad, exp), prints them and saves the ceilings file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "commands.h"
#include "counts.h"
#include "cpus.h"
#include "files.h"
#include "headroom.h"
#include "probe.h"
#include "roofline.h"
#include "threads.h"

static const char *const formats[] = {"table", "json", NULL};

/* Parses --threads: "N" means 1..N; otherwise a comma list of counts and ranges a-b
 * ("1,2,4", "1-4,8"). Stores the counts in out[0..*n) (at most max); HR_OK or HR_EUSAGE. */
static int parse_threads(const char *s, int *out, int max, int *n)
{
    const char *p = s;
    *n = 0;
    bool single = !strchr(s, ',') && !strchr(s, '-');
    while (*p) {
        char *end;
        errno = 0;
        long lo = strtol(p, &end, 10), hi = lo;
        if (end == p || errno) goto bad;
        p = end;
        if (*p == '-') {
            hi = strtol(p + 1, &end, 10);
            if (end == p + 1 || errno) goto bad;
            p = end;
        }
        if (single) lo = 1;
        if (lo < 1 || hi > HR_THREADS_MAX || lo > hi)
            return hr_fail("--threads: counts must be in [1, %d] and ranges increasing, got '%s'",
                           HR_THREADS_MAX, s);
        for (long t = lo; t <= hi; t++) {
            if (*n >= max)
                return hr_fail("--threads: at most %d thread counts, got '%s'", max, s);
            out[(*n)++] = (int)t;
        }
        if (*p == ',' && p[1]) p++;
        else if (*p) goto bad;
    }
    if (*n) return HR_OK;
bad:
    return hr_fail("--threads: expected N (1..N) or a list like 1,2,4 or 1-4, got '%s'", s);
}

static void progress(void *ctx, const hr_ceiling_row *r)
{
    (void)ctx;
    fprintf(stderr, "  measured %d thread%s\n", r->threads, r->threads == 1 ? "" : "s");
}

/* One compute figure's line: threads, name, best/median/worst, then the triad and exp
 * columns on the first line of a thread count. */
static void print_compute(const hr_ceiling_row *r, const char *name, const hr_roof_stat *f, bool first)
{
    printf("%7d  %-12s  %7.1f %7.1f %7.1f", r->threads, name, f->best, f->median, f->worst);
    if (first)
        printf("  %6.1f %6.1f %7.1f  %5.2f %5.2f %5.2f", r->triad.best, r->triad.median,
               r->triad.worst, r->exp.best, r->exp.median, r->exp.worst);
    printf("\n");
}

static void size_text(char *buf, size_t len, double b)
{
    if (b >= 1048576) snprintf(buf, len, "%.1f MiB", b / 1048576);
    else snprintf(buf, len, "%.0f KiB", b / 1024);
}

/* The cache levels read off the bandwidth curve beside the reported ones, and the note. */
static void print_levels(const hr_ceilings *c)
{
    bool any = false;
    for (int i = 0; i < c->nrows; i++) any |= c->rows[i].ncurve > 0;
    if (!any) return;
    printf("cache levels off the bandwidth curve (triad knees; sizes of the team, per thread in brackets):\n");
    printf("%7s  %-5s  %22s  %10s  %6s %6s\n", "threads", "level", "measured", "reported", "load", "triad");
    for (int i = 0; i < c->nrows; i++) {
        const hr_ceiling_row *r = &c->rows[i];
        if (!r->ncurve) continue;
        for (int l = 0; l < r->nlevels; l++) {
            char m[32], per[32], rep[32];
            size_text(m, sizeof m, r->levels[l].size), size_text(per, sizeof per, r->levels[l].size / r->threads);
            double rb = hr_reported_level_bytes(l, r->threads);
            if (rb > 0) size_text(rep, sizeof rep, rb);
            else snprintf(rep, sizeof rep, "?");
            char both[72];
            snprintf(both, sizeof both, "%s (%s)", m, per);
            printf("%7d  %-5s  %22s  %10s  %6.1f %6.1f\n", r->threads, hr_cache_names[l], both, rep, r->levels[l].load,
                   r->levels[l].triad);
        }
        if (r->nlevels) printf("%7d  %-5s  %22s  %10s  %6s %6.1f\n", r->threads, "past", "", "", "", r->beyond_gbs);
        if (r->load.best > 0)
            printf("%7d  %-5s  %22s  %10s  %6.1f %6.1f\n", r->threads, "DRAM", "triad's arrays", "", r->load.best,
                   r->triad.best);
        else printf("%7d  no knee on the curve: the topology's levels are used\n", r->threads);
    }
    if (c->level_note[0]) printf("levels: %s\n", c->level_note);
}

/* The softmax ceilings: each path's own online-softmax step, Gscores/s of the team, and
 * what it allows in GFLOP/s at d 64 and 128 (4 d FLOPs per score, counts.c). */
static void print_softmax(const hr_ceilings *c)
{
    printf("softmax ceilings, the kernels' own online-softmax step (Gscores/s of the team; GFLOP/s at 4 d per score):\n");
    printf("%7s  %-14s  %7s %7s %7s  %8s %8s\n", "threads", "step", "best", "median", "worst", "d64", "d128");
    const hr_problem d64 = {.d_head = 64}, d128 = {.d_head = 128};
    const double f64 = hr_flops_per_score(&d64), f128 = hr_flops_per_score(&d128);
    for (int i = 0; i < c->nrows; i++)
        for (int k = 0; k < HR_SMX_N; k++) {
            const hr_roof_stat *f = &c->rows[i].softmax[k];
            if (f->best <= 0) continue;
            printf("%7d  %-14s  %7.2f %7.2f %7.2f  %8.0f %8.0f\n", c->rows[i].threads, hr_softmaxes[k].name, f->best,
                   f->median, f->worst, f->best * f64, f->best * f128);
        }
    for (int k = 0; k < HR_SMX_N; k++)
        if (c->softmax_absent[k][0]) printf("  %-14s absent: %s\n", hr_softmaxes[k].name, c->softmax_absent[k]);
}

static void print_table(const hr_ceilings *c)
{
    int build = hr_fma_build_loop();
    printf("%7s  %-12s  %23s  %21s  %17s\n", "", "", "compute G(FL)OP/s", "triad GB/s", "exp Gelem/s");
    printf("%7s  %-12s  %7s %7s %7s  %6s %6s %7s  %5s %5s %5s\n", "threads", "roof", "best",
           "median", "worst", "best", "median", "worst", "best", "med", "worst");
    for (int i = 0; i < c->nrows; i++) {
        const hr_ceiling_row *r = &c->rows[i];
        bool first = true;
        for (int m = 0; m < HR_FMA_NISA; m++) {
            if (r->fma[m].best <= 0) continue;
            char name[24];
            snprintf(name, sizeof name, "%s%s", hr_fma_isa_names[m], m == build ? "*" : "");
            print_compute(r, name, &r->fma[m], first);
            first = false;
        }
        for (int k = 0; k < HR_DOT_N; k++) {
            if (r->dot[k].best <= 0) continue;
            print_compute(r, hr_dots[k].name, &r->dot[k], first);
            first = false;
        }
    }
    printf("* the FMA of the ISA this build's kernels use (%s); best is the ceiling, worst/best "
           "shows the noise\n", hr_isa);
    printf("FMA roofs: fp32 GFLOP/s; dot-product roofs, 2 operations per multiply-add:\n");
    for (int k = 0; k < HR_DOT_N; k++) {
        if (c->dot_absent[k][0]) printf("  %-12s absent: %s\n", hr_dots[k].name, c->dot_absent[k]);
        else printf("  %-12s %s, %s\n", hr_dots[k].name, hr_dots[k].unit, hr_dots[k].instruction);
    }
    printf("triad: a = b + s*c over %.0f MiB, STREAM counting (12 B/element); with "
           "write-allocate (16 B) the best is %.1f GB/s at %d thread%s\n",
           c->triad_bytes / 1048576, c->nrows ? c->rows[c->nrows - 1].triad.best * 16 / 12 : 0,
           c->nrows ? c->rows[c->nrows - 1].threads : 0,
           c->nrows && c->rows[c->nrows - 1].threads == 1 ? "" : "s");
    bool any = false;
    for (int i = 0; i < c->nrows; i++) any |= c->rows[i].cache[HR_CACHE_L1].ws_bytes > 0;
    if (any) {
        printf("cache roofs, GB/s of the team (load: read-only sum, 4 B/element; triad: STREAM counting):\n");
        printf("%7s  %-5s  %12s  %6s %6s %6s  %6s %6s %6s\n", "threads", "level", "bytes/thread", "load",
               "median", "worst", "triad", "median", "worst");
        for (int i = 0; i < c->nrows; i++)
            for (int l = 0; l < HR_CACHE_N; l++) {
                const hr_cache_roof *k = &c->rows[i].cache[l];
                if (!(k->ws_bytes > 0)) continue;
                printf("%7d  %-5s  %12.0f  %6.1f %6.1f %6.1f  %6.1f %6.1f %6.1f\n", c->rows[i].threads,
                       hr_cache_names[l], k->ws_bytes, k->load.best, k->load.median, k->load.worst,
                       k->triad.best, k->triad.median, k->triad.worst);
            }
    }
    print_softmax(c);
    print_levels(c);
    printf("%d repetitions of >= %.1f ms per figure%s\n", c->reps, c->min_rep_time * 1e3,
           c->quick ? "; --quick: tiny sizes, NOT the machine's ceilings" : "");
}

int cmd_roofline(int argc, char **argv)
{
    const hr_cpus *cp = hr_cpus_get();
    const char *threads_s = NULL, *out = NULL;
    int reps = 0;
    hr_format format = HR_FMT_TABLE;
    bool quick = false, oversub = false;
    double min_time = 0, triad_bytes = 0;
    const hr_opt opts[] = {
        {"--threads", HR_OPT_STR, &threads_s, 0, 0, NULL, "LIST",
         "N (1..N), or counts and ranges: 1,2,4 or 1-4 (1..allowed CPUs)"},
        {"--out", HR_OPT_STR, &out, 0, 0, NULL, "FILE",
         "ceilings file (results/<machine>/ceilings.json; --quick: none)"},
        {"--format", HR_OPT_FORMAT, &format, 0, 0, formats, NULL, "stdout format (table)"},
        {"--quick", HR_OPT_FLAG, &quick, 0, 0, NULL, NULL,
         "tiny sizes, a fraction of a second: for tests, not ceilings"},
        {"--oversubscribe", HR_OPT_FLAG, &oversub, 0, 0, NULL, NULL,
         "allow more threads than allowed CPUs: measured and printed, never saved as ceilings"},
        {"--reps", HR_OPT_INT, &reps, 1, 100, NULL, "N", "repetitions per figure (7; quick 3)"},
        {"--min-time", HR_OPT_DOUBLE, &min_time, 1e-4, 10, NULL, "SEC",
         "minimum seconds per repetition (0.01; quick 0.0005)"},
        {"--triad-bytes", HR_OPT_BYTES, &triad_bytes, 1 << 20, 1099511627776.0, NULL, "BYTES",
         "the three triad arrays together (max(256M, 4 x L3); quick 3M)"},
        {NULL},
    };
    const char *syn = "roofline [--threads LIST] [--out FILE] [--format table|json] [--quick] [--oversubscribe]";
    int st = hr_parse(argc, argv, opts, syn, NULL, 0, NULL);
    if (st) return hr_cmd_status("roofline", st);

    int th[HR_ROOF_MAX_ROWS], nth = 0;
    if (threads_s) {
        if ((st = parse_threads(threads_s, th, HR_ROOF_MAX_ROWS, &nth))) {
            fprintf(stderr, "headroom roofline: %s\n", hr_errmsg());
            return st;
        }
    } else {
        int cpus = cp->allowed;
        if (cpus > hr_threads_limit()) cpus = hr_threads_limit();
        for (int t = 1; t <= cpus && nth < HR_ROOF_MAX_ROWS; t++) th[nth++] = t;
    }
    for (int i = 0; i < nth; i++) {
        char from[32];
        snprintf(from, sizeof from, "--threads %s", threads_s ? threads_s : "(default)");
        if ((st = hr_threads_check(th[i], from))) {
            fprintf(stderr, "headroom roofline: %s\n", hr_errmsg());
            return st;
        }
        hr_threads_used(th[i]);
    }
    /* A ceiling is the most the CPUs this process may run on do (the set the kernels'
     * threads get, recorded in the file's context as cpu_set): threads beyond them share
     * cores, and each one's rate counted as a core's would multiply the peak. They are
     * measured only with --oversubscribe, and then nothing is saved. */
    bool oversubscribed = false;
    for (int i = 0; i < nth; i++)
        if (th[i] > cp->allowed) {
            if (!oversub) {
                fprintf(stderr, "headroom roofline: --threads: %d threads on %d allowed CPUs (%s) would "
                                "measure shared cores, not ceilings (at most %d; --oversubscribe "
                                "measures them without saving)\n",
                        th[i], cp->allowed, cp->by, cp->allowed);
                return HR_EUSAGE;
            }
            fprintf(stderr, "headroom roofline: warning: %d threads on %d allowed CPUs (%s): oversubscribed, "
                            "not a ceiling; nothing is saved\n", th[i], cp->allowed, cp->by);
            oversubscribed = true;
            break;
        }

    hr_roofline_opts o = {
        .threads = th,
        .nthreads = nth,
        .reps = reps ? reps : quick ? 3 : 7,
        .min_time = min_time > 0 ? min_time : quick ? 0.0005 : 0.01,
        .triad_bytes = triad_bytes > 0 ? triad_bytes : quick ? 3.0 * 1048576 : 0,
        .quick = quick,
        .progress = isatty(2) ? progress : NULL,
    };
    hr_ceilings c;
    if ((st = hr_roofline_measure(&o, &c))) {
        fprintf(stderr, "headroom roofline: %s\n", hr_errmsg());
        return st;
    }

    char path[1024];
    if (out) snprintf(path, sizeof path, "%s", out);
    else if (!quick) hr_ceilings_default_path(path, sizeof path);
    else path[0] = 0;
    if (oversubscribed) path[0] = 0;
    if (path[0] && (st = hr_ceilings_save(&c, path))) {
        fprintf(stderr, "headroom roofline: %s\n", hr_errmsg());
        return st;
    }

    if (format == HR_FMT_JSON) {
        cJSON *root = hr_ceilings_json(&c);
        char *txt = hr_json_text(root, 1);
        printf("%s\n", txt);
        free(txt);
        cJSON_Delete(root);
    } else {
        print_table(&c);
    }
    if (path[0]) fprintf(format == HR_FMT_JSON ? stderr : stdout, "ceilings saved to %s\n", path);
    else if (oversubscribed)
        fprintf(format == HR_FMT_JSON ? stderr : stdout, "--oversubscribe: more threads than CPUs, ceilings not saved\n");
    else fprintf(format == HR_FMT_JSON ? stderr : stdout, "--quick: ceilings not saved (give --out FILE)\n");
    return HR_OK;
}
