# kernels.gp — GFLOP/s vs N per kernel on the sweep's base shape: non-causal left, causal right.
# Called by `headroom plot` with -e: datafile, outfile, fmt, who, gpdir, nk (kernels; blocks
# 0..nk-1 non-causal, nk..2nk-1 causal, same kernel order), tit0/tit1 (titles per panel as
# quoted words, "" for a kernel without data there), shape (the base shape); only (given
# when the sweep has one kind: 0 non-causal rows only, 1 causal only) draws that panel alone;
# nroof (blocks 2nk..2nk+nroof-1: the FMA peak at each thread count shown, flat, dashed
# grey; 0 without ceilings), rtit (their titles); kdt (dash type per kernel: 1 headroom's,
# 2 a peer library's plugin kernel, whose title names it; absent from older callers: solid).
both = !exists('only')
if (both) { only = -1 }
if (!exists('kdt')) { kdt = '' }
kd(i) = (wnum(kdt, i) > 0) ? wnum(kdt, i) : 1
w = both ? 1400 : 800; h = 620
load gpdir.'/style.gp'
set multiplot layout 1,(both ? 2 : 1) title sprintf("Kernel throughput vs sequence length — %s\n%s; each kernel at its largest thread count", who, shape) noenhanced
set xlabel 'N (tokens)'
set ylabel 'GFLOP/s (median)'
set logscale x 2
set format x '%g'
set yrange [0:*]
set key top left noenhanced box opaque Left reverse
if (only != 1) {
    set title 'non-causal'
    plot for [i=1:nk] datafile index (i-1) using 1:2 with linespoints lt i dt kd(i) title word(tit0, i), \
         for [j=1:nroof] datafile index (2*nk+j-1) using 1:2 with lines lc rgb '#303030' dt j+1 lw 2 title word(rtit, j)
}
if (only != 0) {
    set title 'causal (FLOPs count visible pairs only)'
    plot for [i=1:nk] datafile index (nk+i-1) using 1:2 with linespoints lt i dt kd(i) title word(tit1, i), \
         for [j=1:nroof] datafile index (2*nk+j-1) using 1:2 with lines lc rgb '#303030' dt j+1 lw 2 title word(rtit, j)
}
unset multiplot
