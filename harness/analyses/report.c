/* report.c — merges results.json files from several machines into per-shape comparison
 * tables (markdown, CSV) and grouped bar charts rendered by gnuplot. */
#include <errno.h>
#include <math.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "files.h"
#include "gbread.h"
#include "gnuplot.h"
#include "headroom.h"
#include "report.h"
#include "stats.h"
#include "summary.h"

/* A JSON number as an int: def when absent, not finite or beyond int (a cast would be UB). */
static int jint(const cJSON *o, const char *k, int def)
{
    double v = hr_json_num(o, k, def);
    return v >= INT_MIN && v <= INT_MAX ? (int)v : def;
}

static int shape_index(hr_report *r, const hr_report_shape *s)
{
    for (int i = 0; i < r->nshapes; i++)
        if (!memcmp(&r->shapes[i], s, sizeof *s)) return i;
    if (r->nshapes == r->cap_shapes) {
        int cap = r->cap_shapes ? 2 * r->cap_shapes : 16;
        hr_report_shape *x = realloc(r->shapes, (size_t)cap * sizeof *x);
        if (!x) return -1;
        r->shapes = x, r->cap_shapes = cap;
    }
    r->shapes[r->nshapes] = *s;
    return r->nshapes++;
}

/* One benchmark row, before grouping. agg: a median aggregate or a summary row. */
typedef struct {
    int shape, threads, agg;
    char kernel[32], peer[80], bound[8];
    double g, pct, ceil, t, att;
} raw_row;

static int cmp_raw(const void *a, const void *b)
{
    const raw_row *x = a, *y = b;
    if (x->shape != y->shape) return x->shape - y->shape;
    int c = strcmp(x->kernel, y->kernel);
    if (c) return c;
    return x->threads - y->threads;
}

/* Median of the finite values of v[0..n) (NAN when none). */
static double fmedian(double *v, int n)
{
    int m = 0;
    for (int i = 0; i < n; i++)
        if (isfinite(v[i])) v[m++] = v[i];
    return m ? hr_median(v, (size_t)m) : NAN;
}

/* The row's GFLOP/s into *g: the GFLOPS counter, else flops / real_time for rows written
 * without it (NAN when neither). HR_EUSAGE for a time the reader refuses (an unknown
 * time_unit: compare refuses it too). */
static int row_gflops(const cJSON *b, const char *file, double *g)
{
    *g = hr_json_num(b, "GFLOPS", NAN);
    if (isfinite(*g)) return HR_OK;
    double ns, flops = hr_json_num(b, "flops", NAN);
    if (hr_gb_time_ns(b, file, hr_json_str(b, "run_name", hr_json_str(b, "name", "?")), &ns)) return HR_EUSAGE;
    *g = flops > 0 && ns > 0 ? flops / ns : NAN;
    return HR_OK;
}

int hr_report_add(hr_report *r, const char *path)
{
    char file[1100];
    struct stat st;
    if (stat(path, &st)) return hr_fail("%s: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        snprintf(file, sizeof file, "%s/results.json", path);
        if (stat(file, &st))
            return hr_fail("%s: no results.json in this directory (give a sweep directory "
                           "results/<machine>/<stamp>-<config> or a results.json)", path);
    } else {
        snprintf(file, sizeof file, "%s", path);
    }
    if (r->nmachines == HR_REPORT_MAX_MACHINES)
        return hr_fail("%s: more than %d results files", path, HR_REPORT_MAX_MACHINES);
    cJSON *doc = hr_gb_load(file);
    if (!doc) return HR_EUSAGE;
    const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(doc, "context");
    const cJSON *bench = cJSON_GetObjectItemCaseSensitive(doc, "benchmarks");
    if (!cJSON_IsObject(ctx)) {
        cJSON_Delete(doc);
        return hr_fail("%s: not a results file (expected JSON with \"context\" and \"benchmarks\")", file);
    }
    hr_report_machine *m = &r->machines[r->nmachines];
    memset(m, 0, sizeof *m);
    snprintf(m->path, sizeof m->path, "%s", file);
    snprintf(m->machine, sizeof m->machine, "%s", hr_json_str(ctx, "machine", hr_json_str(ctx, "host_name", "unknown")));
    snprintf(m->cpu_model, sizeof m->cpu_model, "%s", hr_json_str(ctx, "cpu_model", "unknown"));
    snprintf(m->isa, sizeof m->isa, "%s", hr_json_str(ctx, "isa", "?"));
    snprintf(m->date, sizeof m->date, "%s", hr_json_str(ctx, "date", "?"));
    m->cpus = jint(ctx, "num_cpus", 0);
    snprintf(m->version, sizeof m->version, "%s", hr_json_str(ctx, "headroom_version", "?"));
    snprintf(m->commit, sizeof m->commit, "%s", hr_json_str(ctx, "git_commit", "?"));
    const cJSON *la = cJSON_GetObjectItemCaseSensitive(ctx, "load_avg"), *e;
    cJSON_ArrayForEach(e, la) if (cJSON_IsNumber(e)) {
        const size_t l = strlen(m->load);
        snprintf(m->load + l, sizeof m->load - l, "%s%.2f", l ? " " : "", e->valuedouble);
    }
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(ctx, "plugins")) {
        const size_t l = strlen(m->plugins);
        snprintf(m->plugins + l, sizeof m->plugins - l, "%s%s %s (%s)", l ? ", " : "", hr_json_str(e, "library", "?"),
                 hr_json_str(e, "version", "?"), hr_json_str(e, "file", "?"));
    }
    /* Column titles must differ: a second file of the same machine gets " #2". */
    int same = 1;
    for (int i = 0; i < r->nmachines; i++) same += !strcmp(r->machines[i].machine, m->machine);
    char label[sizeof m->label];
    if (same > 1) snprintf(label, sizeof label, "%.100s #%d", m->machine, same);
    else snprintf(label, sizeof label, "%s", m->machine);
    memcpy(m->label, label, sizeof label);

    int nb = cJSON_GetArraySize(bench), n = 0;
    raw_row *rows = calloc((size_t)(nb ? nb : 1), sizeof *rows);
    if (!rows) {
        cJSON_Delete(doc);
        return hr_fail("%s: out of memory", file);
    }
    const cJSON *b;
    cJSON_ArrayForEach(b, bench)
    {
        const char *kernel = hr_json_str(b, "kernel", NULL), *rt = hr_json_str(b, "run_type", NULL);
        if (!kernel) continue;
        int agg;
        if (!rt) agg = 1; /* a summary row (run --format json of older builds) */
        else if (!strcmp(rt, "iteration")) agg = 0;
        else if (!strcmp(rt, "aggregate") && !strcmp(hr_json_str(b, "aggregate_name", ""), "median")) agg = 1;
        else continue;
        hr_report_shape s = {jint(b, "batch", 0), jint(b, "heads", 0),
                             jint(b, "kv_heads", 0), jint(b, "seq_q", 0),
                             jint(b, "seq_kv", 0), jint(b, "d_head", 0),
                             jint(b, "causal", 0), {0}, {0}, {0}, jint(b, "window", 0),
                             (float)hr_json_num(b, "softcap", 0), (float)hr_json_num(b, "alibi", 0)};
        snprintf(s.layout, sizeof s.layout, "%s", hr_json_str(b, "layout", "bhnd"));
        snprintf(s.dtype, sizeof s.dtype, "%s", hr_json_str(b, "dtype", "f32"));
        snprintf(s.kv_dtype, sizeof s.kv_dtype, "%s", hr_json_str(b, "kv_dtype", s.dtype));
        if (s.batch < 1 || s.heads < 1 || s.seq_q < 1 || s.d_head < 1) continue;
        raw_row *x = &rows[n];
        if ((x->shape = shape_index(r, &s)) < 0) break;
        snprintf(x->kernel, sizeof x->kernel, "%s", kernel);
        x->threads = jint(b, "threads", 1);
        x->agg = agg;
        if (row_gflops(b, file, &x->g)) {
            cJSON_Delete(doc);
            free(rows);
            return HR_EUSAGE;
        }
        const char *lib = hr_json_str(b, "plugin_library", NULL);
        if (lib) snprintf(x->peer, sizeof x->peer, "%s %s", lib, hr_json_str(b, "plugin_version", "?"));
        /* the median time, for the peer table: a row whose time the reader refuses
         * has none (its GFLOP/s is judged below, as before) */
        if (hr_gb_time_ns(b, file, hr_json_str(b, "run_name", hr_json_str(b, "name", "?")), &x->t)) x->t = NAN;
        x->pct = hr_json_num(b, "pct_of_roofline", NAN);
        x->att = hr_json_num(b, "pct_of_attainable", NAN);
        snprintf(x->bound, sizeof x->bound, "%s", hr_json_str(b, "bound_by", ""));
        const double lm = hr_json_num(b, "level_measured", NAN);
        if (lm == 1) m->levels_measured++;
        else if (lm == 0) m->levels_topology++;
        x->ceil = hr_json_num(b, "ceiling_gflops", NAN);
        n++;
    }
    cJSON_Delete(doc);
    if (!n) {
        free(rows);
        return hr_fail("%s: no benchmark rows with a kernel and shape", file);
    }
    /* Group equal (shape, kernel, threads) and take medians; aggregates win over
     * iterations when a group has both. */
    qsort(rows, (size_t)n, sizeof *rows, cmp_raw);
    double *g = malloc(5 * sizeof(double) * (size_t)n);
    if (!g) {
        free(rows);
        return hr_fail("%s: out of memory", file);
    }
    for (int i = 0; i < n;) {
        int j = i, any_agg = 0;
        while (j < n && !cmp_raw(&rows[i], &rows[j])) any_agg |= rows[j++].agg;
        int k = 0;
        for (int x = i; x < j; x++)
            if (rows[x].agg == any_agg) {
                g[k] = rows[x].g;
                g[n + k] = rows[x].pct;
                g[2 * n + k] = rows[x].ceil;
                g[3 * n + k] = rows[x].t;
                g[4 * n + k] = rows[x].att;
                k++;
            }
        if (r->ncells == r->cap_cells) {
            int cap = r->cap_cells ? 2 * r->cap_cells : 64;
            hr_report_cell *c = realloc(r->cells, (size_t)cap * sizeof *c);
            if (!c) break;
            r->cells = c, r->cap_cells = cap;
        }
        hr_report_cell *c = &r->cells[r->ncells++];
        c->machine = r->nmachines;
        c->shape = rows[i].shape;
        snprintf(c->kernel, sizeof c->kernel, "%s", rows[i].kernel);
        c->threads = rows[i].threads;
        c->gflops = fmedian(g, k);
        c->pct_roofline = fmedian(g + n, k);
        c->ceiling_gflops = fmedian(g + 2 * n, k);
        c->time_ns = fmedian(g + 3 * n, k);
        c->pct_attainable = fmedian(g + 4 * n, k);
        snprintf(c->bound_by, sizeof c->bound_by, "%s", rows[i].bound);
        snprintf(c->peer, sizeof c->peer, "%s", rows[i].peer);
        i = j;
    }
    free(g);
    free(rows);
    r->nmachines++;
    return HR_OK;
}

void hr_report_free(hr_report *r)
{
    free(r->shapes);
    free(r->cells);
    memset(r, 0, sizeof *r);
}

int hr_report_relative_to(hr_report *r, const char *name)
{
    for (int pass = 0; pass < 2; pass++)
        for (int m = 0; m < r->nmachines; m++)
            if (!strcmp(pass ? r->machines[m].machine : r->machines[m].label, name)) {
                r->rel = m + 1;
                return HR_OK;
            }
    char have[1024] = "";
    for (int m = 0; m < r->nmachines; m++)
        snprintf(have + strlen(have), sizeof have - strlen(have), "%s%s", m ? ", " : "", r->machines[m].label);
    return hr_fail("--relative-to: no machine '%s' among the results (%s)", name, have);
}

double hr_report_ratio(const hr_report *r, int s, int m, const char *kernel)
{
    if (!r->rel) return NAN;
    const hr_report_cell *c = hr_report_pick(r, s, m, kernel), *ref = hr_report_pick(r, s, r->rel - 1, kernel);
    return c && ref && ref->gflops > 0 ? c->gflops / ref->gflops : NAN;
}

void hr_report_shape_str(const hr_report_shape *s, char *buf, size_t len)
{
    char types[24] = "", var[64];
    if (strcmp(s->dtype, "f32") || strcmp(s->kv_dtype, "f32"))
        snprintf(types, sizeof types, strcmp(s->dtype, s->kv_dtype) ? " %s/kv %s" : " %s", s->dtype, s->kv_dtype);
    hr_problem_variants_str(&(hr_problem){.window = s->window, .softcap = s->softcap, .alibi = s->alibi}, var,
                            sizeof var);
    snprintf(buf, len, "B%d H%d/%d N%dx%d d%d%s%s%s%s", s->batch, s->heads, s->kv_heads, s->seq_q, s->seq_kv,
             s->d_head, s->causal ? " causal" : "", var, strcmp(s->layout, "bhnd") ? " bnhd" : "", types);
}

const hr_report_cell *hr_report_pick(const hr_report *r, int s, int m, const char *kernel)
{
    const hr_report_cell *best = NULL;
    for (int i = 0; i < r->ncells; i++) {
        const hr_report_cell *c = &r->cells[i];
        if (c->shape == s && c->machine == m && !strcmp(c->kernel, kernel) &&
            (!best || c->threads > best->threads))
            best = c;
    }
    return best;
}

/* Registry position of a kernel name (kernels this binary lacks sort after). */
static int kernel_rank(const char *name)
{
    int i = 0;
    for (; hr_kernel_at(i); i++)
        if (!strcmp(hr_kernel_at(i)->name, name)) return i;
    return i;
}

int hr_report_kernels(const hr_report *r, int s, const char **names, int max)
{
    int n = 0;
    for (int i = 0; i < r->ncells && n < max; i++) {
        if (r->cells[i].shape != s) continue;
        int seen = 0;
        for (int j = 0; j < n; j++) seen |= !strcmp(names[j], r->cells[i].kernel);
        if (!seen) names[n++] = r->cells[i].kernel;
    }
    /* The registry's order (reference first), as `headroom list` prints it. */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0; j--) {
            int a = kernel_rank(names[j - 1]), b = kernel_rank(names[j]);
            if (a < b || (a == b && strcmp(names[j - 1], names[j]) <= 0)) break;
            const char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    return n;
}

/* The percentage shown in a cell: of the roofline bound (and of the attainable rate, with
 * the ceiling that binds it, where the row has one), else of the FMA peak. */
static void pct_str(const hr_report_cell *c, char *buf, size_t len)
{
    if (isfinite(c->pct_roofline) && isfinite(c->pct_attainable) && c->bound_by[0])
        snprintf(buf, len, " (%.0f%%; %.0f%% of attainable, %s)", c->pct_roofline, c->pct_attainable, c->bound_by);
    else if (isfinite(c->pct_roofline)) snprintf(buf, len, " (%.0f%%)", c->pct_roofline);
    else if (isfinite(c->ceiling_gflops) && c->ceiling_gflops > 0)
        snprintf(buf, len, " (%.0f%% of peak)", 100 * c->gflops / c->ceiling_gflops);
    else buf[0] = 0;
}

/* Where each machine's cache levels (bound_level, pct_of_level_roof) came from. */
static void levels_line(const hr_report *r, FILE *f)
{
    int any = 0;
    for (int m = 0; m < r->nmachines; m++) {
        const hr_report_machine *x = &r->machines[m];
        if (!x->levels_measured && !x->levels_topology) continue;
        fprintf(f, "%s", any++ ? "; " : "\nCache levels behind `bound_level`: ");
        hr_md_cell(f, x->label, HR_MD_PLAIN);
        fprintf(f, " %s", !x->levels_topology ? "measured off the bandwidth curve"
                          : !x->levels_measured ? "taken from the topology (ceilings without the curve)"
                                                : "measured for some rows, from the topology for others");
    }
    if (any) fprintf(f, ".\n");
}

void hr_report_markdown(const hr_report *r, FILE *f, const int *images)
{
    fprintf(f, "# headroom report\n\n");
    fprintf(f, "| machine | CPU | CPUs | ISA | date | results |\n|---|---|---:|---|---|---|\n");
    for (int m = 0; m < r->nmachines; m++) {
        const hr_report_machine *x = &r->machines[m];
        const char *cols[] = {x->label, x->cpu_model, NULL, x->isa, x->date, x->path};
        fputc('|', f);
        for (int i = 0; i < 6; i++) {
            fputc(' ', f);
            if (cols[i]) hr_md_cell(f, cols[i], HR_MD_PLAIN);
            else fprintf(f, "%d", x->cpus);
            fputs(" |", f);
        }
        fputc('\n', f);
    }
    fprintf(f, "\nCells: median GFLOP/s over the repetitions, (in brackets) percent of that "
               "machine's own roofline bound min(peak, AI x bandwidth) when its ceilings were "
               "attached, and the thread count T (the most threads measured). `-`: not measured "
               "there.");
    if (r->rel) {
        fprintf(f, " `A ÷ ");
        hr_md_cell(f, r->machines[r->rel - 1].label, HR_MD_PLAIN);
        fprintf(f, "`: A's GFLOP/s over the reference machine's, each at the thread count shown.");
    }
    fprintf(f, "\n");
    levels_line(r, f);
    for (int s = 0; s < r->nshapes; s++) {
        char shape[128];
        hr_report_shape_str(&r->shapes[s], shape, sizeof shape);
        fprintf(f, "\n## %s\n\n| kernel |", shape);
        int ncol = 0;
        for (int m = 0; m < r->nmachines; m++, ncol++) fputc(' ', f), hr_md_cell(f, r->machines[m].label, HR_MD_PLAIN), fputs(" |", f);
        for (int m = 0; r->rel && m < r->nmachines; m++) {
            if (m == r->rel - 1) continue;
            fputc(' ', f), hr_md_cell(f, r->machines[m].label, HR_MD_PLAIN), fputs(" ÷ ", f);
            hr_md_cell(f, r->machines[r->rel - 1].label, HR_MD_PLAIN), fputs(" |", f);
            ncol++;
        }
        fprintf(f, "\n|---|");
        for (int m = 0; m < ncol; m++) fprintf(f, "---:|");
        fprintf(f, "\n");
        const char *names[64];
        int nk = hr_report_kernels(r, s, names, 64);
        for (int k = 0; k < nk; k++) {
            fprintf(f, "| ");
            hr_md_cell(f, names[k], HR_MD_PLAIN);
            fprintf(f, " |");
            for (int m = 0; m < r->nmachines; m++) {
                const hr_report_cell *c = hr_report_pick(r, s, m, names[k]);
                char pct[48];
                if (!c || !isfinite(c->gflops)) {
                    fprintf(f, " - |");
                    continue;
                }
                pct_str(c, pct, sizeof pct);
                fprintf(f, " %.2f%s T%d |", c->gflops, pct, c->threads);
            }
            for (int m = 0; r->rel && m < r->nmachines; m++) {
                if (m == r->rel - 1) continue;
                const double q = hr_report_ratio(r, s, m, names[k]);
                const hr_report_cell *c = hr_report_pick(r, s, m, names[k]);
                const hr_report_cell *ref = hr_report_pick(r, s, r->rel - 1, names[k]);
                if (!isfinite(q)) fprintf(f, " - |");
                else if (c->threads != ref->threads) fprintf(f, " %.2f× (T%d vs T%d) |", q, c->threads, ref->threads);
                else fprintf(f, " %.2f× |", q);
            }
            fprintf(f, "\n");
        }
        if (images && images[s])
            fprintf(f, "\n![GFLOP/s per kernel and machine, %s](shape-%d.svg)\n", shape, s + 1);
    }
}

void hr_report_csv(const hr_report *r, FILE *f)
{
    fprintf(f, "machine,cpu_model,cpus,isa,shape,kernel,threads,gflops,pct_of_roofline,ceiling_gflops,results,"
               "ratio_to_ref\n");
    for (int s = 0; s < r->nshapes; s++) {
        char shape[128];
        hr_report_shape_str(&r->shapes[s], shape, sizeof shape);
        const char *names[64];
        int nk = hr_report_kernels(r, s, names, 64);
        for (int k = 0; k < nk; k++)
            for (int m = 0; m < r->nmachines; m++) {
                const hr_report_cell *c = hr_report_pick(r, s, m, names[k]);
                if (!c) continue;
                const hr_report_machine *x = &r->machines[m];
                const char *text[] = {x->label, x->cpu_model};
                for (int i = 0; i < 2; i++) hr_csv_field(f, text[i]), fputc(',', f);
                fprintf(f, "%d,", x->cpus);
                const char *more[] = {x->isa, shape, c->kernel};
                for (int i = 0; i < 3; i++) hr_csv_field(f, more[i]), fputc(',', f);
                fprintf(f, "%d,%.6g,", c->threads, c->gflops);
                if (isfinite(c->pct_roofline)) fprintf(f, "%.4g", c->pct_roofline);
                fprintf(f, ",");
                if (isfinite(c->ceiling_gflops)) fprintf(f, "%.6g", c->ceiling_gflops);
                fputc(',', f);
                hr_csv_field(f, x->path);
                fputc(',', f);
                const double q = hr_report_ratio(r, s, m, names[k]);
                if (isfinite(q)) fprintf(f, "%.4g", q);
                fprintf(f, "\n");
            }
    }
}

/* Writes s as one gnuplot data word (quoted: a column header, with a leading space):
 * quotes and control characters become '_', and white space too where unquoted, so no
 * name splits a column or a line of the .dat file. */
static void dat_word(FILE *f, const char *s, int quoted)
{
    fputs(quoted ? " \"" : "", f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        fputc(ch < ' ' || ch == '"' || ch == 0x7f || (!quoted && (ch == ' ' || ch == '#')) ? '_' : ch, f);
    }
    fputs(quoted ? "\"" : "", f);
}

int hr_report_charts(const hr_report *r, const char *out_dir, const char *script, int *images,
                     char *why, size_t whylen)
{
    const char *gp = hr_gnuplot_exe();
    /* Quiet probe: a missing gnuplot is a notice, not an error. */
    if (!hr_gnuplot_works(gp)) {
        snprintf(why, whylen, "%s not found or not working", gp);
        return -1;
    }
    if (!hr_gnuplot_quotable(out_dir) || !hr_gnuplot_quotable(script)) {
        snprintf(why, whylen, "paths with a quote cannot be passed to gnuplot");
        return -1;
    }
    int done = 0;
    for (int s = 0; s < r->nshapes; s++) {
        images[s] = 0;
        char dat[1200], shape[128];
        hr_report_shape_str(&r->shapes[s], shape, sizeof shape);
        snprintf(dat, sizeof dat, "%s/shape-%d.dat", out_dir, s + 1);
        FILE *f = fopen(dat, "w");
        if (!f) {
            snprintf(why, whylen, "%s: cannot write (%s)", dat, strerror(errno));
            return -1;
        }
        /* Header: "kernel" and one column per machine (gnuplot columnheader). Missing
         * values are "NaN", which gnuplot leaves out of the histogram. */
        fprintf(f, "kernel");
        for (int m = 0; m < r->nmachines; m++) dat_word(f, r->machines[m].label, 1);
        fprintf(f, "\n");
        const char *names[64];
        int nk = hr_report_kernels(r, s, names, 64);
        for (int k = 0; k < nk; k++) {
            /* The label names the thread count of each machine's bar: "flash T2/T16". */
            fputc('"', f);
            dat_word(f, names[k], 0);
            fputc(' ', f);
            for (int m = 0; m < r->nmachines; m++) {
                const hr_report_cell *c = hr_report_pick(r, s, m, names[k]);
                if (c) fprintf(f, "%sT%d", m ? "/" : "", c->threads);
                else fprintf(f, "%s-", m ? "/" : "");
            }
            fputc('"', f);
            for (int m = 0; m < r->nmachines; m++) {
                const hr_report_cell *c = hr_report_pick(r, s, m, names[k]);
                if (c && isfinite(c->gflops)) fprintf(f, " %.6g", c->gflops);
                else fprintf(f, " NaN");
            }
            fprintf(f, "\n");
        }
        int werr = ferror(f);
        if (fclose(f) || werr) {
            snprintf(why, whylen, "%s: write error", dat);
            return -1;
        }
        int ok = 1;
        for (int t = 0; t < 2 && ok; t++) {
            const char *ext = t ? "svg" : "png";
            char vars[4096];
            snprintf(vars, sizeof vars,
                     "datafile='%s'; outfile='%s/shape-%d.%s'; fmt='%s'; ttl='%s'; ncols=%d",
                     dat, out_dir, s + 1, ext, ext, shape, r->nmachines + 1);
            int rc = hr_gnuplot_run(gp, script, vars, NULL);
            if (rc == -1) snprintf(why, whylen, "cannot run %s (%s)", gp, strerror(errno));
            else if (rc) snprintf(why, whylen, "%s failed (status %d)", gp, rc > 0 ? rc : -1);
            if (rc) ok = 0;
        }
        if (ok) images[s] = 1, done++;
        else return -1;
    }
    return done;
}
