// Throughput of the PWM servo drive (004) over a long horizon: events per second, field
// evaluations per event and guard evaluations per event, per solver, measured in one run.
// Counts are exact; seconds are noisy on a shared machine, so compare the solvers' ratios.
//
//   build/bench/pwm_servo_bench [t_end=1000]
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "core/simulator.hpp"
#include "models/catalog.hpp"

int main(int argc, char** argv) {
  using namespace hysim;
  const double t_end = argc > 1 ? std::atof(argv[1]) : 1000.0;
  const ModelEntry& entry = find_model("pwm-servo");
  const Model<double> model = entry.make<double>(entry.default_values());
  std::printf("pwm-servo over [0, %g] s\n", t_end);
  std::printf("%-8s %10s %12s %12s %12s %12s %10s\n", "solver", "events", "events/s", "rhs/event", "guards/event",
              "roots/event", "seconds");
  for (const char* solver : {"dopri5", "rk4"}) {
    SimulationOptions options;
    options.t_end = t_end;
    options.solver = solver;
    options.fixed_step = 1e-2;
    Simulator<double> simulator(model, options);
    const auto start = std::chrono::steady_clock::now();
    const RunResult<double> result = simulator.run(nullptr);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const auto& s = result.stats;
    const double events = static_cast<double>(s.events);
    std::printf("%-8s %10lld %12.0f %12.2f %12.1f %12.1f %10.4f\n", solver, static_cast<long long>(s.events),
                events / seconds, static_cast<double>(s.rhs_evals) / events, static_cast<double>(s.guard_evals) / events,
                static_cast<double>(s.root_iterations) / events, seconds);
  }
  return 0;
}
