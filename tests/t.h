/* t.h — the unit-test harness: HR_TEST registers a test; CHECK records failures. */
#ifndef HR_T_H
#define HR_T_H

#include <math.h>
#include <stdio.h>

typedef void (*hr_test_fn)(void);
void hr_test_register(const char *name, hr_test_fn fn, int is_long);
/* Records a failure of the running test with a message (printf format). */
void hr_test_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* HR_TEST(name) { ... } defines and registers a fast test; HR_TEST_LONG one that only
 * runs under make test-long. */
#define HR_TEST_(name, is_long)                                                          \
    static void test_##name(void);                                                      \
    __attribute__((constructor)) static void reg_##name(void)                            \
    {                                                                                    \
        hr_test_register(#name, test_##name, is_long);                                   \
    }                                                                                    \
    static void test_##name(void)
#define HR_TEST(name) HR_TEST_(name, 0)
#define HR_TEST_LONG(name) HR_TEST_(name, 1)

/* Writes text to the file at path (replacing it); returns 0, or -1 if it cannot be
 * written. For the tests that load a file they made up. */
int hr_test_write(const char *path, const char *text);

#define CHECK(cond)                                                                      \
    do {                                                                                 \
        if (!(cond)) hr_test_fail(__FILE__, __LINE__, "%s", #cond);                      \
    } while (0)
#define CHECKF(cond, ...)                                                                \
    do {                                                                                 \
        if (!(cond)) hr_test_fail(__FILE__, __LINE__, __VA_ARGS__);                      \
    } while (0)
#define CHECK_NEAR(a, b, tol)                                                            \
    do {                                                                                 \
        double a_ = (a), b_ = (b);                                                       \
        if (!(fabs(a_ - b_) <= (tol)))                                                   \
            hr_test_fail(__FILE__, __LINE__, "%s = %.9g, %s = %.9g, |diff| > %g", #a, a_, \
                         #b, b_, (double)(tol));                                         \
    } while (0)

#endif
