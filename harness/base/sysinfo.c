/* sysinfo.c — the machine and build a result came from: CPU, caches, memory, compiler,
 * flags, OpenMP settings, git commit; the results' context is built from this. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <omp.h>

#include "buildinfo.h"
#include "cpus.h"
#include "gitinfo.h"
#include "headroom.h"
#include "isa.h"
#include "threads.h"
#include "files.h"
#include "sysinfo.h"

#include <cjson/cJSON.h>

static void read_caches(hr_sysinfo *si)
{
    for (int i = 0; i < 8; i++) {
        char path[128], level[16], type[32], size[32], shared[64];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        if (!hr_read_first_line(path, level, sizeof level)) break;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        hr_read_first_line(path, type, sizeof type);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if (!hr_read_first_line(path, size, sizeof size)) continue;
        snprintf(path, sizeof path,
                 "/sys/devices/system/cpu/cpu0/cache/index%d/shared_cpu_list", i);
        int nshared = hr_read_first_line(path, shared, sizeof shared) ? hr_cpu_list_count(shared) : 1;
        char *end;
        size_t bytes = strtoul(size, &end, 10);
        if (*end == 'K') bytes <<= 10;
        else if (*end == 'M') bytes <<= 20;
        int lv = atoi(level);
        if (lv == 1 && !strcmp(type, "Data")) si->l1d = bytes;
        else if (lv == 2) si->l2 = bytes, si->l2_shared = nshared;
        else if (lv == 3) si->l3 = bytes, si->l3_shared = nshared;
    }
}

static void read_cpuinfo(hr_sysinfo *si)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    snprintf(si->cpu_model, sizeof si->cpu_model, "unknown");
    if (!f) return;
    int got_model = 0, got_mhz = 0;
    while (fgets(line, sizeof line, f) && !(got_model && got_mhz)) {
        char *colon = strchr(line, ':');
        if (!colon) continue;
        char *val = colon + 1;
        while (*val == ' ') val++;
        val[strcspn(val, "\n")] = 0;
        if (!got_model && !strncmp(line, "model name", 10)) {
            snprintf(si->cpu_model, sizeof si->cpu_model, "%s", val);
            got_model = 1;
        } else if (!got_mhz && !strncmp(line, "cpu MHz", 7)) {
            si->mhz = atof(val);
            got_mhz = 1;
        }
    }
    fclose(f);
}

/* FNV-1a, 64 bit. */
static uint64_t fnv(uint64_t h, const char *s)
{
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

const hr_sysinfo *hr_sysinfo_get(void)
{
    static hr_sysinfo si;
    static int done;
    if (done) return &si;
    done = 1;
    read_cpuinfo(&si);
    si.cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    si.mem_bytes = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    read_caches(&si);
    si.l3_instances = si.l3 && si.l3_shared > 0 && si.cpus > si.l3_shared ? si.cpus / si.l3_shared : 1;
    if (gethostname(si.host, sizeof si.host)) snprintf(si.host, sizeof si.host, "unknown");
    si.host[sizeof si.host - 1] = 0;

    /* Machine key: the CPU model made file-name safe, plus the CPU count. */
    size_t n = 0;
    for (const char *c = si.cpu_model; *c && n + 8 < sizeof si.machine; c++) {
        if (isalnum((unsigned char)*c)) si.machine[n++] = (char)tolower((unsigned char)*c);
        else if (n && si.machine[n - 1] != '-') si.machine[n++] = '-';
    }
    while (n && si.machine[n - 1] == '-') n--;
    snprintf(si.machine + n, sizeof si.machine - n, "-%dc", si.cpus);

    si.isa = hr_isa;
    si.isa_best = hr_isa_best()->name;
    si.isa_how = hr_isa_how();
    for (int i = 0, at = 0; i < hr_isa_count(); i++)
        at += snprintf(si.isa_levels + at, sizeof si.isa_levels - (size_t)at, "%s%s", i ? " " : "",
                       hr_isa_at(i)->name);
    si.compiler = __VERSION__;
    si.cflags = HR_BUILD_FLAGS;
    si.version = HR_VERSION;
    si.git = HR_GIT;
    si.git_time = HR_GIT_TIME;
    si.isa_req = HR_BUILD_ISA_REQ;
    uint64_t h = fnv(0xcbf29ce484222325ull, HR_BUILD_FLAGS);
    h = fnv(h, __VERSION__);
    h = fnv(h, HR_KERNELS_HASH);
    for (int i = 0; hr_kernels[i]; i++) h = fnv(h, hr_kernels[i]->name);
    snprintf(si.build_id, sizeof si.build_id, "%016llx", (unsigned long long)h);

    si.omp_max_threads = hr_threads_default();
    /* What the runtime applies (it read the environment when it was loaded), not what
     * the environment says now. */
    static const char *const binds[] = {"false", "true", "primary", "close", "spread"};
    int b = (int)omp_get_proc_bind();
    snprintf(si.omp_proc_bind, sizeof si.omp_proc_bind, "%s", b >= 0 && b < 5 ? binds[b] : "unknown");
    const char *e = getenv("OMP_PLACES");
    if (omp_get_num_places() > 0)
        snprintf(si.omp_places, sizeof si.omp_places, "%s (%d places)", e ? e : "default", omp_get_num_places());
    else
        snprintf(si.omp_places, sizeof si.omp_places, "unset");

    char gov[64];
    if (hr_read_first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", gov, sizeof gov))
        si.scaling_governor_on = strcmp(gov, "performance") != 0;
    else
        si.scaling_governor_on = -1;
    return &si;
}

void hr_date_iso(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%S%z", &tm);
}

/* "plugins": [{file, library, version, abi, kernels: [...]}], one per plugin file whose
 * kernels are in the registry, in load order; absent when none is loaded. */
static void add_plugins(cJSON *c)
{
    cJSON *arr = NULL;
    const hr_kernel *k;
    for (int i = 0; (k = hr_kernel_at(i)); i++) {
        const hr_plugin_origin *o = k->plugin;
        if (!o) continue;
        if (!arr) arr = cJSON_AddArrayToObject(c, "plugins");
        cJSON *e = NULL, *x;
        cJSON_ArrayForEach(x, arr)
        if (!strcmp(cJSON_GetObjectItemCaseSensitive(x, "file")->valuestring, o->file)) e = x;
        if (!e) {
            e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "file", o->file);
            cJSON_AddStringToObject(e, "library", o->library);
            cJSON_AddStringToObject(e, "version", o->version);
            char abi[32];
            snprintf(abi, sizeof abi, "%u.%u", o->abi_major, o->abi_minor);
            cJSON_AddStringToObject(e, "abi", abi);
            cJSON_AddArrayToObject(e, "kernels");
            cJSON_AddItemToArray(arr, e);
        }
        cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(e, "kernels"), cJSON_CreateString(k->name));
    }
}

cJSON *hr_context_json(const char *const *warnings, int nwarnings)
{
    const hr_sysinfo *si = hr_sysinfo_get();
    char date[64];
    hr_date_iso(date, sizeof date);
    cJSON *c = cJSON_CreateObject();
    cJSON_AddNumberToObject(c, "schema_version", HR_RESULTS_SCHEMA);
    cJSON_AddStringToObject(c, "date", date);
    cJSON_AddStringToObject(c, "host_name", si->host);
    cJSON_AddStringToObject(c, "executable", "headroom");
    cJSON_AddNumberToObject(c, "num_cpus", si->cpus);
    const hr_cpus *cp = hr_cpus_get();
    cJSON_AddNumberToObject(c, "cpus_allowed", cp->allowed);
    cJSON_AddStringToObject(c, "cpus_allowed_by", cp->by);
    if (*cp->set) cJSON_AddStringToObject(c, "cpu_set", cp->set);
    if (cp->quota > 0) cJSON_AddNumberToObject(c, "cpu_quota", cp->quota);
    cJSON_AddNumberToObject(c, "mhz_per_cpu", si->mhz);
    cJSON_AddBoolToObject(c, "cpu_scaling_enabled", si->scaling_governor_on == 1);
    cJSON *caches = cJSON_AddArrayToObject(c, "caches");
    struct {
        const char *type;
        int level;
        size_t size;
        int shared;
    } cs[] = {{"Data", 1, si->l1d, 1}, {"Unified", 2, si->l2, si->l2_shared},
              {"Unified", 3, si->l3, si->l3_shared}};
    for (int i = 0; i < 3; i++) {
        if (!cs[i].size) continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "type", cs[i].type);
        cJSON_AddNumberToObject(o, "level", cs[i].level);
        cJSON_AddNumberToObject(o, "size", (double)cs[i].size);
        cJSON_AddNumberToObject(o, "num_sharing", cs[i].shared ? cs[i].shared : 1);
        cJSON_AddItemToArray(caches, o);
    }
    double load[3] = {0};
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3) load[0] = 0;
        fclose(f);
    }
    cJSON_AddItemToObject(c, "load_avg", cJSON_CreateDoubleArray(load, 3));
    cJSON_AddStringToObject(c, "library_build_type", "release");
    cJSON_AddStringToObject(c, "cpu_model", si->cpu_model);
    cJSON_AddStringToObject(c, "machine", si->machine);
    cJSON_AddNumberToObject(c, "mem_bytes", si->mem_bytes);
    cJSON_AddStringToObject(c, "isa", si->isa);
    cJSON_AddStringToObject(c, "isa_levels", si->isa_levels);
    cJSON_AddStringToObject(c, "isa_best", si->isa_best);
    cJSON_AddStringToObject(c, "isa_selected_by", si->isa_how);
    cJSON_AddStringToObject(c, "compiler", si->compiler);
    cJSON_AddStringToObject(c, "cflags", si->cflags);
    cJSON_AddStringToObject(c, "headroom_version", si->version);
    cJSON_AddStringToObject(c, "git_commit", si->git);
    if (*si->git_time) cJSON_AddStringToObject(c, "git_commit_time", si->git_time);
    cJSON_AddStringToObject(c, "build_id", si->build_id);
    cJSON_AddNumberToObject(c, "omp_max_threads", si->omp_max_threads);
    /* A timed run with more threads than the CPUs it may use is not a measurement of the
     * machine. */
    const int used = hr_threads_max_used();
    if (used > 0) {
        cJSON_AddNumberToObject(c, "max_threads", used);
        cJSON_AddBoolToObject(c, "oversubscribed", used > cp->allowed);
    }
    cJSON_AddStringToObject(c, "omp_proc_bind", si->omp_proc_bind);
    cJSON_AddStringToObject(c, "omp_places", si->omp_places);
    add_plugins(c);
    cJSON *w = cJSON_AddArrayToObject(c, "warnings");
    for (int i = 0; i < nwarnings; i++) cJSON_AddItemToArray(w, cJSON_CreateString(warnings[i]));
    return c;
}

void hr_sysinfo_set_machine(void)
{
    const hr_sysinfo *si = hr_sysinfo_get();
    hr_kernel_set_machine(&(hr_machine){.l1d = si->l1d, .l2 = si->l2, .threads = hr_threads_default(), .l3 = si->l3,
                                        .l3_shared = si->l3_shared, .l3_instances = si->l3_instances});
}
