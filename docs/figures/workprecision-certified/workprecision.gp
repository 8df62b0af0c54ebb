# Work-precision diagram written by `hysim workprecision`; redraw with: gnuplot workprecision.gp, in this folder
# x: max |t - t*| over the matched events, y: wall time [s], one point per rtol;
# one panel per solver, on common axes.
csv = 'workprecision.csv'
figure_title = 'models/drag-ball.hym to t_end = 6.9, double: rtol from 0.001 to 1e-12, atol = 0.001 rtol'
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
  set terminal pngcairo noenhanced size 1400,1000 font ',9'
} else {
  set terminal png noenhanced size 1400,1000
}
set output 'workprecision.png'
set datafile separator ','
floor = 1e-20  # a run whose matched events are all exact (error 0) is drawn here
error(c) = column(c) > floor ? column(c) : floor
drawn(unused) = column(6) == 0 ? error(5) : NaN
stats csv using (drawn(0)):10 nooutput
set xrange [STATS_min_x / 3 : STATS_max_x * 3]
set yrange [STATS_min_y / 1.3 : STATS_max_y * 1.3]
set logscale x 10
set logscale y 10
set format x '%.0e'
set format y '%.0e'
set grid
unset key
set xlabel 'max |t - t*| [s]'
set ylabel 'wall time of the run [s]'
set multiplot layout 2,2 title figure_title
set title 'dopri5'
plot \
  csv using (strcol(1) eq 'dopri5' && strcol(2) eq 'gamma-refine' ? drawn(0) : NaN):10 with linespoints linecolor rgb '#0072b2' pointtype 1 notitle, \
  csv using (strcol(1) eq 'dopri5' && strcol(2) eq 'certified' ? drawn(0) : NaN):10 with linespoints linecolor rgb '#d55e00' pointtype 2 notitle, \
  csv using (strcol(1) eq 'dopri5' && strcol(2) eq 'bisection' ? drawn(0) : NaN):10 with linespoints linecolor rgb '#009e73' pointtype 3 notitle, \
  csv using (strcol(1) eq 'cvode/Adams' && strcol(2) eq 'cvode-adams' ? drawn(0) : NaN):10 with linespoints linecolor rgb '#000000' dashtype 2 pointtype 12 notitle
set title 'dop853'
plot \
  csv using (strcol(1) eq 'dop853' && strcol(2) eq 'gamma-refine' ? drawn(0) : NaN):10 with linespoints linecolor rgb '#0072b2' pointtype 1 notitle, \
  csv using (strcol(1) eq 'dop853' && strcol(2) eq 'certified' ? drawn(0) : NaN):10 with linespoints linecolor rgb '#d55e00' pointtype 2 notitle, \
  csv using (strcol(1) eq 'dop853' && strcol(2) eq 'bisection' ? drawn(0) : NaN):10 with linespoints linecolor rgb '#009e73' pointtype 3 notitle, \
  csv using (strcol(1) eq 'cvode/Adams' && strcol(2) eq 'cvode-adams' ? drawn(0) : NaN):10 with linespoints linecolor rgb '#000000' dashtype 2 pointtype 12 notitle
unset title
unset border
unset tics
unset grid
unset xlabel
unset ylabel
unset logscale
set xrange [0:1]
set yrange [0:1]
set key center center vertical maxrows 12 title 'runs that missed an event are not drawn'
plot \
  NaN with linespoints linecolor rgb '#0072b2' pointtype 1 title 'gamma-refine', \
  NaN with linespoints linecolor rgb '#d55e00' pointtype 2 title 'certified', \
  NaN with linespoints linecolor rgb '#009e73' pointtype 3 title 'bisection', \
  NaN with linespoints linecolor rgb '#000000' dashtype 2 pointtype 12 title 'cvode/Adams cvode-adams'
unset multiplot
