/* decode_bf16_l1.c — decode_bf16.c's vdpbf16ps block step compiled again with its prefetches into L1 (prefetcht0): hr_decode_block_bf16_l1, taken where hr_decode_pf_l1 says so. */
/* As decode_kv_l1.c: one source, two prefetch hints; decode_block.h's hr_decode_pf_l1
 * has the measurements. */
#define HR_DECODE_PF_COPY 1
#define HR_DECODE_PF_HINT 3
#define hr_decode_block_bf16 hr_decode_block_bf16_l1
#include "decode_bf16.c"
