# history.gp — trend per kernel over runs ordered by commit date: GFLOP/s and the fraction
# of the roof (attainable_gflops), each the geometric mean over the kernel's benchmarks
# present in every run. Called by `headroom history` with -e: datafile (one block per
# kernel: x run number, y GFLOP/s, z fraction of the roof or NaN, the commit as the x
# label), outfile, fmt, gpdir, who, nk (blocks), nruns, tit (a word per kernel:
# "name(benchmarks)").
w = 1400; h = 620
load gpdir.'/style.gp'
set multiplot layout 1,2 title sprintf("History — %s (runs ordered by commit date)", who) noenhanced
set xlabel 'run (commit)'
set xrange [0.5:nruns+0.5]
set xtics rotate by -45 noenhanced
set key top left noenhanced box opaque Left reverse
set title 'GFLOP/s (geometric mean per kernel)'
set ylabel 'GFLOP/s'
set yrange [0:*]
plot for [i=1:nk] datafile index (i-1) using 1:2:xtic(sprintf('%d %s', int($1), strcol(4))) with linespoints lt i title word(tit, i)
set title 'fraction of the roof (attainable GFLOP/s)'
set ylabel 'fraction of the roof'
set yrange [0:*]
plot for [i=1:nk] datafile index (i-1) using 1:3:xtic(sprintf('%d %s', int($1), strcol(4))) with linespoints lt i title word(tit, i)
unset multiplot
