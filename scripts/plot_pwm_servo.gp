# Draws runs of the PWM servo drive (ISMA 2024, sections 4 and 9) as the paper's figures:
#   fig=13: the transients omega(t) and phi(t) (Fig. 13);
#   fig=14: the event functions of the first switches over [0, 0.12] s (Fig. 14):
#           g21 = x, g22 = saw - kp x, g31 = kp x - saw (the atoms of s1's guards) and
#           gr1 = saw - saw_max (the sawtooth's reset), with x = u - k omega - phi.
#
# Usage (from the repository's root):
#   build/hysim run pwm-servo --t-end 2 --output-step 1e-3 --out out/pwm13
#   gnuplot -e "dir='out/pwm13'; fig=13" scripts/plot_pwm_servo.gp   -> out/pwm13/pwm-fig13.png
#   build/hysim run pwm-servo --t-end 0.12 --output-step 2e-4 --out out/pwm14
#   gnuplot -e "dir='out/pwm14'; fig=14" scripts/plot_pwm_servo.gp   -> out/pwm14/pwm-fig14.png
# The trajectory holds both sides of every event, so the figures show the jumps of saw and
# of the event functions at each switch exactly. Variables: dir and fig (required), png
# (default dir/pwm-figFIG.png), and the model's parameters u, k, kp, saw_max when changed
# (defaults 1, 0.1, 0.1, 0.1).
if (!exists("dir") || !exists("fig")) {
  print "usage: gnuplot -e \"dir='RUN_OUTPUT_DIR'; fig=13\" scripts/plot_pwm_servo.gp (fig 13 or 14)"
  exit status 2
}
if (!exists("png")) png = sprintf("%s/pwm-fig%d.png", dir, fig)
if (!exists("u")) u = 1
if (!exists("k")) k = 0.1
if (!exists("kp")) kp = 0.1
if (!exists("saw_max")) saw_max = 0.1
tr = dir . "/trajectory.csv"

set terminal pngcairo noenhanced size 900,700 font ",11"
set output png
set datafile separator ","
set datafile columnheaders
set grid
set lmargin 12
set key top right
x(omega, phi) = u - k*omega - phi

if (fig == 13) {
  set multiplot layout 2,1 title "PWM servo drive: transients (ISMA 2024, Fig. 13), hysim run"
  set ylabel "omega [rad/s]"
  plot tr using "t":"omega" with lines lw 1.5 linecolor rgb "#0072b2" title "omega(t)"
  set xlabel "t [s]"
  set ylabel "phi [rad]"
  plot tr using "t":"phi" with lines lw 1.5 linecolor rgb "#d55e00" title "phi(t)", \
       u with lines dashtype 2 linecolor rgb "#606060" title "setpoint u"
  unset multiplot
} else {
  set title "PWM servo drive: event functions (ISMA 2024, Fig. 14), hysim run; s1 -> s3 at 0.0449 s, back to s1 at 0.1 s"
  set xlabel "t [s]"
  set ylabel "event function"
  set yrange [-0.15:1.05]
  plot tr using "t":(x(column("omega"), column("phi"))) with lines lw 1.5 linecolor rgb "#0072b2" title "g21 = x", \
       tr using "t":(column("saw") - kp*x(column("omega"), column("phi"))) with lines lw 1.5 linecolor rgb "#d55e00" title "g22 = saw - kp x", \
       tr using "t":(kp*x(column("omega"), column("phi")) - column("saw")) with lines lw 1.5 linecolor rgb "#009e73" title "g31 = kp x - saw", \
       tr using "t":(column("saw") - saw_max) with lines lw 1.5 linecolor rgb "#cc79a7" title "gr1 = saw - saw_max", \
       0 with lines linecolor rgb "#000000" notitle
}
