# Draws the ball on the incline (Shpakov 2016, Figs. 1-3) from the engine's run of its rule
# table: the centre's speed V, the rim's speed Vвр = Omega R, the slip Vск = V - Vвр and the
# friction force, which drops from k Fn = 2.77 N to F* = F / (m R^2 / J0 + 1) = 0.959 N when
# the slip ends at t* = 4.74377 s (Shpakov 2016, Eq. (9) and Fig. 3). The interpreter's
# friction chatters between +-k Fn after t* instead (figures/shpakov-incline.png).
#
# The engine writes its states; the friction is the force its run applies, recovered from
# the centre's equation of motion, m dV/dt = Fтнг - Fтр (row 9), over each interval between
# two written rows: Fтр = Fтнг - m (V_k - V_k-1) / (t_k - t_k-1). V is linear in each phase,
# so the quotient is exact but on the interval holding t*.
#
# Usage (from the repository's root):
#   build/hysim run models/rules/ball-incline.rules.tsv --strategy gamma-refine --output-step 0.01 --out out/ball-engine
#   gnuplot -e "dir='out/ball-engine'" scripts/plot_ball_incline_engine.gp   -> out/ball-engine/ball-engine.png
# Variables: dir (required), png (default dir/ball-engine.png), and the table's values
# m (1), R (1.5), phi (-20 degrees), g (-9.81).
if (!exists("dir")) {
  print "usage: gnuplot -e \"dir='RUN_OUTPUT_DIR'\" scripts/plot_ball_incline_engine.gp"
  exit status 2
}
if (!exists("png")) png = dir . "/ball-engine.png"
if (!exists("m")) m = 1
if (!exists("R")) R = 1.5
if (!exists("phi")) phi = -20
if (!exists("g")) g = -9.81
F_tng = m * g * sin(phi * pi / 180)  # the table's Fтнг = P sin(phi), down the slope
tr = dir . "/trajectory.csv"

set terminal pngcairo noenhanced size 900,1000 font ",11"
set output png
set datafile separator ","
set datafile columnheaders
set grid
set lmargin 12
set key top right
prev_t = NaN
prev_v = NaN
friction(t, v) = (dt_ = t - prev_t, dv_ = v - prev_v, prev_t = t, prev_v = v, dt_ > 1e-9 ? F_tng - m * dv_ / dt_ : NaN)

set multiplot layout 4,1 title "Shpakov 2016, Figs. 2-3: the ball on the incline (phi = -20 deg, k = 0.3, Omega0 = -20), engine (gamma-refine)"
set ylabel "V [m/s]"
plot tr using "t":"skorost_dvizh" with lines lw 1.5 title "скорость движ. V"
set ylabel "Vвр [m/s]"
plot tr using "t":(column("ugl_skor_Omega") * R) with lines lw 1.5 title "Ввр вращения = Omega R"
set ylabel "Vск [m/s]"
plot tr using "t":(column("skorost_dvizh") - column("ugl_skor_Omega") * R) with lines lw 1.5 title "Vск скольжения = V - Vвр"
set ylabel "Fтр [N]"
set xlabel "t [s]"
set yrange [0:3]
plot tr using "t":(friction(column("t"), column("skorost_dvizh"))) with steps lw 1.5 title "Сила трения Fтр = Fтнг - m dV/dt"
unset multiplot
