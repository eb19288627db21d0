/* sweep_shard.c — shards of a sweep: K/N from the command line or a Slurm job array, a
 * cost estimate per point from counts.c, the greedy longest-processing-time split, and
 * the manifest (shard.json) that `headroom merge` checks shards against.
 *
 * The split depends only on the point list (names, shapes, kernels, threads, reps,
 * min_time), never on the node that computes it, so every task of a job array computes
 * the same assignment and the shards' union is the whole sweep with nothing twice.
 * Repetitions are calibrated to min_time, so most points cost reps × min_time; the
 * FLOPs and bytes matter where one call outlasts min_time (long sequences, naive's N²
 * scores), which is where an unbalanced split would hurt. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "counts.h"
#include "files.h"
#include "sweep_shard.h"
#include "sysinfo.h"

/* A whole number in [lo, hi] spelled with digits only. */
static bool whole(const char *s, size_t len, long lo, long hi, long *v)
{
    if (!len || len > 9) return false;
    long x = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        x = x * 10 + (s[i] - '0');
    }
    *v = x;
    return x >= lo && x <= hi;
}

int hr_shard_parse(const char *s, hr_shard *sh)
{
    if (!strcmp(s, "slurm")) return hr_shard_slurm(sh);
    const char *slash = strchr(s, '/');
    long k, n;
    if (!slash || !whole(slash + 1, strlen(slash + 1), 0, HR_MAX_SHARDS, &n) ||
        !whole(s, (size_t)(slash - s), 0, HR_MAX_SHARDS, &k))
        return hr_fail("--shard: '%s' is not K/N (shard K of N, 1 <= K <= N <= %d) or 'slurm'", s, HR_MAX_SHARDS);
    if (n < 1) return hr_fail("--shard: '%s': N must be at least 1", s);
    if (k < 1 || k > n) return hr_fail("--shard: '%s': K must be in 1..%ld (shards count from 1)", s, n);
    *sh = (hr_shard){(int)k, (int)n};
    return HR_OK;
}

/* The integer value of environment variable name; false when unset or not an integer. */
static bool env_int(const char *name, long *v)
{
    const char *s = getenv(name);
    return s && whole(s, strlen(s), 0, 999999999, v);
}

int hr_shard_slurm(hr_shard *sh)
{
    long id, min, max, count;
    if (!env_int("SLURM_ARRAY_TASK_ID", &id))
        return hr_fail("--shard slurm: SLURM_ARRAY_TASK_ID is %s (not a Slurm job array task: sbatch --array=0-N)",
                       getenv("SLURM_ARRAY_TASK_ID") ? "not a number" : "unset");
    if (!env_int("SLURM_ARRAY_TASK_MIN", &min)) return hr_fail("--shard slurm: SLURM_ARRAY_TASK_MIN unset or not a number");
    const bool have_max = env_int("SLURM_ARRAY_TASK_MAX", &max), have_count = env_int("SLURM_ARRAY_TASK_COUNT", &count);
    if (!have_max && !have_count) return hr_fail("--shard slurm: neither SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MAX is set");
    if (!have_count) count = max - min + 1;
    if (have_max && count != max - min + 1)
        return hr_fail("--shard slurm: the array %ld-%ld has %ld tasks, not %ld: give a contiguous --array=%ld-%ld "
                       "(or --shard K/N)", min, max, count, max - min + 1, min, min + count - 1);
    if (id < min || count < 1 || id - min >= count || count > HR_MAX_SHARDS)
        return hr_fail("--shard slurm: task %ld is outside the array %ld..%ld", id, min, min + count - 1);
    *sh = (hr_shard){(int)(id - min + 1), (int)count};
    return HR_OK;
}

double hr_shard_cost(const hr_sweep_point *pt, int reps, double min_time, double warmup)
{
    if (pt->skip[0]) return 0;
    const hr_problem *p = &pt->prob;
    double flops = hr_core_flops(p), bytes = hr_kernel_bytes(pt->kernel, p, &pt->tune);
    if (pt->d_model > 0) { /* layer mode: projections read X and the weights */
        flops += hr_proj_flops(p->batch, p->seq_q, pt->d_model, p->heads, p->kv_heads, p->d_head) +
                 hr_out_proj_flops(p->batch, p->seq_q, pt->d_model, p->heads, p->d_head);
        bytes += 4.0 * pt->d_model * ((double)p->batch * p->seq_q * 2 + (double)(2 * p->heads + 2 * p->kv_heads) * p->d_head);
    }
    const int t = pt->threads > 0 ? pt->threads : 1;
    double call = flops / (HR_SHARD_FLOPS * t);
    if (bytes / HR_SHARD_BW > call) call = bytes / HR_SHARD_BW;
    return warmup + reps * (call > min_time ? call : min_time);
}

typedef struct {
    double cost;
    int i;
} costed;

static int by_cost(const void *a, const void *b)
{
    const costed *x = a, *y = b;
    if (x->cost != y->cost) return x->cost < y->cost ? 1 : -1; /* most expensive first */
    return (x->i > y->i) - (x->i < y->i);
}

int hr_shard_assign(const double *cost, int n, int nshards, int *owner)
{
    costed *c = malloc(((size_t)n + 1) * sizeof *c);
    double *load = calloc((size_t)nshards, sizeof *load);
    if (!c || !load) {
        free(c);
        free(load);
        return hr_fail("out of memory");
    }
    for (int i = 0; i < n; i++) c[i] = (costed){cost[i], i};
    qsort(c, (size_t)n, sizeof *c, by_cost);
    for (int j = 0; j < n; j++) {
        int best = 0;
        for (int s = 1; s < nshards; s++)
            if (load[s] < load[best]) best = s;
        /* Zero-cost points (skipped) are dealt round-robin, so every shard notes some. */
        if (c[j].cost == 0) best = j % nshards;
        load[best] += c[j].cost;
        owner[c[j].i] = best + 1;
    }
    free(c);
    free(load);
    return HR_OK;
}

uint64_t hr_fnv1a(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

int hr_config_hash(const char *path, char hex[17])
{
    size_t len;
    char *t = hr_read_file(path, HR_CAP_CONFIG, "sweep config", &len);
    if (!t) return HR_EUSAGE;
    snprintf(hex, 17, "%016llx", (unsigned long long)hr_fnv1a(HR_FNV_INIT, t, len));
    free(t);
    return HR_OK;
}

void hr_points_hash(const hr_sweep_point *pts, int n, char hex[17])
{
    uint64_t h = HR_FNV_INIT;
    for (int i = 0; i < n; i++) {
        h = hr_fnv1a(h, pts[i].key, strlen(pts[i].key) + 1);
        h = hr_fnv1a(h, pts[i].name, strlen(pts[i].name) + 1);
    }
    snprintf(hex, 17, "%016llx", (unsigned long long)h);
}

int hr_shard_write_manifest(const char *dir, hr_shard sh, const char *config_name,
                            const char *config_file, const char *config_hash,
                            const hr_sweep_point *pts, const int *owner, int n)
{
    const hr_sysinfo *si = hr_sysinfo_get();
    char phash[17];
    hr_points_hash(pts, n, phash);
    cJSON *d = cJSON_CreateObject();
    cJSON_AddNumberToObject(d, "headroom_shard", 1);
    cJSON_AddNumberToObject(d, "shard", sh.k);
    cJSON_AddNumberToObject(d, "shards", sh.n);
    cJSON_AddStringToObject(d, "config", config_name);
    cJSON_AddStringToObject(d, "config_file", config_file);
    cJSON_AddStringToObject(d, "config_hash", config_hash);
    cJSON_AddStringToObject(d, "points_hash", phash);
    cJSON_AddStringToObject(d, "build_id", si->build_id);
    cJSON_AddStringToObject(d, "machine", si->machine);
    cJSON_AddStringToObject(d, "host", si->host);
    cJSON *a = cJSON_AddArrayToObject(d, "points");
    for (int i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", pts[i].name);
        cJSON_AddStringToObject(o, "key", pts[i].key);
        cJSON_AddNumberToObject(o, "shard", owner[i]);
        cJSON_AddItemToArray(a, o);
    }
    char path[1100];
    snprintf(path, sizeof path, "%s/shard.json", dir);
    const int st = hr_write_json_atomic(path, d);
    cJSON_Delete(d);
    return st;
}

int hr_shard_read(const char *dir, hr_shard *sh, char config_hash[17], char points_hash[17])
{
    char path[1100];
    snprintf(path, sizeof path, "%s/shard.json", dir);
    FILE *f = fopen(path, "r");
    if (!f && errno == ENOENT) return 1;
    if (f) fclose(f);
    cJSON *d = hr_read_json(path, HR_CAP_RESULTS, "shard manifest");
    if (!d) return HR_EUSAGE;
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(d, "shard"), *n = cJSON_GetObjectItemCaseSensitive(d, "shards"),
                *ch = cJSON_GetObjectItemCaseSensitive(d, "config_hash"),
                *ph = cJSON_GetObjectItemCaseSensitive(d, "points_hash");
    int st = HR_OK;
    if (!cJSON_IsNumber(k) || !cJSON_IsNumber(n) || !cJSON_IsString(ch) || !cJSON_IsString(ph) || n->valueint < 1 ||
        k->valueint < 1 || k->valueint > n->valueint)
        st = hr_fail("%s: not a headroom shard manifest (shard, shards, config_hash or points_hash missing or wrong)", path);
    else {
        *sh = (hr_shard){k->valueint, n->valueint};
        snprintf(config_hash, 17, "%s", ch->valuestring);
        snprintf(points_hash, 17, "%s", ph->valuestring);
    }
    cJSON_Delete(d);
    return st;
}
