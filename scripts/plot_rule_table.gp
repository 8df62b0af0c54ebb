# Draws columns of a rule table's run (docs/rule-tables.md, "Reproduction"), one panel per
# column, against t, from the trajectory.csv that `hysim run TABLE --out DIR` writes.
#
# Usage (from the repository's root):
#   build/hysim run models/rules/cart-limits.rules.tsv --output-step 0.005 --out out/cart
#   gnuplot -e "dir='out/cart'; columns='X тележки,V тележки'; title='002, Fig. 12'" scripts/plot_rule_table.gp
# Variables: dir (required), columns (required: the table's names, comma-separated), png
# (default dir/plot.png), title (default: none).
if (!exists("dir") || !exists("columns")) {
  print "usage: gnuplot -e \"dir='RUN_OUTPUT_DIR'; columns='NAME,NAME'\" scripts/plot_rule_table.gp"
  exit status 2
}
if (!exists("png")) png = dir . "/plot.png"
if (!exists("title")) title = ""
file = dir . "/trajectory.csv"
set datafile separator ","
# The names, split at commas.
count = 1
do for [i = 1:strlen(columns)] { if (columns[i:i] eq ",") { count = count + 1 } }
rest = columns
array names[count]
do for [k = 1:count] {
  cut = strstrt(rest . ",", ",")
  names[k] = rest[1:cut - 1]
  rest = rest[cut + 1:]
}
set terminal pngcairo size 900, 260 * count + 40 font ",11"
set output png
set multiplot layout count, 1 title title
set grid
set key top right
do for [k = 1:count] {
  if (k == count) { set xlabel "t [s]" } else { unset xlabel }
  plot file using "t":names[k] with lines lw 1.5 title names[k]
}
unset multiplot
