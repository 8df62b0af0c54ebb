# Draws a stick-slip run: the velocity v(t) against the belt speed (left) and the phase
# portrait (x, v) (right), the samples of trajectory.csv coloured by mode. While the mass
# sticks, the run slides on u = v_b - v = 0 (recorded in one of the static modes).
#
# Usage (from the repository's root):
#   build/hysim run stick-slip --t-end 40 --rtol 1e-10 --atol 1e-12 --out out/stick-slip
#   gnuplot -e "dir='out/stick-slip'" scripts/plot_stick-slip.gp    -> out/stick-slip/stick-slip.png
# Variables: dir (required, holds trajectory.csv), png (default dir/stick-slip.png), v_b
# (default 0.5, the belt speed drawn), title (optional).
if (!exists("dir")) {
  print "usage: gnuplot -e \"dir='RUN_OUTPUT_DIR'\" scripts/plot_stick-slip.gp"
  exit status 2
}
csv = dir . "/trajectory.csv"
if (!exists("png")) png = dir . "/stick-slip.png"
if (!exists("v_b")) v_b = 0.5
if (!exists("title")) title = "stick-slip: " . csv

if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo noenhanced size 1400,600
} else {
  set terminal png noenhanced size 1400,600
}
set output png
set datafile separator ","
set multiplot layout 1,2 title title
set grid
set key bottom right

is_static(m) = strstrt(m, "static") > 0
slip_v(m, v) = is_static(m) ? 1/0 : v
stick_v(m, v) = is_static(m) ? v : 1/0

set yrange [:v_b + 0.5]
set xlabel "t [s]"
set ylabel "v [m/s]"
plot v_b with lines dashtype 2 linecolor rgb "gray40" title "belt speed v_b", \
     csv using 1:4 with lines linecolor rgb "gray70" notitle, \
     csv using 1:(slip_v(strcol(2), $4)) with points pointtype 7 pointsize 0.4 linecolor rgb "#d62728" title "slipping", \
     csv using 1:(stick_v(strcol(2), $4)) with points pointtype 7 pointsize 0.8 linecolor rgb "#1f77b4" title "sticking (sliding mode)"

set xlabel "x [m]"
set ylabel "v [m/s]"
plot csv using 3:4 with lines linecolor rgb "gray70" notitle, \
     csv using 3:(slip_v(strcol(2), $4)) with points pointtype 7 pointsize 0.4 linecolor rgb "#d62728" title "slipping", \
     csv using 3:(stick_v(strcol(2), $4)) with points pointtype 7 pointsize 0.8 linecolor rgb "#1f77b4" title "sticking (sliding mode)"
unset multiplot
