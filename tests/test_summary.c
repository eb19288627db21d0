/* test_summary.c — summary.md and index.html: escaping of table cells and HTML text,
 * the timer's process CPU time beside its wall time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "summary.h"
#include "t.h"
#include "timer.h"

/* What put writes for s. */
static char *escaped(void (*put)(FILE *, const char *), const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    put(f, s);
    fclose(f);
    return buf;
}

static void md_plain(FILE *f, const char *s) { hr_md_cell(f, s, HR_MD_PLAIN); }

HR_TEST(summary_md_escape)
{
    char *e = escaped(md_plain, "a|b\\c<d>&e\nf\tg\x7f");
    CHECK(e && !strcmp(e, "a\\|b\\c&lt;d&gt;&amp;e\\nf\\tg\\x7f"));
    CHECK(e && !strchr(e, '\n') && !strchr(e, '\t'));
    free(e);
    e = escaped(md_plain, "flash/B1/H16/N2048");
    CHECK(e && !strcmp(e, "flash/B1/H16/N2048"));
    free(e);
}

HR_TEST(summary_html_escape)
{
    char *e = escaped(hr_html_put, "<script>\"x\" & 'y'</script>\x01|");
    CHECK(e && !strcmp(e, "&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/script&gt;&#xFFFD;|"));
    free(e);
}

static volatile double sink;

static void spin(void *ctx)
{
    (void)ctx;
    double a = 1;
    for (int i = 0; i < 200000; i++) a = a * 1.0000001 + 1e-9;
    sink = a;
}

/* cpu_time is measured (process CPU clock), not a copy of the wall time: present and
 * finite for every repetition. No timing is asserted. */
HR_TEST(timer_cpu_time_measured)
{
    const hr_timer_opts o = {.reps = 3, .min_time = 0.001};
    static hr_timing t;
    hr_time(spin, NULL, &o, &t);
    CHECK(t.reps == 3);
    for (int i = 0; i < t.reps; i++) CHECK(isfinite(t.rep_cpu[i]) && t.rep_cpu[i] > 0 && t.rep_time[i] > 0);
    CHECK(isfinite(hr_cpu_now()) && hr_cpu_now() > 0);
}
