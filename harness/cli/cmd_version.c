/* cmd_version.c — `headroom --version` / `headroom version`: release, commit, build id,
 * compiler and flags, ISA, and where this binary finds its data and puts its results. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "commands.h"
#include "files.h"
#include "headroom.h"
#include "paths.h"
#include "sysinfo.h"

static const char *const formats[] = {"table", "json", NULL};

/* The directory rel's file was found in ("plots/roofline.gp" -> ".../plots"), or a note. */
static void data_dir(const char *rel, const char *env, char *buf, size_t len)
{
    if (!hr_data_path(rel, env, buf, len)) {
        snprintf(buf, len, "not found (%.*s)", (int)(strchr(rel, '/') - rel), rel);
        return;
    }
    char *slash = strrchr(buf, '/'), real[PATH_MAX];
    if (slash) *slash = 0;
    if (realpath(buf, real)) snprintf(buf, len, "%s", real);
}

int cmd_version(int argc, char **argv)
{
    hr_format format = HR_FMT_TABLE;
    const hr_opt opts[] = {
        {"--format", HR_OPT_FORMAT, &format, 0, 0, formats, NULL,
         "table, or json: the context block every results file carries"},
        {NULL},
    };
    int st = hr_parse(argc, argv, opts, "version [--format table|json]   (also: headroom --version)", NULL, 0, NULL);
    if (st) return hr_cmd_status("version", st);
    const hr_sysinfo *si = hr_sysinfo_get();
    if (format == HR_FMT_JSON) {
        cJSON *c = hr_context_json(NULL, 0);
        char *txt = c ? hr_json_text(c, 1) : NULL;
        if (txt) printf("%s\n", txt);
        free(txt);
        cJSON_Delete(c);
        return txt ? HR_OK : HR_EUSAGE;
    }
    char configs[PATH_MAX + 32], plots[PATH_MAX + 32], ceil[PATH_MAX];
    data_dir("configs/default.ini", NULL, configs, sizeof configs);
    data_dir("plots/roofline.gp", "HEADROOM_PLOTS", plots, sizeof plots);
    hr_results_path("ceilings.json", ceil, sizeof ceil);
    printf("headroom %s\n", si->version);
    printf("commit    %s\n", si->git);
    printf("build id  %s\n", si->build_id);
    printf("isa       %s (%s; built for %s, levels %s)\n", si->isa, si->isa_how, si->isa_req, si->isa_levels);
    printf("compiler  %s\n", si->compiler);
    printf("flags     %s\n", si->cflags);
    printf("machine   %s (%s, %d CPUs)\n", si->machine, si->cpu_model, si->cpus);
    printf("configs   %s\n", configs);
    printf("plots     %s\n", plots);
    printf("results   %s%s\n", hr_results_root(), getenv("HEADROOM_RESULTS") && *getenv("HEADROOM_RESULTS")
                                                     ? " ($HEADROOM_RESULTS)" : " (set HEADROOM_RESULTS to move it)");
    printf("ceilings  %s\n", ceil);
    return HR_OK;
}
