// `hysim workprecision MODEL --out DIR`: sweeps rtol over decades for every (solver, strategy)
// combination and measures each run against the model's reference: DIR/workprecision.csv,
// and the diagram DIR/workprecision.png drawn by gnuplot from DIR/workprecision.gp
// (x = max |t - t*| over the matched events, y = RHS evaluations, log-log, one line per
// solver and strategy). Without gnuplot the CSV and the script are still written. Without
// --strategies it runs every strategy but one of the two CVODE peers: CVODE's best
// configuration for the model, BDF with Newton ("cvode") for a model whose catalog entry is
// stiff (ModelEntry::stiff), Adams with fixed-point iteration ("cvode-adams") otherwise.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include "apps/cli_options.hpp"
#include "apps/commands.hpp"
#include "hysim/study/evaluation.hpp"
#include "hysim/study/out_folder.hpp"
#include "hysim/study/workprecision.hpp"
#include "apps/table.hpp"
#include "hysim/core/errors.hpp"
#include "hysim/core/printable.hpp"
#include "hysim/solvers/stepper.hpp"

namespace hysim::app {

namespace {

// The columns of workprecision.csv; the gnuplot script reads them by position.
constexpr int kErrorColumn = 5, kMissedColumn = 6, kRhsColumn = 8, kWallColumn = 10;
// error_per_rtol, reversal and proportional: the run's tolerance proportionality within its
// series (study::Proportionality).
const std::vector<std::string> kHeader = {"solver",   "strategy",  "rtol",  "atol",         "max_abs_dt",
                                          "missed",   "spurious",  "rhs_evals", "steps",    "wall_seconds",
                                          "error_per_rtol", "reversal", "proportional", "note"};

std::vector<std::string> cells_of(const Evaluation& run, const Proportionality& p, const Reference& reference,
                                  Precision precision) {
  const MatchResult& match = *run.match;
  auto count = [&](auto value) { return count_cell(static_cast<long long>(value), precision); };
  auto measure = [&](double value) { return value == value ? number_cell(value, 3, precision) : std::string("-"); };
  const bool measured = p.error == p.error;
  std::string note = run.status_note();
  if (p.flagged) note += (note.empty() ? "" : "; ") + std::string("not proportional: ") + p.why;
  return {run.solver_label(),
          run.options.strategy,
          number_cell(run.options.rtol, 3, precision),
          number_cell(run.options.atol, 3, precision),
          error_cell(max_time_error(match, run.events, reference.events), precision),
          count(match.missed),
          count(match.spurious),
          count(run.stats.rhs_evals),
          count(run.stats.steps_accepted),
          number_cell(run.wall_seconds, 3, precision),
          measure(p.error_per_rtol),
          measure(p.reversal),
          measured ? (p.flagged ? "no" : "yes") : "-",
          note};
}

// Per series, the worst reversal (the error at a tighter rtol over the best at a looser one)
// and the tolerances flagged as not proportional.
void print_proportionality(std::ostream& out, const WorkPrecision& study, const std::vector<Proportionality>& measures) {
  std::vector<std::pair<std::string, std::string>> order;
  std::map<std::pair<std::string, std::string>, std::pair<double, std::string>> worst;  // reversal, flagged rtols
  for (std::size_t i = 0; i < study.runs.size(); ++i) {
    const Evaluation& run = study.runs[i];
    const auto key = std::make_pair(run.solver_label(), run.options.strategy);
    if (worst.find(key) == worst.end()) {
      order.push_back(key);
      worst[key] = {0.0, ""};
    }
    auto& [reversal, flagged] = worst[key];
    if (measures[i].reversal > reversal) reversal = measures[i].reversal;
    if (measures[i].flagged) flagged += (flagged.empty() ? "" : " ") + number_cell(run.options.rtol, 3, Precision::kShort);
  }
  out << "\ntolerance proportionality (worst reversal: the error at a tighter rtol over the best at a looser one; "
         "flagged beyond "
      << Proportionality::kMostReversal << "x, or error/rtol grown beyond " << Proportionality::kMostDrift << "x):\n";
  for (const auto& key : order) {
    const auto& [reversal, flagged] = worst[key];
    out << "  " << key.first << " " << key.second << ": worst reversal " << format_scalar(reversal, 2)
        << (flagged.empty() ? "; proportional at every rtol" : "; not proportional at rtol " + flagged) << "\n";
  }
}

// A string literal of gnuplot's script language, for a label: single-quoted, in which gnuplot
// substitutes nothing (a double-quoted string runs `backquoted` commands) and only '' (a quote)
// is special. A line break would end the command: the text is made printable first.
std::string gnuplot_string(const std::string& text) {
  std::string out = "'";
  for (const char c : printable(text)) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

bool program_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (!path) return false;
  std::stringstream dirs(path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : dir) / program;
    if (::access(candidate.c_str(), X_OK) == 0 && std::filesystem::is_regular_file(candidate)) return true;
  }
  return false;
}

// Runs `gnuplot SCRIPT` in `folder`, without a shell (a path is an argument, never a command
// line), and waits for it. Throws Error when it cannot start or fails.
void run_gnuplot(const std::filesystem::path& folder, const std::string& script) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addchdir_np(&actions, folder.c_str());
  std::string program = "gnuplot", argument = script;
  char* argv[] = {program.data(), argument.data(), nullptr};
  pid_t pid = 0;
  const int error = posix_spawnp(&pid, "gnuplot", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  const std::string where = "gnuplot " + script + " in '" + printable(folder.string()) + "'";
  if (error != 0) throw Error("cannot start " + where + ": " + std::strerror(error));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw Error("waiting for " + where + ": " + std::strerror(errno));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  throw Error(where + " failed (" +
              (WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                 : "signal " + std::to_string(WTERMSIG(status))) +
              ")");
}

// The figure: one panel per solver, its strategies in the same colours in every panel, the
// peers that bring their own integrator (CVODE) in black and grey in every panel as the
// baseline, all panels on the same axes, and a panel for the legend. The script picks each
// series from the CSV by comparing columns 1 and 2, so rerunning it after editing the CSV
// redraws the figure.
struct FigureLayout {
  std::vector<std::string> solvers, strategies;                // the panels; the colours
  std::vector<std::pair<std::string, std::string>> peers;      // (solver label, strategy)

  explicit FigureLayout(const std::vector<std::pair<std::string, std::string>>& series) {
    for (const auto& [solver, strategy] : series) {
      if (brings_own_solver(strategy)) {
        if (std::find(peers.begin(), peers.end(), std::make_pair(solver, strategy)) == peers.end()) {
          peers.emplace_back(solver, strategy);
        }
        continue;
      }
      if (std::find(solvers.begin(), solvers.end(), solver) == solvers.end()) solvers.push_back(solver);
      if (std::find(strategies.begin(), strategies.end(), strategy) == strategies.end()) strategies.push_back(strategy);
    }
  }
  // A strategy's line style: colour and point type (8 colours that stay apart in print and
  // for the colour-blind, then the point types tell the rest apart).
  std::string style_of(const std::string& strategy) const {
    static const char* const kColours[] = {"#0072b2", "#d55e00", "#009e73", "#cc79a7",
                                           "#e69f00", "#56b4e9", "#8c564b", "#7f7f7f"};
    const auto i = static_cast<std::size_t>(std::find(strategies.begin(), strategies.end(), strategy) - strategies.begin());
    return "linecolor rgb '" + std::string(kColours[i % 8]) + "' pointtype " + std::to_string(i + 1);
  }
  static std::string peer_style(std::size_t i) {
    return std::string("linecolor rgb '") + (i % 2 == 0 ? "#000000" : "#606060") + "' dashtype 2 pointtype " +
           std::to_string(12 + i);
  }
};

// The figure's work axis (--work): field evaluations, exact; or the wall time of each run,
// which shows what a strategy costs beyond its evaluations (the certified strategy's proofs).
enum class WorkAxis { kEvaluations, kTime };

WorkAxis parse_work_axis(const std::string& text) {
  if (text == "evaluations") return WorkAxis::kEvaluations;
  if (text == "time") return WorkAxis::kTime;
  throw InvalidArgument("--work: '" + text + "' is not one of evaluations, time");
}

int work_column(WorkAxis axis) { return axis == WorkAxis::kTime ? kWallColumn : kRhsColumn; }

// One series of the CSV: its points with no missed event, at (error, work).
std::string series_columns(const std::string& solver, const std::string& strategy, WorkAxis axis) {
  return "csv using (strcol(1) eq " + gnuplot_string(solver) + " && strcol(2) eq " + gnuplot_string(strategy) +
         " ? drawn(0) : NaN):" + std::to_string(work_column(axis)) + " with linespoints";
}

void write_panels(std::ostream& out, const FigureLayout& layout, WorkAxis axis) {
  const std::vector<std::string> panels = layout.solvers.empty() ? std::vector<std::string>{""} : layout.solvers;
  for (const std::string& solver : panels) {
    out << "set title " << gnuplot_string(solver.empty() ? "CVODE" : solver) << "\nplot \\\n";
    std::vector<std::string> lines;
    for (const std::string& strategy : layout.strategies) {
      lines.push_back(series_columns(solver, strategy, axis) + " " + layout.style_of(strategy) + " notitle");
    }
    for (std::size_t i = 0; i < layout.peers.size(); ++i) {
      lines.push_back(series_columns(layout.peers[i].first, layout.peers[i].second, axis) + " " +
                      FigureLayout::peer_style(i) + " notitle");
    }
    for (std::size_t i = 0; i < lines.size(); ++i) out << "  " << lines[i] << (i + 1 < lines.size() ? ", \\\n" : "\n");
  }
  // The legend: the strategies' styles and the peers', in a panel of its own.
  out << "unset title\nunset border\nunset tics\nunset grid\nunset xlabel\nunset ylabel\nunset logscale\n"
      << "set xrange [0:1]\nset yrange [0:1]\n"
      << "set key center center vertical maxrows 12 title 'runs that missed an event are not drawn'\nplot \\\n";
  std::vector<std::string> entries;
  for (const std::string& strategy : layout.strategies) {
    entries.push_back("NaN with linespoints " + layout.style_of(strategy) + " title " + gnuplot_string(strategy));
  }
  for (std::size_t i = 0; i < layout.peers.size(); ++i) {
    entries.push_back("NaN with linespoints " + FigureLayout::peer_style(i) + " title " +
                      gnuplot_string(layout.peers[i].first + " " + layout.peers[i].second));
  }
  for (std::size_t i = 0; i < entries.size(); ++i) out << "  " << entries[i] << (i + 1 < entries.size() ? ", \\\n" : "\n");
  out << "unset multiplot\n";
}

void write_gnuplot_script(const std::filesystem::path& gp, const std::string& csv, const std::string& png,
                          const std::string& title,
                          const std::vector<std::pair<std::string, std::string>>& series, WorkAxis axis) {
  const bool time = axis == WorkAxis::kTime;
  std::ofstream out(gp);
  if (!out) throw InvalidArgument("cannot write '" + printable(gp.string()) + "'");
  const FigureLayout layout(series);
  const std::size_t panels = std::max<std::size_t>(layout.solvers.size(), 1) + 1;  // and the legend's
  const auto columns = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(panels))));
  const std::size_t rows = (panels + columns - 1) / columns;
  // The files go by their names in the script's folder, where gnuplot runs: no path, whatever
  // characters it holds, becomes part of the script but the title's single-quoted text.
  out << "# Work-precision diagram written by `hysim workprecision`; redraw with: gnuplot "
      << gp.filename().string() << ", in this folder\n"
      << "# x: max |t - t*| over the matched events, y: " << (time ? "wall time [s]" : "RHS evaluations")
      << ", one point per rtol;\n"
      << "# one panel per solver, on common axes.\n"
      << "csv = " << gnuplot_string(csv) << "\n"
      << "figure_title = " << gnuplot_string(title) << "\n"
      << "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
      << "  set terminal pngcairo noenhanced size 1400,1000 font ',9'\n"
      << "} else {\n"
      << "  set terminal png noenhanced size 1400,1000\n"
      << "}\n"
      << "set output " << gnuplot_string(png) << "\n"
      << "set datafile separator ','\n"
      << "floor = 1e-20  # a run whose matched events are all exact (error 0) is drawn here\n"
      << "error(c) = column(c) > floor ? column(c) : floor\n"
      << "drawn(unused) = column(" << kMissedColumn << ") == 0 ? error(" << kErrorColumn << ") : NaN\n"
      << "stats csv using (drawn(0)):" << work_column(axis) << " nooutput\n"
      << "set xrange [STATS_min_x / 3 : STATS_max_x * 3]\n"
      << "set yrange [STATS_min_y / 1.3 : STATS_max_y * 1.3]\n"
      << "set logscale x 10\n"
      << (time ? "set logscale y 10\n"
               : "set logscale y 2  # ticks at powers of 2: a factor 2 in work is what tells methods apart\n")
      << "set format x '%.0e'\n"
      << (time ? "set format y '%.0e'\n" : "set format y '%g'\n")
      << "set grid\n"
      << "unset key\n"
      << "set xlabel 'max |t - t*| [s]'\n"
      << "set ylabel " << (time ? "'wall time of the run [s]'" : "'RHS evaluations'") << "\n"
      << "set multiplot layout " << rows << "," << columns << " title figure_title\n";
  write_panels(out, layout, axis);
}

int workprecision(const WorkPrecisionRequest& request, const std::string& work) {
  const WorkAxis axis = parse_work_axis(work);  // before anything runs
  const WorkPrecision study = work_precision(request);
  const SimulationOptions& base = study.base;
  const Reference* reference = &study.reference;
  const std::vector<Evaluation>& runs = study.runs;

  Table shown, exact;
  shown.header = exact.header = kHeader;
  std::map<std::string, std::string> skipped;  // "solver strategy" -> why
  std::vector<std::pair<std::string, std::string>> series;
  bool any_point = false;
  const std::vector<Proportionality> measures = proportionality(study);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const Evaluation& run = runs[i];
    const std::pair<std::string, std::string> key = {run.solver_label(), run.options.strategy};
    if (run.outcome == Outcome::kSkipped) {
      skipped[key.first + " " + key.second] = run.note;
      continue;
    }
    if (series.empty() || series.back() != key) series.push_back(key);
    any_point = any_point || (run.match->matched > 0 && run.match->missed == 0);  // one the figure draws
    shown.rows.push_back(cells_of(run, measures[i], *reference, Precision::kShort));
    exact.rows.push_back(cells_of(run, measures[i], *reference, Precision::kExact));
  }

  const std::filesystem::path out_dir = std::filesystem::absolute(request.out_dir);
  // A figure of an earlier run goes first: this run draws its own, or none.
  prepare_out_folder(out_dir, {"workprecision.csv", "workprecision.gp", "workprecision.png"},
                     {"workprecision.csv", "workprecision.gp"});
  const auto csv = out_dir / "workprecision.csv", gp = out_dir / "workprecision.gp", png = out_dir / "workprecision.png";
  exact.write_csv(csv);
  std::ostringstream title;
  title << request.choice.model << " to t_end = " << base.t_end << ", " << request.choice.scalar
        << ": rtol from " << request.rtol_from << " to " << request.rtol_to << ", atol = " << request.atol_factor
        << " rtol";
  write_gnuplot_script(gp, csv.filename().string(), png.filename().string(), title.str(), series, axis);

  std::cout << printable(title.str()) << "; errors against the reference (" << reference->method << ")\n\n";
  shown.print(std::cout);
  print_proportionality(std::cout, study, measures);
  for (const auto& [combination, why] : skipped) std::cout << "not run: " << combination << " (" << why << ")\n";
  std::cout << "\nwrote " << printable(csv.string()) << ", " << printable(gp.string()) << "\n";
  if (!any_point) {
    std::cout << "note: no run matched every reference event; " << png.filename().string() << " not drawn\n";
  } else if (!program_on_path("gnuplot")) {
    std::cout << "note: gnuplot is not installed (scripts/setup.sh installs gnuplot-nox); draw the figure later "
                 "with: gnuplot "
              << gp.filename().string() << ", in " << printable(out_dir.string()) << "\n";
  } else {
    run_gnuplot(out_dir, gp.filename().string());
    std::cout << "wrote " << printable(png.string()) << "\n";
  }
  return 0;
}

}  // namespace

Command add_workprecision_command(CLI::App& app, int* verbosity) {
  auto request = std::make_shared<WorkPrecisionRequest>();
  CLI::App* cmd =
      app.add_subcommand("workprecision", "event-time error against work over a sweep of tolerances (CSV, PNG)");
  add_model_options(cmd, &request->choice);
  add_start_options(cmd, &request->choice.start);
  add_reference_option(cmd, &request->choice);
  add_simulation_options(cmd, &request->options, {OptionGroup::kEnd, OptionGroup::kTuning});
  add_strategies_option(cmd, &request->strategies,
                        "every strategy, with CVODE BDF (cvode) for a stiff model, CVODE Adams (cvode-adams) otherwise");
  add_solvers_option(cmd, &request->solvers, "every adaptive solver");
  cmd->add_option("--rtol-from", request->rtol_from, "first rtol of the sweep")->default_val(request->rtol_from);
  cmd->add_option("--rtol-to", request->rtol_to, "last rtol of the sweep")->default_val(request->rtol_to);
  cmd->add_option("--per-decade", request->per_decade, "tolerances per decade")->default_val(request->per_decade);
  cmd->add_option("--atol-factor", request->atol_factor, "atol = atol-factor * rtol")
      ->default_val(request->atol_factor);
  cmd->add_option("--out", request->out_dir, "write workprecision.csv, .gp and .png here")->required();
  cmd->add_option("--jobs", request->jobs, "threads (0: every core); the numbers do not depend on it, the wall times do")
      ->default_val(0)
      ->check(CLI::NonNegativeNumber);
  auto work = std::make_shared<std::string>("evaluations");
  cmd->add_option("--work", *work,
                  "the figure's work axis: evaluations (field evaluations, exact) or time (each run's wall time; "
                  "use --jobs 1 for times that do not share the cores)")
      ->default_val("evaluations");
  add_verbosity_flag(cmd, verbosity);
  return {cmd, [request, work] { return workprecision(*request, *work); }};
}

}  // namespace hysim::app
