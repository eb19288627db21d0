/* test_paths.c — the data-file resolver (hr_data_path) and the results root (hr_results_path). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "paths.h"
#include "sysinfo.h"
#include "t.h"

HR_TEST(paths_results_root_follows_env)
{
    char buf[512], want[512];
    const char *m = hr_sysinfo_get()->machine;
    setenv("HEADROOM_RESULTS", "/tmp/hr-root", 1);
    hr_results_path("ceilings.json", buf, sizeof buf);
    snprintf(want, sizeof want, "/tmp/hr-root/%s/ceilings.json", m);
    CHECKF(!strcmp(buf, want), "%s", buf);
    hr_results_path(NULL, buf, sizeof buf);
    snprintf(want, sizeof want, "/tmp/hr-root/%s", m);
    CHECKF(!strcmp(buf, want), "%s", buf);
    setenv("HEADROOM_RESULTS", "", 1); /* empty: the default */
    CHECK(!strcmp(hr_results_root(), "results"));
    unsetenv("HEADROOM_RESULTS");
    hr_results_path("wisdom.json", buf, sizeof buf);
    snprintf(want, sizeof want, "results/%s/wisdom.json", m);
    CHECKF(!strcmp(buf, want), "%s", buf);
}

HR_TEST(paths_data_env_then_beside_binary_then_missing)
{
    char dir[] = "/tmp/hr-paths-XXXXXX", file[600], buf[1024];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(file, sizeof file, "%s/only-here.gp", dir);
    FILE *f = fopen(file, "w");
    CHECK(f != NULL);
    if (f) fclose(f);
    /* The env variable stands for the first path component. */
    setenv("HR_TEST_PLOTS", dir, 1);
    CHECK(hr_data_path("plots/only-here.gp", "HR_TEST_PLOTS", buf, sizeof buf) == 1);
    CHECKF(!strcmp(buf, file), "%s", buf);
    unsetenv("HR_TEST_PLOTS");
    /* Not anywhere: 0, and buf holds rel. */
    CHECK(hr_data_path("plots/only-here.gp", "HR_TEST_PLOTS", buf, sizeof buf) == 0);
    CHECK(!strcmp(buf, "plots/only-here.gp"));
    /* The unit-test binary sits in build/<isa>/: the checkout's configs are two levels up. */
    CHECK(hr_data_path("configs/ci.ini", NULL, buf, sizeof buf) == 1);
    CHECKF(strstr(buf, "configs/ci.ini") != NULL && !access(buf, R_OK), "%s", buf);
    CHECK(*hr_exe_dir() == '/');
    unlink(file);
    rmdir(dir);
}
