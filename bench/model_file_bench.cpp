// A model file against its C++ twin, measured in one run of this binary: the wall time of
// the same simulation from models/<name>.hym (compiled by src/hysim/lang to a register tape)
// and from src/hysim/models/<name>.cpp, and the cost of compiling a file. Each run is
// repeated and the fastest kept, alternating file and C++ so that a noisy neighbour slows
// both alike; read the ratio file / C++.
//
//   build/bench/model_file_bench [t_end=1000] [repeats=3]
//
// pwm-servo runs once over [0, t_end] (the polynomial case: about 10 events per second of
// model time); drag-ball (exponential flights, a non-polynomial field) runs 400 times over
// [0, 20] s with a restitution swept from 0.5 to 0.9, so that its impacts and the Zeno
// continuation take comparable work.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "hysim/lang/build.hpp"
#include "hysim/models/catalog.hpp"
#include "hysim/simulator.hpp"
#include "../tests/source_dir.hpp"

namespace {

using namespace hysim;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct Work {
  double seconds = 0;
  RunStatistics stats;
};

// Runs every (values, t_end) case of `cases` with the model `entry` builds; the time covers
// the simulations, not building the models.
Work simulate(const ModelEntry& entry, const std::vector<ParameterValues>& cases, double t_end) {
  Work work;
  SimulationOptions options;
  options.t_end = t_end;
  std::vector<Model<double>> models;
  for (const auto& values : cases) models.push_back(entry.make<double>(values));
  const auto start = std::chrono::steady_clock::now();
  for (const auto& model : models) {
    Simulator<double> simulator(model, options);
    const RunResult<double> result = simulator.run();
    work.stats.events += result.stats.events;
    work.stats.rhs_evals += result.stats.rhs_evals;
    work.stats.guard_evals += result.stats.guard_evals;
  }
  work.seconds = seconds_since(start);
  return work;
}

void compare(const char* title, const std::string& file, const std::string& builtin,
             const std::vector<std::pair<std::string, std::string>>& sweep, double t_end, int repeats) {
  const ModelEntry twin = lang::load_model_file(file);
  const ModelEntry& native = find_model(builtin);
  std::vector<ParameterValues> cases_file, cases_native;
  if (sweep.empty()) {
    cases_file.push_back(twin.default_values());
    cases_native.push_back(native.default_values());
  }
  for (const auto& [name, value] : sweep) {
    cases_file.push_back(twin.default_values());
    cases_file.back().set(name, value);
    cases_native.push_back(native.default_values());
    cases_native.back().set(name, value);
  }
  Work best_file, best_native;
  best_file.seconds = best_native.seconds = 1e300;
  for (int r = 0; r < repeats; ++r) {
    const Work f = simulate(twin, cases_file, t_end);
    const Work n = simulate(native, cases_native, t_end);
    if (f.seconds < best_file.seconds) best_file = f;
    if (n.seconds < best_native.seconds) best_native = n;
  }
  std::printf("%-10s %4zu run(s) to t = %-6g  events %8lld / %8lld  field evals %9lld / %9lld  guard evals %10lld / %10lld"
              "  seconds %.4f / %.4f  file/C++ x%.3f\n",
              title, cases_file.size(), t_end, static_cast<long long>(best_file.stats.events),
              static_cast<long long>(best_native.stats.events), static_cast<long long>(best_file.stats.rhs_evals),
              static_cast<long long>(best_native.stats.rhs_evals), static_cast<long long>(best_file.stats.guard_evals),
              static_cast<long long>(best_native.stats.guard_evals), best_file.seconds, best_native.seconds,
              best_file.seconds / best_native.seconds);
}

}  // namespace

int main(int argc, char** argv) {
  const double t_end = argc > 1 ? std::atof(argv[1]) : 1000.0;
  const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
  const std::string models = testing::source_dir() + "/models/";

  // Compiling a file: read, parse, resolve, differentiate, and build the Model<double>.
  const int loads = 50;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < loads; ++i) (void)lang::load_model_file(models + "pwm-servo.hym");
  const double compile = seconds_since(start) / loads;
  start = std::chrono::steady_clock::now();
  const ModelEntry twin = lang::load_model_file(models + "pwm-servo.hym");
  for (int i = 0; i < loads; ++i) (void)twin.make<float128>(twin.default_values());
  const double build128 = seconds_since(start) / loads;
  std::printf("compiling models/pwm-servo.hym: %.3f ms (parse, resolve, rates, Model<double>); "
              "Model<float128> from it: %.3f ms\n\n", 1e3 * compile, 1e3 * build128);
  std::printf("model file against its C++ twin (file / C++), fastest of %d alternating repeats\n", repeats);

  compare("pwm-servo", models + "pwm-servo.hym", "pwm-servo", {}, t_end, repeats);
  std::vector<std::pair<std::string, std::string>> restitutions;
  for (int i = 0; i < 400; ++i) restitutions.emplace_back("e", std::to_string(0.5 + 0.4 * i / 399.0));
  compare("drag-ball", models + "drag-ball.hym", "drag-ball", restitutions, 20.0, repeats);
  return 0;
}
