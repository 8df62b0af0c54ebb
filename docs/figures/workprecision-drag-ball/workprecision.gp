# Work-precision diagram written by `hysim workprecision`; redraw with: gnuplot workprecision.gp, in this folder
# x: max |t - t*| over the matched events, y: RHS evaluations, one point per rtol.
csv = 'workprecision.csv'
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
  set terminal pngcairo noenhanced size 1400,1000
} else {
  set terminal png noenhanced size 1400,1000
}
set output 'workprecision.png'
set datafile separator ','
set logscale xy
set format x '%.0e'
set grid
set key bmargin center horizontal maxrows 12
set title 'drag-ball to t_end = 6.9, double: rtol from 0.001 to 1e-12, atol = 0.001 rtol'
set xlabel 'max |t - t*| over matched events [s] (runs that missed an event are not drawn)' offset 0,0.5
set ylabel 'RHS evaluations'
floor = 1e-20  # a run whose matched events are all exact (error 0) is drawn here
error(c) = column(c) > floor ? column(c) : floor
plot \
  csv using (strcol(1) eq 'dopri5' && strcol(2) eq 'bisection' && column(6) == 0 ? error(5) : NaN):8 with linespoints linecolor 1 pointtype 1 dashtype 1 title 'dopri5 bisection', \
  csv using (strcol(1) eq 'dopri5' && strcol(2) eq 'gamma-refine' && column(6) == 0 ? error(5) : NaN):8 with linespoints linecolor 2 pointtype 1 dashtype 1 title 'dopri5 gamma-refine', \
  csv using (strcol(1) eq 'dopri5' && strcol(2) eq 'sampled' && column(6) == 0 ? error(5) : NaN):8 with linespoints linecolor 3 pointtype 1 dashtype 1 title 'dopri5 sampled', \
  csv using (strcol(1) eq 'dopri5' && strcol(2) eq 'gamma' && column(6) == 0 ? error(5) : NaN):8 with linespoints linecolor 4 pointtype 1 dashtype 1 title 'dopri5 gamma', \
  csv using (strcol(1) eq 'cvode/Adams' && strcol(2) eq 'cvode-adams' && column(6) == 0 ? error(5) : NaN):8 with linespoints linecolor 5 pointtype 2 dashtype 2 title 'cvode/Adams cvode-adams', \
  csv using (strcol(1) eq 'bs3' && strcol(2) eq 'bisection' && column(6) == 0 ? error(5) : NaN):8 with linespoints linecolor 1 pointtype 3 dashtype 3 title 'bs3 bisection', \
  csv using (strcol(1) eq 'bs3' && strcol(2) eq 'gamma-refine' && column(6) == 0 ? error(5) : NaN):8 with linespoints linecolor 2 pointtype 3 dashtype 3 title 'bs3 gamma-refine', \
  csv using (strcol(1) eq 'bs3' && strcol(2) eq 'sampled' && column(6) == 0 ? error(5) : NaN):8 with linespoints linecolor 3 pointtype 3 dashtype 3 title 'bs3 sampled', \
  csv using (strcol(1) eq 'bs3' && strcol(2) eq 'gamma' && column(6) == 0 ? error(5) : NaN):8 with linespoints linecolor 4 pointtype 3 dashtype 3 title 'bs3 gamma', \
  csv using (strcol(1) eq 'cashkarp54' && strcol(2) eq 'bisection' && column(6) == 0 ? error(5) : NaN):8 with linespoints linecolor 1 pointtype 4 dashtype 4 title 'cashkarp54 bisection', \
  csv using (strcol(1) eq 'cashkarp54' && strcol(2) eq 'gamma-refine' && column(6) == 0 ? error(5) : NaN):8 with linespoints linecolor 2 pointtype 4 dashtype 4 title 'cashkarp54 gamma-refine', \
  csv using (strcol(1) eq 'cashkarp54' && strcol(2) eq 'sampled' && column(6) == 0 ? error(5) : NaN):8 with linespoints linecolor 3 pointtype 4 dashtype 4 title 'cashkarp54 sampled', \
  csv using (strcol(1) eq 'cashkarp54' && strcol(2) eq 'gamma' && column(6) == 0 ? error(5) : NaN):8 with linespoints linecolor 4 pointtype 4 dashtype 4 title 'cashkarp54 gamma', \
  csv using (strcol(1) eq 'rkf78' && strcol(2) eq 'bisection' && column(6) == 0 ? error(5) : NaN):8 with linespoints linecolor 1 pointtype 5 dashtype 5 title 'rkf78 bisection', \
  csv using (strcol(1) eq 'rkf78' && strcol(2) eq 'gamma-refine' && column(6) == 0 ? error(5) : NaN):8 with linespoints linecolor 2 pointtype 5 dashtype 5 title 'rkf78 gamma-refine', \
  csv using (strcol(1) eq 'rkf78' && strcol(2) eq 'sampled' && column(6) == 0 ? error(5) : NaN):8 with linespoints linecolor 3 pointtype 5 dashtype 5 title 'rkf78 sampled', \
  csv using (strcol(1) eq 'rkf78' && strcol(2) eq 'gamma' && column(6) == 0 ? error(5) : NaN):8 with linespoints linecolor 4 pointtype 5 dashtype 5 title 'rkf78 gamma', \
  csv using (strcol(1) eq 'dop853' && strcol(2) eq 'bisection' && column(6) == 0 ? error(5) : NaN):8 with linespoints linecolor 1 pointtype 6 dashtype 6 title 'dop853 bisection', \
  csv using (strcol(1) eq 'dop853' && strcol(2) eq 'gamma-refine' && column(6) == 0 ? error(5) : NaN):8 with linespoints linecolor 2 pointtype 6 dashtype 6 title 'dop853 gamma-refine', \
  csv using (strcol(1) eq 'dop853' && strcol(2) eq 'sampled' && column(6) == 0 ? error(5) : NaN):8 with linespoints linecolor 3 pointtype 6 dashtype 6 title 'dop853 sampled', \
  csv using (strcol(1) eq 'dop853' && strcol(2) eq 'gamma' && column(6) == 0 ? error(5) : NaN):8 with linespoints linecolor 4 pointtype 6 dashtype 6 title 'dop853 gamma'
