/* cmd_merge.c — `headroom merge`: the shards of a sweep (sweep --shard K/N) joined into one results set. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "commands.h"
#include "sweep_merge.h"

int cmd_merge(int argc, char **argv)
{
    const char *out = NULL;
    const hr_opt opts[] = {
        {"--out", HR_OPT_STR, &out, 0, 0, NULL, "DIR", "the merged results directory (required; made)"},
        {NULL},
    };
    const char *syn = "merge SHARD_DIR... --out DIR\n\n"
                      "Joins the results directories of `headroom sweep CONFIG --shard K/N` for K = 1..N\n"
                      "into DIR: results.json, results.csv and rows.jsonl as one unsharded sweep writes\n"
                      "them, so report, plot and compare read it. Refuses shards of different configs,\n"
                      "binaries, point lists or machines, a shard given twice or absent, and a shard\n"
                      "that has not finished (--resume it first). The shards are not changed.";
    char **pos = calloc(HR_MERGE_MAX + 1, sizeof *pos);
    int npos = 0, nrows = 0;
    if (!pos) {
        fprintf(stderr, "headroom merge: out of memory\n");
        return HR_EUSAGE;
    }
    int st = hr_parse(argc, argv, opts, syn, pos, HR_MERGE_MAX + 1, &npos);
    if (st < 0) {
        free(pos);
        return HR_OK;
    }
    if (!st && !out) st = hr_fail("--out: required (the merged results directory)");
    if (!st) st = hr_sweep_merge(pos, npos, out, &nrows);
    if (st) fprintf(stderr, "headroom merge: %s\n", hr_errmsg());
    else fprintf(stderr, "headroom merge: %d shard%s, %d rows -> %s\n", npos, npos == 1 ? "" : "s", nrows, out);
    free(pos);
    return st;
}
