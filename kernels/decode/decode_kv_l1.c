/* decode_kv_l1.c — decode_kv.c's block step compiled again with its prefetches into L1 (prefetcht0): hr_decode_block_kv_l1, taken where hr_decode_pf_l1 says so. */
/* The hint is an instruction's constant and a branch on it in the hot loops cost q4_0
 * 9-14%, so the step is compiled twice from one source (as decode_i8e.c does for
 * decode_i8.c); decode_block.h's hr_decode_pf_l1 has the measurements. */
#define HR_DECODE_PF_COPY 1
#define HR_DECODE_PF_HINT 3
#define hr_decode_block_kv hr_decode_block_kv_l1
#include "decode_kv.c"
