/* dtype.c — element types: names, sizes, scalar bf16/f16 conversions and llama.cpp's q8_0 / q4_0 blocks. */
#include <math.h>
#include <string.h>

#include "headroom.h"

const char *const hr_dtype_names[] = {"f32", "bf16", "f16", "q8_0", "q4_0", NULL};

/* Bytes of one block and values in it, per type. */
static const struct {
    int bytes, values;
} layout[HR_NDTYPES] = {{4, 1}, {2, 1}, {2, 1}, {2 + HR_QBLOCK, HR_QBLOCK}, {2 + HR_QBLOCK / 2, HR_QBLOCK}};

int hr_dtype_block(hr_dtype t) { return layout[t].values; }

size_t hr_dtype_row_bytes(hr_dtype t, int n)
{
    return (size_t)n / (size_t)layout[t].values * (size_t)layout[t].bytes;
}

double hr_dtype_bytes(hr_dtype t) { return (double)layout[t].bytes / layout[t].values; }

static uint32_t bits_of(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    return u;
}

static float float_of(uint32_t u)
{
    float x;
    memcpy(&x, &u, 4);
    return x;
}

uint16_t hr_f32_to_bf16(float x)
{
    uint32_t u = bits_of(x);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40); /* quiet NaN */
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1)) >> 16);
}

float hr_bf16_to_f32(uint16_t h) { return float_of((uint32_t)h << 16); }

/* IEEE binary16 by the method of F16C's vcvtps2ph with round to nearest even (the one
 * of ggml's GGML_FP32_TO_FP16 reference): exact for normals, subnormals and overflow. */
uint16_t hr_f32_to_f16(float x)
{
    uint32_t u = bits_of(x), sign = (u >> 16) & 0x8000u;
    uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);       /* NaN           */
    if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);      /* rounds to inf */
    if (a < 0x38800000u) {                                         /* f16 subnormal */
        /* a * 2^24 rounded to an integer, in float arithmetic (exact, round to even). */
        float f = float_of(a) * 0x1p24f;
        return (uint16_t)(sign | (uint32_t)nearbyintf(f));
    }
    uint32_t r = a + 0xfffu + ((a >> 13) & 1) - 0x38000000u; /* rebias 127 -> 15 */
    return (uint16_t)(sign | (r >> 13));
}

float hr_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ffu;
    if (e == 0) return float_of(sign) + (sign ? -1.0f : 1.0f) * (float)m * 0x1p-24f;
    if (e == 31) return float_of(sign | 0x7f800000u | (m << 13));
    return float_of(sign | ((e + 112) << 23) | (m << 13));
}

/* llama.cpp's quantize_row_q8_0_ref: d = amax / 127, q = round(x / d). */
static void store_q8_0(const float *x, unsigned char *b)
{
    float amax = 0;
    for (int j = 0; j < HR_QBLOCK; j++) amax = fmaxf(amax, fabsf(x[j]));
    float d = amax / 127.0f, id = d ? 1.0f / d : 0.0f;
    uint16_t dh = hr_f32_to_f16(d);
    memcpy(b, &dh, 2);
    for (int j = 0; j < HR_QBLOCK; j++) b[2 + j] = (unsigned char)(signed char)roundf(x[j] * id);
}

/* llama.cpp's quantize_row_q4_0_ref: d = max / -8 where max is the value of largest
 * magnitude, q = min(15, (int8)(x / d + 8.5)). */
static void store_q4_0(const float *x, unsigned char *b)
{
    float amax = 0, max = 0;
    for (int j = 0; j < HR_QBLOCK; j++)
        if (fabsf(x[j]) > amax) amax = fabsf(x[j]), max = x[j];
    float d = max / -8.0f, id = d ? 1.0f / d : 0.0f;
    uint16_t dh = hr_f32_to_f16(d);
    memcpy(b, &dh, 2);
    for (int j = 0; j < HR_QBLOCK / 2; j++) {
        int lo = (int)(signed char)(x[j] * id + 8.5f), hi = (int)(signed char)(x[j + 16] * id + 8.5f);
        lo = lo > 15 ? 15 : lo, hi = hi > 15 ? 15 : hi;
        b[2 + j] = (unsigned char)(lo | hi << 4);
    }
}

static float block_scale(const unsigned char *b)
{
    uint16_t dh;
    memcpy(&dh, b, 2);
    return hr_f16_to_f32(dh);
}

void hr_dtype_store_row(hr_dtype t, const float *x, void *row, int n)
{
    unsigned char *b = row;
    switch (t) {
    case HR_F32: memcpy(row, x, (size_t)n * 4); break;
    case HR_BF16:
        for (int i = 0; i < n; i++) ((uint16_t *)row)[i] = hr_f32_to_bf16(x[i]);
        break;
    case HR_F16:
        for (int i = 0; i < n; i++) ((uint16_t *)row)[i] = hr_f32_to_f16(x[i]);
        break;
    case HR_Q8_0:
        for (int i = 0; i < n; i += HR_QBLOCK, b += layout[t].bytes) store_q8_0(x + i, b);
        break;
    case HR_Q4_0:
        for (int i = 0; i < n; i += HR_QBLOCK, b += layout[t].bytes) store_q4_0(x + i, b);
        break;
    default: break;
    }
}

void hr_dtype_load_row(hr_dtype t, const void *row, float *x, int n)
{
    const unsigned char *b = row;
    switch (t) {
    case HR_F32: memcpy(x, row, (size_t)n * 4); break;
    case HR_BF16:
        for (int i = 0; i < n; i++) x[i] = hr_bf16_to_f32(((const uint16_t *)row)[i]);
        break;
    case HR_F16:
        for (int i = 0; i < n; i++) x[i] = hr_f16_to_f32(((const uint16_t *)row)[i]);
        break;
    case HR_Q8_0:
        for (int i = 0; i < n; i += HR_QBLOCK, b += layout[t].bytes) {
            float d = block_scale(b);
            for (int j = 0; j < HR_QBLOCK; j++) x[i + j] = (float)(signed char)b[2 + j] * d;
        }
        break;
    case HR_Q4_0:
        for (int i = 0; i < n; i += HR_QBLOCK, b += layout[t].bytes) {
            float d = block_scale(b);
            for (int j = 0; j < HR_QBLOCK / 2; j++) {
                x[i + j] = (float)((b[2 + j] & 0xf) - 8) * d;
                x[i + j + 16] = (float)((b[2 + j] >> 4) - 8) * d;
            }
        }
        break;
    default: break;
    }
}

size_t hr_kv_tile_offset(hr_dtype t, int v, int nb, int slot, int blk, int byte)
{
    const int q8 = t == HR_Q8_0, bb = q8 ? 544 : 288; /* a block's bytes in a tile: 16 x 34 or 16 x 18 */
    if (byte < 2) return v ? (size_t)(32 * blk + 2 * slot + byte) : (size_t)(bb * blk + 2 * slot + byte);
    const int e = byte - 2; /* the data byte: q8_0 0..31, q4_0 0..15 */
    if (!v) return (size_t)(bb * blk + 32 + 4 * (16 * (e / 4) + slot) + e % 4);
    const int P = blk / 2, q = slot / 4, tk = slot % 4, pair = 2 * P + 1 < nb;
    if (q8) { /* d = 16 half + 4 i + p of the block */
        const int half = e / 16, i = e % 16 / 4, p = e % 4;
        return pair ? (size_t)(32 * nb + 1024 * P + 256 * q + 64 * i + 16 * (2 * (blk % 2) + half) + 4 * p + tk)
                    : (size_t)(32 * nb + 1024 * P + 128 * q + 32 * i + 16 * half + 4 * p + tk);
    }
    const int i = e / 4, p = e % 4;
    return pair ? (size_t)(32 * nb + 512 * P + 128 * q + 32 * i + 16 * (blk % 2) + 4 * p + tk)
                : (size_t)(32 * nb + 512 * P + 64 * q + 16 * i + 4 * p + tk); /* the lone last block */
}

/* A key's row into its tile by hr_kv_tile_offset, taken once per scale and per dword of
 * the data (a data dword's 4 bytes lie side by side in K, 4 apart in V), so an append
 * (decode-loop's cache) costs a few stores a block rather than a call per byte;
 * hr_kv_tile_get reads byte by byte, so the tests' round trip checks these strides. */
void hr_kv_tile_put(hr_dtype t, int v, const void *row, void *tile, int slot, int d)
{
    const int nb = d / HR_QBLOCK, bb = (int)layout[t].bytes;
    const unsigned char *r = row;
    unsigned char *o = tile;
    for (int b = 0; b < nb; b++, r += bb) {
        memcpy(o + hr_kv_tile_offset(t, v, nb, slot, b, 0), r, 2);
        for (int e = 2; e < bb; e += 4) {
            unsigned char *x = o + hr_kv_tile_offset(t, v, nb, slot, b, e);
            if (!v) memcpy(x, r + e, 4);
            else x[0] = r[e], x[4] = r[e + 1], x[8] = r[e + 2], x[12] = r[e + 3];
        }
    }
}

void hr_kv_tile_get(hr_dtype t, int v, const void *tile, int slot, void *row, int d)
{
    const int nb = d / HR_QBLOCK, bb = (int)layout[t].bytes;
    unsigned char *r = row;
    for (int b = 0; b < nb; b++)
        for (int k = 0; k < bb; k++) r[bb * b + k] = ((const unsigned char *)tile)[hr_kv_tile_offset(t, v, nb, slot, b, k)];
}

int hr_kv_tiles(hr_dtype t) { return t == HR_Q4_0 || t == HR_Q8_0; }

const void *hr_xc_key_row(hr_xcview x, int v, hr_dtype t, int d, int b, int h, int n, void *row)
{
    if (!x.tile) return hr_xcrow(x, b, h, n);
    hr_kv_tile_get(t, v, hr_xcrow(x, b, h, n - n % HR_KV_TILE), n % HR_KV_TILE, row, d);
    return row;
}

const void *hr_kv_key_row(const hr_problem *p, const hr_args *a, hr_xcview x, int v, int b, int h, int n, void *row)
{
    if (!x.tile) return hr_kv_xcrow(p, a, x, b, h, n);
    hr_kv_tile_get(p->kv_dtype, v, hr_kv_xcrow(p, a, x, b, h, n - n % HR_KV_TILE), n % HR_KV_TILE, row, p->d_head);
    return row;
}
