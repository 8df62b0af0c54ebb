# Draws an interpreter run of models/rules/hoop-rotation.rules.tsv (002, Figs. 1 and 4: the
# elastic hoop dropped with a horizontal velocity of 300 cm/s and free to turn), as 002's Fig. 5
# does: the height of the centre h, the horizontal velocity Vx and the angular velocity omega.
# Friction acts on the rim only in contact (h < R), while the rim slips; the hoop then rolls,
# at Vx = 150 cm/s and omega = -5 rad/s (counter-clockwise positive), the values drawn dashed.
#
# Usage (from the repository's root):
#   build/hysim run models/rules/hoop-rotation.rules.tsv --output-step 2e-4 --out out/hoop-rotation
#   gnuplot -e "dir='out/hoop-rotation'" scripts/plot_hoop_rotation.gp   -> out/hoop-rotation/hoop-rotation.png
# The columns are found by the names the table gives them, in trajectory.csv's header: "t",
# "h высота", "Vx скорость", "Угл. скорость".
# Variables: dir (required), png (default dir/hoop-rotation.png), R (default 30) and Vx0
# (default 300), the table's.
if (!exists("dir")) {
  print "usage: gnuplot -e \"dir='RUN_OUTPUT_DIR'\" scripts/plot_hoop_rotation.gp"
  exit status 2
}
if (!exists("png")) png = dir . "/hoop-rotation.png"
if (!exists("R")) R = 30
if (!exists("Vx0")) Vx0 = 300
tr = dir . "/trajectory.csv"

set terminal pngcairo size 900,860 font ",11"
set output png
set datafile separator ","
set datafile columnheaders
set grid
set lmargin 12
set key top right
set multiplot layout 3,1 title "an elastic hoop dropped with Vx = 300 cm/s, turning (002, Figs. 4-5), rule interpreter"

set ylabel "h [cm]"
set title "(a) height of the centre"
plot tr using (column("t")):(column("h высота")) with lines lw 1.5 lc rgb "#1f77b4" title "h", \
     R with lines dt 2 lc rgb "gray" title "R"

set ylabel "Vx [cm/s]"
set title "(b) horizontal velocity of the centre"
set yrange [0:*]
plot tr using (column("t")):(column("Vx скорость")) with lines lw 1.5 lc rgb "#d62728" title "Vx", \
     Vx0 / 2 with lines dt 2 lc rgb "gray" title "rolling: Vx0/2"
set yrange [*:*]

set ylabel "omega [rad/s]"
set title "(c) angular velocity (counter-clockwise positive)"
set xlabel "t [s]"
plot tr using (column("t")):(column("Угл. скорость")) with lines lw 1.5 lc rgb "#2ca02c" title "omega", \
     -Vx0 / (2 * R) with lines dt 2 lc rgb "gray" title "rolling: -Vx0/(2R)"
unset multiplot
