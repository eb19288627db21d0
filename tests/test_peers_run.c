/* test_peers_run.c — what the peers run adds: shapes = lists and their parser, values
 * continued on indented lines, kernels = plugins and name? with nothing loaded, and the
 * peer / headroom ratios on a hand-made report. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "report_peers.h"
#include "sweep_points.h"
#include "t.h"

static int parse(const char *text, hr_sweep_config *c) { return hr_config_parse(text, "configs/p.ini", c); }

HR_TEST(peers_shape_parse)
{
    hr_cfg_shape s;
    CHECK(hr_cfg_shape_parse("H32/G8/N2048/d128/causal", &s) == HR_OK);
    CHECK(s.heads == 32 && s.kv_heads == 8 && s.seq_q == 2048 && s.seq_kv == 2048 && s.d_head == 128 && s.causal);
    CHECK(hr_cfg_shape_parse("d64/N1024/H8", &s) == HR_OK); /* any order; G = H, M = N, full */
    CHECK(s.heads == 8 && s.kv_heads == 8 && s.seq_kv == 1024 && !s.causal);
    CHECK(hr_cfg_shape_parse("H32/G8/N1/M16384/d128/full", &s) == HR_OK && s.seq_q == 1 && s.seq_kv == 16384);
    CHECK(hr_cfg_shape_parse("H8/N1024", &s) == HR_EUSAGE && strstr(hr_errmsg(), "needs H, N and d"));
    CHECK(hr_cfg_shape_parse("H8/H16/N4/d4", &s) == HR_EUSAGE && strstr(hr_errmsg(), "H given twice"));
    CHECK(hr_cfg_shape_parse("H8/N4/d4/causal/full", &s) == HR_EUSAGE && strstr(hr_errmsg(), "given twice"));
    CHECK(hr_cfg_shape_parse("H8/N0/d4", &s) == HR_EUSAGE && strstr(hr_errmsg(), "N0 is outside"));
    CHECK(hr_cfg_shape_parse("H8/N4x/d4", &s) == HR_EUSAGE && strstr(hr_errmsg(), "'N4x' is not"));
    CHECK(hr_cfg_shape_parse("B1/H8/N4/d4", &s) == HR_EUSAGE && strstr(hr_errmsg(), "'B1' is not"));
}

HR_TEST(peers_config_shapes_points)
{
    static hr_sweep_config c;
    CHECK(parse("[sweep]\nkernels = flash, decode\nshapes = H4/G2/N24/d8/causal,\n"
                "   H2/N1/M40/d8\nthreads = 1, 2\n",
                &c) == HR_OK);
    CHECK(c.nshapes == 2 && c.shape[1].seq_kv == 40);
    CHECK(hr_config_points(&c) == 2 * 2 * 2);
    hr_sweep_point *p;
    int n, nd;
    CHECK(hr_sweep_expand(&c, NULL, 0, &p, &n, &nd) == HR_OK);
    CHECK(n == 8);
    CHECK(p[0].prob.heads == 4 && p[0].prob.kv_heads == 2 && p[0].prob.seq_q == 24 && p[0].prob.causal);
    CHECK(p[7].prob.heads == 2 && p[7].prob.seq_q == 1 && p[7].prob.seq_kv == 40 && !p[7].prob.causal);
    CHECK(p[0].skip[0] == 0 && strstr(p[1].skip, "not applicable")); /* decode on the prefill shape */
    free(p);
    /* the keys shapes replaces are refused beside it; layer mode too */
    CHECK(parse("[sweep]\nshapes = H2/N8/d8\ncausal = true\n", &c) == HR_EUSAGE &&
          strstr(hr_errmsg(), "p.ini:3: give shapes or causal"));
    CHECK(parse("[sweep]\nmode = layer\nshapes = H2/N8/d8\n", &c) == HR_EUSAGE);
    CHECK(parse("[sweep]\nshapes = H2/N8/d8,\n", &c) == HR_EUSAGE && strstr(hr_errmsg(), "p.ini:2: shapes:"));
}

HR_TEST(peers_config_continuation)
{
    static hr_sweep_config c;
    CHECK(parse("[sweep]\nseq = 16,\n  32,\n\t64\nheads = 2\n", &c) == HR_OK);
    CHECK(c.seq.n == 3 && c.seq.v[2] == 64 && c.heads.v[0] == 2);
    /* a key again, not indented, is still an error; an error in a continued value names
     * the key's first line */
    CHECK(parse("[sweep]\nseq = 16\nseq = 32\n", &c) == HR_EUSAGE && strstr(hr_errmsg(), "given twice"));
    CHECK(parse("[sweep]\nheads = 2\nseq = 16,\n  x\n", &c) == HR_EUSAGE && strstr(hr_errmsg(), "p.ini:3: seq:"));
}

HR_TEST(peers_config_plugins_absent)
{
    static hr_sweep_config c;
    CHECK(parse("[sweep]\nkernels = flash, plugins, torch_sdpa?, flash\n", &c) == HR_OK);
    CHECK(c.nkernels == 1 && !strcmp(c.kernels[0]->name, "flash")); /* a kernel named twice runs once */
    CHECK(c.nabsent == 2 && !strcmp(c.absent[0].name, "plugins") && !strcmp(c.absent[1].name, "torch_sdpa"));
    CHECK(strstr(c.absent[1].reason, "not loaded: no plugin declares kernel 'torch_sdpa'"));
    CHECK(parse("[sweep]\nkernels = flash, torch_sdpa\n", &c) == HR_EUSAGE); /* not optional: an error */
    CHECK(parse("[sweep]\nkernels = flsh?\n", &c) == HR_EUSAGE && strstr(hr_errmsg(), "none of these kernels"));
    CHECK(parse("[sweep]\nkernels = gqa, flash?\n", &c) == HR_OK && c.nkernels == 2 && c.nabsent == 0);
}

/* A report by hand: one machine, one shape, T1 and T2; flash and gqa built in, two peers. */
static void cell(hr_report *r, const char *k, int t, double ns, const char *peer)
{
    hr_report_cell *c = &r->cells[r->ncells++];
    memset(c, 0, sizeof *c);
    snprintf(c->kernel, sizeof c->kernel, "%s", k);
    snprintf(c->peer, sizeof c->peer, "%s", peer);
    c->threads = t, c->time_ns = ns, c->gflops = 1e3 / ns, c->pct_roofline = NAN, c->ceiling_gflops = NAN;
}

HR_TEST(peers_ratio_table)
{
    static hr_report_cell cells[8];
    static hr_report_shape shapes[1] = {{1, 8, 8, 64, 64, 16, 0, "bhnd", "f32", "f32"}};
    hr_report r = {.nmachines = 1, .shapes = shapes, .nshapes = 1, .cells = cells};
    snprintf(r.machines[0].label, sizeof r.machines[0].label, "box");
    cell(&r, "flash", 1, 200, "");
    cell(&r, "gqa", 1, 150, "");
    cell(&r, "torch_sdpa", 1, 300, "libtorch 2.5.1");
    cell(&r, "flash", 2, 100, "");
    cell(&r, "gqa", 2, 120, "");
    cell(&r, "ggml_fa", 2, 90, "ggml 0.9");
    CHECK(hr_report_has_peers(&r));
    const hr_report_cell *b, *peers[4];
    CHECK(hr_report_peer_kernels(&r, 0, peers, 4) == 2 && !strcmp(peers[1]->kernel, "ggml_fa"));
    CHECK_NEAR(hr_report_peer_ratio(&r, 0, 0, 1, "torch_sdpa", &b), 2.0, 1e-12);
    CHECK(b && !strcmp(b->kernel, "gqa")); /* the fastest built-in at T1 */
    CHECK_NEAR(hr_report_peer_ratio(&r, 0, 0, 2, "ggml_fa", &b), 0.9, 1e-12);
    CHECK(b && !strcmp(b->kernel, "flash"));
    CHECK(isnan(hr_report_peer_ratio(&r, 0, 0, 2, "torch_sdpa", NULL))); /* not at T2 */
    CHECK(isnan(hr_report_peer_ratio(&r, 0, 0, 1, "ggml_fa", NULL)));
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    hr_report_peers_markdown(&r, f, "##");
    fclose(f);
    CHECK(strstr(buf, "| torch_sdpa (libtorch 2.5.1) ÷ headroom | ggml_fa (ggml 0.9) ÷ headroom |"));
    CHECK(strstr(buf, "| B1 H8/8 N64x64 d16 | 1 | gqa | 6.67 | - | 2.00× | - |"));
    CHECK(strstr(buf, "| B1 H8/8 N64x64 d16 | 2 | flash | 10.00 | - | - | 0.90× |"));
    CHECK(strstr(buf, "- torch_sdpa: least peer ÷ headroom on prefill shapes 2.00× (B1 H8/8 N64x64 d16, T1), on "
                      "decode (Nq = 1) shapes -\n"));
    CHECK(strstr(buf, "- ggml_fa: least peer ÷ headroom on prefill shapes 0.90× (B1 H8/8 N64x64 d16, T2)"));
    free(buf);
    r.ncells = 2; /* built-ins only: no table at all */
    CHECK(!hr_report_has_peers(&r));
}
