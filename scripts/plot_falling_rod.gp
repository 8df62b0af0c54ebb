# Draws a falling-rod run in phase space, like 003's Figs. 6 and 7: (a) the angle theta against
# the angular velocity omega, (b) the height of the contact end A against its vertical velocity,
# y_A = y + l sin(theta), v_Ay = vy + l cos(theta) omega, (c) the slip velocity of A,
# v_Ax = vx - l sin(theta) omega, against theta. The samples of trajectory.csv are
# drawn in one colour per mode; every committed jump of events.csv (x- -> x+) is an arrow; the
# rows of events.csv (time, modes, class, guard) are listed under the plots.
#
# Usage (from the repository's root):
#   build/hysim run falling-rod --preset fig6 --max-step 0.002 --out out/rod6
#   gnuplot -e "dir='out/rod6'" scripts/plot_falling_rod.gp            -> out/rod6/phase.png
#   build/hysim run falling-rod --preset fig7 --t-end 3 --max-step 0.005 --out out/rod7
#   gnuplot -e "dir='out/rod7'" scripts/plot_falling_rod.gp            -> out/rod7/phase.png
# (--max-step only adds samples: dopri5 integrates the free flight exactly, in one step.)
# Variables: dir (required: trajectory.csv, events.csv, stats.json), png (default
# dir/phase.png), l (default: the run's parameter l, read from stats.json), title.
if (!exists("dir")) {
  print "usage: gnuplot -e \"dir='RUN_OUTPUT_DIR'\" scripts/plot_falling_rod.gp"
  exit status 2
}
if (!exists("png")) png = dir . "/phase.png"
# A parameter of the run, as text, from stats.json ("" when absent).
param(name) = system("sed -n 's/^ *\"" . name . "\": *\"\\([^\"]*\\)\".*/\\1/p' '" . dir . "/stats.json' | head -1")
if (!exists("l")) {
  l_text = param("l")
  if (strlen(l_text) == 0) {
    print "plot_falling_rod.gp: no parameter l in " . dir . "/stats.json; give it with -e \"l=...\""
    exit status 2
  }
  l = real(l_text)
}
if (!exists("title")) title = sprintf("falling-rod, l = %g, mu = %s: phase space (003, Figs. 6-7)", l, param("mu"))

# trajectory.csv: t, mode, x, y, theta, vx, vy, omega (columns 1-8), read through awk, which
# puts a blank line (a break in each curve) between the two samples (t_e, x-) and (t_e, x+)
# of an event, so that a jump is drawn only as its arrow.
traj = "< awk -F, 'NR > 1 && $1 == t { print \"\" } { t = $1; print }' '" . dir . "/trajectory.csv'"
# events.csv: index, t, from, to, class, guard, one_sided, x- (8-13), x+ (14-19).
yA(y, th) = y + l * sin(th)
vAy(vy, th, w) = vy + l * cos(th) * w
vAx(vx, th, w) = vx - l * sin(th) * w
in_mode(name, v) = strcol(2) eq name ? v : 1/0
moved(v) = ($14 != $8 || $15 != $9 || $16 != $10 || $17 != $11 || $18 != $12 || $19 != $13) ? v : 1/0

rows = system("awk -F, 'NR > 1 { printf \"%d  t = %.12f  %s -> %s  %s  (%s)\\n\", $1, $2, $3, $4, $5, $6 }' '" . dir . "/events.csv'")

if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo noenhanced size 1650,650
} else {
  set terminal png noenhanced size 1650,650
}
set output png
set datafile separator ","
set multiplot title title
set grid
set key at screen 0.97, screen 0.03 right bottom box opaque width 1

set style line 1 linecolor rgb "#1f77b4" linewidth 2 pointtype 7 pointsize 0.4
set style line 2 linecolor rgb "#2ca02c" linewidth 2 pointtype 7 pointsize 0.4
set style line 3 linecolor rgb "#d62728" linewidth 2 pointtype 7 pointsize 0.4
set style line 4 linecolor rgb "gray30" linewidth 2 pointtype 5 pointsize 1.2
set style arrow 1 head filled size screen 0.015,20 linecolor rgb "black" linewidth 1.5 dashtype 2

set size 0.333, 0.72
set origin 0.0, 0.26
set title "(a) angle against angular velocity"
set xlabel "theta [rad]"
set ylabel "omega [rad/s]"
plot traj using 5:(in_mode("a0", $8)) skip 1 with linespoints linestyle 1 title "a0 free", \
     ""                      using 5:(in_mode("a1", $8)) skip 1 with linespoints linestyle 2 title "a1 stuck", \
     ""                      using 5:(in_mode("a2", $8)) skip 1 with linespoints linestyle 3 title "a2 sliding", \
     ""                      using 5:(strcol(2) eq "flat" || strcol(2) eq "far_end" ? $8 : 1/0) skip 1 with points linestyle 4 title "flat / far_end (end)", \
     dir . "/events.csv" using (moved($10)):13:($16 - $10):($19 - $13) skip 1 with vectors arrowstyle 1 title "jump x- -> x+"

unset key
set origin 0.333, 0.26
set title "(b) contact end A: height against vertical velocity"
set xlabel "y_A [m]"
set ylabel "v_Ay [m/s]"
plot traj using (yA($4, $5)):(in_mode("a0", vAy($7, $5, $8))) skip 1 with linespoints linestyle 1 title "a0 free", \
     ""                      using (yA($4, $5)):(in_mode("a1", vAy($7, $5, $8))) skip 1 with linespoints linestyle 2 title "a1 stuck", \
     ""                      using (yA($4, $5)):(in_mode("a2", vAy($7, $5, $8))) skip 1 with linespoints linestyle 3 title "a2 sliding", \
     ""                      using (yA($4, $5)):(strcol(2) eq "flat" || strcol(2) eq "far_end" ? vAy($7, $5, $8) : 1/0) skip 1 with points linestyle 4 title "flat / far_end (end)", \
     dir . "/events.csv" using (moved(yA($9, $10))):(vAy($12, $10, $13)):(yA($15, $16) - yA($9, $10)):(vAy($18, $16, $19) - vAy($12, $10, $13)) skip 1 with vectors arrowstyle 1 title "jump x- -> x+"

set origin 0.666, 0.26
set title "(c) slip velocity of A against angle"
set xlabel "theta [rad]"
set ylabel "v_Ax [m/s]"
plot traj using 5:(in_mode("a0", vAx($6, $5, $8))) skip 1 with linespoints linestyle 1 title "a0 free", \
     ""                      using 5:(in_mode("a1", vAx($6, $5, $8))) skip 1 with linespoints linestyle 2 title "a1 stuck", \
     ""                      using 5:(in_mode("a2", vAx($6, $5, $8))) skip 1 with linespoints linestyle 3 title "a2 sliding", \
     ""                      using 5:(strcol(2) eq "flat" || strcol(2) eq "far_end" ? vAx($6, $5, $8) : 1/0) skip 1 with points linestyle 4 title "flat / far_end (end)", \
     dir . "/events.csv" using (moved($10)):(vAx($11, $10, $13)):($16 - $10):(vAx($17, $16, $19) - vAx($11, $10, $13)) skip 1 with vectors arrowstyle 1 title "jump x- -> x+"

# The event rows as text.
set size 1, 0.26
set origin 0, 0
unset title
unset border
unset tics
unset grid
unset key
unset xlabel
unset ylabel
set xrange [0:1]
set yrange [0:1]
set label 1 "events.csv:\n" . rows at graph 0.06, graph 0.95 left front font ",11"
plot 1/0
unset multiplot
