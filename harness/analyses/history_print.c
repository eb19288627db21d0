/* history_print.c — headroom history's table and its trend chart (plots/history.gp). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "gnuplot.h"
#include "headroom.h"
#include "history.h"

static void fmt_num(double v, const char *f, char *buf, size_t len)
{
    if (isfinite(v)) snprintf(buf, len, f, v);
    else snprintf(buf, len, "-");
}

void hr_history_print(FILE *f, const hr_history *h)
{
    const hr_hist_opts *o = &h->opts;
    const hr_hist_run *newest = &h->runs[h->nruns - 1];
    fprintf(f, "headroom history: %d runs of %d commit%s, machine %s%s, omp_max_threads %d%s\n", h->nruns,
            h->ncommits, h->ncommits == 1 ? "" : "s", newest->machine, h->mixed & 1 ? " and others (--mix)" : "",
            newest->threads, h->mixed & 2 ? " and others (--mix)" : "");
    fprintf(f, "ordered by commit date (git_commit_time; '*': the run's date, its context has none)\n");
    fprintf(f, "change point: |median / base - 1| > max(%g x 1.4826 MAD of the base runs' medians, %g%%) and "
               "U test p < %g against their repetitions pooled; base: up to %d run%s before (median of medians)\n",
            o->k, o->threshold_pct, o->alpha, o->window, o->window == 1 ? "" : "s");
    for (int i = 0; i < h->nseries; i++) {
        const hr_hist_series *s = &h->series[i];
        fprintf(f, "\n%s\n", s->name);
        fprintf(f, "  %3s  %-14s %-17s %11s %7s %9s %6s %8s %7s %8s%s\n", "run", "commit", "date", "median",
                "spread", "GFLOP/s", "roof", "change", "band", "p", "  flag");
        for (int j = 0; j < s->npts; j++) {
            const hr_hist_point *p = &s->pts[j];
            const hr_hist_run *r = &h->runs[p->run];
            char med[24], spr[16], gf[16], roof[16], chg[16], band[16], pv[16], when[24];
            hr_fmt_ns(p->median, med, sizeof med);
            fmt_num(100 * p->spread, "%.1f%%", spr, sizeof spr);
            fmt_num(p->gflops, "%.4g", gf, sizeof gf);
            fmt_num(100 * p->frac_roof, "%.1f%%", roof, sizeof roof);
            fmt_num(p->change_pct, "%+.2f%%", chg, sizeof chg);
            fmt_num(p->band_pct, "%.2f%%", band, sizeof band);
            if (p->judged && p->test.method != HR_MWU_NONE) snprintf(pv, sizeof pv, "%.3g", p->test.p);
            else snprintf(pv, sizeof pv, "-");
            snprintf(when, sizeof when, "%.16s%s", r->when, r->by_commit ? "" : "*");
            fprintf(f, "  %3d  %-14.14s %-17s %11s %7s %9s %6s %8s %7s %8s%s\n", p->run + 1, r->commit, when, med,
                    spr, gf, roof, chg, band, pv, p->flag > 0 ? "  SLOWER" : p->flag < 0 ? "  faster" : "");
        }
    }
    fprintf(f, "\nnewest run (%d, %s): %d slower and %d faster change point%s of %d benchmarks\n", h->nruns,
            newest->commit, h->newest_slower, h->newest_faster, h->newest_faster == 1 ? "" : "s", h->nseries);
}

/* The first n characters of s for a gnuplot word or label: anything but letters, digits,
 * '.', '_', '-', '=' becomes '_' (file contents never reach gnuplot's -e unquoted). */
static void safe(const char *s, size_t n, char *buf, size_t len)
{
    size_t i = 0;
    for (; i < n && s[i] && i + 1 < len; i++)
        buf[i] = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
                         strchr("._-=", s[i])
                     ? s[i]
                     : '_';
    buf[i] = 0;
}

/* The kernel of a benchmark name: what comes before its first '/'. */
static size_t kernel_len(const char *name) { return strcspn(name, "/"); }

int hr_history_plot(const hr_history *h, const char *out, char *why, size_t whylen)
{
    const char *gp = hr_gnuplot_exe();
    char script[PATH_MAX];
    if (!hr_gnuplot_works(gp)) return snprintf(why, whylen, "%s not found or not working", gp), 0;
    if (!hr_plot_script("history.gp", script, sizeof script))
        return snprintf(why, whylen, "plots/history.gp not found (set HEADROOM_PLOTS)"), 0;
    if (!hr_gnuplot_quotable(out) || !hr_gnuplot_quotable(script))
        return snprintf(why, whylen, "paths holding a quote cannot be passed to gnuplot"), -1;
    char *text = NULL, tit[2048] = "";
    size_t len = 0;
    FILE *d = open_memstream(&text, &len);
    if (!d) return snprintf(why, whylen, "out of memory"), -1;
    int nk = 0;
    bool *done = calloc((size_t)h->nseries + 1, sizeof *done);
    double *lg = calloc(2 * (size_t)h->nruns + 2, sizeof *lg);
    int *cnt = calloc(2 * (size_t)h->nruns + 2, sizeof *cnt);
    for (int i = 0; done && lg && cnt && i < h->nseries; i++) {
        if (done[i]) continue;
        const char *ki = h->series[i].name;
        size_t kl = kernel_len(ki);
        memset(lg, 0, 2 * (size_t)h->nruns * sizeof *lg);
        memset(cnt, 0, 2 * (size_t)h->nruns * sizeof *cnt);
        int used = 0;
        /* The kernel's benchmarks present in every run: a geometric mean over a set that
         * stays the same from run to run. */
        for (int j = i; j < h->nseries; j++) {
            const hr_hist_series *s = &h->series[j];
            if (kernel_len(s->name) != kl || strncmp(s->name, ki, kl)) continue;
            done[j] = true;
            if (s->npts != h->nruns || !isfinite(s->pts[0].gflops)) continue;
            used++;
            for (int q = 0; q < s->npts; q++) {
                lg[2 * q] += log(s->pts[q].gflops), cnt[2 * q]++;
                if (isfinite(s->pts[q].frac_roof) && s->pts[q].frac_roof > 0)
                    lg[2 * q + 1] += log(s->pts[q].frac_roof), cnt[2 * q + 1]++;
            }
        }
        if (!used) continue;
        if (nk++) fprintf(d, "\n\n");
        for (int q = 0; q < h->nruns; q++) {
            double g = exp(lg[2 * q] / cnt[2 * q]);
            double fr = cnt[2 * q + 1] == used ? exp(lg[2 * q + 1] / used) : NAN;
            char frs[24], label[16];
            fmt_num(fr, "%.6g", frs, sizeof frs);
            safe(h->runs[q].commit, 7, label, sizeof label);
            fprintf(d, "%d %.6g %s %s\n", q + 1, g, isfinite(fr) ? frs : "NaN", label);
        }
        size_t tl = strlen(tit);
        char kname[64];
        safe(ki, kl < 40 ? kl : 40, kname, sizeof kname);
        snprintf(tit + tl, sizeof tit - tl, "%s%s(%d)", tl ? " " : "", kname, used);
    }
    fclose(d);
    free(done), free(lg), free(cnt);
    int st = 1;
    char dat[PATH_MAX + 32];
    snprintf(dat, sizeof dat, "%s/history.dat", out);
    if (!nk) st = 0, snprintf(why, whylen, "no kernel has a benchmark with a FLOP count in every run");
    else if (hr_mkdirs(out) || hr_write_atomic(dat, text)) st = -1, snprintf(why, whylen, "%s", hr_errmsg());
    char who[128];
    safe(h->runs[h->nruns - 1].machine, 96, who, sizeof who);
    for (int t = 0; t < 2 && st == 1; t++) {
        const char *ext = t ? "svg" : "png";
        char vars[PATH_MAX * 3 + 2400];
        snprintf(vars, sizeof vars,
                 "datafile='%s'; outfile='%s/history.%s'; fmt='%s'; nk=%d; nruns=%d; tit='%s'; gpdir='%.*s'; "
                 "who='%s, %d runs'",
                 dat, out, ext, ext, nk, h->nruns, tit, (int)(strrchr(script, '/') - script), script,
                 who, h->nruns);
        int rc = hr_gnuplot_run(gp, script, vars, NULL);
        if (rc == -1) st = -1, snprintf(why, whylen, "cannot run %s (%s)", gp, strerror(errno));
        else if (rc) st = -1, snprintf(why, whylen, "%s failed on %s (status %d)", gp, script, rc > 0 ? rc : -1);
    }
    free(text);
    return st;
}
