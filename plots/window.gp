# window.gp — a sliding window's cost: median time against N per kernel and window, beside dense causal.
# Called by `headroom plot` with -e: datafile, outfile, fmt, who, gpdir, ns (blocks 0..ns-1:
# x N, y ms, z the window, 0 for dense causal), tit (titles as quoted words), shape.
# Log-log: dense causal grows as N² (slope 2); a window of W keys as N·W (slope 1) once
# N passes W, so the curves part where N = W.
w = 1150; h = 620
load gpdir.'/style.gp'
set title sprintf("Sliding window: time against N, dense causal beside each window — %s\n%s", who, shape) noenhanced
set xlabel 'N = Nq = Nkv (log scale)'
set ylabel 'median ms (log scale)'
set logscale x 2
set logscale y 10
set format x '%g'
set format y '%g'
set offsets graph 0.02, graph 0.02, 0, 0
set key top left noenhanced box opaque Left reverse
plot for [i=1:ns] datafile index (i-1) using 1:2 with linespoints lt i title word(tit, i)
