/* decode_i8_l1.c — decode_i8.c's int8 block step (vpdpbusd) compiled again with its prefetches into L1 (prefetcht0): the instance hr_decode_i8_vnni_l1, taken where hr_decode_pf_l1 says so. */
/* As decode_kv_l1.c: one source, two prefetch hints; decode_block.h's hr_decode_pf_l1
 * has the measurements. decode_i8e.c's vpmaddubsw instance has no such copy: the CPUs
 * it runs on (AVX2 without AVX-VNNI) are not Zen 5. */
#define HR_DECODE_PF_COPY 1
#define HR_DECODE_PF_HINT 3
#define HR_I8_STEP hr_decode_i8_vnni_l1
#include "decode_i8.c"
