/* report_peers.c — the "peer / headroom" table of `headroom report`: for each shape and
 * thread count, every plugin kernel's median time over the median time of the fastest
 * built-in kernel on the same shape, element types and thread count (which built-in
 * that was is named). The rows come from one results file per machine, so peers and
 * headroom's kernels were measured in the same interleaved rounds. */
#include <math.h>
#include <string.h>

#include "files.h"
#include "report_peers.h"

#define MAX_PEERS 32
#define MAX_T 16

const hr_report_cell *hr_report_cell_at(const hr_report *r, int s, int m, const char *kernel, int threads)
{
    for (int i = 0; i < r->ncells; i++) {
        const hr_report_cell *c = &r->cells[i];
        if (c->shape == s && c->machine == m && c->threads == threads && !strcmp(c->kernel, kernel)) return c;
    }
    return NULL;
}

const hr_report_cell *hr_report_best_builtin(const hr_report *r, int s, int m, int threads)
{
    const hr_report_cell *best = NULL;
    for (int i = 0; i < r->ncells; i++) {
        const hr_report_cell *c = &r->cells[i];
        if (c->shape != s || c->machine != m || c->threads != threads || c->peer[0] || !(c->time_ns > 0)) continue;
        if (!best || c->time_ns < best->time_ns) best = c;
    }
    return best;
}

double hr_report_peer_ratio(const hr_report *r, int s, int m, int threads, const char *peer_kernel,
                            const hr_report_cell **best)
{
    const hr_report_cell *b = hr_report_best_builtin(r, s, m, threads);
    const hr_report_cell *p = hr_report_cell_at(r, s, m, peer_kernel, threads);
    if (best) *best = b;
    return b && p && p->time_ns > 0 ? p->time_ns / b->time_ns : NAN;
}

int hr_report_peer_kernels(const hr_report *r, int m, const hr_report_cell **peers, int max)
{
    int n = 0;
    for (int i = 0; i < r->ncells && n < max; i++) {
        const hr_report_cell *c = &r->cells[i];
        if (c->machine != m || !c->peer[0]) continue;
        int seen = 0;
        for (int j = 0; j < n && !seen; j++) seen = !strcmp(peers[j]->kernel, c->kernel);
        if (!seen) peers[n++] = c;
    }
    return n;
}

bool hr_report_has_peers(const hr_report *r)
{
    for (int i = 0; i < r->ncells; i++)
        if (r->cells[i].peer[0]) return true;
    return false;
}

/* The thread counts measured on (s, m), ascending (at most MAX_T). */
static int threads_of(const hr_report *r, int s, int m, int *t)
{
    int n = 0;
    for (int i = 0; i < r->ncells; i++) {
        const hr_report_cell *c = &r->cells[i];
        if (c->shape != s || c->machine != m) continue;
        int seen = 0;
        for (int j = 0; j < n && !seen; j++) seen = t[j] == c->threads;
        if (!seen && n < MAX_T) t[n++] = c->threads;
    }
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && t[j - 1] > t[j]; j--) {
            const int x = t[j];
            t[j] = t[j - 1], t[j - 1] = x;
        }
    return n;
}

/* The table's rows of machine m in order: shape by shape, each thread count measured on
 * it ascending. Start with it->s = 0, it->i = it->nt = 0. */
typedef struct {
    int s, i, nt, t[MAX_T];
    int threads;                  /* the row's thread count                          */
    char shape[128];              /* hr_report_shape_str of shape s                  */
    const hr_report_cell *best;   /* the fastest built-in kernel there, or NULL      */
} row_it;

static bool next_row(const hr_report *r, int m, row_it *it)
{
    while (it->i >= it->nt) {
        if (it->s >= r->nshapes) return false;
        it->nt = threads_of(r, it->s, m, it->t);
        it->i = 0;
        hr_report_shape_str(&r->shapes[it->s], it->shape, sizeof it->shape);
        it->s++;
    }
    it->threads = it->t[it->i++];
    it->best = hr_report_best_builtin(r, it->s - 1, m, it->threads);
    return true;
}

/* The best built-in cell's percent of the roofline bound, "-" when unknown. */
static void pct_of(const hr_report_cell *b, char *buf, size_t len)
{
    if (b && isfinite(b->pct_roofline)) snprintf(buf, len, "%.0f%%", b->pct_roofline);
    else snprintf(buf, len, "-");
}

static void ratio_of(double q, char *buf, size_t len)
{
    if (isfinite(q)) snprintf(buf, len, "%.2f×", q);
    else snprintf(buf, len, "-");
}

/* Per peer, its least ratio on the prefill rows (Nq > 1) and on the decode rows (Nq = 1),
 * with the row: where headroom's lead over it is smallest, what a target is judged on. */
static void least_lines(const hr_report *r, FILE *f, int m, const hr_report_cell *const *peers, int np)
{
    for (int p = 0; p < np; p++) {
        double lo[2] = {INFINITY, INFINITY};
        char at[2][160] = {"", ""};
        for (row_it it = {0}; next_row(r, m, &it);) {
            const double q = hr_report_peer_ratio(r, it.s - 1, m, it.threads, peers[p]->kernel, NULL);
            const int dec = r->shapes[it.s - 1].seq_q == 1;
            if (isfinite(q) && q < lo[dec]) lo[dec] = q, snprintf(at[dec], sizeof at[dec], "%s, T%d", it.shape, it.threads);
        }
        fprintf(f, "%s- ", p ? "" : "\n");
        hr_md_cell(f, peers[p]->kernel, HR_MD_PLAIN);
        fprintf(f, ": least peer ÷ headroom");
        for (int k = 0; k < 2; k++) {
            fprintf(f, "%s on %s shapes ", k ? "," : "", k ? "decode (Nq = 1)" : "prefill");
            if (isfinite(lo[k])) fprintf(f, "%.2f× (%s)", lo[k], at[k]);
            else fprintf(f, "-");
        }
        fprintf(f, "\n");
    }
}

void hr_report_peers_markdown(const hr_report *r, FILE *f, const char *hashes)
{
    for (int m = 0; m < r->nmachines; m++) {
        const hr_report_cell *peers[MAX_PEERS];
        const int np = hr_report_peer_kernels(r, m, peers, MAX_PEERS);
        if (!np) continue;
        const hr_report_machine *x = &r->machines[m];
        fprintf(f, "\n%s peer / headroom: ", hashes);
        hr_md_cell(f, x->label, HR_MD_PLAIN);
        fprintf(f, "\n\n- machine: ");
        hr_md_cell(f, x->cpu_model, HR_MD_PLAIN);
        fprintf(f, ", %d CPUs, ISA ", x->cpus);
        hr_md_cell(f, x->isa, HR_MD_PLAIN);
        fprintf(f, " (");
        hr_md_cell(f, x->machine, HR_MD_CODE);
        fprintf(f, ")\n- headroom ");
        hr_md_cell(f, x->version, HR_MD_PLAIN);
        fprintf(f, ", commit ");
        hr_md_cell(f, x->commit, HR_MD_CODE);
        fprintf(f, "; run ");
        hr_md_cell(f, x->date, HR_MD_PLAIN);
        fprintf(f, ", load average at the start %s\n- libraries (plugins loaded): ", x->load[0] ? x->load : "unknown");
        hr_md_cell(f, x->plugins[0] ? x->plugins : "none recorded", HR_MD_PLAIN);
        fprintf(f, "\n\nRows: shape x thread count. headroom: the fastest built-in kernel on that shape and thread "
                   "count, its median GFLOP/s and percent of the roofline bound min(peak, AI x bandwidth). Each "
                   "peer column: the peer's median time ÷ headroom's (above 1: headroom is faster), measured in "
                   "the same interleaved rounds. `-`: not measured (an unthreaded plugin runs T1 only).\n\n"
                   "| shape | T | headroom kernel | GFLOP/s | %% of roof |");
        for (int p = 0; p < np; p++) {
            fputc(' ', f);
            hr_md_cell(f, peers[p]->kernel, HR_MD_PLAIN);
            fprintf(f, " (");
            hr_md_cell(f, peers[p]->peer, HR_MD_PLAIN);
            fprintf(f, ") ÷ headroom |");
        }
        fprintf(f, "\n|---|---:|---|---:|---:|");
        for (int p = 0; p < np; p++) fprintf(f, "---:|");
        fprintf(f, "\n");
        for (row_it it = {0}; next_row(r, m, &it);) {
            const hr_report_cell *b = it.best;
            char pct[16], g[24] = "-";
            pct_of(b, pct, sizeof pct);
            if (b && isfinite(b->gflops)) snprintf(g, sizeof g, "%.2f", b->gflops);
            fprintf(f, "| %s | %d | ", it.shape, it.threads);
            hr_md_cell(f, b ? b->kernel : "-", HR_MD_PLAIN);
            fprintf(f, " | %s | %s |", g, pct);
            for (int p = 0; p < np; p++) {
                char q[24];
                ratio_of(hr_report_peer_ratio(r, it.s - 1, m, it.threads, peers[p]->kernel, NULL), q, sizeof q);
                fprintf(f, " %s |", q);
            }
            fprintf(f, "\n");
        }
        least_lines(r, f, m, peers, np);
    }
}

void hr_report_peers_text(const hr_report *r, FILE *f)
{
    for (int m = 0; m < r->nmachines; m++) {
        const hr_report_cell *peers[MAX_PEERS];
        const int np = hr_report_peer_kernels(r, m, peers, MAX_PEERS);
        if (!np) continue;
        const hr_report_machine *x = &r->machines[m];
        fprintf(f, "peer / headroom: %s (%s, %d CPUs), headroom %s %s, load %s\n", x->label, x->cpu_model, x->cpus,
                x->version, x->commit, x->load[0] ? x->load : "unknown");
        for (int p = 0; p < np; p++) fprintf(f, "  peer %-16s %s\n", peers[p]->kernel, peers[p]->peer);
        fprintf(f, "%-34s %4s %-14s %9s %6s", "shape", "T", "headroom", "GFLOP/s", "%roof");
        for (int p = 0; p < np; p++) fprintf(f, " %14.14s", peers[p]->kernel);
        fprintf(f, "\n");
        for (row_it it = {0}; next_row(r, m, &it);) {
            const hr_report_cell *b = it.best;
            char pct[16];
            pct_of(b, pct, sizeof pct);
            fprintf(f, "%-34s %4d %-14s ", it.shape, it.threads, b ? b->kernel : "-");
            if (b && isfinite(b->gflops)) fprintf(f, "%9.2f", b->gflops);
            else fprintf(f, "%9s", "-");
            fprintf(f, " %6s", pct);
            for (int p = 0; p < np; p++) {
                const double q = hr_report_peer_ratio(r, it.s - 1, m, it.threads, peers[p]->kernel, NULL);
                if (isfinite(q)) fprintf(f, " %13.2fx", q);
                else fprintf(f, " %14s", "-");
            }
            fprintf(f, "\n");
        }
        fprintf(f, "(peer columns: the peer's median time / headroom's; above 1: headroom is faster)\n");
    }
}

void hr_report_peers_csv(const hr_report *r, FILE *f)
{
    fprintf(f, "machine,shape,threads,headroom_kernel,headroom_time_ns,headroom_gflops,headroom_pct_of_roofline,"
               "peer_kernel,peer_library,peer_time_ns,peer_over_headroom\n");
    for (int m = 0; m < r->nmachines; m++) {
        const hr_report_cell *peers[MAX_PEERS];
        const int np = hr_report_peer_kernels(r, m, peers, MAX_PEERS);
        for (row_it it = {0}; next_row(r, m, &it);)
            for (int p = 0; p < np; p++) {
                const hr_report_cell *b = it.best, *c = hr_report_cell_at(r, it.s - 1, m, peers[p]->kernel, it.threads);
                const double q = hr_report_peer_ratio(r, it.s - 1, m, it.threads, peers[p]->kernel, NULL);
                hr_csv_field(f, r->machines[m].label);
                fputc(',', f);
                hr_csv_field(f, it.shape);
                fprintf(f, ",%d,", it.threads);
                hr_csv_field(f, b ? b->kernel : "");
                if (b) fprintf(f, ",%.9g,%.6g,", b->time_ns, b->gflops);
                else fprintf(f, ",,,");
                if (b && isfinite(b->pct_roofline)) fprintf(f, "%.4g", b->pct_roofline);
                fputc(',', f);
                hr_csv_field(f, peers[p]->kernel);
                fputc(',', f);
                hr_csv_field(f, peers[p]->peer);
                fputc(',', f);
                if (c && isfinite(c->time_ns)) fprintf(f, "%.9g", c->time_ns);
                fputc(',', f);
                if (isfinite(q)) fprintf(f, "%.6g", q);
                fprintf(f, "\n");
            }
    }
}
