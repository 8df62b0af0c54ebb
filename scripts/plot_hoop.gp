# Draws an interpreter run of models/rules/hoop.rules.tsv (002, Fig. 1: an elastic hoop dropped
# on a plane), as 002 draws it:
#   (a) the height of the centre h(t), with the radius R: the hoop is in contact below it
#       (002, Fig. 2);
#   (b) the elastic force F упр.(t), coloured by the situation that sets it: торможение
#       (braking, stiffness k1) and разгон (speeding up, k2) (002, Fig. 3).
#
# Usage (from the repository's root):
#   build/hysim run models/rules/hoop.rules.tsv --output-step 2e-4 --out out/hoop
#   gnuplot -e "dir='out/hoop'" scripts/plot_hoop.gp             -> out/hoop/hoop-fall.png
# (--output-step keeps one cycle in 20 of dt = 1e-5: 25,000 rows, enough for a contact of
# 40 ms.) The columns are found by the names the table gives them, in trajectory.csv's
# header: "t", "h высота", "F упр.", "торможение", "разгон".
# Variables: dir (required), png (default dir/hoop-fall.png), R (default 30, the table's).
if (!exists("dir")) {
  print "usage: gnuplot -e \"dir='RUN_OUTPUT_DIR'\" scripts/plot_hoop.gp"
  exit status 2
}
if (!exists("png")) png = dir . "/hoop-fall.png"
if (!exists("R")) R = 30
tr = dir . "/trajectory.csv"

set terminal pngcairo size 900,700 font ",11"
set output png
set datafile separator ","
set datafile columnheaders
set grid
set lmargin 12
set key top right
set multiplot layout 2,1 title "an elastic hoop dropped from 400 cm on a plane (002, Figs. 1-3), rule interpreter"

set ylabel "h [cm]"
set title "(a) height of the centre (002, Fig. 2)"
set xlabel ""
plot tr using (column("t")):(column("h высота")) with lines lw 1.5 lc rgb "#1f77b4" title "h", \
     R with lines dt 2 lc rgb "gray" title "R"

set ylabel "F упр. [dyn]"
set title "(b) the plane's elastic push (002, Fig. 3)"
set xlabel "t [s]"
plot tr using (column("t")):(column("торможение") > 0.5 ? column("F упр.") : NaN) with lines lw 1.5 lc rgb "#d62728" \
        title "F упр. – торможение (k1)", \
     tr using (column("t")):(column("разгон") > 0.5 ? column("F упр.") : NaN) with lines lw 1.5 lc rgb "#2ca02c" \
        title "F упр. – разгон (k2)", \
     tr using (column("t")):(column("торможение") + column("разгон") < 0.5 ? column("F упр.") : NaN) with lines \
        lw 1 lc rgb "gray" title "out of contact"
unset multiplot
