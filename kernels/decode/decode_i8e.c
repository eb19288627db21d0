/* decode_i8e.c — decode_i8.c's int8 block step compiled again for AVX2 CPUs without AVX-VNNI (Zen 2/3, Intel before Alder Lake): q8_0's and q4_0's scores and P·V by vpmaddubsw + vpmaddwd (vec_int8.h's HR_I8_EMU; q8_0 by the sign trick, HR_I8_SK). */
/*
 * The same source as decode_i8.c, so the two never drift: this file defines HR_I8_EMU,
 * names its table hr_decode_i8_emu (decode_block.h) and includes it. vec_int8.h then spells each
 * vpdpbusd as vpmaddubsw (u8 x s8 pairs into saturating int16) + vpmaddwd by ones +
 * vpaddd, 3 ops where AVX-VNNI takes 1, exact while a pair's sum stays within int16:
 * q4_0's nibbles (0-15) against Q's or the weights' s8 reach 2 * 15 * 127 = 3810 (the
 * int8 P·V's high nibbles are shifted down for it, not kept as 16 v as with VNNI). q8_0's
 * K + 128 (up to 255) would saturate, so here q8_0 keeps K and V signed and takes the
 * sign trick (vec_int8_avx2.h, HR_I8_SK; below).
 * decode.c takes this instance only where decode_i8.c's is off (no AVX-VNNI), at the
 * avx2 level, or where HEADROOM_DECODE_PATH=emu forces it (tests): hr_decode_i8_pick;
 * elsewhere its table's on() says 0. Measured on the Zen 4's avx2 level (no AVX-VNNI; `headroom ab`,
 * H32/8 d128 q4_0, L4096 / L16384, 15 ABBA pairs, 2026-11-27 23:50-23:55 UTC): against
 * the conversion path with P·V fp32 -25.1 / -15.6% at one thread, -19.2 / -15.3% at two;
 * the int8 P·V against that -5.3 / -5.7%, +0.5 / -8.1% (T2: same, noise). The rows'
 * path names vpmaddubsw, not vpdpbusd, so they sit under that triple's own roof
 * (avx2_maddubs, `headroom roofline`; with P·V by FMA in series with avx2's FMA).
 * q8_0 by llama.cpp's sign trick was first built on rows and did not pay (2026-11-28, the Zen 4's avx2
 * level, H32/8 d128 q8_0, one thread, ns per key and KV head, 3 interleaved rounds of
 * `headroom run`): K and V kept signed (no + 128, no offset correction), |K| once per
 * vector (vpabsb) and per row and vector vpsignb of Q's (or the weights') broadcast by
 * K's (V's) signs, then vpmaddubsw + vpmaddwd + vpaddd: 4 ops a dot where AVX-VNNI takes
 * 1, exact (|k| <= 128, |q| <= 127: pairs up to 32512). L1024: 33.4-35.9 against the
 * conversion path's 32.0-33.5; L16384: 34.1-37.3 against 32.9-33.4; with the fp32 P·V
 * 33.3-34.7 against 32.0-32.2. Its ablation at L1024 (32.8 in all): the scores' dots 7
 * ns, P·V 10.5 (16 dots of 4 ops, 4 V transposes and 4 vpabsb per 4 keys, tile and
 * block), the quantization 3, the rest (K transposes and loads, scales, the rows'
 * conversions, softmax) 11.6: the dots alone take what the conversion path's FMAs take.
 * With the cache in 16-key tiles (no K or V transposes, no scales pass) it does pay, and
 * it is the default here since 2026-11-30: scores by the sign trick (|K| once per key
 * vector for every row: 4 ops a dot and 1 per vector), P·V by u8 weights within 127
 * against V as stored (3 ops: a pair reaches 2 x 127 x 128 = 32512), or, where a block's
 * V scale is negative (a cache quantized elsewhere), s8 weights by the sign trick on |V|.
 * On the Zen 5's avx2 level (forced by HEADROOM_DECODE_PATH=emu: that CPU has AVX-VNNI;
 * no AVX2-only CPU was lent), H32/8 d128 q8_0, ns per key and KV head at one thread,
 * 5 interleaved rounds: L4096 17.2 against the conversion path's 25.0, L16384 17.6
 * against 25.3; on rows 20.8 and 21.3 (README, "q8_0 on AVX2 without VNNI").
 */
#include "vec.h"

#if defined(HR_VEC_AVX2) && defined(__F16C__) && (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define HR_I8_EMU 1
#define HR_I8_STEP hr_decode_i8_emu
#include "decode_i8.c"
#else
#include "decode_block.h"

static int off(hr_dtype t)
{
    (void)t;
    return 0;
}
const hr_decode_i8_step hr_decode_i8_emu = {.on = off};
#endif
