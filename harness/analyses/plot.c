/* plot.c — `headroom plot`: finds and reads the inputs, then draws the chart table with gnuplot. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "gnuplot.h"
#include "headroom.h"
#include "plot.h"
#include "plot_int.h"

/* A chart: the inputs it draws from (any one will do), why it is skipped without them,
 * and the builder of its data. */
typedef struct {
    const char *name;
    int needs;
    const char *missing;
    void (*build)(const pl_inputs *in, pl_chart *c);
} chart_def;

static const chart_def charts[HR_PLOT_NCHARTS] = {
    {"roofline", PL_CEILINGS | PL_SWEEP, "no ceilings.json and no sweep results.csv", pl_roofline},
    {"kernels", PL_SWEEP, "no sweep results.csv (headroom sweep writes one)", pl_kernels_chart},
    {"workspace", PL_SWEEP, "no sweep results.csv (headroom sweep writes one)", pl_workspace},
    {"scaling", PL_SWEEP, "no sweep results.csv (headroom sweep writes one)", pl_scaling},
    {"crossover", PL_CROSSOVER, "no crossover.csv (headroom crossover writes one)", pl_crossover},
    {"kvcache", PL_KVCACHE, "no kvcache CSV (headroom kvcache --format csv)", pl_kvcache},
    {"decode", PL_DECODE | PL_SWEEP,
     "no decode.csv (headroom decode-loop --format csv) and no one-query rows in the sweep", pl_decode},
    {"kvstory", PL_DECODE, "no decode.csv (headroom decode-loop --kv-dtype T --format csv)", pl_kvstory},
    {"cachecurve", PL_CEILINGS, "no ceilings.json (headroom roofline writes one)", pl_cachecurve},
    {"window", PL_SWEEP, "no sweep results.csv (headroom sweep writes one)", pl_window},
    {"paged", PL_SWEEP, "no sweep results.csv (headroom sweep writes one)", pl_paged},
};

/* Where each input is. */
typedef struct {
    char sweep_dir[PATH_MAX], csv[PATH_MAX + 32], json[PATH_MAX + 32], ceil[PATH_MAX + 32];
    char cross[PATH_MAX + 32], table[PATH_MAX + 32], kv[PATH_MAX + 32], dec[PATH_MAX + 32];
} paths;

static int exists(const char *p) { return !access(p, R_OK); }

/* Finds the inputs in dir, or where o names them (see hr_plot_opts). */
static void find(const hr_plot_opts *o, paths *p, char *out, size_t outlen)
{
    const char *dir = o->dir;
    struct stat sb;
    snprintf(p->sweep_dir, sizeof p->sweep_dir, "%s", dir);
    snprintf(p->csv, sizeof p->csv, "%s/results.csv", dir);
    if (!exists(p->csv)) {
        snprintf(p->csv, sizeof p->csv, "%s/latest/results.csv", dir);
        if (exists(p->csv)) snprintf(p->sweep_dir, sizeof p->sweep_dir, "%s/latest", dir);
        else snprintf(p->csv, sizeof p->csv, "%s/results.csv", dir);
    }
    snprintf(p->json, sizeof p->json, "%s/results.json", p->sweep_dir);
    if (o->ceilings) snprintf(p->ceil, sizeof p->ceil, "%s", o->ceilings);
    else {
        snprintf(p->ceil, sizeof p->ceil, "%s/ceilings.json", dir);
        if (!exists(p->ceil)) snprintf(p->ceil, sizeof p->ceil, "%s/../ceilings.json", p->sweep_dir);
    }
    if (o->crossover && !stat(o->crossover, &sb) && S_ISDIR(sb.st_mode))
        snprintf(p->cross, sizeof p->cross, "%s/crossover.csv", o->crossover);
    else if (o->crossover) snprintf(p->cross, sizeof p->cross, "%s", o->crossover);
    else snprintf(p->cross, sizeof p->cross, "%s/crossover.csv", dir);
    const char *slash = strrchr(p->cross, '/');
    snprintf(p->table, sizeof p->table, "%.*scrossover_table.csv", slash ? (int)(slash + 1 - p->cross) : 0, p->cross);
    if (o->kvcache) snprintf(p->kv, sizeof p->kv, "%s", o->kvcache);
    else snprintf(p->kv, sizeof p->kv, "%s/kvcache.csv", dir);
    if (o->decode) snprintf(p->dec, sizeof p->dec, "%s", o->decode);
    else snprintf(p->dec, sizeof p->dec, "%s/decode.csv", dir);
    if (o->out) snprintf(out, outlen, "%s", o->out);
    else snprintf(out, outlen, "%s/plots", p->sweep_dir);
}

/* How gnuplot is run. */
typedef struct {
    const char *gp;        /* the executable                          */
    char scripts[PATH_MAX];/* the plots/ directory                    */
    const char *out;       /* the output directory                    */
    char who[160];         /* "machine, date" for the titles          */
} plotter;

/* The first 20 lines of gnuplot's log into buf ("" when it cannot be read). */
static void excerpt(const char *log, char *buf, size_t len)
{
    *buf = 0;
    char *text = hr_read_file(log, HR_CAP_SMALL, "gnuplot log", NULL);
    if (!text) return;
    const char *end = text;
    for (int i = 0; i < 20 && *end; i++) end += strcspn(end, "\n") + (end[strcspn(end, "\n")] != 0);
    snprintf(buf, len, "%.*s", (int)(end - text), text);
    free(text);
}

/* Renders chart o->name (plots/NAME.gp) as NAME.png and NAME.svg in the output directory;
 * vars: the chart's gnuplot assignments. o gets the outcome. */
static void render(const plotter *P, const char *vars, hr_plot_chart *o)
{
    static const char *const fmts[] = {"png", "svg"};
    char script[PATH_MAX + 64], log[PATH_MAX + 64];
    snprintf(script, sizeof script, "%s/%s.gp", P->scripts, o->name);
    /* gnuplot's own messages go to a log kept only when it fails: its warnings about the
     * placeholder blocks of absent series are expected. */
    snprintf(log, sizeof log, "%s/%s.gnuplot.log", P->out, o->name);
    size_t len = strlen(vars) + strlen(P->out) + 2 * PATH_MAX + 512;
    char *e = malloc(len);
    if (!e) {
        o->state = HR_CHART_FAILED;
        snprintf(o->why, sizeof o->why, "%s: out of memory", o->name);
        return;
    }
    o->state = HR_CHART_DRAWN;
    for (int i = 0; i < 2 && o->state == HR_CHART_DRAWN; i++) {
        snprintf(e, len, "datafile='%s/%s.dat'; outfile='%s/%s.%s'; fmt='%s'; who='%s'; gpdir='%s'; %s",
                 P->out, o->name, P->out, o->name, fmts[i], fmts[i], P->who, P->scripts, vars);
        if (hr_gnuplot_run(P->gp, script, e, log)) {
            o->state = HR_CHART_FAILED;
            snprintf(o->why, sizeof o->why, "gnuplot failed on %s; its messages (%s):", script, log);
            excerpt(log, o->excerpt, sizeof o->excerpt);
        }
    }
    free(e);
}

/* Builds chart d from the inputs, writes its .dat and renders it; o gets the outcome. */
static void draw(const plotter *P, const chart_def *d, const pl_inputs *in, hr_plot_chart *o)
{
    pl_chart *c = calloc(1, sizeof *c);
    char *text = NULL;
    size_t len = 0;
    if (!c || !(c->dat = open_memstream(&text, &len))) {
        free(c);
        o->state = HR_CHART_FAILED;
        snprintf(o->why, sizeof o->why, "%s: out of memory", d->name);
        return;
    }
    d->build(in, c);
    fclose(c->dat);
    o->state = HR_CHART_SKIPPED;
    if (*c->why) snprintf(o->why, sizeof o->why, "%s", c->why);
    else if (!c->points) snprintf(o->why, sizeof o->why, "no data points in its inputs");
    else {
        char path[PATH_MAX + 64];
        snprintf(path, sizeof path, "%s/%s.dat", P->out, d->name);
        if (hr_write_atomic(path, text)) {
            o->state = HR_CHART_FAILED;
            snprintf(o->why, sizeof o->why, "%s", hr_errmsg());
        } else {
            render(P, c->vars, o);
        }
    }
    free(text);
    free(c);
}

static void inputs_free(pl_inputs *in)
{
    free(in->S.r);
    pl_csv_free(&in->cross), pl_csv_free(&in->table), pl_csv_free(&in->kv), pl_csv_free(&in->dec);
}

/* Sets up P: gnuplot, the scripts, the titles' label; in->isa from the context. */
static int setup(const hr_plot_opts *o, const paths *p, plotter *P, pl_inputs *in)
{
    P->gp = hr_gnuplot_exe();
    if (!hr_gnuplot_works(P->gp)) return hr_fail("%s not found or not working (install gnuplot or set HEADROOM_GNUPLOT)", P->gp);
    /* The scripts' directory: where roofline.gp is found. */
    if (!hr_plot_script("roofline.gp", P->scripts, sizeof P->scripts))
        return hr_fail("plots/roofline.gp not found (set HEADROOM_PLOTS to the plots/ directory)");
    *strrchr(P->scripts, '/') = 0;
    int known = pl_context(p->json, "results file", P->who, sizeof P->who, in->isa, sizeof in->isa);
    if (known < 0) return HR_EUSAGE;
    if (o->label) snprintf(P->who, sizeof P->who, "%s", o->label);
    else if (!known && (known = pl_context(p->ceil, "ceilings file", P->who, sizeof P->who, NULL, 0)) < 0) return HR_EUSAGE;
    else if (!known) snprintf(P->who, sizeof P->who, "machine unknown");
    if (!hr_gnuplot_quotable(P->out) || !hr_gnuplot_quotable(P->scripts) || !hr_gnuplot_quotable(P->who))
        return hr_fail("paths and labels holding a quote cannot be passed to gnuplot");
    return HR_OK;
}

int hr_plot(const hr_plot_opts *o, hr_plot_report *r)
{
    memset(r, 0, sizeof *r);
    struct stat sb;
    if (stat(o->dir, &sb) || !S_ISDIR(sb.st_mode)) return hr_fail("%s: not a directory", o->dir);
    paths p;
    find(o, &p, r->out, sizeof r->out);
    snprintf(r->sweep_dir, sizeof r->sweep_dir, "%s", p.sweep_dir);
    /* Flags name files the user asked for: a missing one is an error, not a skip. */
    const char *given[][2] = {{o->ceilings, "--ceilings"}, {o->crossover, "--crossover"}, {o->kvcache, "--kvcache"}, {o->decode, "--decode"}};
    for (int i = 0; i < 4; i++)
        if (given[i][0] && !exists(given[i][0])) return hr_fail("%s: %s: no such file", given[i][1], given[i][0]);
    plotter P = {.out = r->out};
    pl_inputs *in = calloc(1, sizeof *in);
    if (!in) return hr_fail("out of memory");
    int st = setup(o, &p, &P, in);
    if (!st) st = pl_sweep_load(p.csv, &in->S);
    if (!st && exists(p.ceil)) st = hr_ceilings_load(p.ceil, &in->C);
    if (!st) st = hr_mkdirs(r->out);
    if (st) {
        inputs_free(in);
        free(in);
        return st;
    }
    /* The optional CSVs: one that cannot be read skips the charts it feeds, saying why. */
    struct {
        int bit;
        const char *path;
        pl_csv *csv;
        char err[256];
    } opt[] = {{PL_CROSSOVER, p.cross, &in->cross, ""}, {PL_KVCACHE, p.kv, &in->kv, ""}, {PL_DECODE, p.dec, &in->dec, ""}};
    int have = (in->S.n ? PL_SWEEP : 0) | (in->C.nrows ? PL_CEILINGS : 0);
    /* A file a flag named is the user's input: one that cannot be read (a device, too
     * large, not UTF-8) fails the command naming it, as --ceilings does. */
    const char *flagged[] = {o->crossover, o->kvcache, o->decode};
    for (int i = 0; i < 3; i++) {
        int got = pl_csv_load(opt[i].path, opt[i].csv);
        if (got > 0) have |= opt[i].bit;
        if (got < 0 && flagged[i]) {
            inputs_free(in);
            free(in);
            return HR_EUSAGE;
        }
        if (got < 0) snprintf(opt[i].err, sizeof opt[i].err, "%s", hr_errmsg());
    }
    /* Nothing else to draw from: a file that is there but cannot be read is the answer. */
    for (int i = 0; i < 3 && !have; i++)
        if (*opt[i].err) {
            hr_fail("%s", opt[i].err);
            inputs_free(in);
            free(in);
            return HR_EUSAGE;
        }
    if (have & PL_CROSSOVER) in->have_table = pl_csv_load(p.table, &in->table) > 0;
    in->cross_path = p.cross, in->kv_path = p.kv, in->dec_path = p.dec;
    for (int i = 0; i < HR_PLOT_NCHARTS; i++) {
        const chart_def *d = &charts[i];
        hr_plot_chart *oc = &r->charts[r->ncharts++];
        oc->name = d->name;
        oc->state = HR_CHART_SKIPPED;
        const char *bad = NULL;
        for (int k = 0; k < 3 && !bad; k++)
            if ((d->needs & opt[k].bit) && *opt[k].err) bad = opt[k].err;
        if (bad) snprintf(oc->why, sizeof oc->why, "%s", bad);
        else if (!(have & d->needs)) snprintf(oc->why, sizeof oc->why, "%s", d->missing);
        else draw(&P, d, in, oc);
        r->drawn += oc->state == HR_CHART_DRAWN;
        r->failed += oc->state == HR_CHART_FAILED;
    }
    inputs_free(in);
    free(in);
    return HR_OK;
}
