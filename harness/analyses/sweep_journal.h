/* sweep_journal.h — every finished repetition of a sweep appended to reps.jsonl as it completes, read back by --resume. */
#ifndef HR_SWEEP_JOURNAL_H
#define HR_SWEEP_JOURNAL_H

#include <stdbool.h>

#include "sweep_points.h"
#include "sweep_store.h"
#include "timer.h"

/* One repetition read back from the journal. */
typedef struct {
    int key;                        /* index into keys                             */
    int rep, line;                  /* the repetition (0-based); its line in the file */
    long iters;
    double time, cpu, before, after; /* seconds per call; CPU seconds per call; probes */
    bool probed;
    int reps;                       /* the identity of the sweep that measured it  */
    char config_hash[17], build_id[17];
} hr_journal_rep;

typedef struct {
    char path[1100];                /* DIR/reps.jsonl                              */
    int fd;                         /* -1: not open yet (opened at the first rep)  */
    bool off;                       /* HEADROOM_JOURNAL_SYNC=off: nothing written  */
    double sync_every, last_sync;   /* seconds between fdatasyncs; the last one    */
    bool dirty;                     /* written since the last fdatasync            */
    char config_hash[17], build_id[17];
    int reps;
    /* read back on --resume: repetitions sorted by key, then repetition */
    char (*keys)[320];
    int nkeys, capkeys, *slot;      /* slot: a hash table of key indices (-1: empty) */
    size_t nslot;
    hr_journal_rep *rec;
    int nrec;
    int restored, npoints;          /* repetitions handed to points; points given some */
} hr_sweep_journal;

/* Opens the journal of results directory dir into j (zeroed first). resume: reads
 * reps.jsonl back (a torn last line cut off with a note) and checks the repetitions of
 * every point still to measure (pts[0..n) neither skipped nor in st): measured by this
 * binary, this config (config_hash) and reps a point, else refused as --resume. Reads
 * HEADROOM_JOURNAL_SYNC (seconds between fdatasyncs, default 1; 0: after every
 * repetition; off: no journal). HR_OK, or HR_EUSAGE with a one-line message naming the
 * file (FILE:LINE) or the variable; hr_sweep_journal_close frees j either way. */
int hr_sweep_journal_open(hr_sweep_journal *j, const char *dir, bool resume, const char *config_hash, int reps,
                          const hr_sweep_point *pts, int n, const hr_sweep_store *st);
/* Copies the repetitions journaled for key (0..k-1, at most j->reps) into t's per-repetition
 * arrays (rep_time, rep_cpu and, when t->probe_kind, the probes), sets t->reps = k and
 * returns k (0: none). The point goes on from repetition k; its statistics are computed
 * over all of them when it closes. */
int hr_sweep_journal_restore(hr_sweep_journal *j, const char *key, hr_timing *t);
/* Appends repetition rep of key, as t holds it, in one write(2): a SIGKILL after it
 * returns keeps it. fdatasync when sync_every seconds have passed since the last one.
 * HR_OK, or HR_EUSAGE (cannot write). */
int hr_sweep_journal_rep(hr_sweep_journal *j, const char *key, int rep, const hr_timing *t);
/* fdatasync when anything was written since the last (the end of a round). */
int hr_sweep_journal_sync(hr_sweep_journal *j);
/* Syncs, closes and frees. */
void hr_sweep_journal_close(hr_sweep_journal *j);

#endif
