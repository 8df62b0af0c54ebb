# Draws a Zeno run of the bouncing ball (or any run whose impacts are pinnacle events and whose
# accumulation is the events.csv row with guard "zeno"):
#   (a) the height y(t) from trajectory.csv, one colour per mode, with the accumulation time
#       t_zeno (the time of the "zeno" row) as a vertical line;
#   (b) on a log scale, against the impact number k: the interval d_k = t_{k+1} - t_k between
#       consecutive pinnacle events, the closed form 2 e^k w / g of the drag-free ball
#       (w = sqrt(v0^2 + 2 g y0), the parameters read from stats.json), and the time left to
#       the accumulation, t_zeno - t_k, with the horizon zeno_horizon (stats.json) below which
#       the engine declares Zeno.
#
# Usage (from the repository's root):
#   build/hysim run bouncing-ball --t-end 16 --max-step 0.01 --out out/zeno
#   gnuplot -e "dir='out/zeno'" scripts/plot_zeno.gp                 -> out/zeno/zeno.png
# (--max-step only adds samples to the parabolas of panel (a).)
# Variables: dir (required: trajectory.csv, events.csv, stats.json), png (default
# dir/zeno.png), title. The state columns are read by position: y is column 3 of
# trajectory.csv.
if (!exists("dir")) {
  print "usage: gnuplot -e \"dir='RUN_OUTPUT_DIR'\" scripts/plot_zeno.gp"
  exit status 2
}
if (!exists("png")) png = dir . "/zeno.png"

# A value from stats.json, as text ("" when absent): parameters are quoted, options are not.
param(name) = system("sed -n 's/^ *\"" . name . "\": *\"\\([^\"]*\\)\".*/\\1/p' '" . dir . "/stats.json' | head -1")
# (an option, printed without an exponent: gnuplot reads the "09" of "1e-09" as octal)
option(name) = system("sed -n 's/^ *\"" . name . "\": *\\([-+0-9.eE]*\\),*$/\\1/p' '" . dir . "/stats.json' | head -1 | awk '{ printf \"%.30f\", $1 }'")
g = real(param("g")); e = real(param("e")); y0 = real(param("y0")); v0 = real(param("v0"))
horizon = real(option("zeno_horizon"))
w = sqrt(v0**2 + 2 * g * y0)
d_exact(k) = 2 * e**k * w / g
if (!exists("title")) title = sprintf("bouncing-ball, e = %g, y0 = %g m: impacts accumulate (Zeno)", e, y0)

set datafile separator ","
ev = dir . "/events.csv"
# The accumulation time: the t of the row whose guard is "zeno" (none: no Zeno was declared).
t_zeno_text = system("awk -F, '$6 == \"zeno\" { printf \"%.17f\", $2; exit }' '" . ev . "'")
if (strlen(t_zeno_text) == 0) {
  print "plot_zeno.gp: " . ev . " has no row with guard 'zeno'"
  exit status 1
}
t_zeno = real(t_zeno_text)
# The pinnacle events: their number and the last one's index.
stats ev using (strcol(5) eq "pinnacle" ? $1 : 1/0) nooutput
n_impacts = STATS_records
k_last = STATS_max

if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo noenhanced size 1200,900
} else {
  set terminal png noenhanced size 1200,900
}
set output png
set multiplot layout 2,1 title title
set grid

# (a) the height
set title sprintf("(a) height; Zeno declared at t_zeno = %.17g s after %d impacts, then mode rest", t_zeno, n_impacts)
set xlabel "t [s]"
set ylabel "y [m]"
set key outside right top
set arrow 1 from t_zeno, graph 0 to t_zeno, graph 1 nohead dashtype 2 linecolor rgb "black"
plot dir . "/trajectory.csv" using 1:(strcol(2) eq "flight" ? $3 : 1/0) skip 1 with lines linecolor rgb "#1f77b4" title "flight", \
     dir . "/trajectory.csv" using 1:(strcol(2) eq "rest" ? $3 : 1/0) skip 1 with lines linewidth 3 linecolor rgb "#d62728" title "rest (Zeno continuation)", \
     NaN with lines dashtype 2 linecolor rgb "black" title "t_zeno"
unset arrow 1

# (b) the intervals, on a log scale. The pinnacle rows are read in order; prev holds the last
# pinnacle time (the x expression is evaluated before the y expression).
set title "(b) interval to the next impact and time left to the accumulation"
set xlabel "impact k"
set ylabel "[s]"
set logscale y
set format y "1e%T"
set xrange [0:k_last + 2]
prev = NaN
plot ev using (strcol(5) eq "pinnacle" ? (d = $2 - prev, prev = $2, $1 - 1) : 1/0):(d) skip 1 \
       with points pointtype 7 pointsize 0.7 linecolor rgb "#1f77b4" title "d_k = t_{k+1} - t_k (run)", \
     d_exact(x) with lines linecolor rgb "black" title "2 e^k w / g (closed form)", \
     ev using (strcol(5) eq "pinnacle" ? $1 : 1/0):(t_zeno - $2) skip 1 \
       with points pointtype 6 pointsize 0.7 linecolor rgb "#d62728" title "t_zeno - t_k (run)", \
     horizon with lines dashtype 2 linecolor rgb "#2ca02c" title sprintf("zeno_horizon = %g s", horizon)
unset multiplot
