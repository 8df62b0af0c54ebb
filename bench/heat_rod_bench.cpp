// The heat rod of bench/heat_rod.hpp at growing sizes, in one run of this binary: the time to
// compile its model file, and the simulation over [0, t_end] by ndf and rosenbrock4 with the
// sparse LU on the file's Jacobian pattern (and with the dense LU where n allows), hysim's cvode
// strategy (CVODE's band solver on the same pattern), and the standalone CVODE program with its
// band solver, as its users write it (bench/peers/cvode_programs.cpp). Each run's events are
// checked against the exact event times of the semi-discrete rod (its cosine modes in closed
// form, heat_rod::exact_events).
//
//   build/bench/heat_rod_bench [sizes=500,2000,10000] [t_end=100] [rtol=1e-8] [dense_max=1000]
//
// Columns: wall seconds of the simulation (model built beforehand), steps, field evaluations,
// events, and the largest |t - t_exact| over the events (every exact event must be found: a
// missing or extra one is printed as such).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "heat_rod.hpp"
#include "hysim/lang/build.hpp"
#include "hysim/lang/compiler.hpp"
#include "hysim/peers/peers.hpp"
#include "hysim/simulator.hpp"
#include "standalone.hpp"

namespace {

using namespace hysim;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

class EventTimes final : public Observer<double> {
 public:
  explicit EventTimes(std::vector<double>* times) : times_(times) {}
  void on_event(const EventRecord<double>& record) override { times_->push_back(record.t); }

 private:
  std::vector<double>* times_;
};

struct Row {
  std::string what;
  double seconds = 0;
  long long steps = 0, rhs_evals = 0;
  std::vector<double> events;
  std::string failure;
};

void print(std::size_t n, const Row& row, const std::vector<long double>& exact) {
  std::string accuracy;
  if (!row.failure.empty()) {
    accuracy = "FAILED: " + row.failure;
  } else if (row.events.size() != exact.size()) {
    accuracy = "events differ: " + std::to_string(row.events.size()) + " against " + std::to_string(exact.size()) + " exact";
  } else {
    long double worst = 0;
    for (std::size_t i = 0; i < exact.size(); ++i) worst = std::max(worst, std::fabs(row.events[i] - exact[i]));
    char text[32];
    std::snprintf(text, sizeof text, "%.2Le", worst);
    accuracy = text;
  }
  std::printf("| %zu | %s | %.4f | %lld | %lld | %zu | %s |\n", n, row.what.c_str(), row.seconds, row.steps,
              row.rhs_evals, row.events.size(), accuracy.c_str());
  std::fflush(stdout);
}

Row simulate(const Model<double>& model, const std::string& solver, const std::string& strategy,
             const std::string& linear_solver, double t_end, double rtol) {
  SimulationOptions options;
  options.t_end = t_end;
  options.rtol = rtol;
  options.atol = rtol * 1e-2;
  options.solver = solver;
  options.strategy = strategy;
  options.linear_solver = linear_solver;
  Row row;
  row.what = strategy == "cvode" ? "hysim cvode (band)" : solver + " (" + linear_solver + ")";
  EventTimes events(&row.events);
  Simulator<double> simulator(model, options);
  const auto start = Clock::now();
  const RunResult<double> result = simulator.run(&events);
  row.seconds = seconds_since(start);
  row.steps = result.stats.steps_accepted;
  row.rhs_evals = result.stats.rhs_evals;
  if (result.failed()) row.failure = result.message;
  return row;
}

Row standalone_cvode(std::size_t n, double t_end, double rtol) {
  standalone::HeatRod rod;
  rod.n = n;
  rod.heated = heat_rod::heated_cells(n);
  rod.sensor = heat_rod::sensor_cell(n);
  rod.D = heat_rod::kD;
  rod.b = heat_rod::kB;
  rod.q = heat_rod::kQ;
  rod.T_a = heat_rod::kTa;
  rod.T0 = heat_rod::kT0;
  rod.T_low = heat_rod::kTLow;
  rod.T_high = heat_rod::kTHigh;
  standalone::Tolerances tol;
  tol.t_end = t_end;
  tol.rtol = rtol;
  tol.atol = rtol * 1e-2;
  Row row;
  row.what = "standalone CVODE (band)";
  const auto start = Clock::now();
  const standalone::Run run = standalone::heat_rod_cvode(rod, tol);
  row.seconds = seconds_since(start);
  row.steps = run.steps;
  row.rhs_evals = run.rhs_evals;
  row.failure = run.failure;
  for (const auto& e : run.events) row.events.push_back(e.t);
  return row;
}

[[noreturn]] void usage(const std::string& message) {
  std::fprintf(stderr, "heat_rod_bench: %s\nusage: heat_rod_bench [sizes=500,2000,10000] [t_end=100] [rtol=1e-8] [dense_max=1000]\n",
               message.c_str());
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  register_peers();
  std::vector<std::size_t> sizes = {500, 2000, 10000};
  if (argc > 1) {
    sizes.clear();
    for (const auto& item : bench::split(argv[1])) sizes.push_back(static_cast<std::size_t>(bench::positive("a size", item.c_str(), usage)));
  }
  const double t_end = argc > 2 ? bench::positive("t_end", argv[2], usage) : 100.0;
  const double rtol = argc > 3 ? bench::positive("rtol", argv[3], usage) : 1e-8;
  const double dense_max = argc > 4 ? bench::positive("dense_max", argv[4], usage) : 1000.0;
  std::printf("heat rod (bench/heat_rod.hpp) over [0, %g] s, rtol %g, atol %g\n\n", t_end, rtol, rtol * 1e-2);
  std::printf("| n | run | wall s | steps | field evals | events | max abs(t - t_exact) |\n|---|---|---|---|---|---|---|\n");
  for (const std::size_t n : sizes) {
    const std::vector<long double> exact = heat_rod::exact_events(n, t_end);
    auto start = Clock::now();
    const auto spec = std::make_shared<const lang::ModelSpec>(lang::compile_text("heat-rod.hym", heat_rod::model_text(n)));
    const ModelEntry entry = lang::model_entry(spec);
    const Model<double> model = entry.make<double>(entry.default_values());
    std::printf("| %zu | compile the model file (native code; cached after the first time) | %.3f | | | | |\n", n,
                seconds_since(start));
    print(n, simulate(model, "ndf", "gamma-refine", "sparse", t_end, rtol), exact);
    print(n, simulate(model, "rosenbrock4", "gamma-refine", "sparse", t_end, rtol), exact);
    if (static_cast<double>(n) <= dense_max) {
      print(n, simulate(model, "ndf", "gamma-refine", "dense", t_end, rtol), exact);
      print(n, simulate(model, "rosenbrock4", "gamma-refine", "dense", t_end, rtol), exact);
    }
#if HYSIM_HAVE_CVODE
    print(n, simulate(model, "dopri5", "cvode", "auto", t_end, rtol), exact);
    print(n, standalone_cvode(n, t_end, rtol), exact);
#endif
  }
  return 0;
}
