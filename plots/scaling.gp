# scaling.gp — thread scaling: GFLOP/s vs threads per kernel beside the FMA ceiling's own scaling.
# Called by `headroom plot` with -e: datafile, outfile, fmt, who, gpdir, ns (kernel blocks:
# x threads, y GFLOP/s, z speed-up over the series' fewest threads), nceil (1: block ns is
# the FMA ceiling), tit (titles as quoted words), cols (colour per kernel block, as in
# kernels.gp), shape, tmax (most threads measured), tmin0 (fewest: the ideal line's base).
w = 1400; h = 620
load gpdir.'/style.gp'
set multiplot layout 1,2 title sprintf("Thread scaling — %s\n%s", who, shape) noenhanced
set xlabel 'threads'
set logscale x 2
set format x '%g'
set xrange [0.8:tmax*1.25]
set xtics 2
set key top left noenhanced box opaque Left reverse
set title 'GFLOP/s (log scale) and the FMA ceiling'
set ylabel 'GFLOP/s (median)'
set logscale y 2
set format y '%g'
plot for [i=1:ns] datafile index (i-1) using 1:2 with linespoints lt wnum(cols, i) title word(tit, i), \
     for [i=1:nceil] datafile index ns using 1:2 with linespoints lc rgb '#303030' dt 2 pt 1 title word(tit, ns+1)
set title 'speed-up over the fewest threads measured'
set ylabel 'speed-up (x)'
unset logscale y
set yrange [0:*]
plot for [i=1:ns] datafile index (i-1) using 1:3 with linespoints lt wnum(cols, i) title word(tit, i), \
     for [i=1:nceil] datafile index ns using 1:3 with linespoints lc rgb '#303030' dt 2 pt 1 title word(tit, ns+1), \
     x / tmin0 with lines lc rgb '#999999' dt 3 title 'ideal (linear)'
unset multiplot
