# Draws the cam follower's figures (models/cam_follower.hpp, docs/cam-follower.md), after
# 003, Figs. 10 and 11, from the trajectory.csv of `hysim run cam-follower` runs. The state is
# relative to the cam (z = y - c, u = v - c'); the cam is c(t) = ecc sin(2 pi n t), so the
# follower is y = z + c(t), v = u + c'(t).
#
# Usage (from the repository's root):
#   build/hysim run cam-follower --t-end 2 --max-step 0.002 --out out/cam-on
#   build/hysim run cam-follower --t-end 2 --no-sliding --strategy step --solver rk4 \
#       --fixed-step 0.001 --min-step 0.001 --out out/cam-off
#   build/hysim run cam-follower --preset fig11 --t-end 2 --max-step 0.002 --out out/cam-bounce
#   gnuplot -e "on='out/cam-on'; off='out/cam-off'; bounce='out/cam-bounce'" scripts/plot_cam_follower.gp
# (--max-step only makes the curves smooth: the riding motion is exact, and the integrator
# would otherwise cross a revolution in a few steps.)
# Variables: on, off (Fig. 10: sliding handling on and off), bounce (Fig. 11: eps > 0), each a
# directory holding trajectory.csv and each optional; out (default docs/figures); ecc and n
# (the model's parameters, default 0.1 and 1); zoom0, zoom1 (the riding window of the
# relative-velocity panels, default 0.60 and 0.66 s).
# Writes out/cam-follower-fig10.png (needs on and off) and out/cam-follower-fig11.png (bounce).
if (!exists("out")) out = "docs/figures"
if (!exists("ecc")) ecc = 0.1
if (!exists("n")) n = 1
if (!exists("zoom0")) zoom0 = 0.60
if (!exists("zoom1")) zoom1 = 0.66
Omega = 2 * pi * n
cam(t) = ecc * sin(Omega * t)
dcam(t) = ecc * Omega * cos(Omega * t)

if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo noenhanced size 1400,900 font ",11"
} else {
  set terminal png noenhanced size 1400,900
}
set datafile separator ","
set grid
set samples 2000

# Fig. 10: the same riding phase without and with the equivalent dynamics. Top: the
# velocities of the follower (points at the step ends) and of the cam (line) over one
# revolution; bottom: the relative velocity u = v - v_cam in a window of the riding phase.
if (exists("on") && exists("off")) {
  set output out . "/cam-follower-fig10.png"
  set multiplot layout 2,2 title "cam follower, eps = 0 (003, Fig. 10): left without sliding handling (step, rk4, h = 1 ms), right with it"
  set xlabel "t [s]"
  set ylabel "velocity [m/s]"
  set xrange [0:1.2]
  set key top right
  do for [side in "off on"] {
    dir = side eq "off" ? off : on
    set title (side eq "off" ? "sliding off: chattering" : "sliding on: the follower rides the cam (sliding mode)")
    plot dir . "/trajectory.csv" using 1:($4 + dcam($1)) every ::1 with points pointtype 7 pointsize 0.4 \
           linecolor rgb "#1f77b4" title "follower v", \
         dcam(x) with lines linecolor rgb "#d62728" title "cam v_cam"
  }
  set xrange [zoom0:zoom1]
  # both panels on the chattering run's scale
  stats off . "/trajectory.csv" using (($1 >= zoom0 && $1 <= zoom1) ? $4 : NaN) every ::1 nooutput
  set yrange [1.2 * STATS_min : 1.2 * STATS_max]
  set ylabel "u = v - v_cam [m/s]"
  do for [side in "off on"] {
    dir = side eq "off" ? off : on
    set title sprintf("relative velocity, t in [%.2f, %.2f] s", zoom0, zoom1)
    plot dir . "/trajectory.csv" using 1:4 every ::1 with linespoints pointtype 7 pointsize 0.5 \
           linecolor rgb "#1f77b4" title "u (step ends and event points)"
  }
  unset multiplot
  set xrange [*:*]
  set yrange [*:*]
}

# Fig. 11: eps > 0. Top: the follower and the cam surface; bottom: the gap z, which shows the
# bounces after each landing shrinking (Zeno) until the follower rides again.
if (exists("bounce")) {
  set output out . "/cam-follower-fig11.png"
  set multiplot layout 2,1 title "cam follower with restitution (003, Fig. 11)"
  set xlabel "t [s]"
  set ylabel "position [m]"
  set key top right
  set title "follower y = z + c(t) and cam surface c(t)"
  plot bounce . "/trajectory.csv" using 1:($3 + cam($1)) every ::1 with lines linewidth 2 \
         linecolor rgb "#1f77b4" title "follower", \
       cam(x) with lines dashtype 2 linecolor rgb "#d62728" title "cam"
  set title "gap z = y - c(t)"
  set ylabel "z [m]"
  plot bounce . "/trajectory.csv" using 1:3 every ::1 with lines linecolor rgb "#1f77b4" title "z"
  unset multiplot
}
