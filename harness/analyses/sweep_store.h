/* sweep_store.h — a sweep's results directory: rows.jsonl appended and fsync'ed per finished row, results.json/csv rewritten atomically, resume, the latest link. */
#ifndef HR_SWEEP_STORE_H
#define HR_SWEEP_STORE_H

#include <stdio.h>

#include "config.h"
#include "result.h"
#include "sweep_points.h"

/* A point that was not measured, and why. */
typedef struct {
    char name[256], reason[320];
} hr_sweep_note;

/* Everything a sweep has recorded, and the facts its results.json reports. */
typedef struct {
    const hr_sweep_config *c;
    char dir[1024];          /* the results directory                                  */
    hr_result *res;          /* rows: resumed ones first (file order), then new ones    */
    int *pass, *seq;         /* per row: its pass; its point's place in the sweep (-1:
                              * resumed), the order results.json/csv list new rows in   */
    int nres, capres, resumed;
    int dropped;             /* rows.jsonl rows dropped on resume: a key seen before     */
    hr_sweep_note *skipped;
    int nskipped, capskipped, failed; /* failed: skips that were failed oracle checks */
    hr_keyset done;          /* keys of the resumed rows                               */
    hr_keyset crashed_keys;  /* keys of points failed in their worker, read back (not
                              * with retry_failed): --resume skips them               */
    char (*ckeys)[320];      /* the keys crashed_keys points at                        */
    int crashed;             /* points failed in their worker (read back and new); their
                              * notes are in skipped                                   */
    bool retry_failed;       /* --retry-failed: failed points are not read back        */
    char (*keys)[320];
    FILE *jsonl;
    /* reported in results.json's "sweep" object; set by the caller */
    char env_warn[8][200];
    int nenv;
    double timer_res;
    int probe;               /* hr_probe_kind                                          */
    bool phase_filter, interleave;
    bool aggregates_only;    /* results.json without per-repetition rows (--aggregates-only) */
    int nphase, nexcluded;   /* repetitions flagged / excluded over the sweep          */
    char shard[32];          /* "K/N" for a shard of a sweep, else ""                   */
    char config_hash[17];    /* hr_config_hash of the config ("": not recorded)         */
    struct cJSON *context;   /* NULL: this process's context; else this one (a merge:
                              * the shards' context), not freed by the store            */
} hr_sweep_store;

/* The order rows are written in: resumed rows (seq -1) first, then by the point's place
 * in the sweep, rows of one point in their order. *idx (malloc'd, n entries) gets the row
 * indices. HR_OK, or HR_EUSAGE (out of memory). */
int hr_sweep_row_order(const int *seq, int n, int **idx);
/* Opens the results directory into s (zeroed first): resume_dir when given (its
 * rows.jsonl is read back; a torn last line is cut off with a note), else out_dir
 * (made), else results/<machine>/<stamp>-<config><suffix> (a new directory, suffixed
 * -2.. when one of that second exists; suffix may be NULL). Copies the config there and
 * opens rows.jsonl for appending. HR_OK, or HR_EUSAGE with a message naming the
 * directory or FILE:LINE; hr_sweep_store_close frees s either way. */
int hr_sweep_store_open(hr_sweep_store *s, const hr_sweep_config *c, const char *out_dir,
                        const char *resume_dir, const char *suffix, bool retry_failed);
/* Reads the rows of results directory dir into s (zeroed first) without changing
 * anything there: a torn last line is an error (FILE:LINE), not cut off. Rows get seq
 * -1, in file order. HR_OK or HR_EUSAGE; hr_sweep_store_close frees s either way. */
int hr_sweep_store_load(hr_sweep_store *s, const hr_sweep_config *c, const char *dir);
/* Whether a row with this resume key was read back from rows.jsonl. */
bool hr_sweep_store_has(const hr_sweep_store *s, const char *key);
/* Records one finished row: kept for results.json and appended to rows.jsonl, forced
 * to disk. seq: the point's place in the sweep. HR_OK, or HR_EUSAGE (out of memory,
 * cannot write). */
int hr_sweep_store_row(hr_sweep_store *s, const hr_result *r, int pass, int seq);
/* Records a point whose worker crashed, exited or ran past its time limit: a note in
 * skipped ("failed in its worker: WHY") and a line {"key", "pass", "name", "failed": WHY}
 * appended to rows.jsonl, forced to disk, which --resume reads back. HR_OK or HR_EUSAGE. */
int hr_sweep_store_crash(hr_sweep_store *s, const char *name, const char *key, int pass, const char *why);
/* Whether the point with this key was read back as failed in its worker. */
bool hr_sweep_store_crashed(const hr_sweep_store *s, const char *key);
/* Records a point that was not measured (failed: a failed oracle check). */
int hr_sweep_store_skip(hr_sweep_store *s, const char *name, const char *reason, bool failed);
/* Rewrites results.json (Google Benchmark rows + "skipped" + "sweep") and results.csv
 * atomically from everything recorded. HR_OK, or HR_EUSAGE when a file cannot be written. */
int hr_sweep_store_write(hr_sweep_store *s, bool interrupted);
/* results/<machine>/latest -> s->dir when that lives in results/<machine>; a failure is
 * a note on stderr, not an error. */
void hr_sweep_store_latest(const hr_sweep_store *s);
/* Closes rows.jsonl and frees everything. */
void hr_sweep_store_close(hr_sweep_store *s);

#endif
