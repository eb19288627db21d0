/* decode_kv_l1.c — decode_kv.c's block step compiled again with its prefetches into L1 (prefetcht0): hr_decode_block_kv_l1, taken where hr_decode_pf_l1 says so. */
/* The hint is an instruction's constant and a branch on it in the hot loops costs q4_0
 * more than L1 gains, so the step is compiled twice from one source (as decode_i8e.c
 * does for decode_i8.c; perf-log 0227). */
#define HR_DECODE_PF_COPY 1
#define HR_DECODE_PF_HINT 3
#define hr_decode_block_kv hr_decode_block_kv_l1
#include "decode_kv.c"
