/* abba.h — two variants of a timing tool (studies/cputime) timed in ABBA rounds: round r
 * runs variant 0 then 1 when r is even, 1 then 0 when odd, so a drift of the machine's
 * phase within a round falls on both alike. Include after timer.h. */
#ifndef HR_ABBA_H
#define HR_ABBA_H

#define ABBA_MAX 64 /* rounds */

/* t[v][r] = ns per unit of run(v, ctx) in round r, for rounds rounds (<= ABBA_MAX). */
static void abba_rounds(int rounds, void (*run)(int v, void *ctx), void *ctx, double units, double t[2][ABBA_MAX])
{
    for (int r = 0; r < rounds; r++)
        for (int v0 = 0; v0 < 2; v0++) {
            const int v = r % 2 ? 1 - v0 : v0;
            const double t0 = hr_now();
            run(v, ctx);
            t[v][r] = (hr_now() - t0) * 1e9 / units;
        }
}
#endif
