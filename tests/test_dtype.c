/* test_dtype.c — element types: sizes, bf16/f16 conversions, llama.cpp's q8_0 and q4_0 blocks. */
#include <string.h>

#include "headroom.h"
#include "t.h"

HR_TEST(dtype_sizes)
{
    CHECK(hr_dtype_row_bytes(HR_F32, 128) == 512);
    CHECK(hr_dtype_row_bytes(HR_BF16, 128) == 256);
    CHECK(hr_dtype_row_bytes(HR_F16, 128) == 256);
    CHECK(hr_dtype_row_bytes(HR_Q8_0, 128) == 4 * 34);
    CHECK(hr_dtype_row_bytes(HR_Q4_0, 128) == 4 * 18);
    CHECK(hr_dtype_bytes(HR_Q4_0) == 18.0 / 32);
    CHECK(!strcmp(hr_dtype_names[HR_Q8_0], "q8_0"));
}

/* Every finite f16 survives f16 -> f32 -> f16; the rounding of f32 to f16 and bf16 is
 * to nearest, ties to even, at the boundaries that matter. */
HR_TEST(dtype_half_roundtrip)
{
    int bad = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) continue; /* NaN */
        if (hr_f32_to_f16(hr_f16_to_f32((uint16_t)h)) != h) bad++;
    }
    CHECKF(bad == 0, "%d f16 values do not round-trip", bad);
    CHECK(hr_f32_to_f16(1.0f) == 0x3c00);
    CHECK(hr_f32_to_f16(65504.0f) == 0x7bff);
    CHECK(hr_f32_to_f16(65520.0f) == 0x7c00);       /* rounds to inf */
    CHECK(hr_f32_to_f16(1.0f + 0x1p-11f) == 0x3c00); /* tie to even (down) */
    CHECK(hr_f32_to_f16(1.0f + 3 * 0x1p-11f) == 0x3c02);
    CHECK(hr_f32_to_f16(0x1p-24f) == 0x0001);       /* smallest subnormal */
    CHECK(hr_f32_to_f16(0x1p-25f) == 0x0000);       /* tie to even: zero */
    CHECK(hr_f16_to_f32(0x0001) == 0x1p-24f);
    CHECK(hr_f32_to_bf16(1.0f) == 0x3f80);
    CHECK(hr_f32_to_bf16(1.0f + 0x1p-8f) == 0x3f80); /* tie to even */
    CHECK(hr_f32_to_bf16(1.0f + 3 * 0x1p-8f) == 0x3f82);
    CHECK(hr_bf16_to_f32(0x3f82) == 1.0f + 0x1p-6f);
    CHECK(hr_f32_to_bf16(-2.0f) == 0xc000);
}

/* Blocks: byte layout as llama.cpp stores it, and the error within half a step (q8_0)
 * or one step (q4_0: the value opposite the largest, -max, clamps from 16 to 15). */
HR_TEST(dtype_blocks)
{
    float x[64], y[64];
    for (int i = 0; i < 64; i++) x[i] = (float)((i * 37) % 23 - 11) / 3.0f;
    unsigned char row[2 * 34];
    hr_dtype_store_row(HR_Q8_0, x, row, 64);
    hr_dtype_load_row(HR_Q8_0, row, y, 64);
    for (int b = 0; b < 2; b++) {
        float amax = 0;
        for (int j = 0; j < 32; j++) amax = fmaxf(amax, fabsf(x[32 * b + j]));
        for (int j = 0; j < 32; j++) CHECK(fabsf(y[32 * b + j] - x[32 * b + j]) <= amax / 127 * 0.5f * 1.01f);
    }
    hr_dtype_store_row(HR_Q4_0, x, row, 64);
    hr_dtype_load_row(HR_Q4_0, row, y, 64);
    for (int b = 0; b < 2; b++) {
        float amax = 0;
        for (int j = 0; j < 32; j++) amax = fmaxf(amax, fabsf(x[32 * b + j]));
        for (int j = 0; j < 32; j++) CHECK(fabsf(y[32 * b + j] - x[32 * b + j]) <= amax / 8 * 1.01f + 1e-6f);
    }
    /* q4_0 packs value j low and j + 16 high; the value of largest magnitude is -8 * d. */
    float z[32] = {0};
    z[0] = -4.0f, z[16] = 2.0f;
    hr_dtype_store_row(HR_Q4_0, z, row, 32);
    CHECK(hr_f16_to_f32((uint16_t)(row[0] | row[1] << 8)) == 0.5f); /* d = -4 / -8 */
    CHECK((row[2] & 0xf) == 0);      /* -4 / 0.5 + 8 = 0 */
    CHECK((row[2] >> 4) == 12);      /*  2 / 0.5 + 8 = 12 */
    CHECK(row[3] == 0x88);           /* zeros */
}

HR_TEST(dtype_problem)
{
    hr_problem p = {1, 2, 1, 1, 64, 48, false, 0, HR_F32, HR_Q8_0};
    CHECK(hr_problem_validate(&p) == HR_EUSAGE);
    CHECK(strstr(hr_errmsg(), "--kv-dtype") != NULL);
    p.d_head = 64;
    CHECK(hr_problem_validate(&p) == HR_OK);
    p.dtype = HR_Q4_0;
    CHECK(hr_problem_validate(&p) == HR_EUSAGE);
    /* A kernel that declared no types refuses anything but f32. */
    p.dtype = HR_F32;
    const char *why = hr_kernel_why_not(hr_kernel_find("naive"), &p);
    CHECK(why && strstr(why, "q8_0"));
}
