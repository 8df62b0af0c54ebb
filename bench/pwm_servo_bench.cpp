// Throughput of the PWM servo drive (004) over a long horizon, per event-detection strategy
// and solver, and the peer CVODE, measured in one run: events per second, field (RHS)
// evaluations per event, guard evaluations per event, root-search iterations per event, the
// number of events that are not one-sided; then the accuracy of each over [0, 5] s against
// the exact reference (models/pwm_servo_exact.hpp). Counts are exact; seconds are noisy on a
// shared machine, so read the ratios to cvode printed at the end, which come from this same
// run.
//
//   build/bench/pwm_servo_bench [t_end=1000] [solver,solver,...=dopri5,bs3]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "hysim/core/errors.hpp"
#include "hysim/peers/peers.hpp"
#include "hysim/simulator.hpp"
#include "hysim/models/catalog.hpp"
#include "hysim/solvers/stepper.hpp"

namespace {

using namespace hysim;

struct Row {
  std::string solver, strategy;
  RunStatistics stats;
  double seconds = 0;
  std::string failure;
};

// Event times of a run, one per event (the first row of each chain).
class EventTimes final : public Observer<double> {
 public:
  void on_event(const EventRecord<double>& r) override {
    if (times.empty() || r.index != last_index_) times.push_back(r.t);
    last_index_ = r.index;
  }
  std::vector<double> times;

 private:
  std::int64_t last_index_ = 0;
};

Row run(const Model<double>& model, const std::string& solver, const std::string& strategy, double t_end,
        Observer<double>* observer) {
  Row row{solver, strategy, {}, 0, ""};
  SimulationOptions options;
  options.t_end = t_end;
  options.solver = solver;
  options.strategy = strategy;
  try {
    Simulator<double> simulator(model, options);
    const auto start = std::chrono::steady_clock::now();
    const RunResult<double> result = simulator.run(observer);
    row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    row.stats = result.stats;
  } catch (const Error& e) {
    row.failure = e.what();
  }
  return row;
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

bool known_solver(const std::string& name) {
  const auto& catalog = solver_catalog();
  return std::any_of(catalog.begin(), catalog.end(), [&](const SolverInfo& s) { return s.name == name; });
}

}  // namespace

int main(int argc, char** argv) {
  hysim::register_peers();
  const double t_end = argc > 1 ? std::atof(argv[1]) : 1000.0;
  std::vector<std::string> solvers;
  for (const auto& s : split(argc > 2 ? argv[2] : "dopri5,bs3")) {
    if (known_solver(s)) solvers.push_back(s);
  }
  const ModelEntry& entry = find_model("pwm-servo");
  const Model<double> model = entry.make<double>(entry.default_values());
  const std::string default_strategy = SimulationOptions{}.strategy;

  // Exact event times over (0, 5] for the accuracy columns. The runs go on to 5.001 s: the
  // saw reset falls exactly on t = 5, where a run's rounding decides whether it is inside.
  constexpr double kAccuracyEnd = 5.001;
  std::vector<double> exact;
  for (const auto& e : entry.reference(entry.default_values(), kAccuracyEnd).events) {
    exact.push_back(static_cast<double>(e.t));
  }

  std::printf("pwm-servo over [0, %g] s; accuracy over [0, 5] s against the exact reference (%zu events)\n", t_end,
              exact.size());
  std::printf("%-8s %-13s %9s %11s %10s %12s %11s %12s %9s %12s\n", "solver", "strategy", "events", "events/s",
              "rhs/event", "guards/event", "roots/event", "not 1-sided", "seconds", "max|dt| [0,5]");
  std::map<std::string, Row> by_key;
  for (const auto& info : strategy_catalog()) {
    const bool peer = info.is_driver();
    for (const auto& solver : solvers) {
      if (peer && solver != solvers.front()) continue;
      const Row row = run(model, solver, info.name, t_end, nullptr);
      const std::string shown_solver = peer ? "cvode" : solver;
      if (!row.failure.empty()) {
        std::printf("%-8s %-13s failed: %s\n", shown_solver.c_str(), info.name.c_str(), row.failure.c_str());
        continue;
      }
      EventTimes times;
      const Row accuracy = run(model, solver, info.name, kAccuracyEnd, &times);
      std::string max_dt = "count " + std::to_string(times.times.size());
      if (accuracy.failure.empty() && times.times.size() == exact.size()) {
        double worst = 0;
        for (std::size_t i = 0; i < exact.size(); ++i) worst = std::max(worst, std::abs(times.times[i] - exact[i]));
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%.2e", worst);
        max_dt = buffer;
      }
      const auto& s = row.stats;
      const double events = static_cast<double>(std::max<std::int64_t>(s.events, 1));
      std::printf("%-8s %-13s %9lld %11.0f %10.2f %12.1f %11.1f %12lld %9.4f %12s\n", shown_solver.c_str(),
                  info.name.c_str(), static_cast<long long>(s.events), events / row.seconds,
                  static_cast<double>(s.rhs_evals) / events, static_cast<double>(s.guard_evals) / events,
                  static_cast<double>(s.root_iterations) / events,
                  static_cast<long long>(s.events - s.one_sided_events), row.seconds, max_dt.c_str());
      by_key[shown_solver + "/" + info.name] = row;
    }
  }

  // The targets for the default strategy, as ratios to the peer from this run.
  const auto peer = by_key.find("cvode/cvode");
  if (peer != by_key.end()) {
    const double peer_rate = static_cast<double>(peer->second.stats.events) / peer->second.seconds;
    const double peer_rhs = static_cast<double>(peer->second.stats.rhs_evals) / static_cast<double>(peer->second.stats.events);
    std::printf("\nratios to cvode (default strategy %s):\n", default_strategy.c_str());
    for (const auto& solver : solvers) {
      const auto it = by_key.find(solver + "/" + default_strategy);
      if (it == by_key.end()) continue;
      const auto& s = it->second.stats;
      const double rate = static_cast<double>(s.events) / it->second.seconds;
      const double rhs = static_cast<double>(s.rhs_evals) / static_cast<double>(s.events);
      std::printf("  %-8s events/s x%.2f, rhs/event x%.2f, one-sided %lld of %lld\n", solver.c_str(), rate / peer_rate,
                  rhs / peer_rhs, static_cast<long long>(s.one_sided_events), static_cast<long long>(s.events));
    }
  }
  return 0;
}
