# report.gp — side-by-side GFLOP/s per kernel on each machine for one shape (grouped bars).
# Called by `headroom report` with -e "datafile='...'; outfile='...'; fmt='png'|'svg';
# ttl='shape'; ncols=N": datafile's first line is "kernel" then one quoted machine label
# per column, each further line a kernel and its median GFLOP/s per machine (NaN: none).
if (fmt eq 'svg') {
    set terminal svg size 900,480 dynamic enhanced font 'sans,11' background rgb 'white'
} else {
    set terminal pngcairo size 900,480 enhanced font 'sans,10'
}
set output outfile
set title ttl.': median GFLOP/s by kernel and machine' noenhanced
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set ylabel 'GFLOP/s'
set yrange [0:*]
set grid ytics
set key inside top left noenhanced box opaque
set xtics noenhanced nomirror
set datafile missing 'NaN'
plot for [i=2:ncols] datafile using i:xtic(1) title columnheader(i)
