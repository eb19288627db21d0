/* cpu_vendor.h — the CPU's vendor and family by cpuid, for the kernels' per-CPU defaults (decode's steps and key blocks): no intrinsics, every level and the tests. */
#ifndef HR_CPU_VENDOR_H
#define HR_CPU_VENDOR_H

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

/* Bit `bit` of register reg (0 EAX, 1 EBX, 2 ECX, 3 EDX) of cpuid leaf, subleaf sub: a
 * feature flag; 0 where the leaf is past the CPU's range (the vector layer's run-time
 * checks: hr_cpu_bf16, hr_cpu_i8dot, hr_cpu_avxvnni). */
static inline int hr_cpuid_bit(unsigned leaf, unsigned sub, int reg, int bit)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned r[4];
    if (!__get_cpuid_count(leaf, sub, &r[0], &r[1], &r[2], &r[3])) return 0;
    return r[reg] >> bit & 1;
#else
    (void)leaf, (void)sub, (void)reg, (void)bit;
    return 0;
#endif
}

/* An Intel CPU: cpuid leaf 0's vendor "GenuineIntel". */
static inline int hr_cpu_intel(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    return __get_cpuid(0, &a, &b, &c, &d) && b == 0x756e6547u && d == 0x49656e69u && c == 0x6c65746eu;
#else
    return 0;
#endif
}

/* An AMD CPU's family (cpuid leaf 0's vendor "AuthenticAMD"; leaf 1's base family, plus
 * the extended family where the base is 0xf: 0x19 Zen 3 and 4, 0x1a Zen 5); 0 on
 * another vendor. */
static inline unsigned hr_cpu_amd_family(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d) || b != 0x68747541u || d != 0x69746e65u || c != 0x444d4163u) return 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    const unsigned base = a >> 8 & 0xf;
    return base == 0xf ? base + (a >> 20 & 0xff) : base;
#else
    return 0;
#endif
}

#endif
