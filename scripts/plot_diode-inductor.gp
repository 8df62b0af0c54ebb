# Draws the inductor current of a diode-inductor run: the samples of trajectory.csv, one colour
# per mode, over the closed form i(t) of the default circuit (models/diode_inductor.hpp), and
# the event times of events.csv as dotted vertical lines.
#
# Usage (from the repository's root):
#   build/hysim run diode-inductor --t-end 0.6 --rtol 1e-8 --atol 1e-10 --out out/diode
#   gnuplot -e "dir='out/diode'" scripts/plot_diode-inductor.gp     -> out/diode/current.png
# Variables: dir (required, holds trajectory.csv and events.csv), png (default
# dir/current.png). The closed form assumes the default parameters (V = 10, L = 0.1, R = 10,
# Vd = 0.7, T = 0.2, D = 0.1, i0 = 0).
if (!exists("dir")) {
  print "usage: gnuplot -e \"dir='RUN_OUTPUT_DIR'\" scripts/plot_diode-inductor.gp"
  exit status 2
}
if (!exists("png")) png = dir . "/current.png"

# Closed form: every period starts at i = 0 (the diode turns off 0.0273 s after each opening).
V = 10.0; L = 0.1; R = 10.0; Vd = 0.7; T = 0.2; D = 0.1
tau = L / R
i_open = V / R * (1 - exp(-D / tau))
t_zero = tau * log(1 + i_open * R / Vd)   # freewheeling time after an opening
phase(t) = t - T * floor(t / T)
i_exact(t) = phase(t) < D ? V / R * (1 - exp(-phase(t) / tau)) : \
             (phase(t) < D + t_zero ? (i_open + Vd / R) * exp(-(phase(t) - D) / tau) - Vd / R : 0)

if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo noenhanced size 1100,600
} else {
  set terminal png noenhanced size 1100,600
}
set output png
set datafile separator ","
set grid
set key outside right top
set title "diode-inductor: inductor current (samples by mode) and the closed form"
set xlabel "t [s]"
set ylabel "i [A]"
set yrange [-0.05:1.1]
set samples 4000

# The event times as vertical lines (one per row of events.csv; a chain's rows coincide).
plot dir . "/events.csv" using 2:(-0.05):(0):(1.15) skip 1 with vectors nohead dashtype 3 linecolor rgb "gray50" title "events", \
     i_exact(x) with lines linewidth 1 linecolor rgb "black" title "closed form", \
     dir . "/trajectory.csv" using 1:(strcol(2) eq "on" ? $3 : 1/0) with points pointtype 7 pointsize 0.6 linecolor rgb "#1f77b4" title "on (switch on)", \
     dir . "/trajectory.csv" using 1:(strcol(2) eq "freewheel" ? $3 : 1/0) with points pointtype 7 pointsize 0.6 linecolor rgb "#d62728" title "freewheel (diode on)", \
     dir . "/trajectory.csv" using 1:(strcol(2) eq "off" ? $3 : 1/0) with points pointtype 9 pointsize 1.0 linecolor rgb "#2ca02c" title "off (both off)"
