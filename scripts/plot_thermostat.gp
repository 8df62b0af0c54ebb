# Draws a run of examples/thermostat.hym (docs/tutorial-thermostat.md): the temperature T(t)
# from trajectory.csv, coloured by mode (heater on / off), with the thresholds T_low and
# T_high.
#
# Usage (from the repository's root):
#   build/hysim run examples/thermostat.hym --t-end 30 --max-step 0.05 --out out/thermostat
#   gnuplot -e "dir='out/thermostat'" scripts/plot_thermostat.gp   -> out/thermostat/thermostat.png
# Variables: dir (required), png (default dir/thermostat.png), low and high (19 and 21).
if (!exists("dir")) {
  print "usage: gnuplot -e \"dir='RUN_OUTPUT_DIR'\" scripts/plot_thermostat.gp"
  exit status 2
}
if (!exists("png")) png = dir . "/thermostat.png"
if (!exists("low")) low = 19
if (!exists("high")) high = 21
set terminal pngcairo size 900,420 font ",11"
set output png
set datafile separator ","
set key outside right top
set xlabel "t [min]"
set ylabel "T [C]"
set title "thermostat with hysteresis: the heater switches on at T_{low} and off at T_{high}"
set yrange [low - 0.5 : high + 0.5]
set grid
plot dir . "/trajectory.csv" every ::1 using 1:(strcol(2) eq "on" ? $3 : NaN) with linespoints pt 7 ps 0.3 lc rgb "#d62728" title "heater on", \
     dir . "/trajectory.csv" every ::1 using 1:(strcol(2) eq "off" ? $3 : NaN) with linespoints pt 7 ps 0.3 lc rgb "#1f77b4" title "heater off", \
     low with lines dt 2 lc rgb "gray" title "T_{low}", high with lines dt 3 lc rgb "gray" title "T_{high}"
