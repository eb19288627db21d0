/* test_main.c — runs every registered unit test; prints "ok"/"FAIL" lines and a total. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"

#define MAX_TESTS 1024
static struct {
    const char *name;
    hr_test_fn fn;
    int is_long;
} tests[MAX_TESTS];
static int ntests, cur_failed;

void hr_test_register(const char *name, hr_test_fn fn, int is_long)
{
    if (ntests < MAX_TESTS) tests[ntests++] = (__typeof__(tests[0])){name, fn, is_long};
}

void hr_test_fail(const char *file, int line, const char *fmt, ...)
{
    if (cur_failed++ >= 5) return; /* first few messages of a test are enough */
    va_list ap;
    va_start(ap, fmt);
    printf("    %s:%d: ", file, line);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}

int hr_test_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    const int bad = fputs(text, f) < 0;
    return fclose(f) || bad ? -1 : 0;
}

/* Usage: unit_tests [--long] [substring]. Exit status 1 if any test failed. */
int main(int argc, char **argv)
{
    int run_long = 0;
    const char *filter = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--long")) run_long = 1;
        else filter = argv[i];
    }
    int passed = 0, failed = 0;
    for (int i = 0; i < ntests; i++) {
        if (tests[i].is_long && !run_long) continue;
        if (filter && !strstr(tests[i].name, filter)) continue;
        cur_failed = 0;
        tests[i].fn();
        fflush(stdout);
        if (cur_failed) {
            printf("FAIL unit/%s\n", tests[i].name);
            failed++;
        } else {
            printf("ok   unit/%s\n", tests[i].name);
            passed++;
        }
        fflush(stdout);
    }
    printf("unit: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
