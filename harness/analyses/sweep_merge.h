/* sweep_merge.h — joins the results directories of a sweep's shards into one results set. */
#ifndef HR_SWEEP_MERGE_H
#define HR_SWEEP_MERGE_H

/* The most shard directories one merge takes. */
#define HR_MERGE_MAX 4096

/* Reads the n shard directories (each written by sweep --shard K/N: shard.json,
 * rows.jsonl, results.json, the config copy) and writes out_dir (made; refused when it
 * already holds rows) with results.json, results.csv and rows.jsonl as one unsharded
 * sweep writes them: rows in the sweep's order, skipped points, the context of shard 1
 * with "shards" and "hosts" added. Nothing in the shards is changed. Refused (HR_EUSAGE,
 * one line): a directory that is not a shard's; two shards of different configs,
 * binaries (build_id), point lists, machines or shard counts (the line names both);
 * a shard given twice or absent (K of N); a shard that is half-written (a torn
 * rows.jsonl line, points neither measured nor skipped) or holds a row of another
 * shard. *nrows, when not NULL, gets the rows written. */
int hr_sweep_merge(char *const *dirs, int n, const char *out_dir, int *nrows);

#endif
