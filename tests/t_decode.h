/* t_decode.h — decode's path switches for the unit tests: HEADROOM_DECODE_PATH set or
 * cleared, the int8 step's instances a test runs over, and the bf16 cache's vdpbf16ps
 * step forced. */
#ifndef HR_T_DECODE_H
#define HR_T_DECODE_H

#include <stdlib.h>
#include <string.h>

#include "headroom.h"

/* The int8 path forced off (convert) or left to the CPU (auto). */
static inline void decode_path_env(const char *v)
{
    if (v) setenv("HEADROOM_DECODE_PATH", v, 1);
    else unsetenv("HEADROOM_DECODE_PATH");
}

/* Whether decode, as the environment now sets it, accepts a problem on a cache of type kv
 * and names `word` in its path (B1 H8/2 Nq 1 Nkv 100 d64). */
static inline int decode_path_names(hr_dtype kv, const char *word)
{
    const hr_kernel *k = hr_kernel_find("decode");
    const hr_problem p = {1, 8, 2, 1, 100, 64, false, 0, HR_F32, kv};
    return k && !hr_kernel_why_not(k, &p) && strstr(hr_kernel_path(k, &p), word) != NULL;
}

/* The int8 step's instances a test runs: 0 the CPU's (auto), 1 the vpmaddubsw one
 * (decode_i8.c's decode_i8e copy, HEADROOM_DECODE_PATH=emu) where this level has it: returns whether
 * instance `emu` runs here, with the environment set for it. */
static inline int int8_instance(int emu)
{
    decode_path_env(emu ? "emu" : NULL);
    if (!emu || decode_path_names(HR_Q8_0, "vpmaddubsw")) return 1;
    decode_path_env(NULL);
    return 0;
}

/* A bf16 cache's vdpbf16ps step (decode_bf16.c) forced where this level and CPU have it
 * (HEADROOM_DECODE_PATH=bf16dot: an Intel CPU does not take it unforced): returns whether
 * it runs here, with the environment set for it, or cleared where it does not. */
static inline int bf16dot_forced(void)
{
    decode_path_env("bf16dot");
    if (decode_path_names(HR_BF16, "vdpbf16ps")) return 1;
    decode_path_env(NULL);
    return 0;
}

/* bf16dot_forced where auto takes another path (an Intel CPU's conversion path): whether
 * the forced step is a second path to test here. */
static inline int bf16dot_beside_auto(void)
{
    decode_path_env(NULL);
    return !decode_path_names(HR_BF16, "vdpbf16ps") && bf16dot_forced();
}

#endif
