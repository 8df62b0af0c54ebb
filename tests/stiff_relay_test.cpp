// The stiff relay loop (models/stiff_relay.cpp) against its reference: switching times are
// roots of sums of two exponentials, found by bracketed Newton in 100-digit arithmetic.
// Checked here against the closed form written out again, against a scan of it for an
// earlier crossing with bisection of the first sign change, against the limit eps -> 0, and
// against the engine with the stiff solver rosenbrock4 and with CVODE BDF.
#include <gtest/gtest.h>

#include <boost/multiprecision/cpp_bin_float.hpp>

#include <cmath>
#include <iostream>
#include <string>

#include "hysim/core/errors.hpp"
#include "hysim/peers/peers.hpp"
#include "reference_support.hpp"

namespace hysim {
namespace {

using Real = boost::multiprecision::cpp_bin_float_100;

constexpr double kTEnd = 10.0;
constexpr std::size_t kEventsTo10 = 25;  // the defaults' switches in (0, 10]

// The state of a mode with input u, sigma after it was entered at (y_s, s_s): the plant
// relaxes, y = u + (y_s - u) e^(-sigma/tau); the sensor is the convolution of y with the lag,
// s = u + (y_s - u) tau/(tau - eps) e^(-sigma/tau) + (s_s - u - (y_s - u) tau/(tau - eps)) e^(-sigma/eps).
template <class R>
struct Relax {
  R tau, eps, u, y_s, s_s;
  R y(const R& sigma) const { return u + (y_s - u) * exp(-sigma / tau); }
  R s(const R& sigma) const {
    const R slow = (y_s - u) * tau / (tau - eps);
    return u + slow * exp(-sigma / tau) + (s_s - u - slow) * exp(-sigma / eps);
  }
};

// Each reference event, replayed from the previous one, puts the sensor exactly on the
// threshold of the mode it leaves (high -> low at s = 0.2, low -> high at s = -0.2, in turn)
// and its state is the closed form's there; residuals at float128 rounding.
TEST(StiffRelayReference, EventsAreZerosOfTheClosedForm) {
  const Reference reference = testing::catalog_reference("stiff-relay", kTEnd);
  ASSERT_EQ(reference.events.size(), kEventsTo10);
  const Real tau(1), eps("1e-4");
  Real t_start = 0, y_s = 0, s_s = 0;
  Real worst = 0;
  for (std::size_t k = 0; k < reference.events.size(); ++k) {
    const ReferenceEvent& event = reference.events[k];
    const bool high = k % 2 == 0;
    EXPECT_EQ(event.from, high ? "high" : "low") << k;
    EXPECT_EQ(event.to, high ? "low" : "high") << k;
    EXPECT_EQ(event.guard, high ? "switch_down" : "switch_up") << k;
    ASSERT_EQ(event.x.size(), 2u);
    const Relax<Real> mode{tau, eps, Real(high ? 1 : -1), y_s, s_s};
    const Real sigma = Real(event.t) - t_start;
    EXPECT_GT(sigma, 0);
    const Real on_threshold = abs(mode.s(sigma) - Real(high ? "0.2" : "-0.2"));
    const Real y_residual = abs(mode.y(sigma) - Real(event.x[0]));
    const Real s_residual = abs(mode.s(sigma) - Real(event.x[1]));
    worst = std::max({worst, on_threshold, y_residual, s_residual});
    EXPECT_LT(on_threshold, Real("1e-30")) << "event " << k + 1;
    EXPECT_LT(y_residual, Real("1e-30")) << "event " << k + 1;
    EXPECT_LT(s_residual, Real("1e-30")) << "event " << k + 1;
    t_start = Real(event.t);
    y_s = Real(event.x[0]);
    s_s = Real(event.x[1]);
  }
  std::cout << "[stiff-relay reference] " << reference.events.size()
            << " switches in (0, 10]: max residual " << static_cast<double>(worst) << " (closed form, 100 digits)\n";
}

// Each switch is the FIRST crossing of its mode: the closed form in long double, scanned on a
// grid of 20,000 points from the mode's entry to 1.5 times its reference duration, crosses the
// threshold first in the cell that holds the reference time, and bisecting that cell's sign
// change gives the reference time to 1e-15 s. Independent of the reference's extremum and
// Newton logic; the grid (steps of about 3e-5 s < eps) resolves the sensor's transient.
TEST(StiffRelayReference, ScanAndBisectFindTheSameFirstCrossings) {
  const Reference reference = testing::catalog_reference("stiff-relay", kTEnd);
  ASSERT_EQ(reference.events.size(), kEventsTo10);
  long double t_start = 0, y_s = 0, s_s = 0, worst = 0;
  for (std::size_t k = 0; k < reference.events.size(); ++k) {
    const ReferenceEvent& event = reference.events[k];
    const bool high = k % 2 == 0;
    const Relax<long double> mode{1.0L, 1e-4L, high ? 1.0L : -1.0L, y_s, s_s};
    // d >= 0 where the guard holds.
    const auto d = [&](long double sigma) { return high ? mode.s(sigma) - 0.2L : -0.2L - mode.s(sigma); };
    const long double duration = static_cast<long double>(event.t) - t_start;
    constexpr int kCells = 20000;
    const long double cell = 1.5L * duration / kCells;
    int first = -1;
    for (int i = 1; i <= kCells && first < 0; ++i) {
      if (d(cell * i) >= 0) first = i;
    }
    ASSERT_GT(first, 0) << "event " << k + 1 << ": no crossing within 1.5 durations";
    long double lo = cell * (first - 1), hi = cell * first;
    ASSERT_LT(d(lo), 0);
    for (int i = 0; i < 200 && hi - lo > 0; ++i) {
      const long double mid = lo + (hi - lo) / 2;
      if (mid <= lo || mid >= hi) break;
      (d(mid) >= 0 ? hi : lo) = mid;
    }
    const long double error = std::fabs(t_start + hi - static_cast<long double>(event.t));
    worst = std::max(worst, error);
    EXPECT_LT(error, 1e-15L) << "event " << k + 1;
    t_start = static_cast<long double>(event.t);
    y_s = static_cast<long double>(event.x[0]);
    s_s = static_cast<long double>(event.x[1]);
  }
  std::cout << "[stiff-relay reference] scan and bisect in long double: max |t - t*| = " << static_cast<double>(worst)
            << " s over " << reference.events.size() << " switches\n";
}

// As eps -> 0 the sensor is the plant (s = y) and each half-period has a closed form: from
// y0 = 0 the first switch at tau ln(u_high / (u_high - y_high)) = ln(1/0.8), then every
// half-period tau ln((1 + 0.2) / (1 - 0.2)) = ln 1.5. With eps = 1e-12 the lag shifts each
// switch by about eps: the reference must agree with the limit to 1e-10 s over 10 switches,
// while with the default eps = 1e-4 it differs by more than 1e-5 s (the lag is resolved).
TEST(StiffRelayReference, VanishingLagGivesTheRelayLimit) {
  const Reference fast = testing::catalog_reference("stiff-relay", 5, {{"eps", "1e-12"}});
  const Reference lagged = testing::catalog_reference("stiff-relay", 5);
  ASSERT_GE(fast.events.size(), 10u);
  ASSERT_GE(lagged.events.size(), 10u);
  long double t = std::log(1 / 0.8L);
  long double worst = 0;
  for (std::size_t k = 0; k < 10; ++k) {
    const long double error = std::fabs(static_cast<long double>(fast.events[k].t) - t);
    worst = std::max(worst, error);
    EXPECT_LT(error, 1e-10L) << "switch " << k + 1;
    EXPECT_GT(std::fabs(static_cast<long double>(lagged.events[k].t) - t), 1e-5L) << "switch " << k + 1;
    t += std::log(1.5L);
  }
  std::cout << "[stiff-relay reference eps = 1e-12] 10 switches vs the relay limit: max |dt| = "
            << static_cast<double>(worst) << " s\n";
}

// Every constraint on the parameters is checked, by the model and by the reference, with a
// message that names the model and the parameter.
TEST(StiffRelayReference, RejectsParametersOutsideTheModel) {
  const std::vector<std::pair<std::string, std::string>> bad[] = {
      {{"tau", "0"}},     {{"eps", "0"}},     {{"eps", "1"}},      {{"eps", "-1e-4"}}, {{"u_high", "0.1"}},
      {{"u_low", "-0.1"}}, {{"y_low", "0.3"}}, {{"y0", "0.2"}},    {{"s0", "-0.5"}},   {{"tau", "inf"}},
  };
  const ModelEntry& entry = find_model("stiff-relay");
  for (const auto& params : bad) {
    ParameterValues values = entry.default_values();
    bool rejected_value = false;
    try {
      for (const auto& [key, value] : params) values.set(key, value);
    } catch (const InvalidArgument&) {
      rejected_value = true;  // not a number at all ("inf" may be refused as text)
    }
    if (rejected_value) continue;
    try {
      (void)entry.make<double>(values);
      ADD_FAILURE() << params[0].first << " = " << params[0].second << " accepted by the model";
    } catch (const InvalidArgument& e) {
      EXPECT_TRUE(testing::contains(e.what(), "stiff-relay")) << e.what();
      EXPECT_TRUE(testing::contains(e.what(), params[0].first)) << e.what();
    }
    EXPECT_THROW((void)entry.reference(values, 1.0), InvalidArgument) << params[0].first;
  }
  EXPECT_THROW((void)entry.reference(entry.default_values(), INFINITY), InvalidArgument);
}

// The engine with the stiff solvers and with CVODE BDF at rtol 1e-10 (atol 1e-13) finds the 25
// switches of (0, 10], in order, none spurious, within the bounds below of the reference
// (measured: rosenbrock4 5.4e-11 s, ndf 1.0e-9 s, CVODE BDF 1.3e-9 s).
TEST(StiffRelayEngine, StiffSolversReproduceTheReference) {
  const Model<double> model = testing::catalog_model<double>("stiff-relay");
  const Reference reference = testing::catalog_reference("stiff-relay", kTEnd);
  struct Case {
    const char* solver;
    const char* strategy;
    long double bound;
  };
  for (const Case& c : {Case{"rosenbrock4", "gamma-refine", 2e-10L}, Case{"rosenbrock4", "illinois", 2e-10L},
                        Case{"ndf", "gamma-refine", 2e-9L},
                        Case{"dopri5", "cvode", 5e-9L}}) {
    if (std::string(c.strategy) == "cvode" && !have_cvode_peer()) continue;
    SimulationOptions options;
    options.t_end = kTEnd;
    options.rtol = 1e-10;
    options.atol = 1e-13;
    options.solver = c.solver;
    options.strategy = c.strategy;
    const auto run = testing::collect(model, options);
    const testing::ReferenceErrors errors = testing::compare_with_reference(model, run, reference);
    EXPECT_LT(errors.max_dt, c.bound) << c.solver << " / " << c.strategy;
    std::cout << "[stiff-relay engine] " << c.solver << " / " << c.strategy << ": " << run.rows.size()
              << " events, max |t - t*| = " << static_cast<double>(errors.max_dt)
              << " s, max |x - x*| = " << static_cast<double>(errors.max_dx) << "\n";
  }
}

}  // namespace
}  // namespace hysim
