// The stick-slip oscillator (models/stick_slip.hpp) against its closed form: sticking is the
// engine's Filippov sliding mode between the two static faces of the friction law, which ends
// exactly when k x reaches mu_s N; the phase boundaries over 10 cycles; and the chattering that
// the sliding mode removes.
#include "hysim/models/stick_slip.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "test_support.hpp"

namespace hysim {
namespace {

using Overrides = std::vector<std::pair<std::string, std::string>>;

template <class S>
Model<S> oscillator(const Overrides& overrides = {}) {
  const ModelEntry entry = stick_slip_entry();
  ParameterValues values = entry.default_values();
  for (const auto& [name, text] : overrides) values.set(name, text);
  return entry.make<S>(values);
}

Reference oscillator_reference(double t_end) {
  const ModelEntry entry = stick_slip_entry();
  return entry.reference(entry.default_values(), t_end);
}

SimulationOptions tight(double t_end) {
  SimulationOptions options;
  options.t_end = t_end;
  options.rtol = 1e-12;
  options.atol = 1e-14;
  return options;
}

// The limit cycle of the default parameters, written out here in long double (header of
// models/stick_slip.hpp): m = k = 1 (omega = 1), N = 9.81, v_b = 0.5, mu_s = 0.6, mu_k = 0.4.
struct ClosedForm {
  long double m = 1, k = 1, N = 9.81L, v_b = 0.5L, mu_s = 0.6L, mu_k = 0.4L;
  long double omega() const { return std::sqrt(k / m); }
  long double x_k() const { return mu_k * N / k; }                 // centre of the slips
  long double delta() const { return (mu_s - mu_k) * N / k; }      // mu_s N/k - x_k
  // From rest at x = 0: slip about x_k with amplitude x_k until v = x_k omega sin(omega t) = v_b.
  long double first_slip() const { return std::asin(v_b / (omega() * x_k())) / omega(); }
  long double first_stick_x() const { return x_k() * (1 - std::cos(omega() * first_slip())); }
  // A slip from (mu_s N/k, v_b) ends at the mirror point (x_k - delta, v_b) of the arc.
  long double slip() const { return (2 * std::acos(-1.0L) - 2 * std::atan(omega() * delta() / v_b)) / omega(); }
  long double stick() const { return 2 * delta() / v_b; }
  long double cycle() const { return slip() + stick(); }
  // The times at which the mass starts sticking (u = 0 reached from u > 0) and breaks away.
  long double stick_start(int j) const {
    return j == 0 ? first_slip() : breakaway(j - 1) + slip();
  }
  long double breakaway(int j) const {
    return first_slip() + (mu_s * N / k - first_stick_x()) / v_b + j * cycle();
  }
};

constexpr double kTenCycles = 126;  // 11 stick starts and 10 breakaways (the 11th is at 126.7 s)

// The phase boundaries of a run, read off its events: a stick starts at an event whose first
// row leaves slip_pos by u_zero and whose chain arrives in a static mode (the sliding mode);
// a stick ends at an event that arrives in slip_pos from a static mode.
template <class S>
struct Boundaries {
  std::vector<S> stick_starts, breakaways;
  std::vector<std::vector<S>> breakaway_states;
  std::size_t events = 0;
};

template <class S>
Boundaries<S> boundaries(const testing::Collected<S>& run) {
  Boundaries<S> out;
  for (std::size_t r = 0; r < run.rows.size();) {
    std::size_t last = r;
    while (last + 1 < run.rows.size() && run.rows[last + 1].index == run.rows[r].index) ++last;
    const auto& first = run.rows[r];
    const auto& arrival = run.rows[last];
    const bool from_static = first.from == kStaticPos || first.from == kStaticNeg;
    const bool into_static = arrival.to == kStaticPos || arrival.to == kStaticNeg;
    if (first.from == kSlipPos && first.guard == "u_zero" && into_static) out.stick_starts.push_back(first.t);
    if (from_static && arrival.to == kSlipPos) {
      out.breakaways.push_back(first.t);
      out.breakaway_states.push_back(first.x_pre);
    }
    ++out.events;
    r = last + 1;
  }
  return out;
}

template <class S>
class StickSlipTest : public ::testing::Test {};
using Scalars = ::testing::Types<double, long double, float128>;
TYPED_TEST_SUITE(StickSlipTest, Scalars);

// Over 10 stick-slip cycles (126 s) every stick start and every breakaway is within 1e-10 s of
// the closed form, and nothing else happens: 21 events in all.
TYPED_TEST(StickSlipTest, PhaseBoundariesMatchTheClosedFormOverTenCycles) {
  using S = TypeParam;
  const Model<S> model = oscillator<S>();
  const auto run = testing::collect(model, tight(kTenCycles));
  const Boundaries<S> b = boundaries(run);
  const ClosedForm exact;
  ASSERT_EQ(b.stick_starts.size(), 11u);
  ASSERT_EQ(b.breakaways.size(), 10u);
  EXPECT_EQ(b.events, 21u);
  long double worst = 0;
  for (int j = 0; j < 11; ++j) {
    const long double error = std::fabs(static_cast<long double>(b.stick_starts[static_cast<std::size_t>(j)]) -
                                        exact.stick_start(j));
    worst = std::max(worst, error);
    EXPECT_LT(error, 1e-10L) << "stick start " << j;
  }
  for (int j = 0; j < 10; ++j) {
    const long double error =
        std::fabs(static_cast<long double>(b.breakaways[static_cast<std::size_t>(j)]) - exact.breakaway(j));
    worst = std::max(worst, error);
    EXPECT_LT(error, 1e-10L) << "breakaway " << j;
  }
  std::cout << "[stick-slip " << scalar_name(scalar_kind_of<S>()) << "] 21 phase boundaries over 10 cycles: max |t - t*| = "
            << static_cast<double>(worst) << " s; " << run.rows.size() << " rows\n";
}

// Sticking ends exactly at the static limit: at each breakaway k x = mu_s N and v = v_b to
// rounding; while sticking the mass moves with the belt (v = v_b, x linear in t).
TYPED_TEST(StickSlipTest, StickingEndsWhenTheSpringReachesTheStaticLimit) {
  using S = TypeParam;
  const Model<S> model = oscillator<S>();
  const auto run = testing::collect(model, tight(2 * 11.9), /*keep_samples=*/true);
  const Boundaries<S> b = boundaries(run);
  ASSERT_EQ(b.breakaways.size(), 2u);
  const ClosedForm exact;
  const long double limit = exact.mu_s * exact.N / exact.k;
  long double worst_x = 0, worst_v = 0;
  for (const auto& x : b.breakaway_states) {
    worst_x = std::max(worst_x, std::fabs(static_cast<long double>(x[kStickX]) - limit));
    worst_v = std::max(worst_v, std::fabs(static_cast<long double>(x[kStickV]) - exact.v_b));
  }
  EXPECT_LT(worst_x, 1e-12L);
  EXPECT_LT(worst_v, 1e-12L);
  // Samples strictly inside the first stick (t in (t_s, t_b)): v = v_b, x = x_s + v_b (t - t_s).
  const long double t_s = exact.stick_start(0), t_b = exact.breakaway(0);
  long double worst_stick = 0;
  int inside = 0;
  for (const auto& sample : run.samples) {
    const long double t = static_cast<long double>(sample.t);
    if (!(t > t_s + 1e-9L && t < t_b - 1e-9L)) continue;
    ++inside;
    worst_stick = std::max(worst_stick, std::fabs(static_cast<long double>(sample.x[kStickV]) - exact.v_b));
    worst_stick = std::max(worst_stick, std::fabs(static_cast<long double>(sample.x[kStickX]) -
                                                   (exact.first_stick_x() + exact.v_b * (t - t_s))));
  }
  EXPECT_GT(inside, 0);
  EXPECT_LT(worst_stick, 1e-11L);
  std::cout << "[stick-slip " << scalar_name(scalar_kind_of<S>()) << "] breakaway: max |x - mu_s N/k| = "
            << static_cast<double>(worst_x) << ", max |v - v_b| = " << static_cast<double>(worst_v) << "; " << inside
            << " samples while stuck: max deviation from x_s + v_b t, v_b = " << static_cast<double>(worst_stick) << "\n";
}

// Preset on-belt: the mass starts on the surface (v0 = v_b, x0 = 0). The chain at t0 slides at
// once (static_pos -> static_neg boundary -> static_pos sliding), the mass moves with the belt,
// and breaks away where k x = mu_s N: t = mu_s N / (k v_b) = 11.772 s, x linear in t, so the
// time is exact to rounding; the reference lists the same breakaway.
TYPED_TEST(StickSlipTest, StartingOnTheBeltSticksUntilTheStaticLimit) {
  using S = TypeParam;
  const Model<S> model = oscillator<S>({{"v0", "0.5"}});
  const auto run = testing::collect(model, tight(13));
  ASSERT_GE(run.rows.size(), 3u);
  EXPECT_EQ(run.rows[0].t, S(0));
  EXPECT_EQ(run.rows[0].kind, TransitionClass::kBoundary);
  EXPECT_EQ(run.rows[1].kind, TransitionClass::kSliding);
  const Boundaries<S> b = boundaries(run);
  ASSERT_EQ(b.breakaways.size(), 1u);
  const long double t_break = 0.6L * 9.81L / 0.5L;
  EXPECT_LT(std::fabs(static_cast<long double>(b.breakaways[0]) - t_break), 1e-12L);
  const ModelEntry entry = stick_slip_entry();
  ParameterValues values = entry.default_values();
  values.apply_preset(entry.presets, "on-belt");
  const Reference reference = entry.reference(values, 13);
  ASSERT_EQ(reference.events.size(), 1u);
  EXPECT_EQ(reference.events[0].guard, "breakaway");
  EXPECT_LT(std::fabs(static_cast<long double>(reference.events[0].t) - t_break), 1e-17L);
  std::cout << "[stick-slip " << scalar_name(scalar_kind_of<S>()) << " on-belt] breakaway at t = "
            << static_cast<double>(b.breakaways[0]) << " s, |t - t*| = "
            << static_cast<double>(std::fabs(static_cast<long double>(b.breakaways[0]) - t_break)) << " s\n";
}

// Without the equivalent dynamics (sliding = false) the two static faces chatter across u = 0
// at the minimum step; with it the first stick is one event. min_step = 1e-4 s makes the
// chattering countable: the stick from 0.128 s to 1 s takes thousands of events.
TEST(StickSlipChattering, SlidingRemovesTheChattering) {
  const Model<double> model = oscillator<double>();
  SimulationOptions options = tight(1.0);
  options.min_step = 1e-4;
  const auto with_sliding = testing::collect(model, options);
  options.sliding = false;
  RunResult<double> result;
  const auto chattering = testing::collect(model, options, /*keep_samples=*/true, &result);
  const auto events = [](const testing::Collected<double>& run) {
    return run.rows.empty() ? 0 : run.rows.back().index;
  };
  EXPECT_EQ(events(with_sliding), 1);
  EXPECT_GT(events(chattering), 1000);
  EXPECT_EQ(result.reason, RunReason::kReachedEnd);
  // Chattering or not, the mass stays with the belt on average: x(1) = x_s + v_b (1 - t_s).
  const ClosedForm exact;
  const long double x_end = exact.first_stick_x() + exact.v_b * (1 - exact.stick_start(0));
  EXPECT_LT(std::fabs(static_cast<long double>(result.x[kStickX]) - x_end), 1e-3L);
  std::cout << "[stick-slip] t in (0, 1]: " << events(with_sliding) << " event(s) with sliding, "
            << events(chattering) << " events without (min_step = 1e-4 s), x(1) = " << result.x[kStickX]
            << " (exact " << static_cast<double>(x_end) << ")\n";
}

// The reference against the closed form above: stick starts and breakaways alternate, and each
// is within 1e-15 s of the long double closed form; the states are (x, v_b) with k x = mu_s N
// at each breakaway and x = x_k - delta at each stick start after the first.
TEST(StickSlipReference, MatchesTheLimitCycle) {
  const Reference reference = oscillator_reference(kTenCycles);
  const ClosedForm exact;
  ASSERT_EQ(reference.events.size(), 21u);
  for (std::size_t e = 0; e < reference.events.size(); ++e) {
    const ReferenceEvent& event = reference.events[e];
    const int j = static_cast<int>(e / 2);
    const long double t = static_cast<long double>(event.t);
    const long double x = static_cast<long double>(event.x[kStickX]);
    EXPECT_EQ(static_cast<long double>(event.x[kStickV]), exact.v_b);
    if (e % 2 == 0) {
      EXPECT_EQ(event.guard, "u_zero");
      EXPECT_EQ(event.from, "slip_pos");
      EXPECT_LT(std::fabs(t - exact.stick_start(j)), 1e-15L) << "event " << e;
      const long double x_expected = j == 0 ? exact.first_stick_x() : exact.x_k() - exact.delta();
      EXPECT_LT(std::fabs(x - x_expected), 1e-15L) << "event " << e;
    } else {
      EXPECT_EQ(event.guard, "breakaway");
      EXPECT_EQ(event.to, "slip_pos");
      EXPECT_LT(std::fabs(t - exact.breakaway(j)), 1e-15L) << "event " << e;
      EXPECT_LT(std::fabs(x - exact.mu_s * exact.N / exact.k), 1e-15L) << "event " << e;
    }
  }
  std::cout << "[stick-slip reference] cycle " << static_cast<double>(exact.cycle()) << " s: slip "
            << static_cast<double>(exact.slip()) << " s, stick " << static_cast<double>(exact.stick())
            << " s; first stick at " << static_cast<double>(exact.stick_start(0)) << " s, first breakaway at "
            << static_cast<double>(exact.breakaway(0)) << " s\n";
}

}  // namespace
}  // namespace hysim
