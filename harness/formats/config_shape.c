/* config_shape.c — one shape of a sweep config's shapes = list ("H32/G8/N2048/d128/causal",
 * the segments of a row name, so a shape is copied from one), and the variant axes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

int hr_cfg_shape_parse(const char *text, hr_cfg_shape *s)
{
    static const char letters[] = "HGNMd";
    static const int hi[] = {HR_MAX_HEADS, HR_MAX_HEADS, HR_MAX_SEQ, HR_MAX_SEQ, HR_MAX_DHEAD};
    long long v[5] = {0, 0, 0, 0, 0};
    int causal = -1;
    char buf[128];
    if (strlen(text) >= sizeof buf) return hr_fail("shape '%.40s...' is too long", text);
    snprintf(buf, sizeof buf, "%s", text);
    for (char *save = NULL, *t = strtok_r(buf, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
        if (!strcmp(t, "causal") || !strcmp(t, "full")) {
            if (causal >= 0) return hr_fail("shape '%s': causal or full given twice", text);
            causal = t[0] == 'c';
            continue;
        }
        const char *at = *t ? strchr(letters, *t) : NULL;
        char *end;
        errno = 0;
        const long long x = at ? strtoll(t + 1, &end, 10) : 0;
        if (!at || end == t + 1 || *end || errno)
            return hr_fail("shape '%s': '%s' is not H<heads>, G<kv heads>, N<seq>, M<seq_kv>, d<d_head>, causal or "
                           "full (e.g. H32/G8/N2048/d128/causal)", text, t);
        const int i = (int)(at - letters);
        if (x < 1 || x > hi[i]) return hr_fail("shape '%s': %s is outside [1, %d]", text, t, hi[i]);
        if (v[i]) return hr_fail("shape '%s': %c given twice", text, letters[i]);
        v[i] = x;
    }
    if (!v[0] || !v[2] || !v[4]) return hr_fail("shape '%s': needs H, N and d (e.g. H8/N1024/d64)", text);
    *s = (hr_cfg_shape){(int)v[0], v[1] ? (int)v[1] : (int)v[0], (int)v[2], v[3] ? (int)v[3] : (int)v[2], (int)v[4],
                        causal == 1};
    return HR_OK;
}

int hr_cfg_variant_parse(const char *key, char *val, hr_sweep_config *c)
{
    if (!strcmp(key, "window")) return hr_ilist_parse(val, 0, HR_MAX_SEQ, &c->window);
    const bool cap = !strcmp(key, "softcap");
    const double hi = cap ? 1e6 : 1e3;
    double *v = cap ? c->softcap : c->alibi;
    int *n = cap ? &c->nsoftcap : &c->nalibi;
    char *items[HR_CFG_MAXV];
    const int m = hr_list_split(val, items, HR_CFG_MAXV);
    if (m < 0) return hr_fail("expected a list of at most %d numbers, none empty", HR_CFG_MAXV);
    for (int i = 0; i < m; i++) {
        char *end;
        errno = 0;
        const double x = strtod(items[i], &end);
        if (end == items[i] || *end || errno || !(x >= 0 && x <= hi))
            return hr_fail("'%s': expected a number in [0, %g] (0: no %s)", items[i], hi, cap ? "soft cap" : "ALiBi");
        v[i] = x;
    }
    *n = m;
    return HR_OK;
}
