// Atoms with a rate bound (Atom::rate_bound, events/quiet_atoms.hpp): detection skips an atom
// while it cannot have changed sign, and finds the same events as without the bound.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <utility>
#include <iostream>
#include <string>
#include <vector>

#include "../bench/many_balls.hpp"
#include "hysim/core/guard.hpp"
#include "hysim/core/model.hpp"
#include "hysim/simulator.hpp"

namespace hysim {
namespace {

using many_balls::kG;

Model<double> balls(const std::vector<double>& h0, double bound, double omega = 0) {
  return many_balls::model(h0, bound, omega);
}

struct Bounces final : public Observer<double> {
  std::vector<std::pair<double, std::string>> events;
  void on_event(const EventRecord<double>& r) override { events.emplace_back(r.t, std::string(r.guard)); }
};

struct Outcome {
  RunResult<double> result;
  Bounces bounces;
};

Outcome run(const Model<double>& model, double t_end) {
  SimulationOptions options;
  options.t_end = t_end;
  options.rtol = 1e-8;
  options.atol = 1e-10;
  Outcome o;
  Simulator<double> simulator(model, options);
  o.result = simulator.run(&o.bounces);
  return o;
}

// Ball i bounces at tau_i (2k - 1), tau_i = sqrt(2 h_i(0) / g).
// Returns the guard evaluations without and with the bounds.
std::pair<std::int64_t, std::int64_t> expect_closed_form_bounces(std::size_t n, double omega, double t_end) {
  std::vector<double> h0(n);
  for (std::size_t i = 0; i < n; ++i) h0[i] = 1.0 + std::fmod(0.6180339887 * double(i + 1), 1.0);
  const Model<double> plain_model = balls(h0, 0, omega), bounded_model = balls(h0, 1.01, omega);
  const Outcome plain = run(plain_model, t_end), bounded = run(bounded_model, t_end);
  EXPECT_EQ(bounded.result.reason, RunReason::kReachedEnd) << bounded.result.message;
  EXPECT_EQ(plain.bounces.events.size(), bounded.bounces.events.size());
  if (plain.bounces.events.size() != bounded.bounces.events.size()) return {0, 0};
  std::vector<int> count(h0.size(), 0);
  for (std::size_t e = 0; e < bounded.bounces.events.size(); ++e) {
    const auto& [t, guard] = bounded.bounces.events[e];
    EXPECT_EQ(guard, plain.bounces.events[e].second) << e;
    const std::size_t i = std::stoul(guard.substr(7));
    const long double tau = std::sqrt(2.0L * h0[i] / kG);
    EXPECT_NEAR(t, static_cast<double>(tau * (2 * ++count[i] - 1)), 1e-9) << guard << " bounce " << count[i];
  }
  std::cout << n << " balls, omega " << omega << ": " << bounded.bounces.events.size() << " bounces; guard evaluations: plain "
            << plain.result.stats.guard_evals << ", bounded " << bounded.result.stats.guard_evals << "; steps "
            << plain.result.stats.steps_accepted << ", " << bounded.result.stats.steps_accepted << "\n";
  return {plain.result.stats.guard_evals, bounded.result.stats.guard_evals};
}

// Steps as many as events: every event reads every atom (the chain, the re-arming), so the
// bounds save little (measured: 3,730 guard evaluations against 3,818).
TEST(QuietAtoms, BoundedBallsBounceAtTheClosedFormTimes) { (void)expect_closed_form_bounces(5, 0, 20); }

// A fast oscillator sets the steps, 57 per bounce: an atom far from its surface is read once in
// many steps (measured: 74,652 guard evaluations against 1,469,320, the same 12,967 steps).
TEST(QuietAtoms, ManyStepsBetweenBouncesReadFewAtoms) {
  const auto [plain, bounded] = expect_closed_form_bounces(50, 200, 5);
  EXPECT_LT(bounded * 10, plain);
}

// A bound the motion breaks hides crossings (the promise is the model's): with bounds 100 times
// too small, atoms are kept past their crossings and bounces are missed or late.
TEST(QuietAtoms, AWrongBoundMissesEvents) {
  const std::vector<double> h0 = {1.0, 1.37, 1.81, 1.13, 1.6};
  const Outcome plain = run(balls(h0, 0), 5), wrong = run(balls(h0, 0.01), 5);
  EXPECT_NE(plain.bounces.events, wrong.bounces.events);
}

}  // namespace
}  // namespace hysim
