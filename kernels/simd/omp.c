/* omp.c — OpenMP over batch x head, each (b, h) computed by the simd kernel's blocked body.
 *
 * One parallel region per call; each thread owns a 64-byte aligned slice of the
 * workspace (hr_simd_scratch_bytes) and never allocates. With B·Hq >= threads the
 * (b, h) pairs are split statically (collapse(2)): contiguous heads per thread, so a
 * thread running several query heads of one KV group packs Kᵀ/V once. With fewer pairs
 * than threads, or with pairs that do not share out evenly (3 heads on 2 threads would
 * run 2:1, a 25% loss; below 8 pairs per thread the rounding costs > 1/16), each head's
 * query rows are cut into items of at most block_q rows, at least `threads` items in
 * all, dealt round-robin (schedule(static, 1)), which also spreads the unequal rows of a
 * causal head. Nq = 1 cannot be split: one thread works. */
#include <omp.h>

#include "headroom.h"
#include "simd_body.h"

static size_t omp_workspace(const hr_problem *p, const hr_tune *t)
{
    return hr_simd_scratch_bytes(p, t) * (size_t)(t->threads > 0 ? t->threads : 1);
}

static int omp_run(const hr_problem *p, const hr_tune *t, const hr_args *a, void *ws)
{
    const int nt = t->threads > 0 ? t->threads : 1, B = p->batch, H = p->heads;
    const int Nq = p->seq_q;
    const size_t slice = hr_simd_scratch_bytes(p, t);
    const long units = (long)B * H;
    const bool split = units < nt || (units % nt && units < 8L * nt);
    /* Row items per head in the split case: enough for every thread, <= block_q rows. */
    long per_head = (nt + units - 1) / units, by_block = (Nq + t->block_q - 1) / t->block_q;
    if (per_head < by_block) per_head = by_block;
    if (per_head > Nq) per_head = Nq;
    const int rows = (int)((Nq + per_head - 1) / per_head);
    const long per = (Nq + rows - 1) / rows, items = units * per;

#pragma omp parallel num_threads(nt)
    {
        hr_simd_scratch sc =
            hr_simd_scratch_at(p, t, (char *)ws + (size_t)omp_get_thread_num() * slice);
        if (!split) {
#pragma omp for collapse(2) schedule(static)
            for (int b = 0; b < B; b++)
                for (int h = 0; h < H; h++) hr_simd_rows(p, t, a, b, h, 0, Nq, &sc);
        } else {
#pragma omp for schedule(static, 1)
            for (long w = 0; w < items; w++) {
                const long u = w / per;
                const int i0 = (int)(w % per) * rows;
                const int i1 = i0 + rows < Nq ? i0 + rows : Nq;
                hr_simd_rows(p, t, a, (int)(u / H), (int)(u % H), i0, i1, &sc);
            }
        }
    }
    return HR_OK;
}

const hr_kernel hr_kernel_omp = {
    .name = "omp",
    .summary = "OpenMP over batch x head (query-row items when B*Hq does not share evenly), simd body",
    .caps = HR_CAP_CAUSAL | HR_CAP_THREADED | HR_CAP_BLOCK_Q | HR_CAP_BLOCK_KV,
    .traffic = HR_TRAFFIC_KV_PER_HEAD,
    .resolve = hr_simd_resolve,
    .workspace_bytes = omp_workspace,
    .run = omp_run,
};
