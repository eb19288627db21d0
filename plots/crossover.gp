# crossover.gp — full MHA layer: projection time vs attention-core time against N, one panel per
# kernel, colour = d_model (the same in every panel), log-log, one shared key below the panels.
# Called by `headroom plot` with -e: datafile, outfile, fmt, who, gpdir, ng (groups: kernel x
# d_model, 4 blocks each: projections, core, measured N* point, FLOP-predicted N* vertical
# line), tit (4 titles per group as quoted words; unused here, kept for the data's sake),
# ymin, ymax (shared y range, s), nk (panels), kerns (kernel name per panel, quoted words),
# kfirst/kcount (per panel: its first group, 1-based, and how many; groups come panel by
# panel), gcol (linetype per group = rank of its d_model), ndm, dms (the d_models in colour
# order), flopsrule (1: no crossover_table.csv, the vertical line is the 2 d_model rule).
ncol = (nk <= 3) ? nk : ((nk == 4) ? 2 : 3)
nrow = int((nk + ncol - 1) / ncol)
w = (ncol == 1) ? 900 : 120 + 450 * ncol
h = 170 + 430 * nrow
load gpdir.'/style.gp'
set encoding utf8

# Layout in screen fractions: a title band on top, the key band at the bottom, panels between.
top = 1.0 - 84.0 / h
keyband = 78.0 / h
bot = keyband + 48.0 / h
left = 78.0 / w
right = 1.0 - 18.0 / w
gapx = 48.0 / w
gapy = 76.0 / h
pw = (right - left - (ncol - 1) * gapx) / ncol
ph = (top - bot - (nrow - 1) * gapy) / nrow

# The x range shared by all panels: every N in the data, measured N* and FLOP N* included.
stats datafile using 1 nooutput
xmin = STATS_min / 1.3
xmax = STATS_max * 1.3

# y tics at each decade, labelled in µs / ms / s.
tlab(e) = (e < -3) ? sprintf('%g µs', 10.0**(e + 6)) : (e < 0) ? sprintf('%g ms', 10.0**(e + 3)) : sprintf('%g s', 10.0**e)
e0 = floor(log10(ymin))
e1 = ceil(log10(ymax))

set multiplot title sprintf("Full MHA layer: where the N² attention core overtakes the QKV + output projections\n%s", who) noenhanced font ',13'
set logscale x 2
set logscale y 10
set format x '%g'
set xrange [xmin:xmax]
set yrange [ymin:ymax]
set mytics 10
set mxtics default
set key off
set style textbox opaque noborder margins 1,1
set border lw 1

do for [k=1:nk] {
    c = (k - 1) % ncol
    r = int((k - 1) / ncol)
    set lmargin at screen left + c * (pw + gapx)
    set rmargin at screen left + c * (pw + gapx) + pw
    set tmargin at screen top - r * (ph + gapy)
    set bmargin at screen top - r * (ph + gapy) - ph
    set title word(kerns, k) noenhanced font ',12'
    if (r == nrow - 1 || k + ncol > nk) { set xlabel 'N (sequence length, tokens)' } else { unset xlabel }
    # tics at each decade on every panel, labelled on the left column only
    if (c == 0) { set ylabel 'median time per layer phase' } else { unset ylabel }
    set ytics (((c == 0) ? tlab(e0) : '') 10.0**e0)
    do for [e=e0+1:e1] { set ytics add (((c == 0) ? tlab(e) : '') 10.0**e) }
    g0 = word(kfirst, k) + 0
    g1 = g0 + word(kcount, k) - 1
    plot for [g=g0:g1] datafile index (4*g-1) using 1:2 with lines lt (word(gcol, g) + 0) dt 3 lw 1.5 notitle, \
         for [g=g0:g1] datafile index (4*g-4) using 1:2 with linespoints lt (word(gcol, g) + 0) dt 2 lw 1.5 pt 6 ps 0.8 notitle, \
         for [g=g0:g1] datafile index (4*g-3) using 1:2 with linespoints lt (word(gcol, g) + 0) dt 1 lw 2 pt 7 ps 0.6 notitle, \
         for [g=g0:g1] datafile index (4*g-2) using 1:2 with points lt (word(gcol, g) + 0) pt 7 ps 2.0 notitle, \
         for [g=g0:g1] datafile index (4*g-2) using 1:2:(sprintf('%.0f', $1)) with labels boxed left offset char 0.9,-0.8 tc lt (word(gcol, g) + 0) font ',9' notitle
}

# The shared key: an empty plot whose only visible part is its key, in the bottom band.
unset title
unset xlabel
unset ylabel
unset tics
unset border
unset grid
unset logscale
set xrange [0:1]
set yrange [0:1]
set lmargin at screen 0.0
set rmargin at screen 1.0
set tmargin at screen keyband
set bmargin at screen 0.0
set key on at screen 0.5, keyband - 4.0 / h center top horizontal Left reverse noenhanced samplen 3 spacing 1.1 width 2 maxrows 1 font ',10'
flopstxt = flopsrule ? 'dotted vertical: N* = 2 d_model' : 'dotted vertical: N* by FLOPs'
plot for [j=1:ndm] NaN with lines lt j lw 4 title sprintf('d_model %s', word(dms, j))
set key at screen 0.5, keyband / 2.0 - 2.0 / h center top horizontal
plot NaN with linespoints lc rgb '#404040' lw 2 dt 1 pt 7 ps 0.6 title 'solid: attention core', \
     NaN with linespoints lc rgb '#404040' lw 1.5 dt 2 pt 6 ps 0.8 title 'dashed: QKV + output projections', \
     NaN with points lc rgb '#404040' pt 7 ps 2.0 title 'big dot: measured N* (number = N*)', \
     NaN with lines lc rgb '#404040' lw 1.5 dt 3 title flopstxt
unset multiplot
