// How the cost of a step and of an event grows with the number of guard atoms (a performance
// target): N independent bouncing balls in one state vector, for N = 1, 10, 100, 1000, run
// with the engine's default options (dopri5 / gamma-refine; also bs3) and with the CVODE peer
// (Adams-Moulton / fixed-point and BDF / Newton), each restarted after every event.
//
// The family: state (h_0, v_0, ..., h_{N-1}, v_{N-1}); one mode "flight" with h_i' = v_i,
// v_i' = -g; N self-transitions "bounce_i" flight -> flight with guard h_i <= 0 && v_i < 0
// (exact rates v_i and -g) and reset v_i := -e v_i; so 2N atoms, two per ball. The second
// atom keeps a ball that sits on the floor (CVODE reports a root past the crossing, h_i < 0)
// from firing again after its reset. Heights h_i(0) pseudo-random in [1, 2) (fixed seed),
// v_i(0) = 0, spread the events in time. Evenly spread heights 1 + i/N are not used: they make
// exact coincidences (at N = 100, h_96 / h_0 = 1.96 = (7/5)^2: ball 0's 4th and ball 96's 3rd
// bounce fall at the same t) after a run of slowly shrinking gaps (consecutive balls' k-th
// bounces), which the engine's geometric Zeno test (events/zeno.hpp) took for an accumulation
// until it asked the events to repeat their origin (tests/zeno_test.cpp,
// IndependentBallsBouncingTogetherAreNotZeno). e = 1 (elastic): the run is never Zeno, and each
// ball's bounces have the closed form
// t_k = tau_i (2k - 1), tau_i = sqrt(2 h_i(0) / g), so the bounce count over [0, t_end] is
// exact and every located time has a reference. This family was chosen over "N thresholds on
// one state" because every atom is a real, recurring switching surface with its own events
// (a threshold family fires each atom once, or needs resets that couple them), the balls are
// independent, and the reference is closed-form.
//
// t_end is chosen per N for a fixed total number of bounces (--bounces, default 10,000): the
// event work is the same for every N, and what grows with N is the work per step and per
// event. Per run: bounces (transitions; a chain taking two balls at one time is one event of
// two transitions) against the closed form, events, steps (accepted + rejected), guard (atom)
// evaluations per step and per event, field evaluations per event, microseconds per step and
// per event, and max |t - t*| over all bounces. Then a least-squares fit t(N) = a + b N over
// the N run, per step and per event, and the ratio engine / CVODE of the time per event at each
// N. Counts are exact; times are from one run on a shared machine, read as ratios.
//
// CVODE BDF uses a dense direct linear solver with a difference-quotient Jacobian: each restart
// (one per event) forms a 2N x 2N Jacobian (2N field evaluations) and factors it (O(N^3)). A
// CVODE run that exceeds --budget seconds (default 30) is stopped there; its counters up to
// then are reported, marked "budget", and kept out of the count comparison.
//
//   build/bench/many_guards_bench [--bounces 10000] [--n 1,10,100,1000] [--solvers dopri5,bs3]
//                                 [--bounded dopri5] [--omega W] [--budget 30] [--cvode adams,bdf]
//
// --bounded: the same solvers again on the balls with their atoms' rate bounds
// (Atom::rate_bound; rows "bounded-SOLVER"): an atom is not evaluated while it cannot have
// changed sign since its last value (events/quiet_atoms.hpp). --omega W adds an oscillator of
// angular frequency W that no guard reads (its fast motion sets the steps: many steps per
// bounce).
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "arguments.hpp"
#include "many_balls.hpp"
#include "hysim/core/guard.hpp"
#include "hysim/core/model.hpp"
#if HYSIM_HAVE_CVODE
#include "hysim/peers/cvode.hpp"
#endif
#include "hysim/simulator.hpp"

namespace {

using namespace hysim;

using many_balls::kG;

// h_i(0) in [1, 2), pseudo-random from a fixed seed (std::mt19937_64's sequence is fixed by
// the standard): no two balls bounce at the same time, and the gaps between events follow no
// pattern. Evenly spread heights 1 + i/N do both, and make the engine declare Zeno (see the
// header).
std::vector<double> heights(int n) {
  std::mt19937_64 random(14);
  std::vector<double> h(static_cast<std::size_t>(n));
  for (auto& value : h) value = 1.0 + std::ldexp(static_cast<double>(random() >> 11), -53);
  return h;
}
long double tau(double h0) { return std::sqrt(2.0L * h0 / kG); }

Model<double> make_balls(const std::vector<double>& h0, bool bounded = false, double omega = 0) {
  return many_balls::model(h0, bounded ? 1.01 : 0.0, omega);
}

// The horizon that holds about `bounces` bounces in all: ball i bounces every 2 tau_i.
double horizon(const std::vector<double>& h0, double bounces) {
  long double rate = 0;
  for (const double h : h0) rate += 1 / (2 * tau(h));
  return static_cast<double>(bounces / rate);
}

// Bounces over [0, t_end] by the closed form: t_k = tau (2k - 1) <= t_end.
std::int64_t exact_bounces(const std::vector<double>& h0, double t_end) {
  std::int64_t count = 0;
  for (const double h : h0) count += static_cast<std::int64_t>(std::floor((t_end / tau(h) + 1) / 2));
  return count;
}

struct BudgetExceeded : std::runtime_error {
  BudgetExceeded() : std::runtime_error("budget exceeded") {}
};

// Compares each bounce with its closed form; stops a run past its time budget (CVODE).
class BounceCheck final : public Observer<double> {
 public:
  BounceCheck(const std::vector<double>& h0, double budget_seconds) : budget_(budget_seconds), count_(h0.size(), 0) {
    for (const double h : h0) tau_.push_back(tau(h));
  }
  void on_event(const EventRecord<double>& r) override {
    std::string_view name = r.guard;
    name.remove_prefix(std::string_view("bounce_").size());
    int i = 0;
    std::from_chars(name.data(), name.data() + name.size(), i);
    const std::int64_t k = ++count_[static_cast<std::size_t>(i)];
    const long double exact = tau_[static_cast<std::size_t>(i)] * static_cast<long double>(2 * k - 1);
    const double dt = static_cast<double>(std::abs(static_cast<long double>(r.t) - exact));
    if (dt > max_dt) {
      max_dt = dt;
      worst_ball = i;
      worst_k = k;
      worst_t = r.t;
    }
    last_t = r.t;
  }
  void on_step(double, double, StepLimit) override {
    if (budget_ > 0 && (++steps_ & 63) == 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() > budget_) {
      throw BudgetExceeded();
    }
  }
  double max_dt = 0, last_t = 0, worst_t = 0;
  int worst_ball = -1;
  std::int64_t worst_k = 0;

 private:
  std::vector<long double> tau_;
  double budget_;
  std::vector<std::int64_t> count_;
  std::int64_t steps_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

struct Row {
  int n = 0;
  std::string method;
  RunStatistics stats;
  double seconds = 0, max_dt = 0, t_reached = 0;
  std::int64_t exact = 0;  // closed-form bounces over [0, t_end]
  bool budget = false;     // stopped by the time budget
  int worst_ball = -1;
  std::int64_t worst_k = 0;
  double worst_t = 0;
  std::string failure;

  std::int64_t steps() const { return stats.steps_accepted + stats.steps_rejected; }
  std::int64_t bounces() const { return stats.transitions; }
  static double ratio(double a, std::int64_t b) { return a / static_cast<double>(std::max<std::int64_t>(1, b)); }
  double us_per_step() const { return 1e6 * ratio(seconds, steps()); }
  double us_per_event() const { return 1e6 * ratio(seconds, stats.events); }
  bool usable() const { return failure.empty() && stats.events > 0; }
};

template <class Body>
void timed(Row& row, Body&& body) {
  const auto start = std::chrono::steady_clock::now();
  try {
    body();
  } catch (const BudgetExceeded&) {
    row.budget = true;
  } catch (const std::exception& e) {
    row.failure = e.what();
  }
  row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void finish(Row& row, const RunResult<double>& result) {
  row.t_reached = result.t;
  if (result.failed()) row.failure = result.message;
  else if (result.reason != RunReason::kReachedEnd) row.failure = "ended early: " + result.report() + " t_zeno " + std::to_string(static_cast<double>(result.t_zeno));
}

Row run_engine(const Model<double>& model, const std::vector<double>& h0, const SimulationOptions& options) {
  const int n = static_cast<int>(h0.size());
  Row row;
  row.n = n;
  row.method = options.solver + "/" + options.strategy;
  BounceCheck check(h0, 0);
  timed(row, [&] {
    Simulator<double> simulator(model, options);
    const RunResult<double> result = simulator.run(&check);
    row.stats = result.stats;
    finish(row, result);
  });
  row.max_dt = check.max_dt;
  row.worst_ball = check.worst_ball;
  row.worst_k = check.worst_k;
  row.worst_t = check.worst_t;
  return row;
}

#if HYSIM_HAVE_CVODE
Row run_cvode_peer(const Model<double>& model, const std::vector<double>& h0, const SimulationOptions& options,
                   CvodeMethod method, double budget) {
  const int n = static_cast<int>(h0.size());
  Row row;
  row.n = n;
  row.method = method == CvodeMethod::kAdams ? "cvode-adams" : "cvode-bdf";
  BounceCheck check(h0, budget);
  timed(row, [&] { finish(row, run_cvode(model, options, &check, &row.stats, method)); });
  row.max_dt = check.max_dt;
  row.worst_ball = check.worst_ball;
  row.worst_k = check.worst_k;
  row.worst_t = check.worst_t;
  if (row.budget) row.t_reached = check.last_t;
  return row;
}
#endif

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "many_guards_bench: %s\nusage: many_guards_bench [--bounces B] [--n 1,10,100,1000] "
               "[--solvers dopri5,bs3] [--bounded dopri5] [--omega W] [--budget S] [--cvode adams,bdf]\n",
               why.c_str());
  std::exit(2);
}

double positive(const std::string& name, const char* text) { return bench::positive(name, text, usage); }

void print_row(const Row& r, double t_end) {
  if (!r.failure.empty() && r.stats.events == 0) {
    std::printf("%5d %-22s failed: %s\n", r.n, r.method.c_str(), r.failure.c_str());
    return;
  }
  const double atoms = 2.0 * r.n;
  std::printf("%5d %-22s %8lld %8lld %8lld %8lld %6lld %9.2f %7.3f %9.1f %7.2f %8.3f %9.2f %8.3f %9.2e%s%s\n", r.n,
              r.method.c_str(), static_cast<long long>(r.bounces()), static_cast<long long>(r.exact),
              static_cast<long long>(r.stats.events), static_cast<long long>(r.steps()),
              static_cast<long long>(r.stats.steps_rejected), Row::ratio(static_cast<double>(r.stats.guard_evals), r.steps()),
              Row::ratio(static_cast<double>(r.stats.guard_evals), r.steps()) / atoms,
              Row::ratio(static_cast<double>(r.stats.guard_evals), r.stats.events),
              Row::ratio(static_cast<double>(r.stats.rhs_evals), r.stats.events), r.us_per_step(), r.us_per_event(),
              r.seconds, r.max_dt, r.budget ? "  budget: stopped at t = " : "",
              r.budget ? (std::to_string(r.t_reached) + " of " + std::to_string(t_end)).c_str() : "");
  if (!r.failure.empty()) std::printf("      %s\n", r.failure.c_str());
}

// Least squares y = a + b x.
struct Fit {
  double a = 0, b = 0;
  int points = 0;
};
Fit fit(const std::vector<double>& x, const std::vector<double>& y) {
  Fit f;
  f.points = static_cast<int>(x.size());
  if (x.size() < 2) return f;
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= static_cast<double>(x.size());
  my /= static_cast<double>(x.size());
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
  }
  f.b = sxy / sxx;
  f.a = my - f.b * mx;
  return f;
}

// The command line: the sizes, the methods (engine solvers, then the CVODE peers), the spans.
struct BenchOptions {
  double bounces = 10000, budget = 30, omega = 0;
  std::string solver_list = "dopri5,bs3", bounded_list = "dopri5";
  std::vector<int> ns;
  std::vector<std::string> methods;
};

BenchOptions parse_arguments(int argc, char** argv) {
  BenchOptions o;
  std::string n_list = "1,10,100,1000", cvode_list = "adams,bdf";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) usage("option " + arg + " needs a value");
    const char* value = argv[++i];
    if (arg == "--bounces") o.bounces = positive(arg, value);
    else if (arg == "--n") n_list = value;
    else if (arg == "--solvers") o.solver_list = value;
    else if (arg == "--budget") o.budget = positive(arg, value);
    else if (arg == "--bounded") o.bounded_list = value;
    else if (arg == "--omega") o.omega = positive(arg, value);
    else if (arg == "--cvode") cvode_list = value;
    else usage("unknown option " + arg);
  }
  for (const auto& text : bench::split(n_list)) {
    const int n = std::atoi(text.c_str());
    if (n < 1) usage("--n takes positive integers, got '" + text + "'");
    o.ns.push_back(n);
  }
  for (const auto& s : bench::split(o.solver_list)) o.methods.push_back(s);
  for (const auto& s : bench::split(o.bounded_list)) o.methods.push_back("bounded-" + s);
#if HYSIM_HAVE_CVODE
  for (const auto& c : bench::split(cvode_list)) {
    if (c != "adams" && c != "bdf") usage("--cvode takes adams, bdf, got '" + c + "'");
    o.methods.push_back("cvode-" + c);
  }
#else
  (void)cvode_list;
  std::printf("(built without CVODE: engine rows only)\n");
#endif
  return o;
}

// Every N with every method, each row printed as it ends.
std::vector<Row> measure_rows(const BenchOptions& o) {
  std::vector<Row> rows;
  for (const int n : o.ns) {
    const std::vector<double> h0 = heights(n);
    const Model<double> model = make_balls(h0, false, o.omega), bounded = make_balls(h0, true, o.omega);
    SimulationOptions options;
    options.t_end = horizon(h0, o.bounces);
    const double t_end = options.t_end;
    const std::int64_t exact = exact_bounces(h0, t_end);
    for (const auto& method : o.methods) {
      Row row;
      if (method.rfind("cvode-", 0) == 0) {
#if HYSIM_HAVE_CVODE
        row = run_cvode_peer(model, h0, options, method == "cvode-adams" ? CvodeMethod::kAdams : CvodeMethod::kBdf, o.budget);
#endif
      } else if (method.rfind("bounded-", 0) == 0) {
        SimulationOptions run = options;
        run.solver = method.substr(8);
        row = run_engine(bounded, h0, run);
        row.method = "bounded-" + row.method;
      } else {
        SimulationOptions run = options;
        run.solver = method;
        row = run_engine(model, h0, run);
      }
      row.exact = exact;
      print_row(row, t_end);
      std::fflush(stdout);
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

// The usable row of size n whose method starts with `method`, or none.
const Row* find_row(const std::vector<Row>& rows, int n, const std::string& method) {
  for (const auto& r : rows) {
    if (r.n == n && r.method.rfind(method, 0) == 0 && r.usable()) return &r;
  }
  return nullptr;
}

void print_bounce_counts(const std::vector<Row>& rows, const BenchOptions& o) {
  std::printf("\nbounces against the closed form (complete runs):\n");
  for (const int n : o.ns) {
    std::printf("  N = %4d:", n);
    for (const auto& method : o.methods) {
      const Row* r = find_row(rows, n, method);
      if (r == nullptr || r->budget) {
        std::printf("  %s -", method.c_str());
        continue;
      }
      std::printf("  %s %+lld", method.c_str(), static_cast<long long>(r->bounces() - r->exact));
    }
    const Row* first = find_row(rows, n, o.methods.front());
    std::printf("   (of %lld)\n", static_cast<long long>(first ? first->exact : 0));
  }
}

void print_fits(const std::vector<Row>& rows, const BenchOptions& o) {
  std::printf("\nleast squares t(N) = a + b N over the N run (b per ball; per atom b/2):\n");
  std::printf("  %-22s %12s %14s %14s %12s %14s\n", "method", "a [us/step]", "b [ns/ball/st]", "b/2 [ns/at/st]",
              "a [us/ev]", "b [ns/ball/ev]");
  for (const auto& method : o.methods) {
    std::vector<double> x, step, event;
    for (const int n : o.ns) {
      if (const Row* r = find_row(rows, n, method)) {
        x.push_back(n);
        step.push_back(r->us_per_step());
        event.push_back(r->us_per_event());
      }
    }
    const Fit fs = fit(x, step), fe = fit(x, event);
    std::printf("  %-22s %12.3f %14.2f %14.2f %12.3f %14.2f   (%d points)\n", method.c_str(), fs.a, 1e3 * fs.b,
                0.5e3 * fs.b, fe.a, 1e3 * fe.b, fs.points);
  }
}

void print_ratios(const std::vector<Row>& rows, const BenchOptions& o) {
  std::printf("\ntime per event, engine / CVODE (< 1: the engine is faster):\n");
  for (const auto& solver : bench::split(o.solver_list)) {
    for (const auto& peer : o.methods) {
      if (peer.rfind("cvode-", 0) != 0) continue;
      std::printf("  %s / %s:", solver.c_str(), peer.c_str());
      for (const int n : o.ns) {
        const Row* a = find_row(rows, n, solver);
        const Row* b = find_row(rows, n, peer);
        if (a == nullptr || b == nullptr) std::printf("  N=%d -", n);
        else std::printf("  N=%d %.3f", n, a->us_per_event() / b->us_per_event());
      }
      std::printf("\n");
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const BenchOptions o = parse_arguments(argc, argv);
  std::printf("N elastic bouncing balls (2N atoms), h_i(0) pseudo-random in [1, 2), about %.0f bounces per N; rtol 1e-6, atol 1e-9\n",
              o.bounces);
  std::printf("%5s %-22s %8s %8s %8s %8s %6s %9s %7s %9s %7s %8s %9s %8s %9s\n", "N", "method", "bounces", "exact",
              "events", "steps", "rej.", "guards/st", "g/st/at", "guards/ev", "rhs/ev", "us/step", "us/event",
              "seconds", "max|dt|");
  const std::vector<Row> rows = measure_rows(o);
  print_bounce_counts(rows, o);
  print_fits(rows, o);
  print_ratios(rows, o);
  return 0;
}
