/* i8bench.h — the set-up decode_i8.c's timing tools share (i8phases.c, i8tiled.c, i8amx.c): one KV
 * head of H32/8 d128 (4 query rows) on a block of N keys of a q8_0 / q4_0 cache, nblk
 * copies of its K and V rows back to back (hr_alloc: huge pages, as the kernel's caches),
 * the values normal (srand(1), Box-Muller) as the cache type stores them, the query rows
 * quantized, the block step's buffers in its scores block; i8bench_init_tiled lays the
 * rows out in 16-key tiles too. Included after decode_i8.c. */
#ifndef HR_I8BENCH_H
#define HR_I8BENCH_H

typedef struct {
    hr_problem p;
    dctx c; /* c.p points at p: keep the struct where it was set up */
    size_t rb, blk; /* a row's and a block's bytes */
    unsigned char *K, *V;
    float *qx, *s, *acc;
    i8_bufs u;
} i8bench;

/* Fills b; rows (if not NULL) gets each key's K (kv 0) and V (1) row of the first block as
 * stored, for the caller to lay out again (i8tiled's tiles). */
static void i8bench_init(i8bench *b, int q4, int N, int nblk, void (*rows)(const i8bench *, int kv, int j, const unsigned char *row, void *ctx), void *ctx)
{
    memset(b, 0, sizeof *b);
    b->p.batch = 1, b->p.heads = 32, b->p.kv_heads = 8, b->p.seq_q = 1, b->p.seq_kv = N, b->p.d_head = 128;
    b->p.kv_dtype = q4 ? HR_Q4_0 : HR_Q8_0;
    dctx *c = &b->c;
    c->p = &b->p, c->G = 4, c->R = 4, c->d = 128, c->dp = 128, c->kb = N, c->kbp = N, c->kt = b->p.kv_dtype, c->i8 = 2;
    c->rb = hr_dtype_row_bytes(b->p.kv_dtype, 128);
    b->rb = c->rb, b->blk = b->rb * N;
    b->K = hr_alloc(b->blk * nblk + 64), b->V = hr_alloc(b->blk * nblk + 64);
    srand(1);
    float x[128];
    for (int j = 0; j < N; j++)
        for (int kv = 0; kv < 2; kv++) {
            for (int i = 0; i < 128; i++) {
                const float u1 = (rand() + 1.0f) / (RAND_MAX + 2.0f), u2 = rand() / (float)RAND_MAX;
                x[i] = sqrtf(-2 * logf(u1)) * cosf(6.2831853f * u2);
            }
            unsigned char *row = (kv ? b->V : b->K) + j * b->rb;
            hr_dtype_store_row(b->p.kv_dtype, x, row, 128);
            if (rows) rows(b, kv, j, row, ctx);
        }
    for (int k = 1; k < nblk; k++) memcpy(b->K + k * b->blk, b->K, b->blk), memcpy(b->V + k * b->blk, b->V, b->blk);
    float *q = aligned_alloc(64, 4 * 128 * sizeof(float));
    b->qx = aligned_alloc(64, i8_qf(c) * sizeof(float) + 64);
    for (int i = 0; i < 512; i++) q[i] = (rand() / (float)RAND_MAX - 0.5f) * 0.3f;
    i8_quant(c, q, b->qx);
    free(q);
    const size_t sf = round16((size_t)c->R * c->kbp) + i8_sf(c);
    b->s = aligned_alloc(64, sf * sizeof(float) + 64);
    memset(b->s, 0, sf * sizeof(float));
    b->u = i8_carve(c, b->s); /* block_i8's buffers in the scores block */
    b->acc = aligned_alloc(64, 4 * 128 * sizeof(float));
    memset(b->acc, 0, 4 * 128 * sizeof(float));
}

/* The tools' arguments, TYPE [NBLK [ROUNDS]]: q4 (q4_0 or q8_0), blocks 1..4096 (1),
 * rounds 1..maxr (9); 0, or 2 with the usage line on stderr. */
static int i8bench_args(int argc, char **argv, const char *tool, int maxr, int *q4, int *nblk, int *rounds)
{
    const int ok = argc >= 2 && (!strcmp(argv[1], "q4_0") || !strcmp(argv[1], "q8_0"));
    *q4 = ok && !strcmp(argv[1], "q4_0"), *nblk = argc > 2 ? atoi(argv[2]) : 1, *rounds = argc > 3 ? atoi(argv[3]) : 9;
    if (ok && *nblk >= 1 && *nblk <= 4096 && *rounds >= 1 && *rounds <= maxr) return 0;
    fprintf(stderr, "usage: %s q4_0|q8_0 [NBLK 1..4096 [ROUNDS 1..%d]]\n", tool, maxr);
    return 2;
}

/* i8bench_init's rows into the tiles (ctx: K's and V's buffers) */
static void i8bench_tile_row(const i8bench *b, int kv, int j, const unsigned char *row, void *ctx)
{
    unsigned char *t = ((unsigned char **)ctx)[kv] + (size_t)(j / HR_KV_TILE) * HR_KV_TILE * b->rb;
    hr_kv_tile_put(b->p.kv_dtype, kv, row, t, j % HR_KV_TILE, 128);
}

/* i8bench_init with the block's K and V also in 16-key tiles (headroom.h HR_KV_TILE):
 * tiles[0] K's, tiles[1] V's, nblk copies back to back as the rows are. */
static void i8bench_init_tiled(i8bench *b, int q4, int N, int nblk, unsigned char *tiles[2])
{
    const size_t tbytes = hr_dtype_row_bytes(q4 ? HR_Q4_0 : HR_Q8_0, 128) * (size_t)N * nblk + 64;
    tiles[0] = hr_alloc(tbytes), tiles[1] = hr_alloc(tbytes);
    i8bench_init(b, q4, N, nblk, i8bench_tile_row, tiles);
    for (int k = 1; k < nblk; k++)
        memcpy(tiles[0] + k * b->blk, tiles[0], b->blk), memcpy(tiles[1] + k * b->blk, tiles[1], b->blk);
}
#endif
