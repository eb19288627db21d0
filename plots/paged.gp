# paged.gp — paged against contiguous decode: tokens/s against the page size, the contiguous cache dashed.
# Called by `headroom plot` with -e: datafile, outfile, fmt, who, gpdir, ns (blocks 0..ns-1:
# x the page size P, y tokens/s paged, z tokens/s of the same decode on a contiguous cache),
# tit (titles as quoted words). Each series is one kernel, KV type and thread count; its
# dashed line in the same colour is the contiguous rate, so a gap is what paging costs.
w = 1150; h = 620
load gpdir.'/style.gp'
set title sprintf("Paged against contiguous decode: tokens/s against the page size — %s", who) noenhanced
set xlabel 'page size P, keys a block (log scale)'
set ylabel 'tokens/s (batch / median time)'
set logscale x 2
set format x '%g'
set format y '%g'
set yrange [0:*]
set offsets graph 0.05, graph 0.05, graph 0.05, 0
set key bottom right noenhanced box opaque Left reverse
plot for [i=1:ns] datafile index (i-1) using 1:2 with linespoints lt i title word(tit, i), \
     for [i=1:ns] datafile index (i-1) using 1:3 with lines lt i dt 2 title (i == 1 ? 'contiguous cache (dashed, each in its colour)' : '')
