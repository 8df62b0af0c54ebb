# Draws a ball-incline run (models/ball_incline.hpp), whose rolling is the engine's sliding mode
# on the surface v_s = V + omega R = 0:
#   (a) the speed of the centre V and the peripheral speed -omega R of the contact point about
#       the centre; rolling is V = -omega R;
#   (b) the slip velocity v_s = V + omega R (left axis) and the work done against friction w
#       (right axis), which stops growing once the ball rolls.
# The time interval of the sliding mode (from the events.csv row of class "sliding" to the next
# event, or to the end of the run) is shaded. During it trajectory.csv names the first mode of
# the sliding cycle (slip_pos); the state moves with the equivalent field.
#
# Usage (from the repository's root):
#   build/hysim run ball-incline --preset paper --t-end 10 --max-step 0.01 --out out/roll
#   gnuplot -e "dir='out/roll'" scripts/plot_sliding.gp              -> out/roll/sliding.png
# (--max-step only adds samples: the fields are polynomial in t, and dopri5 takes the rolling
# from 4.74 s to 10 s in one step without it.)
# Variables: dir (required: trajectory.csv, events.csv, stats.json), png (default
# dir/sliding.png), R (default: the run's parameter r from stats.json), title.
# trajectory.csv columns: t, mode, s, V, omega, w.
if (!exists("dir")) {
  print "usage: gnuplot -e \"dir='RUN_OUTPUT_DIR'\" scripts/plot_sliding.gp"
  exit status 2
}
if (!exists("png")) png = dir . "/sliding.png"
param(name) = system("sed -n 's/^ *\"" . name . "\": *\"\\([^\"]*\\)\".*/\\1/p' '" . dir . "/stats.json' | head -1")
if (!exists("R")) R = real(param("r"))
if (!exists("title")) title = sprintf("ball-incline, phi = %s deg, k = %s: slipping, then rolling as a sliding mode", \
                                      param("phi_deg"), param("k"))

set datafile separator ","
ev = dir . "/events.csv"
tr = dir . "/trajectory.csv"
# The sliding interval [t_on, t_off]: the first row of class "sliding", and the first row of a
# later event (or the last sample).
t_on_text = system("awk -F, '$5 == \"sliding\" { print $2; exit }' '" . ev . "'")
if (strlen(t_on_text) == 0) {
  print "plot_sliding.gp: " . ev . " has no row of class 'sliding'"
  exit status 1
}
t_on = real(system("awk -F, '$5 == \"sliding\" { printf \"%.17f\", $2; exit }' '" . ev . "'"))
t_off_text = system("awk -F, 'i && $1 > i { printf \"%.17f\", $2; exit } $5 == \"sliding\" && !i { i = $1 }' '" . ev . "'")
if (strlen(t_off_text) == 0) {
  stats tr using 1 nooutput
  t_off = STATS_max
} else {
  t_off = real(t_off_text)
}

if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo noenhanced size 1200,900
} else {
  set terminal png noenhanced size 1200,900
}
set output png
set multiplot layout 2,1 title title
set grid
set key outside right top
set lmargin at screen 0.08
set rmargin at screen 0.80
set xlabel "t [s]"
set object 1 rectangle from t_on, graph 0 to t_off, graph 1 behind fillcolor rgb "#fff2cc" fillstyle solid noborder

set title sprintf("(a) velocities; shaded: the sliding mode (rolling) from t = %.17g s", t_on)
set ylabel "[m/s]"
plot tr using 1:4 skip 1 with lines linewidth 2 linecolor rgb "#1f77b4" title "V", \
     tr using 1:(-$5 * R) skip 1 with lines linewidth 2 dashtype 2 linecolor rgb "#d62728" title "-omega R"

set title "(b) slip velocity and work against friction"
set ylabel "v_s = V + omega R [m/s]"
set y2label "w [J]"
set ytics nomirror
set y2tics
plot tr using 1:($4 + $5 * R) skip 1 with lines linewidth 2 linecolor rgb "#2ca02c" title "v_s", \
     tr using 1:6 skip 1 axes x1y2 with lines linewidth 2 linecolor rgb "black" title "w (right axis)"
unset multiplot
