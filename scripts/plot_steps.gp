# Draws the step log of a run: the step size h against t, log scale in h, one colour per
# reason that limited the step (the `limit` column). Under the gamma rule the step shrinks
# geometrically while a guard approaches, down to h_min, then grows again after the switch:
# the picture of 004, Figs. 14-16.
#
# Usage (from the repository's root):
#   build/hysim run pwm-servo --strategy gamma --t-end 0.2 --out out/gamma
#   gnuplot -e "dir='out/gamma'" scripts/plot_steps.gp                  -> out/gamma/steps.png
#   gnuplot -e "dir='out/gamma'; tmin=0.04; tmax=0.046" scripts/plot_steps.gp   (zoom, 004 Fig. 15)
# Variables: dir (required, holds steps.csv), png (default dir/steps.png), tmin, tmax
# (optional t range), title (optional).
if (!exists("dir")) {
  print "usage: gnuplot -e \"dir='RUN_OUTPUT_DIR'\" scripts/plot_steps.gp"
  exit status 2
}
csv = dir . "/steps.csv"
if (!exists("png")) png = dir . "/steps.png"
if (!exists("title")) title = "step log: " . csv

# The names events/strategy.cpp gives the StepLimit values (step_limit_name).
limits = "integrator fixed max_step gamma minimum event end"

if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo noenhanced size 1200,700
} else {
  set terminal png noenhanced size 1200,700
}
set output png
set datafile separator ","
set logscale y
set format y "%.0e"
set grid
set key outside right top title "step limited by"
set title title
set xlabel "t [s]"
set ylabel "step size h [s]"
if (exists("tmin")) set xrange [tmin:*]
if (exists("tmax")) set xrange [:tmax]  # an empty end keeps the other setting

# The steps in time order as a grey line, then each limit's steps as coloured points.
plot csv using 1:2 with lines linecolor rgb "#bbbbbb" notitle, \
     for [i = 1:words(limits)] csv using 1:(strcol(3) eq word(limits, i) ? column(2) : NaN) \
       with points pointtype 7 pointsize 0.8 linecolor i title word(limits, i)
