# kernels.gp — GFLOP/s vs N per kernel on the sweep's base shape: non-causal left, causal right.
# Called by `headroom plot` with -e: datafile, outfile, fmt, who, gpdir, nk (kernels; blocks
# 0..nk-1 non-causal, nk..2nk-1 causal, same kernel order), tit0/tit1 (titles per panel as
# quoted words, "" for a kernel without data there), shape (the base shape).
w = 1400; h = 620
load gpdir.'/style.gp'
set multiplot layout 1,2 title sprintf("Kernel throughput vs sequence length — %s\n%s; each kernel at its largest thread count", who, shape) noenhanced
set xlabel 'N (tokens)'
set ylabel 'GFLOP/s (median)'
set logscale x 2
set format x '%g'
set yrange [0:*]
set key top left noenhanced box opaque Left reverse
set title 'non-causal'
plot for [i=1:nk] datafile index (i-1) using 1:2 with linespoints lt i title word(tit0, i)
set title 'causal (FLOPs count visible pairs only)'
plot for [i=1:nk] datafile index (nk+i-1) using 1:2 with linespoints lt i title word(tit1, i)
unset multiplot
