/* test_threads.c — the one thread limit: OMP_NUM_THREADS / OMP_THREAD_LIMIT parsing,
 * the default under a limit, and the check every source passes. */
#include <stdlib.h>
#include <string.h>

#include "cpus.h"
#include "headroom.h"
#include "t.h"
#include "threads.h"

/* hr_threads_env_check with OMP_NUM_THREADS=n and OMP_THREAD_LIMIT=l (NULL: unset). */
static int env_check(const char *n, const char *l)
{
    char *on = getenv("OMP_NUM_THREADS"), *ol = getenv("OMP_THREAD_LIMIT");
    char *sn = on ? strdup(on) : NULL, *sl = ol ? strdup(ol) : NULL;
    n ? setenv("OMP_NUM_THREADS", n, 1) : unsetenv("OMP_NUM_THREADS");
    l ? setenv("OMP_THREAD_LIMIT", l, 1) : unsetenv("OMP_THREAD_LIMIT");
    int st = hr_threads_env_check();
    sn ? setenv("OMP_NUM_THREADS", sn, 1) : unsetenv("OMP_NUM_THREADS");
    sl ? setenv("OMP_THREAD_LIMIT", sl, 1) : unsetenv("OMP_THREAD_LIMIT");
    free(sn);
    free(sl);
    return st;
}

HR_TEST(threads_env_accepts)
{
    CHECK(env_check(NULL, NULL) == HR_OK);
    CHECK(env_check("1", NULL) == HR_OK);
    CHECK(env_check("1024", NULL) == HR_OK);
    CHECK(env_check("4,2", NULL) == HR_OK);   /* an OpenMP nesting list: first item counts */
    CHECK(env_check(" 3", NULL) == HR_OK);    /* blanks, as libgomp allows */
    CHECK(env_check("2", "2") == HR_OK);
    CHECK(env_check(NULL, "100000") == HR_OK); /* a limit above ours limits nothing */
}

HR_TEST(threads_env_refuses)
{
    const char *bad[] = {"", "0", "-1", "x", "4x", "4,", ",4", "4,,2", "1025", "100000", "2,5000",
                         "99999999999999999999999", NULL};
    for (int i = 0; bad[i]; i++) {
        CHECKF(env_check(bad[i], NULL) == HR_EUSAGE, "OMP_NUM_THREADS='%s' accepted", bad[i]);
        CHECKF(strstr(hr_errmsg(), "OMP_NUM_THREADS"), "'%s': %s", bad[i], hr_errmsg());
    }
    const char *badl[] = {"", "0", "-2", "none", "2,2", NULL};
    for (int i = 0; badl[i]; i++) {
        CHECKF(env_check(NULL, badl[i]) == HR_EUSAGE, "OMP_THREAD_LIMIT='%s' accepted", badl[i]);
        CHECKF(strstr(hr_errmsg(), "OMP_THREAD_LIMIT"), "'%s': %s", badl[i], hr_errmsg());
    }
    CHECK(env_check("4", "2") == HR_EUSAGE);
    CHECK(strstr(hr_errmsg(), "OMP_THREAD_LIMIT=2"));
}

HR_TEST(threads_check_and_limit)
{
    char *ol = getenv("OMP_THREAD_LIMIT");
    char *sl = ol ? strdup(ol) : NULL;
    unsetenv("OMP_THREAD_LIMIT");
    CHECK(hr_threads_limit() == HR_THREADS_MAX);
    CHECK(hr_threads_check(1, "--threads") == HR_OK);
    CHECK(hr_threads_check(HR_THREADS_MAX, "--threads") == HR_OK);
    CHECK(hr_threads_check(0, "--threads") == HR_EUSAGE);
    CHECK(hr_threads_check(HR_THREADS_MAX + 1, "wisdom") == HR_EUSAGE);
    CHECK(!strncmp(hr_errmsg(), "wisdom: ", 8));
    setenv("OMP_THREAD_LIMIT", "3", 1);
    CHECK(hr_threads_limit() == 3);
    CHECK(hr_threads_default() <= 3);
    CHECK(hr_threads_check(3, "--threads") == HR_OK);
    CHECK(hr_threads_check(4, "--threads") == HR_EUSAGE);
    CHECK(strstr(hr_errmsg(), "OMP_THREAD_LIMIT=3"));
    sl ? setenv("OMP_THREAD_LIMIT", sl, 1) : unsetenv("OMP_THREAD_LIMIT");
    free(sl);
}

HR_TEST(cpu_list_count)
{
    CHECK(hr_cpu_list_count("0") == 1);
    CHECK(hr_cpu_list_count("0-3") == 4);
    CHECK(hr_cpu_list_count("0-3,6") == 5);
    CHECK(hr_cpu_list_count("0,2,4-5") == 4);
    CHECK(hr_cpu_list_count("") == 0);
    CHECK(hr_cpu_list_count("x") == 0);
    CHECK(hr_cpu_list_count("3-1") == 0); /* a range backwards is malformed */
    CHECK(hr_cpu_list_count("0-1,x") == 2);
}

HR_TEST(cpus_allowed_at_least_one)
{
    const hr_cpus *c = hr_cpus_get();
    CHECK(c->allowed >= 1 && c->allowed <= c->online);
    CHECK(c->by != NULL);
}
