// The ensemble runner's speedup (issue 13): a sweep of the PWM servo over kp, 1000 runs over
// [0, t_end], on 1 thread and on N threads, in one run of this binary. The two alternate and
// the fastest of `repeats` is kept, so that a noisy neighbour slows both alike; read the ratio.
// The summaries must agree (every number of every run); the binary exits 1 if they do not.
//
//   build/bench/sweep_bench [runs=1000] [t_end=10] [threads=2] [repeats=3]
//
// Target (issue 13): at least 1.8 on 2 threads of a 2-core machine.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "hysim/ensemble/ensemble.hpp"
#include "hysim/models/catalog.hpp"
#include "hysim/simulator.hpp"

namespace {

using namespace hysim;

// One sweep: the final state and counters of every run, in order, and its wall time.
struct Sweep {
  std::vector<double> numbers;
  double seconds = 0;
};

Sweep sweep(std::int64_t runs, double t_end, int threads) {
  const ModelEntry& entry = find_model("pwm-servo");
  SimulationOptions options;
  options.t_end = t_end;
  EnsembleOptions ensemble;
  ensemble.jobs = threads;
  Sweep out;
  const auto start = std::chrono::steady_clock::now();
  run_ensemble<std::vector<double>>(
      runs, ensemble,
      [&](std::int64_t i) {
        ParameterValues values = entry.default_values();
        values.set("kp", format_scalar(0.05 + 0.15 * static_cast<double>(i) / static_cast<double>(runs - 1), 17));
        const RunResult<double> r = Simulator<double>(entry.make<double>(values), options).run();
        std::vector<double> numbers(r.x.begin(), r.x.end());
        numbers.push_back(static_cast<double>(r.stats.events));
        numbers.push_back(static_cast<double>(r.stats.guard_evals));
        return numbers;
      },
      [&](std::int64_t, std::vector<double>&& numbers) { out.numbers.insert(out.numbers.end(), numbers.begin(), numbers.end()); });
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const std::int64_t runs = argc > 1 ? std::atoll(argv[1]) : 1000;
  const double t_end = argc > 2 ? std::atof(argv[2]) : 10.0;
  const int threads = argc > 3 ? std::atoi(argv[3]) : 2;
  const int repeats = argc > 4 ? std::atoi(argv[4]) : 3;
  if (runs < 2 || !(t_end > 0) || threads < 1 || repeats < 1) {
    std::fprintf(stderr, "usage: sweep_bench [runs>=2] [t_end>0] [threads>=1] [repeats>=1]\n");
    return 2;
  }
  double serial = 1e300, parallel = 1e300;
  bool same = true;
  for (int k = 0; k < repeats; ++k) {
    const Sweep one = sweep(runs, t_end, 1);
    const Sweep many = sweep(runs, t_end, threads);
    serial = std::min(serial, one.seconds);
    parallel = std::min(parallel, many.seconds);
    same = same && one.numbers == many.numbers;
  }
  std::printf("pwm-servo sweep over kp: %lld runs over [0, %g] s, fastest of %d\n", static_cast<long long>(runs), t_end,
              repeats);
  std::printf("  1 thread:  %.3f s (%.0f runs/s)\n", serial, static_cast<double>(runs) / serial);
  std::printf("  %d threads: %.3f s (%.0f runs/s)\n", threads, parallel, static_cast<double>(runs) / parallel);
  std::printf("  speedup %.2f (target 1.8 on 2 threads of 2 cores); summaries %s\n", serial / parallel,
              same ? "identical" : "DIFFER");
  return same ? 0 : 1;
}
