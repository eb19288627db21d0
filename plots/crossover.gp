# crossover.gp — full MHA layer: projection time vs attention-core time against N per d_model (log-log).
# Called by `headroom plot` with -e: datafile, outfile, fmt, who, gpdir, ng (groups: kernel x
# d_model, 4 blocks each: projections, core, measured N* point, FLOP-predicted N* vertical
# line), tit (4 titles per group as quoted words, "" for none), ymin, ymax.
w = 1150; h = 660
load gpdir.'/style.gp'
set title sprintf("Where the N^2 attention core overtakes the projections — %s\nsolid: core, dashed: QKV + output projections; dot: measured N*; dotted vertical: N* by FLOPs", who) noenhanced
set xlabel 'N (tokens)'
set ylabel 'median time per layer phase (s)'
set logscale xy 2
set format x '%g'
set format y '10^{%L}'
set logscale y 10
set yrange [ymin:ymax]
set offsets graph 0.03, graph 0.03, 0, 0
set key outside right top noenhanced box Left reverse
plot for [g=1:ng] datafile index (4*g-4) using 1:2 with linespoints lt g dt 2 pt 6 title word(tit, 4*g-3), \
     for [g=1:ng] datafile index (4*g-3) using 1:2 with linespoints lt g dt 1 title word(tit, 4*g-2), \
     for [g=1:ng] datafile index (4*g-2) using 1:2 with points lt g pt 7 ps 2.2 title word(tit, 4*g-1), \
     for [g=1:ng] datafile index (4*g-1) using 1:2 with lines lt g dt 3 lw 2 title word(tit, 4*g)
