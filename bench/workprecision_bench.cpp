// Work-precision against CVODE at its best (a performance target): for each model, every
// hysim configuration (every adaptive solver with the default strategy) and every CVODE
// configuration its users try are run over a sweep of tolerances, and for each accuracy a in
// 1e-4, 1e-5, ..., 1e-10 the work each side needs to reach a is compared.
//
//   models       drag-ball (non-stiff, t_end = 6.9 s, 14 impacts) and stiff-relay (stiff ratio
//                10^4, t_end = 10 s, 25 switches)
//   CVODE        Adams-Moulton with fixed-point iteration (cvode-adams, orders up to 12),
//                Adams-Moulton with Newton iteration and the dense direct solver
//                (cvode-adams-newton), BDF with Newton and the dense solver (cvode-bdf, orders
//                up to 5); CVODE's side is the best of the three at each accuracy
//
// CVODE is the standalone program of bench/peers/standalone.hpp, written as SUNDIALS's users
// write it (no hysim header: plain C callbacks, CVode towards the end, CVodeReInit after each
// event), with its defaults otherwise (maximum order, its own initial step) and the same rtol
// and atol as hysim. A run:
//   rtol from --rtol-from to --rtol-to, --per-decade points per decade, atol = 1e-3 rtol;
//   error   max |t - t*| over the events matched to the model's 100-digit reference
//           (hysim/study/matching.hpp, the rule of `hysim compare`); a run with a missed or a spurious
//           event, or that failed, does not count;
//   work    field evaluations, all of them: the stages and Newton iterations, hysim's
//           finite-difference Jacobians (rosenbrock4 with df/dt, ndf), CVODE's
//           difference-quotient Jacobians (its nfeLS) and
//           every call of the transition chain (both sides count at the field's callback);
//   time    wall time of the whole run, the least of --repeats runs (noise on a shared
//           machine only adds time).
// The work needed for accuracy a is the least work over the runs of a side that reach a and
// stay there: a run counts at a when it and every run of its configuration at a tighter rtol
// are valid with error <= a (the monotone envelope: a lucky tolerance whose error a tighter
// one does not keep is dropped, and listed below the table). Each side takes every one of its
// configurations. Evaluations and time are enveloped separately (the fastest run need not be
// the one with the fewest evaluations). PASS when hysim needs fewer evaluations and less time
// than CVODE at a, TIE when its evaluations are within 5 % of CVODE's (either way) and its time
// is less; a side that reaches no run with error <= a needs "-" (infinite work).
//
//   build/bench/workprecision_bench [--models drag-ball,stiff-relay] [--per-decade 4]
//                                   [--rtol-from 1e-3] [--rtol-to 1e-13] [--repeats 3] [--runs]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "hysim/study/matching.hpp"
#include "arguments.hpp"
#include "hysim/core/errors.hpp"
#include "hysim/core/verbosity.hpp"
#include "hysim/models/catalog.hpp"
#include "hysim/peers/peers.hpp"
#include "hysim/simulator.hpp"
#include "hysim/solvers/stepper.hpp"
#include "standalone.hpp"

namespace {

using namespace hysim;

constexpr double kAtolFactor = 1e-3;  // atol = kAtolFactor rtol, as `hysim workprecision` by default
constexpr double kAccuracies[] = {1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10};
constexpr const char* kDefaultStrategy = "gamma-refine";
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();  // "no run reached the accuracy"

struct Case {
  std::string model;
  double t_end;
};

// CVODE's configurations, as the standalone programs run them.
struct CvodeConfig {
  const char* name;
  standalone::Method method;
};
constexpr CvodeConfig kCvodeConfigs[] = {{"cvode-adams", standalone::Method::kAdams},
                                         {"cvode-adams-newton", standalone::Method::kAdamsNewton},
                                         {"cvode-bdf", standalone::Method::kBdf}};
constexpr double kTie = 0.05;  // evaluations within 5 % either way: a tie

// The first row of each event (a chain's later rows share its time).
class EventCollector final : public Observer<double> {
 public:
  void on_event(const EventRecord<double>& r) override {
    if (!events.empty() && r.index == last_index_) return;
    last_index_ = r.index;
    study::RunEvent e;
    e.t = static_cast<float128>(r.t);
    e.guard = std::string(r.guard);
    for (const double v : r.x_pre) e.x.push_back(static_cast<float128>(v));
    events.push_back(std::move(e));
  }
  std::vector<study::RunEvent> events;

 private:
  std::int64_t last_index_ = 0;
};

struct Run {
  std::string config;  // "dopri5" or "cvode-adams"
  bool peer = false;
  double rtol = 0;
  bool valid = false;   // no miss, no spurious event, not failed, at least one match
  bool failed = false;  // no answer at all (an error, CVODE's too much work): neutral in the envelope
  double error = std::numeric_limits<double>::infinity();
  long long evals = 0;
  double seconds = std::numeric_limits<double>::infinity();
  std::string note;
};

// Scores a run's events against the reference: error, validity and the note.
void score(Run& run, const std::vector<study::RunEvent>& events, const Reference& reference, double t_end) {
  const study::MatchResult match = study::match_events(events, reference.events, static_cast<float128>(t_end), float128(0));
  const std::optional<double> error = study::max_time_error(match, events, reference.events);
  run.valid = match.missed == 0 && match.spurious == 0 && match.matched > 0 && error.has_value();
  if (error) run.error = *error;
  if (!run.valid) run.note = std::to_string(match.missed) + " missed, " + std::to_string(match.spurious) + " spurious";
}

// hysim with `solver` and `strategy`.
Run run_once(const Model<double>& model, const Reference& reference, const Case& c, const std::string& solver,
             const std::string& strategy, double rtol, int repeats) {
  Run run;
  run.config = solver;
  run.rtol = rtol;
  SimulationOptions options;
  options.t_end = c.t_end;
  options.rtol = rtol;
  options.atol = rtol * kAtolFactor;
  options.solver = solver;
  options.strategy = strategy;
  for (int r = 0; r < repeats; ++r) {
    EventCollector collector;
    RunResult<double> result;
    const auto start = std::chrono::steady_clock::now();
    try {
      Simulator<double> simulator(model, options);
      result = simulator.run(&collector);
    } catch (const std::exception& e) {
      run.note = e.what();
      run.failed = true;
      return run;
    }
    run.seconds = std::min(run.seconds, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (r > 0) continue;  // the counts and events are the same every time
    if (result.failed()) {
      run.note = result.message;
      run.failed = true;
      return run;
    }
    run.evals = result.stats.rhs_evals;
    score(run, collector.events, reference, c.t_end);
  }
  return run;
}

// The standalone CVODE program of the case's model (bench/peers/standalone.hpp), written as
// SUNDIALS's users write it, with the model's default parameters.
standalone::Run run_program(const Case& c, const ParameterValues& values, const standalone::Tolerances& tol,
                            standalone::Method method) {
  const auto get = [&](const char* name) { return values.get<double>(name); };
  if (c.model == "drag-ball") return standalone::drag_ball_cvode({get("g"), get("c"), get("e"), get("y0"), get("v0")}, tol, method);
  return standalone::stiff_relay_cvode({get("tau"), get("eps"), get("u_high"), get("u_low"), get("y_high"), get("y_low"),
                                        get("y0"), get("s0")},
                                       tol, method);
}

Run run_peer(const Reference& reference, const Case& c, const CvodeConfig& config, const ParameterValues& values,
             std::size_t states, double rtol, int repeats) {
  Run run;
  run.peer = true;
  run.config = config.name;
  run.rtol = rtol;
  const standalone::Tolerances tol{c.t_end, rtol, rtol * kAtolFactor};
  const auto& guards = c.model == "drag-ball" ? std::vector<std::string>(std::begin(standalone::kDragBallGuards),
                                                                          std::end(standalone::kDragBallGuards))
                                              : std::vector<std::string>(std::begin(standalone::kStiffRelayGuards),
                                                                         std::end(standalone::kStiffRelayGuards));
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    const standalone::Run program = run_program(c, values, tol, config.method);
    run.seconds = std::min(run.seconds, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (r > 0) continue;
    if (!program.failure.empty()) {
      run.note = program.failure;
      run.failed = true;
      return run;
    }
    run.evals = program.rhs_evals;
    std::vector<study::RunEvent> events;
    for (const auto& e : program.events) {
      study::RunEvent event;
      event.t = static_cast<float128>(e.t);
      event.guard = guards[static_cast<std::size_t>(e.guard)];
      for (std::size_t j = 0; j < states; ++j) event.x.push_back(static_cast<float128>(e.x[j]));
      events.push_back(std::move(event));
    }
    score(run, events, reference, c.t_end);
  }
  return run;
}

// Whether run r counts at accuracy a: it and every run of its configuration at a tighter rtol
// are valid with error <= a. A tighter run that gave no answer at all (failed) is neutral: a
// refusal is not a wrong answer.
bool keeps(const std::vector<Run>& runs, const Run& r, double a) {
  if (!r.valid || !(r.error <= a)) return false;
  for (const Run& tighter : runs) {
    if (tighter.peer != r.peer || tighter.config != r.config || !(tighter.rtol < r.rtol) || tighter.failed) continue;
    if (!tighter.valid || !(tighter.error <= a)) return false;
  }
  return true;
}

// The least work (evaluations, or seconds) over the runs of one side that keep accuracy a.
struct Need {
  const Run* by_evals = nullptr;
  const Run* by_time = nullptr;
};

Need need(const std::vector<Run>& runs, bool peer, double a) {
  Need n;
  for (const Run& r : runs) {
    if (r.peer != peer || !keeps(runs, r, a)) continue;
    if (!n.by_evals || r.evals < n.by_evals->evals) n.by_evals = &r;
    if (!n.by_time || r.seconds < n.by_time->seconds) n.by_time = &r;
  }
  return n;
}

// The runs dropped from the envelope: invalid ones (missed, spurious, failed), and those
// whose accuracy a (the first of kAccuracies they reach) a tighter rtol of theirs does not keep.
void print_dropped(const std::vector<Run>& runs) {
  std::printf("dropped:");
  int count = 0;
  for (const Run& r : runs) {
    std::string why;
    if (!r.valid) {
      why = r.note;
    } else {
      for (const double a : kAccuracies) {
        if (r.error <= a && !keeps(runs, r, a)) {
          char text[96];
          std::snprintf(text, sizeof text, "%.3g, not kept at %.0e by a tighter rtol", r.error, a);
          why = text;
          break;
        }
      }
    }
    if (why.empty()) continue;
    std::printf("%s %s@%.2g (%s)", count++ % 3 == 0 ? "\n " : ";", r.config.c_str(), r.rtol, why.c_str());
  }
  std::printf("%s\n", count == 0 ? " none" : "");
}

std::string label(const Run* r) {
  if (!r) return "-";
  char text[64];
  std::snprintf(text, sizeof text, "%s@%.2g", r->config.c_str(), r->rtol);
  return text;
}

// Prints the table of one case; returns the number of accuracies that failed.
int report(const Case& c, const std::vector<Run>& runs, bool print_runs) {
  if (print_runs) {
    std::printf("\n%-12s %-10s %10s %8s %10s  %s\n", "config", "rtol", "max|dt|", "evals", "seconds", "note");
    for (const Run& r : runs) {
      std::printf("%-12s %-10.3g %10.3g %8lld %10.3g  %s\n", r.config.c_str(), r.rtol, r.error, r.evals, r.seconds,
                  r.valid ? "" : r.note.c_str());
    }
  }
  std::printf("\n%s to t_end = %g: hysim (every adaptive solver, %s) against CVODE (adams, adams-newton, bdf)\n",
              c.model.c_str(), c.t_end, kDefaultStrategy);
  std::printf("%-8s | %-20s %8s | %-20s %8s | %6s | %10s %10s | %6s | %s\n", "accuracy", "hysim best (evals)", "evals",
              "CVODE (evals)", "evals", "ratio", "hysim s", "CVODE s", "ratio", "verdict");
  int failures = 0;
  for (const double a : kAccuracies) {
    const Need ours = need(runs, false, a), theirs = need(runs, true, a);
    const bool evals_ok = ours.by_evals && (!theirs.by_evals || ours.by_evals->evals < theirs.by_evals->evals);
    const bool evals_tie = ours.by_evals && theirs.by_evals &&
                           std::abs(double(ours.by_evals->evals) / double(theirs.by_evals->evals) - 1) <= kTie;
    const bool time_ok = ours.by_time && (!theirs.by_time || ours.by_time->seconds < theirs.by_time->seconds);
    const bool pass = (evals_ok || evals_tie) && time_ok;
    failures += pass ? 0 : 1;
    const auto ratio = [](double mine, double peer) { return peer > 0 ? mine / peer : 0.0; };
    std::printf("%-8.0e | %-20s %8s | %-20s %8s | %6.2f | %10.3g %10.3g | %6.2f | %s%s%s\n", a,
                label(ours.by_evals).c_str(), ours.by_evals ? std::to_string(ours.by_evals->evals).c_str() : "-",
                label(theirs.by_evals).c_str(), theirs.by_evals ? std::to_string(theirs.by_evals->evals).c_str() : "-",
                ours.by_evals && theirs.by_evals ? ratio(double(ours.by_evals->evals), double(theirs.by_evals->evals)) : 0.0,
                ours.by_time ? ours.by_time->seconds : kNaN, theirs.by_time ? theirs.by_time->seconds : kNaN,
                ours.by_time && theirs.by_time ? ratio(ours.by_time->seconds, theirs.by_time->seconds) : 0.0,
                pass ? (evals_ok ? "PASS" : "TIE") : "FAIL", evals_ok || evals_tie ? "" : " (evaluations)",
                time_ok ? "" : " (time)");
  }
  print_dropped(runs);
  return failures;
}

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "workprecision_bench: %s\nusage: workprecision_bench [--models drag-ball,stiff-relay] [--per-decade N] "
               "[--rtol-from R] [--rtol-to R] [--repeats N] [--runs]\n",
               why.c_str());
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  register_peers();
  set_verbosity(-1);  // the explicit solvers' stiffness warning, once per run of the stiff relay, would bury the tables
  std::vector<std::string> models = {"drag-ball", "stiff-relay"};
  int per_decade = 4, repeats = 3;
  double rtol_from = 1e-3, rtol_to = 1e-13;
  bool print_runs = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--models") {
      models = bench::split(value());
    } else if (arg == "--per-decade") {
      per_decade = static_cast<int>(bench::positive(arg, value(), usage));
    } else if (arg == "--repeats") {
      repeats = static_cast<int>(bench::positive(arg, value(), usage));
    } else if (arg == "--rtol-from") {
      rtol_from = bench::positive(arg, value(), usage);
    } else if (arg == "--rtol-to") {
      rtol_to = bench::positive(arg, value(), usage);
    } else if (arg == "--runs") {
      print_runs = true;
    } else {
      usage("unknown argument " + arg);
    }
  }
  if (per_decade < 1 || repeats < 1) usage("--per-decade and --repeats must be >= 1");
  if (!(rtol_to < rtol_from)) usage("--rtol-to must be below --rtol-from");
  if (!have_cvode_peer()) usage("this build has no CVODE peer (SUNDIALS 6 not found)");

  std::vector<std::string> solvers;
  for (const auto& info : solver_catalog()) {
    if (info.adaptive) solvers.push_back(info.name);
  }
  std::vector<double> rtols;
  const long count = std::lround(std::log10(rtol_from / rtol_to) * per_decade);
  for (long i = 0; i <= count; ++i) rtols.push_back(rtol_from * std::pow(10.0, -static_cast<double>(i) / per_decade));

  int failures = 0;
  for (const std::string& name : models) {
    const ModelEntry& entry = find_model(name);
    if (!entry.reference) usage("model " + name + " has no reference");
    const Case c{name, name == "drag-ball" ? 6.9 : 10.0};
    const Model<double> model = entry.make<double>(entry.default_values());
    const Reference reference = entry.reference(entry.default_values(), c.t_end);
    std::vector<Run> runs;
    for (const std::string& solver : solvers) {
      for (const double rtol : rtols) runs.push_back(run_once(model, reference, c, solver, kDefaultStrategy, rtol, repeats));
    }
    for (const CvodeConfig& config : kCvodeConfigs) {
      for (const double rtol : rtols) {
        runs.push_back(run_peer(reference, c, config, entry.default_values(), model.state_size(), rtol, repeats));
      }
    }
    std::printf("\n== %s: %zu reference events; rtol %g to %g, %d per decade, atol = %g rtol; time: least of %d runs\n",
                name.c_str(), reference.events.size(), rtol_from, rtol_to, per_decade, kAtolFactor, repeats);
    failures += report(c, runs, print_runs);
  }
  std::printf("\nwork needed for accuracy a: the least field evaluations (and, separately, the least wall time) over "
              "the runs of a side that keep max |t - t*| <= a, with no missed or spurious event, at their rtol and every "
              "tighter one.\n%s\n",
              failures == 0 ? "all PASS" : (std::to_string(failures) + " FAIL").c_str());
  return failures == 0 ? 0 : 1;
}
