# style.gp — shared by the chart scripts (loaded, not a chart): terminal for fmt ('png' via
# pngcairo when built in, else libgd png; 'svg'), size w x h, a colour-blind-safe palette.
if (fmt eq 'svg') {
    set terminal svg size w,h dynamic enhanced font 'sans,11' background rgb 'white'
} else {
    if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
        set terminal pngcairo size w,h enhanced font 'sans,10'
    } else {
        set terminal png size w,h
    }
}
set output outfile
# Okabe-Ito and Tableau colours: distinct in print and for colour-blind readers.
set linetype 1 lc rgb '#0072B2' lw 2 pt 7
set linetype 2 lc rgb '#D55E00' lw 2 pt 5
set linetype 3 lc rgb '#009E73' lw 2 pt 9
set linetype 4 lc rgb '#CC79A7' lw 2 pt 11
set linetype 5 lc rgb '#E69F00' lw 2 pt 13
set linetype 6 lc rgb '#56B4E9' lw 2 pt 15
set linetype 7 lc rgb '#000000' lw 2 pt 4
set linetype 8 lc rgb '#8C564B' lw 2 pt 6
set linetype 9 lc rgb '#7F7F7F' lw 2 pt 8
set linetype 10 lc rgb '#BCBD22' lw 2 pt 10
set linetype cycle 10
set datafile missing 'NaN'
set grid xtics ytics mxtics mytics lc rgb '#e0e0e0' lw 1
# wnum(list, i): the i-th word of a list of numbers as a number, 0 past its end. A plot's
# `for [i=1:0]` draws nothing but still evaluates its options once, so `word(list, i)+0`
# on an empty list stops gnuplot ("Non-numeric string found").
wnum(list, i) = (i <= words(list)) ? word(list, i) + 0 : 0
