/* sweep_shard.h — shards of a sweep: K/N parsed (or taken from a Slurm job array), the points split by estimated cost, the shard's manifest (shard.json). */
#ifndef HR_SWEEP_SHARD_H
#define HR_SWEEP_SHARD_H

#include <stdint.h>

#include "sweep_points.h"

/* Shard k of n, 1 <= k <= n; n == 0: the whole sweep. */
typedef struct {
    int k, n;
} hr_shard;

/* Parses "K/N" (1 <= K <= N <= HR_MAX_SHARDS) or "slurm" (hr_shard_slurm). HR_OK, or
 * HR_EUSAGE with a message naming --shard. */
int hr_shard_parse(const char *s, hr_shard *sh);
#define HR_MAX_SHARDS 4096
/* K and N of a Slurm job array task: K = SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN + 1,
 * N = SLURM_ARRAY_TASK_COUNT (else MAX - MIN + 1). An array with a step or holes
 * (--array=0-9:2, 1,4,7) gives COUNT != MAX - MIN + 1 and is refused. HR_OK, or
 * HR_EUSAGE naming the variable that is missing or wrong. */
int hr_shard_slurm(hr_shard *sh);

/* Estimated seconds to measure a point: warm-up plus reps repetitions of at least
 * min_time each, one call costing max(FLOPs / (HR_SHARD_FLOPS * T), bytes / HR_SHARD_BW)
 * with the FLOPs and the kernel's bytes from counts.c (layer mode: the projections
 * too). T is the point's thread count (0, "all CPUs", counts as 1: the estimate must
 * not depend on the node that computes it). A skipped point costs 0. */
double hr_shard_cost(const hr_sweep_point *pt, int reps, double min_time, double warmup);
#define HR_SHARD_FLOPS 50e9 /* FLOP/s per thread: a vector kernel on a recent core */
#define HR_SHARD_BW 20e9    /* bytes/s                                             */

/* Splits n points over nshards by greedy longest-processing-time: the points sorted by
 * cost, most expensive first, ties by index; each goes to the shard with the least cost
 * so far, ties to the lowest shard. owner[i] becomes the shard (1..nshards) of point i:
 * the same on every node, as it depends only on the points. HR_OK, or HR_EUSAGE (out of
 * memory). */
int hr_shard_assign(const double *cost, int n, int nshards, int *owner);

/* FNV-1a 64 over len bytes, continuing from h (start: HR_FNV_INIT). */
#define HR_FNV_INIT 0xcbf29ce484222325ull
uint64_t hr_fnv1a(uint64_t h, const void *data, size_t len);
/* The hash of the config file's bytes, 16 hex digits. HR_OK, or HR_EUSAGE (unreadable). */
int hr_config_hash(const char *path, char hex[17]);
/* The hash of the point list: every point's resume key and name, in order. */
void hr_points_hash(const hr_sweep_point *pts, int n, char hex[17]);

/* Writes DIR/shard.json atomically: {"headroom_shard": 1, "shard": K, "shards": N,
 * "config", "config_file", "config_hash", "points_hash", "build_id", "machine", "host",
 * "points": [{"name", "key", "shard"}...]} with every point of the whole sweep and its
 * owner. HR_OK, or HR_EUSAGE when it cannot be written. */
int hr_shard_write_manifest(const char *dir, hr_shard sh, const char *config_name,
                            const char *config_file, const char *config_hash,
                            const hr_sweep_point *pts, const int *owner, int n);
/* Reads K/N back from DIR/shard.json. Returns 1 when there is none, HR_OK when read,
 * HR_EUSAGE when it is malformed (message: file and field). */
int hr_shard_read(const char *dir, hr_shard *sh, char config_hash[17], char points_hash[17]);

#endif
