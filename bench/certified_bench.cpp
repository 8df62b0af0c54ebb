// The cost of certified event detection (docs/certified.md) against the default strategy on
// the same model, measured in one run of this binary: models/pwm-servo.hym at its tracking
// preset (u(t) = sin t, 20 events per second of model time) over [0, t_end], dopri5 at the
// default tolerances, no output. Each strategy's run is repeated, alternating, and the fastest
// kept, so that a noisy neighbour slows both alike. Target: certified at most 3 times the
// default strategy's time, with the same events.
//
//   build/bench/certified_bench [t_end=1000] [repeats=5] [level=1]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "hysim/lang/build.hpp"
#include "hysim/simulator.hpp"
#include "../tests/source_dir.hpp"

namespace {

using namespace hysim;

// Each event's time and the mode it enters, kept in storage reserved before the run.
class EventTimes final : public Observer<double> {
 public:
  EventTimes() { events.reserve(1 << 16); }
  void on_event(const EventRecord<double>& record) override { events.emplace_back(record.t, record.to); }
  std::vector<std::pair<double, int>> events;
};

struct Work {
  double seconds = 1e300;
  RunResult<double> result;
  std::vector<std::pair<double, int>> events;
};

Work simulate(const Model<double>& model, const SimulationOptions& options) {
  Work work;
  EventTimes times;
  const auto start = std::chrono::steady_clock::now();
  Simulator<double> simulator(model, options);
  work.result = simulator.run(&times);
  work.events = std::move(times.events);
  work.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return work;
}

}  // namespace

int main(int argc, char** argv) {
  const double t_end = argc > 1 ? std::atof(argv[1]) : 1000.0;
  const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
  const int level = argc > 3 ? std::atoi(argv[3]) : 1;
  const ModelEntry twin = lang::load_model_file(testing::source_dir() + "/models/pwm-servo.hym");
  ParameterValues values = twin.default_values();
  values.apply_preset(twin.presets, "tracking");
  const Model<double> model = twin.make<double>(values);

  SimulationOptions plain;
  plain.t_end = t_end;
  SimulationOptions certified = plain;
  certified.strategy = "certified";
  certified.certified_level = level;
  Work best_plain, best_certified;
  for (int r = 0; r < repeats; ++r) {
    Work p = simulate(model, plain);
    Work c = simulate(model, certified);
    if (p.seconds < best_plain.seconds) best_plain = std::move(p);
    if (c.seconds < best_certified.seconds) best_certified = std::move(c);
  }
  const auto& a = best_plain.result;
  const auto& b = best_certified.result;
  const auto& ea = best_plain.events;
  const auto& eb = best_certified.events;
  bool same = ea.size() == eb.size();
  double max_dt = 0;
  for (std::size_t i = 0; same && i < ea.size(); ++i) {
    same = ea[i].second == eb[i].second;
    max_dt = std::max(max_dt, std::fabs(ea[i].first - eb[i].first));
  }
  const double ratio = best_certified.seconds / best_plain.seconds;
  const auto& proof = b.stats.certified;
  std::printf("pwm-servo tracking, [0, %g] s, dopri5, fastest of %d alternating runs\n", t_end, repeats);
  std::printf("  %-13s %8.2f ms  %6zu events  %8.3f us/step\n", plain.strategy.c_str(), 1e3 * best_plain.seconds,
              ea.size(), 1e6 * best_plain.seconds / static_cast<double>(a.stats.steps_accepted));
  std::printf("  %-13s %8.2f ms  %6zu events  %8.3f us/step  level %d: %lld steps proved, %lld unproved, "
              "%lld enclosures, %lld subdivisions\n",
              "certified", 1e3 * best_certified.seconds, eb.size(),
              1e6 * best_certified.seconds / static_cast<double>(b.stats.steps_accepted), level,
              static_cast<long long>(proof.steps_proved), static_cast<long long>(proof.steps_unproved),
              static_cast<long long>(proof.enclosures), static_cast<long long>(proof.subdivisions));
  std::printf("  same events: %s (max |dt| %.3g s)\n", same ? "yes" : "NO", max_dt);
  std::printf("  certified / %s: x%.2f  (target <= 3): %s\n", plain.strategy.c_str(), ratio,
              ratio <= 3 && same ? "PASS" : "FAIL");
  return same ? 0 : 1;
}
