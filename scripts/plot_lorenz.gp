# Draws x(t) of the Lorenz rule table (Shpakov 2016, Figs. 9-10: sigma = 10, rho = 28,
# beta = 2.6666667 as the table prints it; x = y = 1, z = 10) from two runs of the same table:
# the interpreter at a fixed dt, as the paper's figure, and the engine, whose run is the true
# solution to the figure's resolution (rkf78 in long double at tolerance 1e-14 agrees with
# float128 at 1e-22 to 3.5e-9 over [0, 20] s). The interpreter's first-order error, amplified
# by the chaos, takes it off the true solution: the vertical line marks the first time t_off
# at which the two x differ by more than 1 (7.62 s at dt = 1e-5).
#
# Usage (from the repository's root):
#   build/hysim run models/rules/lorenz.rules.tsv --dt 1e-5 --t-end 20 --output-step 0.01 --out out/lz-rules
#   build/hysim run models/rules/lorenz.rules.tsv --solver rkf78 --rtol 1e-14 --atol 1e-14 \
#       --scalar long-double --t-end 20 --output-step 0.01 --out out/lz-engine
#   gnuplot -e "rules='out/lz-rules'; engine='out/lz-engine'; t_off=7.62" scripts/plot_lorenz.gp
# Variables: rules and engine (the two output folders, required), t_off (the time to mark;
# none when not given), png (default rules/lorenz.png), dt_label (default '1e-5').
if (!exists("rules") || !exists("engine")) {
  print "usage: gnuplot -e \"rules='DIR'; engine='DIR'\" scripts/plot_lorenz.gp"
  exit status 2
}
if (!exists("png")) png = rules . "/lorenz.png"
if (!exists("dt_label")) dt_label = "1e-5"
set terminal pngcairo noenhanced size 900,380 font ",11"
set output png
set datafile separator ","
set datafile columnheaders
set grid
set key bmargin center horizontal
set xlabel "t [s]"
set ylabel "x"
set title "Shpakov 2016, Fig. 10: x(t) of the Lorenz system (sigma = 10, rho = 28, beta = 2.6666667; x = y = 1, z = 10)"
if (exists("t_off")) {
  set arrow from t_off, graph 0 to t_off, graph 1 nohead dashtype 2 linecolor rgb "#606060"
  set label sprintf("the interpreter leaves the true solution (|dx| > 1) at t = %g s", t_off) at t_off, graph 0.06 offset 0.5,0 font ",10"
}
plot rules . "/trajectory.csv" using "t":"x" with lines lw 1.5 linecolor rgb "#cc79a7" title "interpreter, dt = " . dt_label, \
     engine . "/trajectory.csv" using "t":"x" with lines lw 1 linecolor rgb "#0072b2" title "engine (rkf78, long double, tolerance 1e-14)"
