# cachecurve.gp — the bandwidth curve: load and triad GB/s over the working set, the knees read off it, the reported cache sizes.
# Called by `headroom plot` with -e: datafile, outfile, fmt, who, gpdir, ncurve (curve
# blocks: triad then load per thread count), ctit (their titles), nknee (knee blocks, one
# per thread count), ktit, rep (the reported L1 L2 L3 sizes of the largest team, bytes;
# drawn dotted), rtit (their names).
w = 1100; h = 640
load gpdir.'/style.gp'
set title sprintf("Bandwidth over working set — %s\nknees (the measured levels) as large points; the reported cache sizes dotted", who) noenhanced
set xlabel "the team's working set (bytes)"
set ylabel 'GB/s (best of the repetitions)'
set logscale xy 2
set format x '%.0b%B'
set format y '%g'
set key outside right top noenhanced box Left reverse
do for [i=1:words(rep)] {
    set arrow i from wnum(rep, i), graph 0 to wnum(rep, i), graph 1 nohead dt 3 lw 1 lc rgb '#555555'
    set label i word(rtit, i) at wnum(rep, i), graph 0.03 left offset -0.6, 0 rotate by 90 textcolor rgb '#555555' noenhanced font ',8'
}
plot \
  for [i=1:ncurve:2] datafile index (i-1) using 1:2 with linespoints lt ((i+1)/2) dt 1 pt 7 ps 0.6 title word(ctit, i), \
  for [i=2:ncurve:2] datafile index (i-1) using 1:2 with linespoints lt (i/2) dt 2 pt 6 ps 0.6 title word(ctit, i), \
  for [i=1:nknee] datafile index (ncurve+i-1) using 1:2 with points lt i pt 9 ps 2.5 title word(ktit, i)
