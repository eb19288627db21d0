/* sysinfo.h — what machine and build a result came from (the results' context). */
#ifndef HR_SYSINFO_H
#define HR_SYSINFO_H

#include <stddef.h>

typedef struct {
    char cpu_model[128];
    char machine[96];      /* file-name-safe machine key: "amd-epyc-2c"          */
    char host[64];
    int cpus;              /* online logical CPUs                                */
    double mhz;            /* nominal MHz from /proc/cpuinfo (0 if unknown)      */
    double mem_bytes;      /* physical memory                                    */
    size_t l1d, l2, l3;    /* cache sizes in bytes per instance (0 if unknown)   */
    int l2_shared, l3_shared; /* CPUs sharing one instance                       */
    int l3_instances;      /* L3 instances: cpus / l3_shared (1 when unknown)   */
    const char *isa;       /* hr_isa: the ISA level that runs                     */
    const char *isa_best;  /* the best level of this binary this CPU runs        */
    const char *isa_how;   /* how isa was chosen: best for this CPU, --isa, HEADROOM_ISA */
    char isa_levels[64];   /* the levels built in, lowest first, space-separated */
    const char *compiler;  /* __VERSION__                                        */
    const char *cflags;    /* the flags the build used                           */
    const char *version;   /* headroom's release (the VERSION file)              */
    const char *git;       /* commit the binary was built from ("unknown")       */
    const char *git_time;  /* its committer date, ISO 8601 ("" when unknown)      */
    const char *isa_req;   /* the ISA the build asked for: native, avx512, ...   */
    char build_id[17];     /* hex hash of flags, compiler, kernels' source, registry */
    int omp_max_threads;
    char omp_proc_bind[32], omp_places[64];
    int scaling_governor_on; /* 1 frequency scaling governor not "performance", 0 no, -1 unknown */
} hr_sysinfo;

/* Fills the machine and build description (cached after the first call). */
const hr_sysinfo *hr_sysinfo_get(void);
/* Hands the kernels this machine's caches and default thread count (hr_kernel_set_machine),
 * for their default tiles: every program that runs kernels calls it first (the headroom
 * binary, Google Benchmark's, scripts/decode-cputime.c). */
void hr_sysinfo_set_machine(void);
/* ISO-8601 local time now, "2026-11-22T01:30:00+00:00". */
void hr_date_iso(char *buf, size_t len);

/* The results schema this headroom writes, as the context's "schema_version"; a file
 * without the field (written before the field existed) reads as version 1. */
#define HR_RESULTS_SCHEMA 1

/* The "context" object of every results and ceilings file: schema_version, machine, caches, ISA,
 * compiler, flags, OpenMP, git, date, plus any warnings given. Caller owns it. */
struct cJSON *hr_context_json(const char *const *warnings, int nwarnings);

#endif
