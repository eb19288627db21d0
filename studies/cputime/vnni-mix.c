/* vnni-mix.c — what each op of the int8 decode step's loops costs beside vpdpbusd zmm on one
 * core: 16 independent vpdpbusd a loop iteration (their time defines 8 cycles, vpdpbusd
 * issuing 2 a cycle), then each op kind alone and added to them (register operands, or
 * loads from one L1-resident buffer). Finding: unpacks, vpandd, plain loads and vpbroadcastd
 * issue free beside them; inserts, broadcasts of 128 bits and vpermb cost a fraction of a
 * cycle each (perf-log 0247). An asm loop of this
 * kind is not the kernel's case: a P·V order it ran 20% faster measured the same in the
 * kernel. Build: gcc -O2 -march=native vnni-mix.c (AVX512-VNNI and -VBMI), x86-64 only. */
#include <stdio.h>
#include <stdint.h>
#include <x86intrin.h>
#include <string.h>
#define ITER 20000000L
static char buf[8192] __attribute__((aligned(64)));
#define CLOB "xmm0","xmm1","xmm2","xmm3","xmm4","xmm5","xmm6","xmm7","xmm8","xmm9","xmm10","xmm11","xmm12","xmm13","xmm14","xmm15","xmm16","xmm17","xmm18","xmm19","xmm20","xmm21","xmm22","xmm23","xmm24","xmm25","xmm26","xmm27","xmm28","xmm29","xmm30","xmm31","memory"
static double base;
#define BENCH(name, body) do { \
  __asm__ volatile("kxnorw %%k0,%%k0,%%k1\n vpternlogd $0xff,%%zmm21,%%zmm21,%%zmm21" ::: "k1", CLOB); \
  uint64_t t0 = __rdtsc(); \
  for (long i = 0; i < ITER; i++) { __asm__ volatile(body ::"r"(buf), "r"(buf + 2048): CLOB); } \
  uint64_t t1 = __rdtsc(); double c = (double)(t1 - t0) / ITER; if (!base) base = c / 8.0; \
  printf("%-52s %.2f cycles/iter\n", name, c / base); } while (0)
#define D16 "vpdpbusd %%zmm0,%%zmm2,%%zmm20\n vpdpbusd %%zmm0,%%zmm8,%%zmm6\n vpdpbusd %%zmm0,%%zmm30,%%zmm19\n vpdpbusd %%zmm0,%%zmm7,%%zmm18\n vpdpbusd %%zmm0,%%zmm2,%%zmm17\n vpdpbusd %%zmm0,%%zmm8,%%zmm5\n vpdpbusd %%zmm0,%%zmm30,%%zmm16\n vpdpbusd %%zmm0,%%zmm7,%%zmm15\n vpdpbusd %%zmm0,%%zmm2,%%zmm14\n vpdpbusd %%zmm0,%%zmm8,%%zmm4\n vpdpbusd %%zmm0,%%zmm30,%%zmm13\n vpdpbusd %%zmm0,%%zmm7,%%zmm12\n vpdpbusd %%zmm0,%%zmm2,%%zmm11\n vpdpbusd %%zmm0,%%zmm8,%%zmm3\n vpdpbusd %%zmm0,%%zmm30,%%zmm10\n vpdpbusd %%zmm0,%%zmm7,%%zmm9\n"
#define UNP8 "vpunpcklbw %%zmm22,%%zmm23,%%zmm24\n vpunpckhbw %%zmm22,%%zmm23,%%zmm25\n vpunpcklbw %%zmm22,%%zmm23,%%zmm26\n vpunpckhbw %%zmm22,%%zmm23,%%zmm27\n vpunpcklwd %%zmm22,%%zmm23,%%zmm28\n vpunpckhwd %%zmm22,%%zmm23,%%zmm29\n vpunpcklwd %%zmm22,%%zmm23,%%zmm31\n vpunpckhwd %%zmm22,%%zmm23,%%zmm1\n"
#define AND8 "vpandd %%zmm22,%%zmm23,%%zmm24\n vpandd %%zmm22,%%zmm23,%%zmm25\n vpandd %%zmm22,%%zmm23,%%zmm26\n vpandd %%zmm22,%%zmm23,%%zmm27\n vpandd %%zmm22,%%zmm23,%%zmm28\n vpandd %%zmm22,%%zmm23,%%zmm29\n vpandd %%zmm22,%%zmm23,%%zmm31\n vpandd %%zmm22,%%zmm23,%%zmm1\n"
#define PERMB4 "vpermb %%zmm22,%%zmm23,%%zmm24\n vpermb %%zmm22,%%zmm23,%%zmm25\n vpermb %%zmm22,%%zmm23,%%zmm26\n vpermb %%zmm22,%%zmm23,%%zmm27\n"
#define INSR8 "vinserti32x4 $1,%%xmm22,%%zmm23,%%zmm24\n vinserti32x4 $2,%%xmm22,%%zmm23,%%zmm25\n vinserti32x4 $3,%%xmm22,%%zmm23,%%zmm26\n vinserti32x4 $1,%%xmm22,%%zmm23,%%zmm27\n vinserti32x4 $2,%%xmm22,%%zmm23,%%zmm28\n vinserti32x4 $3,%%xmm22,%%zmm23,%%zmm29\n vinserti32x4 $1,%%xmm22,%%zmm23,%%zmm31\n vinserti32x4 $2,%%xmm22,%%zmm23,%%zmm1\n"
#define INSM8 "vinserti32x4 $1,(%0),%%zmm23,%%zmm24\n vinserti32x4 $2,64(%0),%%zmm23,%%zmm25\n vinserti32x4 $3,128(%0),%%zmm23,%%zmm26\n vinserti32x4 $1,192(%0),%%zmm23,%%zmm27\n vinserti32x4 $2,256(%0),%%zmm23,%%zmm28\n vinserti32x4 $3,320(%0),%%zmm23,%%zmm29\n vinserti32x4 $1,384(%0),%%zmm23,%%zmm31\n vinserti32x4 $2,448(%0),%%zmm23,%%zmm1\n"
#define BC8 "vpbroadcastd (%1),%%zmm24\n vpbroadcastd 4(%1),%%zmm25\n vpbroadcastd 8(%1),%%zmm26\n vpbroadcastd 12(%1),%%zmm27\n vpbroadcastd 16(%1),%%zmm28\n vpbroadcastd 20(%1),%%zmm29\n vpbroadcastd 24(%1),%%zmm31\n vpbroadcastd 28(%1),%%zmm1\n"
#define BCM8 "vpbroadcastd (%1),%%zmm24%{%%k1%}\n vpbroadcastd 4(%1),%%zmm25%{%%k1%}\n vpbroadcastd 8(%1),%%zmm26%{%%k1%}\n vpbroadcastd 12(%1),%%zmm27%{%%k1%}\n vpbroadcastd 16(%1),%%zmm28%{%%k1%}\n vpbroadcastd 20(%1),%%zmm29%{%%k1%}\n vpbroadcastd 24(%1),%%zmm31%{%%k1%}\n vpbroadcastd 28(%1),%%zmm1%{%%k1%}\n"
#define BI8 "vbroadcasti32x4 (%0),%%zmm24\n vbroadcasti32x4 64(%0),%%zmm25\n vbroadcasti32x4 128(%0),%%zmm26\n vbroadcasti32x4 192(%0),%%zmm27\n vbroadcasti32x4 256(%0),%%zmm28\n vbroadcasti32x4 320(%0),%%zmm29\n vbroadcasti32x4 384(%0),%%zmm31\n vbroadcasti32x4 448(%0),%%zmm1\n"
#define BIM8 "vbroadcasti32x4 (%0),%%zmm24%{%%k1%}\n vbroadcasti32x4 64(%0),%%zmm25%{%%k1%}\n vbroadcasti32x4 128(%0),%%zmm26%{%%k1%}\n vbroadcasti32x4 192(%0),%%zmm27%{%%k1%}\n vbroadcasti32x4 256(%0),%%zmm28%{%%k1%}\n vbroadcasti32x4 320(%0),%%zmm29%{%%k1%}\n vbroadcasti32x4 384(%0),%%zmm31%{%%k1%}\n vbroadcasti32x4 448(%0),%%zmm1%{%%k1%}\n"
#define LD8 "vmovdqu64 (%0),%%zmm24\n vmovdqu64 64(%0),%%zmm25\n vmovdqu64 128(%0),%%zmm26\n vmovdqu64 192(%0),%%zmm27\n vmovdqu64 256(%0),%%zmm28\n vmovdqu64 320(%0),%%zmm29\n vmovdqu64 384(%0),%%zmm31\n vmovdqu64 448(%0),%%zmm1\n"
int main(void)
{
    memset(buf, 1, sizeof buf);
    BENCH("16 dp (=8 cycles by definition)", D16);
    BENCH("8 unpacks alone", UNP8);
    BENCH("8 vpandd alone", AND8);
    BENCH("16 dp + 8 unpacks", D16 UNP8);
    BENCH("16 dp + 8 vpandd", D16 AND8);
    BENCH("16 dp + 16 vpandd", D16 AND8 AND8);
    BENCH("16 dp + 4 vpermb", D16 PERMB4);
    BENCH("16 dp + 8 vinserti32x4 reg", D16 INSR8);
    BENCH("16 dp + 8 vinserti32x4 mem", D16 INSM8);
    BENCH("8 vinserti32x4 mem alone", INSM8);
    BENCH("16 dp + 8 vpbroadcastd mem", D16 BC8);
    BENCH("16 dp + 8 masked vpbroadcastd mem", D16 BCM8);
    BENCH("8 masked vpbroadcastd mem alone", BCM8);
    BENCH("16 dp + 8 vbroadcasti32x4", D16 BI8);
    BENCH("16 dp + 8 masked vbroadcasti32x4", D16 BIM8);
    BENCH("16 dp + 8 zmm loads", D16 LD8);
    BENCH("16 dp + 16 zmm loads", D16 LD8 LD8);
    BENCH("16 dp + 8 unpacks + 8 vpandd", D16 UNP8 AND8);
    return 0;
}
