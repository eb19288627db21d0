/* compare_print.c — headroom compare's reports: an aligned table, a markdown comment, JSON. */
#include <math.h>
#include <string.h>

#include "compare.h"
#include "files.h"
#include "headroom.h"

/* A % of attainable that was computed (ab's rows and old files have none: 0 or NAN). */
static bool has_att(double x) { return isfinite(x) && x > 0; }

/* Whether any row has a % of attainable (attainable_path_gflops in the new file): the
 * tables then show it, else they read as before. */
static bool any_att(const hr_cmp *c)
{
    for (int i = 0; i < c->nrows; i++)
        if (has_att(c->rows[i].att_new)) return true;
    return false;
}

/* "86.1 -> 88.0" (a side without the figure: "-"). */
static void att_pair(const hr_cmp_row *r, char *buf, size_t len)
{
    char b[16] = "-", n[16] = "-";
    if (has_att(r->att_base)) snprintf(b, sizeof b, "%.1f", r->att_base);
    if (has_att(r->att_new)) snprintf(n, sizeof n, "%.1f", r->att_new);
    snprintf(buf, len, "%s -> %s", b, n);
}

static void att_text(const hr_cmp_row *r, bool att, char *buf, size_t len)
{
    buf[0] = 0;
    if (!att) return;
    char p[40];
    att_pair(r, p, sizeof p);
    snprintf(buf, len, "%s %s", p, r->bound_by && r->bound_by[0] ? r->bound_by : "-");
}

/* A median in readable units: "1.234 ms" for time, "0.7312" for a fraction. */
static void fmt_value(const hr_cmp *c, double v, char *buf, size_t len)
{
    if (c->opts.metric == HR_METRIC_NORMALIZED) snprintf(buf, len, "%.4f", v);
    else hr_fmt_ns(v, buf, len);
}

/* A delta for display: rounding noise (|d| < 0.005%) shows as +0.00%, not -0.00%. */
static double shown(double d) { return fabs(d) < 0.005 ? 0 : d; }

/* The corrected p of a row, "-" when untested. */
static void fmt_p(const hr_cmp_row *r, char *buf, size_t len)
{
    if (r->tested) snprintf(buf, len, "%.3g", r->p_adj);
    else snprintf(buf, len, "-");
}

/* The p column's heading: "p (holm)", "p (bh)", or "p" without a correction. */
static void p_heading(const hr_cmp *c, char *buf, size_t len)
{
    if (c->opts.correction == HR_PADJ_NONE) snprintf(buf, len, "p");
    else snprintf(buf, len, "p (%s)", hr_padj_names[c->opts.correction]);
}

static const char *metric_desc(const hr_cmp *c)
{
    return c->opts.metric == HR_METRIC_TIME
               ? "time (median real_time, lower is better)"
               : "normalized (median " HR_CMP_FRAC_COUNTER ", higher is better)";
}

/* How the rows' p-values were corrected, for the header. */
static void fmt_test(const hr_cmp *c, char *buf, size_t len)
{
    static const char *const how[] = {
        "Holm's correction (family-wise error)",
        "Benjamini-Hochberg correction (false discovery rate)",
        "no correction (alpha per row)",
    };
    snprintf(buf, len, "%s, alpha %g, %s over %d tested row%s",
             c->test ? c->test : "two-sided Mann-Whitney U", c->opts.alpha, how[c->opts.correction], c->n_tested, c->n_tested == 1 ? "" : "s");
}

static void fmt_summary(const hr_cmp *c, char *buf, size_t len)
{
    char common[64] = "";
    if (c->common != HR_VERDICT_SAME)
        snprintf(common, sizeof common, "; common shift %+.1f%%: %s",
                 100 * expm1(c->shift.c - c->shift.s), hr_verdict_names[c->common]);
    snprintf(buf, len,
             "%s%d regression%s, %d improvement%s, %d same, %d noise (%d compared)%s",
             c->shift.undecided ? "cannot separate machine from code; " : "",
             c->count[HR_VERDICT_REGRESSION], c->count[HR_VERDICT_REGRESSION] == 1 ? "" : "s",
             c->count[HR_VERDICT_IMPROVEMENT], c->count[HR_VERDICT_IMPROVEMENT] == 1 ? "" : "s",
             c->count[HR_VERDICT_SAME], c->count[HR_VERDICT_NOISE], c->nrows, common);
}

void hr_cmp_print_table(FILE *f, const hr_cmp *c)
{
    char test[160], ph[16];
    fmt_test(c, test, sizeof test);
    p_heading(c, ph, sizeof ph);
    fprintf(f, "%s: %s -> %s\n", c->title ? c->title : "headroom compare", c->base_path, c->new_path);
    fprintf(f, "metric: %s; threshold %g%%; %s\n", metric_desc(c), c->opts.threshold_pct, test);
    fprintf(f, "shift: %s\n", c->shift_note);
    for (int i = 0; i < c->nwarn; i++) fprintf(f, "warning: %s\n", c->warn[i]);
    int w = (int)strlen("benchmark");
    for (int i = 0; i < c->nrows; i++)
        if ((int)strlen(c->rows[i].name) > w) w = (int)strlen(c->rows[i].name);
    const bool att = any_att(c);
    fprintf(f, "\n%-*s  %11s  %11s  %9s  %9s  %9s  %7s  %s%s\n", w, "benchmark", "base", "new",
            "delta", "adjusted", ph, "reps", c->opts.p_asymptotic ? "verdict       p asym" : "verdict",
            att ? "  % of attainable (base -> new, bound by)" : "");
    for (int i = 0; i < c->nrows; i++) {
        const hr_cmp_row *r = &c->rows[i];
        char vb[32], vn[32], p[32], reps[32];
        fmt_value(c, r->base, vb, sizeof vb);
        fmt_value(c, r->new_, vn, sizeof vn);
        fmt_p(r, p, sizeof p);
        snprintf(reps, sizeof reps, "%d/%d", r->n_base, r->n_new);
        char vc[64];
        if (!c->opts.p_asymptotic) snprintf(vc, sizeof vc, "%s", hr_verdict_names[r->verdict]);
        else if (isnan(r->p_asym)) snprintf(vc, sizeof vc, "%-12s  -", hr_verdict_names[r->verdict]);
        else snprintf(vc, sizeof vc, "%-12s  %.3g", hr_verdict_names[r->verdict], r->p_asym);
        char at[64];
        att_text(r, att, at, sizeof at);
        fprintf(f, "%-*s  %11s  %11s  %+8.2f%%  %+8.2f%%  %9s  %7s  %s%s%s\n", w, r->name, vb, vn,
                shown(r->delta_pct), shown(r->adj_delta_pct), p, reps, vc, att ? "  " : "", at);
    }
    char geo[48], sum[200];
    snprintf(geo, sizeof geo, "geomean (%d row%s)", c->nrows, c->nrows == 1 ? "" : "s");
    fprintf(f, "%-*s  %11s  %11s  %+8.2f%%\n", w, geo, "", "", shown(c->geomean_delta_pct));
    if (c->opts.p_asymptotic) {
        if (isfinite(c->gbench_geomean_delta_pct))
            fprintf(f, "%-*s  %11s  %11s  %+8.2f%%\n", w, "geomean (compare.py)", "", "", shown(c->gbench_geomean_delta_pct));
        fprintf(f, "p asym: normal-approximation U test on the samples as measured, no shift, no correction "
                   "(compare.py's time p-value); geomean (compare.py): ratio of the files' geomeans over every "
                   "repetition (docs/how-to/ci-gate.md)\n");
    }
    fmt_summary(c, sum, sizeof sum);
    fprintf(f, "\nresult: %s\n", sum);
}

void hr_cmp_print_markdown(FILE *f, const hr_cmp *c)
{
    char sum[200], test[160], ph[16];
    fmt_summary(c, sum, sizeof sum);
    fmt_test(c, test, sizeof test);
    p_heading(c, ph, sizeof ph);
    fprintf(f, "### %s ", hr_cmp_status(c) == HR_CMP_UNDECIDED ? ":warning:"
                          : hr_cmp_status(c) == HR_EFAIL      ? ":x:"
                                                              : ":white_check_mark:");
    hr_md_cell(f, c->title ? c->title : "headroom compare", HR_MD_TEXT);
    fprintf(f, ": %s\n\n", sum);
    fprintf(f, "Base ");
    hr_md_cell(f, c->base_path, HR_MD_CODE);
    fprintf(f, ", new ");
    hr_md_cell(f, c->new_path, HR_MD_CODE);
    fprintf(f, ". Metric: %s; threshold %g%%; %s.\n\n", metric_desc(c), c->opts.threshold_pct,
            test);
    fprintf(f, "**Shift:** ");
    hr_md_cell(f, c->shift_note, HR_MD_TEXT);
    fprintf(f, ".\n\n");
    for (int i = 0; i < c->nwarn; i++) {
        fprintf(f, "> **Warning:** ");
        hr_md_cell(f, c->warn[i], HR_MD_TEXT);
        fprintf(f, "\n>\n");
    }
    if (c->nwarn) fprintf(f, "\n");
    const bool pa = c->opts.p_asymptotic;
    const bool att = any_att(c);
    fprintf(f, "| benchmark | base | new | delta | adjusted | %s | reps | verdict |%s%s\n", ph, pa ? " p asym |" : "",
            att ? " % of attainable | bound by |" : "");
    fprintf(f, "|:--|--:|--:|--:|--:|--:|--:|:--|%s%s\n", pa ? "--:|" : "", att ? "--:|:--|" : "");
    for (int i = 0; i < c->nrows; i++) {
        const hr_cmp_row *r = &c->rows[i];
        char vb[32], vn[32], p[32];
        fmt_value(c, r->base, vb, sizeof vb);
        fmt_value(c, r->new_, vn, sizeof vn);
        fmt_p(r, p, sizeof p);
        fprintf(f, "| ");
        hr_md_cell(f, r->name, HR_MD_CODE);
        bool loud = r->verdict >= HR_VERDICT_REGRESSION;
        fprintf(f, " | %s | %s | %+.2f%% | %+.2f%% | %s | %d/%d | %s%s%s |", vb, vn,
                shown(r->delta_pct), shown(r->adj_delta_pct), p, r->n_base, r->n_new,
                loud ? "**" : "", hr_verdict_names[r->verdict], loud ? "**" : "");
        if (pa && isnan(r->p_asym)) fprintf(f, " - |");
        else if (pa) fprintf(f, " %.3g |", r->p_asym);
        if (att) {
            char at[64];
            att_pair(r, at, sizeof at);
            fprintf(f, " %s | %s |", at, r->bound_by && r->bound_by[0] ? r->bound_by : "-");
        }
        fprintf(f, "\n");
    }
    fprintf(f, "| geomean (%d row%s) | | | %+.2f%% | | | | |%s\n", c->nrows,
            c->nrows == 1 ? "" : "s", shown(c->geomean_delta_pct), pa ? " |" : "");
    if (pa && isfinite(c->gbench_geomean_delta_pct))
        fprintf(f, "| geomean (compare.py) | | | %+.2f%% | | | | | |\n", shown(c->gbench_geomean_delta_pct));
}

/* Adds a number, or null when it is not finite. */
static void add_num(cJSON *o, const char *key, double v)
{
    if (isfinite(v)) cJSON_AddNumberToObject(o, key, v);
    else cJSON_AddNullToObject(o, key);
}

/* The shift as JSON: log ratios as percentages of the metric, 100 (e^x - 1). */
static cJSON *shift_json(const hr_cmp *c)
{
    const hr_shift *s = &c->shift;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "status", hr_shift_kind_names[s->kind]);
    cJSON_AddBoolToObject(o, "undecided", s->undecided);
    cJSON_AddNumberToObject(o, "rows", s->nrows);
    cJSON_AddNumberToObject(o, "probed_rows", s->nprobed);
    add_num(o, "common_pct", 100 * expm1(s->c));
    add_num(o, "spread_pct", 100 * expm1(s->mad));
    add_num(o, "probes_pct", 100 * expm1(s->m));
    cJSON_AddNumberToObject(o, "taken_out_pct", 100 * expm1(s->s));
    add_num(o, "code_sign_test_p", s->code_p);
    cJSON_AddStringToObject(o, "code_verdict", hr_verdict_names[c->common]);
    cJSON_AddStringToObject(o, "note", c->shift_note);
    return o;
}

cJSON *hr_cmp_json(const hr_cmp *c)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "base", c->base_path);
    cJSON_AddStringToObject(j, "new", c->new_path);
    if (c->title) cJSON_AddStringToObject(j, "title", c->title);
    cJSON_AddStringToObject(j, "test", c->test ? c->test : "two-sided Mann-Whitney U");
    cJSON_AddStringToObject(j, "metric", hr_cmp_metric_names[c->opts.metric]);
    cJSON_AddNumberToObject(j, "threshold_pct", c->opts.threshold_pct);
    cJSON_AddNumberToObject(j, "alpha", c->opts.alpha);
    cJSON_AddStringToObject(j, "correction", hr_padj_names[c->opts.correction]);
    cJSON_AddNumberToObject(j, "tested_rows", c->n_tested);
    if (c->opts.filter) cJSON_AddStringToObject(j, "filter", c->opts.filter);
    cJSON_AddItemToObject(j, "shift", shift_json(c));
    cJSON *warn = cJSON_AddArrayToObject(j, "warnings");
    for (int i = 0; i < c->nwarn; i++) cJSON_AddItemToArray(warn, cJSON_CreateString(c->warn[i]));
    cJSON *rows = cJSON_AddArrayToObject(j, "rows");
    for (int i = 0; i < c->nrows; i++) {
        const hr_cmp_row *r = &c->rows[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", r->name);
        cJSON_AddNumberToObject(o, "base", r->base);
        cJSON_AddNumberToObject(o, "new", r->new_);
        cJSON_AddStringToObject(o, "unit", c->opts.metric == HR_METRIC_TIME ? "ns" : "fraction");
        cJSON_AddNumberToObject(o, "delta_pct", r->delta_pct);
        cJSON_AddNumberToObject(o, "adj_delta_pct", r->adj_delta_pct);
        add_num(o, "probe_delta_pct", r->probe_pct);
        cJSON_AddNumberToObject(o, "n_base", r->n_base);
        cJSON_AddNumberToObject(o, "n_new", r->n_new);
        cJSON_AddStringToObject(o, "test", hr_mwu_method_names[r->tested ? r->test.method : 0]);
        if (r->tested) {
            cJSON_AddNumberToObject(o, "u", r->test.u1);
            cJSON_AddNumberToObject(o, "p", r->test.p);
            cJSON_AddNumberToObject(o, "p_adj", r->p_adj);
            if (c->opts.p_asymptotic) cJSON_AddNumberToObject(o, "p_asymptotic", r->p_asym);
        } else {
            cJSON_AddNullToObject(o, "u");
            cJSON_AddNullToObject(o, "p");
            cJSON_AddNullToObject(o, "p_adj");
        }
        cJSON_AddBoolToObject(o, "can_reach_alpha", r->can_reach);
        cJSON_AddStringToObject(o, "verdict", hr_verdict_names[r->verdict]);
        cJSON_AddItemToArray(rows, o);
    }
    cJSON_AddNumberToObject(j, "geomean_delta_pct", c->geomean_delta_pct);
    if (c->opts.p_asymptotic) add_num(j, "gbench_geomean_delta_pct", c->gbench_geomean_delta_pct);
    cJSON *cnt = cJSON_AddObjectToObject(j, "counts");
    static const char *const keys[] = {"same", "noise", "regression", "improvement"};
    for (int v = 0; v < 4; v++) cJSON_AddNumberToObject(cnt, keys[v], c->count[v]);
    cJSON_AddNumberToObject(j, "exit_status", hr_cmp_status(c));
    cJSON *ob = cJSON_AddArrayToObject(j, "only_in_base");
    for (int i = 0; i < c->n_only_base; i++)
        cJSON_AddItemToArray(ob, cJSON_CreateString(c->only_base[i]));
    cJSON *on = cJSON_AddArrayToObject(j, "only_in_new");
    for (int i = 0; i < c->n_only_new; i++)
        cJSON_AddItemToArray(on, cJSON_CreateString(c->only_new[i]));
    cJSON *mm = cJSON_AddArrayToObject(j, "probe_mismatch");
    for (int i = 0; i < c->n_mismatch; i++)
        cJSON_AddItemToArray(mm, cJSON_CreateString(c->mismatch[i]));
    return j;
}
