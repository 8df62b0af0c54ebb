// The PWM servo drive (004) over a long horizon against its exact event sequence, per
// event-detection strategy and solver, and against three peers in their best configuration,
// each restarted after every event as its users would: CVODE with Adams-Moulton and
// fixed-point iteration (non-stiff), CVODE with BDF and Newton (stiff), and a plain
// Boost.Odeint dopri5 loop that bisects on its dense output (bench/naive_odeint.hpp). Same
// tolerances for all.
//
// Per run: events found (matched in order to the reference within 1e-6 s), missed, spurious,
// max |t - t*| over [0, accuracy_end] and over the whole run, events whose pre-event state
// satisfies the mode left (one-sided), field and guard (atom) evaluations per event, events per
// second. Counts are exact; seconds are noisy on a shared machine: the whole table runs `repeat`
// times, row after row (so that a slow spell of the machine falls on every row alike), each
// row keeps its fastest, and the performance targets are read as ratios between rows of this
// one run, printed at the end with PASS or FAIL. The field evaluations per event of the targets are
// the marginal cost of an event, (n(T) - n(T/2)) / (events(T) - events(T/2)) from a second run to
// T/2: a run of N events takes at least N + 1 steps (the last one to t_end) and a first-step
// estimate, so its total per event can only exceed the per-event floor; both are printed.
//
//   build/bench/pwm_servo_bench [--preset tracking] [--t-end 1000] [--accuracy-end 20]
//                               [--solvers dopri5,bs3] [--strategies all] [--repeat 5]
//                               [--rtol 1e-6] [--atol 1e-9]
// The preset "default" is the constant setpoint of 004 (u = 1), whose state converges to the
// rounding level after about 9 s: its later events are noise, so it is not scored past
// accuracy_end.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "hysim/core/errors.hpp"
#include "hysim/models/catalog.hpp"
#if HYSIM_HAVE_CVODE
#include "hysim/peers/cvode.hpp"
#endif
#include "hysim/peers/peers.hpp"
#include "hysim/simulator.hpp"
#include "hysim/solvers/stepper.hpp"
#include "naive_odeint.hpp"
#include "standalone.hpp"

namespace {

using namespace hysim;

// The rows of the standalone peers (bench/peers/standalone.hpp).
constexpr const char* kCvodeAdams = "Adams standalone";
constexpr const char* kCvodeBdf = "BDF standalone";
constexpr const char* kCvodeAdamsAsWritten = "Adams, 4 roots";  // one root function per comparison
constexpr const char* kCvodeBdfAsWritten = "BDF, 4 roots";
constexpr const char* kOdeintLoop = "dopri5 standalone";

constexpr double kMatchWindow = 1e-6;  // [s] an event this close to a reference event is that event

// The first row of each event of a run (a chain's later rows share its time).
struct RunEvent {
  double t = 0;
  bool one_sided = false;
};

class EventCollector final : public Observer<double> {
 public:
  void on_event(const EventRecord<double>& r) override {
    if (events.empty() || r.index != last_index_) events.push_back({r.t, r.one_sided});
    last_index_ = r.index;
  }
  std::vector<RunEvent> events;

 private:
  std::int64_t last_index_ = 0;
};

struct Row {
  std::string solver, strategy;
  RunStatistics stats;
  std::vector<RunEvent> events;
  double seconds = 0;
  std::string failure;
  // Scored against the reference.
  std::int64_t found = 0, missed = 0, spurious = 0, one_sided = 0;
  double max_dt_early = 0, max_dt_all = 0;

  // Per event of the whole run (stats.events), which the scored events may be a part of.
  double run_events() const { return std::max<double>(1, static_cast<double>(stats.events)); }
  double per_event(std::int64_t count) const { return static_cast<double>(count) / run_events(); }
  double events_per_second() const { return run_events() / seconds; }
  double seconds_per_event() const { return seconds / run_events(); }
};

// Matches the run's events to the reference's in time order (a merge with a window).
void score(Row& row, const std::vector<double>& reference, double accuracy_end) {
  std::size_t i = 0, j = 0;
  const auto& run = row.events;
  while (i < run.size() || j < reference.size()) {
    if (i < run.size() && j < reference.size() && std::abs(run[i].t - reference[j]) <= kMatchWindow) {
      const double dt = std::abs(run[i].t - reference[j]);
      row.max_dt_all = std::max(row.max_dt_all, dt);
      if (reference[j] <= accuracy_end) row.max_dt_early = std::max(row.max_dt_early, dt);
      ++row.found;
      ++i;
      ++j;
    } else if (j >= reference.size() || (i < run.size() && run[i].t < reference[j])) {
      ++row.spurious;
      ++i;
    } else {
      ++row.missed;
      ++j;
    }
  }
  for (const auto& e : run) row.one_sided += e.one_sided ? 1 : 0;
}

template <class Body>
void timed(Row& row, Body&& body) {
  try {
    const auto start = std::chrono::steady_clock::now();
    body();
    row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  } catch (const std::exception& e) {
    row.failure = e.what();
  }
}

Row run_engine(const Model<double>& model, const SimulationOptions& options) {
  Row row{options.solver, options.strategy, {}, {}, 0, "", 0, 0, 0, 0, 0, 0};
  EventCollector collector;
  collector.events.reserve(1 << 16);
  timed(row, [&] {
    Simulator<double> simulator(model, options);
    const RunResult<double> result = simulator.run(&collector);
    row.stats = result.stats;
    if (result.failed()) row.failure = result.message;
  });
  row.events = std::move(collector.events);
  return row;
}


// A standalone peer (bench/peers/standalone.hpp): the model's parameters passed as numbers.
template <class Program>
Row run_standalone(const char* solver, const char* label, Program&& program) {
  Row row{solver, label, {}, {}, 0, "", 0, 0, 0, 0, 0, 0};
  standalone::Run run;
  timed(row, [&] { run = program(); });
  if (!run.failure.empty()) row.failure = run.failure;
  row.stats.steps_accepted = run.steps;
  row.stats.rhs_evals = run.rhs_evals;
  row.stats.guard_evals = run.guard_evals;
  row.stats.events = static_cast<std::int64_t>(run.events.size());
  for (const auto& e : run.events) row.events.push_back({e.t, false});
  return row;
}

standalone::PwmServo standalone_parameters(const ParameterValues& values) {
  const auto get = [&](const char* name) { return values.get<double>(name); };
  return {get("k_w"), get("k"), get("kp"), get("u"), get("u_amp"), get("u_freq"), get("saw_max"), get("omega0"), get("phi0")};
}

Row run_naive(const Model<double>& model, const SimulationOptions& options) {
  Row row{"odeint", "dopri5 on Model", {}, {}, 0, "", 0, 0, 0, 0, 0, 0};
  bench::NaiveRun naive;
  timed(row, [&] {
    bench::NaiveOdeint loop(model);
    naive = loop.run(options.t_end.to<double>("t_end"), options.rtol.to<double>("rtol"),
                     options.atol.to<double>("atol"), options.event_tolerance.to<double>("event_tolerance"));
  });
  row.stats = naive.stats;
  for (const auto& e : naive.events) row.events.push_back({e.t, e.one_sided});
  return row;
}

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "pwm_servo_bench: %s\nusage: pwm_servo_bench [--preset NAME|default] [--t-end T] [--accuracy-end T] "
               "[--solvers a,b] [--strategies all|a,b] [--repeat N] [--rtol R] [--atol A]\n",
               why.c_str());
  std::exit(2);
}

double positive(const std::string& name, const char* text) { return bench::positive(name, text, usage); }

void print_row(const Row& r) {
  if (!r.failure.empty()) {
    std::printf("%-7s %-18s failed: %s\n", r.solver.c_str(), r.strategy.c_str(), r.failure.c_str());
    return;
  }
  std::printf("%-7s %-18s %7zu %6lld %6lld %6lld %10.2e %10.2e %7lld %7.2f %7.2f %7.2f %9.1f %9.0f %8.3f\n",
              r.solver.c_str(), r.strategy.c_str(), r.events.size(), static_cast<long long>(r.found),
              static_cast<long long>(r.missed), static_cast<long long>(r.spurious), r.max_dt_early, r.max_dt_all,
              static_cast<long long>(r.one_sided), r.per_event(r.stats.steps_accepted + r.stats.steps_rejected),
              r.per_event(r.stats.root_iterations), r.per_event(r.stats.rhs_evals), r.per_event(r.stats.guard_evals),
              r.events_per_second(), r.seconds);
}

// The command line: the model's preset, the rows (solvers and strategies), and the spans.
struct BenchOptions {
  std::string preset = "tracking", solver_list = "dopri5,bs3", strategy_list = "all";
  double t_end = 1000, accuracy_end = 20;
  int repeat = 5;  // rounds of the whole table; each row keeps its fastest
  std::string rtol, atol;  // every row's tolerances; empty: the library's defaults (1e-6, 1e-9)
};

BenchOptions parse_arguments(int argc, char** argv) {
  BenchOptions o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) usage("option " + arg + " needs a value");
    const char* value = argv[++i];
    if (arg == "--preset") o.preset = value;
    else if (arg == "--t-end") o.t_end = positive(arg, value);
    else if (arg == "--accuracy-end") o.accuracy_end = positive(arg, value);
    else if (arg == "--solvers") o.solver_list = value;
    else if (arg == "--strategies") o.strategy_list = value;
    else if (arg == "--repeat") o.repeat = static_cast<int>(positive(arg, value));
    else if (arg == "--rtol" || arg == "--atol") {
      positive(arg, value);  // checked here; kept as text (the solvers read it as a Decimal)
      (arg == "--rtol" ? o.rtol : o.atol) = value;
    }
    else usage("unknown option " + arg);
  }
  o.accuracy_end = std::min(o.accuracy_end, o.t_end);
  return o;
}

// The exact event times up to scored_end, and the table's header.
std::vector<double> reference_times(const ModelEntry& entry, const ParameterValues& values, const BenchOptions& o,
                                    double scored_end) {
  const auto reference_start = std::chrono::steady_clock::now();
  std::vector<double> reference;
  for (const auto& e : entry.reference(values, scored_end).events) reference.push_back(static_cast<double>(e.t));
  const double reference_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - reference_start).count();
  std::printf("pwm-servo --preset %s over [0, %g] s: %zu exact events (100-digit reference, %.1f s to compute); "
              "max|dt| early over [0, %g] s\n",
              o.preset.c_str(), scored_end, reference.size(), reference_seconds, o.accuracy_end);
  std::printf("%-7s %-18s %7s %6s %6s %6s %10s %10s %7s %7s %7s %7s %9s %9s %8s\n", "solver", "strategy", "events",
              "found", "missed", "spur.", "max|dt|early", "max|dt|all", "1-sided", "steps/ev", "roots/ev", "rhs/ev",
              "guards/ev", "events/s", "seconds");
  return reference;
}

// Every row, o.repeat times, each keeping its fastest time. Events within kMatchWindow of the
// scored end are not scored: whether an event exactly at t_end (a saw reset at t = 1000) is
// inside a run is a matter of its rounding.
std::vector<Row> measure_rows(const Model<double>& model, const ParameterValues& values, const SimulationOptions& options,
                              const BenchOptions& o,
                              std::vector<double>& reference, double scored_end) {
  std::vector<Row> rows, round;
  std::erase_if(reference, [&](double t) { return t > scored_end - kMatchWindow; });
  auto add = [&](Row row) {
    std::erase_if(row.events, [&](const RunEvent& e) { return e.t > scored_end - kMatchWindow; });
    score(row, reference, o.accuracy_end);
    round.push_back(std::move(row));
  };
  for (int r = 0; r < o.repeat; ++r) {
    round.clear();
    std::vector<std::string> strategies;
    for (const auto& info : strategy_catalog()) {
      if (!info.is_driver() && !info.opt_in) strategies.push_back(info.name);
    }
    if (o.strategy_list != "all") strategies = bench::split(o.strategy_list);
    for (const auto& solver : bench::split(o.solver_list)) {
      for (const auto& strategy : strategies) {
        SimulationOptions run = options;
        run.solver = solver;
        run.strategy = strategy;
        add(run_engine(model, run));
      }
    }
    const standalone::PwmServo p = standalone_parameters(values);
    const standalone::Tolerances tol{o.t_end, options.rtol.to<double>("rtol"), options.atol.to<double>("atol")};
#if HYSIM_HAVE_CVODE
    // hysim's CVODE engine (strategies cvode-adams and cvode), then the programs.
    for (const char* peer : {"cvode-adams", "cvode"}) {
      SimulationOptions run = options;
      run.strategy = peer;
      Row row = run_engine(model, run);
      row.solver = "hysim";
      add(std::move(row));
    }
    add(run_standalone("cvode", kCvodeAdams, [&] { return standalone::pwm_servo_cvode(p, tol, standalone::Method::kAdams); }));
    add(run_standalone("cvode", kCvodeBdf, [&] { return standalone::pwm_servo_cvode(p, tol, standalone::Method::kBdf); }));
    add(run_standalone("cvode", kCvodeAdamsAsWritten,
                       [&] { return standalone::pwm_servo_cvode_as_written(p, tol, standalone::Method::kAdams); }));
    add(run_standalone("cvode", kCvodeBdfAsWritten,
                       [&] { return standalone::pwm_servo_cvode_as_written(p, tol, standalone::Method::kBdf); }));
#endif
    add(run_standalone("odeint", kOdeintLoop, [&] { return standalone::pwm_servo_odeint(p, tol); }));
    add(run_naive(model, options));
    if (r == 0) {
      rows = std::move(round);
    } else {
      for (std::size_t i = 0; i < rows.size(); ++i) rows[i].seconds = std::min(rows[i].seconds, round[i].seconds);
    }
  }
  return rows;
}

// The performance targets, as ratios between rows of this run.
class Targets {
 public:
  Targets(const std::vector<Row>& rows, const Model<double>& model, const SimulationOptions& options,
          const BenchOptions& o, std::size_t reference_events)
      : rows_(rows), model_(model), options_(options), o_(o), reference_events_(reference_events) {}

  // Checks every solver's row of the default strategy; returns the targets not met.
  int check_all() {
    std::printf("\nperformance targets, default strategy %s:\n", options_.strategy.c_str());
    for (const auto& solver : bench::split(o_.solver_list)) {
      if (const Row* r = find(solver, options_.strategy)) check_solver(solver, *r);
    }
    check_cvode_engine("cvode-adams", kCvodeAdams, kCvodeAdamsAsWritten);
    check_cvode_engine("cvode", kCvodeBdf, kCvodeBdfAsWritten);
    return failed_;
  }

 private:
  const Row* find(const std::string& solver, const std::string& strategy) const {
    for (const auto& r : rows_) {
      if (r.solver == solver && r.strategy == strategy && r.failure.empty()) return &r;
    }
    return nullptr;
  }

  // hysim's CVODE engine against the standalone program with the same method: the same
  // events, and at most 1.15 times its seconds. Printed beside it: the program with the
  // engine's four root functions against the program, the part of the ratio that is CVODE's
  // own rootfinding over the comparisons as the model writes them.
  void check_cvode_engine(const char* strategy, const char* program, const char* as_written) {
    const Row* engine = find("hysim", strategy);
    const Row* peer = find("cvode", program);
    if (engine == nullptr || peer == nullptr) return;
    if (const Row* four = find("cvode", as_written)) {
      std::printf("  ----  CVODE %s: seconds x%.2f the program's (the engine x%.2f the four-root program's)\n",
                  as_written, four->seconds / peer->seconds, engine->seconds / four->seconds);
    }
    std::snprintf(line_, sizeof line_, "--strategy %s: %lld events, the standalone program %lld; seconds x%.2f the program's (<= 1.15)",
                  strategy, static_cast<long long>(engine->found), static_cast<long long>(peer->found),
                  engine->seconds / peer->seconds);
    check(engine->found == peer->found && engine->seconds <= 1.15 * peer->seconds, line_);
  }

  void check(bool ok, const std::string& what) {
    std::printf("  %s  %s\n", ok ? "PASS" : "FAIL", what.c_str());
    failed_ += ok ? 0 : 1;
  }

  void check_solver(const std::string& solver, const Row& r) {
    std::snprintf(line_, sizeof line_, "%s: %lld of %zu reference events found, %lld missed, %lld spurious", solver.c_str(),
                  static_cast<long long>(r.found), reference_events_, static_cast<long long>(r.missed),
                  static_cast<long long>(r.spurious));
    check(r.missed == 0 && r.spurious == 0, line_);
    std::snprintf(line_, sizeof line_, "%s: max |t - t*| over [0, %g] s = %.2e s (<= 1e-14)", solver.c_str(), o_.accuracy_end,
                  r.max_dt_early);
    check(r.max_dt_early <= 1e-14, line_);
    std::snprintf(line_, sizeof line_, "%s: one-sided %lld of %lld", solver.c_str(),
                  static_cast<long long>(r.stats.one_sided_events), static_cast<long long>(r.stats.events));
    check(r.stats.one_sided_events == r.stats.events, line_);
    check_work(solver, r);
    check_peers(solver, r);
  }

  // Field evaluations per event of the second half of the run, and guard evaluations per event.
  void check_work(const std::string& solver, const Row& r) {
    const double rhs_limit = solver == "bs3" ? 4 : 7;
    SimulationOptions half = options_;
    half.solver = solver;
    half.t_end = o_.t_end / 2;
    const RunStatistics h = run_engine(model_, half).stats;
    const double marginal = static_cast<double>(r.stats.rhs_evals - h.rhs_evals) /
                            static_cast<double>(std::max<std::int64_t>(1, r.stats.events - h.events));
    std::snprintf(line_, sizeof line_, "%s: %.3f field evaluations per event over (%g, %g] s (<= %g); %.4f per event of the whole run",
                  solver.c_str(), marginal, o_.t_end / 2, o_.t_end, rhs_limit, r.per_event(r.stats.rhs_evals));
    check(marginal <= rhs_limit, line_);
    std::snprintf(line_, sizeof line_, "%s: %.1f guard evaluations per event (<= 20)", solver.c_str(),
                  r.per_event(r.stats.guard_evals));
    check(r.per_event(r.stats.guard_evals) <= 20, line_);
  }

  // Speed against the standalone programs (bench/peers) and the step strategy.
  void check_peers(const std::string& solver, const Row& r) {
    if (const Row* adams = find("cvode", kCvodeAdams)) {
      std::snprintf(line_, sizeof line_, "%s: events/s x%.2f the standalone CVODE Adams program (>= 4)", solver.c_str(),
                    r.events_per_second() / adams->events_per_second());
      check(r.events_per_second() >= 4 * adams->events_per_second(), line_);
    }
    if (const Row* bdf = find("cvode", kCvodeBdf)) {
      std::snprintf(line_, sizeof line_, "%s: events/s x%.2f the standalone CVODE BDF program", solver.c_str(),
                    r.events_per_second() / bdf->events_per_second());
      std::printf("  ----  %s\n", line_);
    }
    if (const Row* loop = find("odeint", kOdeintLoop)) {
      std::snprintf(line_, sizeof line_, "%s: events/s x%.2f the standalone odeint loop (>= 2)", solver.c_str(),
                    r.events_per_second() / loop->events_per_second());
      check(r.events_per_second() >= 2 * loop->events_per_second(), line_);
    }
    // The target is the default configuration's (default strategy, default solver); with
    // another solver the ratio is printed for comparison.
    if (const Row* step = find(solver, "step")) {
      const double ratio = r.seconds_per_event() / step->seconds_per_event();
      if (solver == options_.solver) {
        std::snprintf(line_, sizeof line_, "%s: seconds per event x%.2f the step strategy's (<= 2)", solver.c_str(), ratio);
        check(ratio <= 2, line_);
      } else {
        std::printf("  ----  %s: seconds per event x%.2f the step strategy's\n", solver.c_str(), ratio);
      }
    }
  }

  const std::vector<Row>& rows_;
  const Model<double>& model_;
  const SimulationOptions& options_;
  const BenchOptions& o_;
  std::size_t reference_events_;
  int failed_ = 0;
  char line_[512] = {};
};

}  // namespace

int main(int argc, char** argv) {
  register_peers();
  const BenchOptions o = parse_arguments(argc, argv);
  const ModelEntry& entry = find_model("pwm-servo");
  ParameterValues values = entry.default_values();
  try {
    if (o.preset != "default") values.apply_preset(entry.presets, o.preset);
  } catch (const Error& e) {
    usage(e.what());
  }
  const Model<double> model = entry.make<double>(values);
  SimulationOptions options;
  options.t_end = o.t_end;
  try {
    if (!o.rtol.empty()) options.rtol = Decimal(o.rtol, "option rtol");
    if (!o.atol.empty()) options.atol = Decimal(o.atol, "option atol");
  } catch (const Error& e) {
    usage(e.what());
  }
  // The constant setpoint converges: past accuracy_end its event sequence is rounding noise.
  const double scored_end = o.preset == "default" ? o.accuracy_end : o.t_end;
  std::vector<double> reference = reference_times(entry, values, o, scored_end);
  const std::vector<Row> rows = measure_rows(model, values, options, o, reference, scored_end);
  for (const auto& row : rows) print_row(row);
  const int failed = Targets(rows, model, options, o, reference.size()).check_all();
  std::printf("%d target(s) not met\n", failed);
  return 0;
}
