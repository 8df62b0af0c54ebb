// The falling rod of 003 (Figs. 5-7, models/falling_rod.hpp): the impact time against the
// closed form, the classes of the modes at the impact (Fig. 6: a1 mythical, a2 interior;
// Fig. 7: a1 mythical, a2 boundary, back to a0), 003's mu = 0 argument (vx stays 0), energy
// at events, the impulses against a hand computation, and the constrained dynamics of a1 and
// a2 against their constraints and the friction power.
#include <gtest/gtest.h>

#include <boost/multiprecision/cpp_bin_float.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "hysim/models/catalog.hpp"
#include "hysim/models/falling_rod.hpp"
#include "test_support.hpp"

namespace hysim {
namespace {

using Real = boost::multiprecision::cpp_bin_float_100;
using Overrides = std::vector<std::pair<std::string, std::string>>;

// The model's parameters as its entry builds them: defaults, a preset, then overrides.
ParameterValues rod_values(const std::string& preset, const Overrides& overrides = {}) {
  const ModelEntry entry = falling_rod_entry();
  ParameterValues values = entry.default_values();
  values.apply_preset(entry.presets, preset);
  for (const auto& [name, text] : overrides) values.set(name, text);
  return values;
}

// A run of the rod, built without the catalog.
template <class S>
struct RodRun {
  Model<S> model;
  testing::Collected<S> run;
  RunResult<S> result;
};

// max_step > 0 bounds the steps, for samples along a free flight (which dopri5 integrates
// exactly, so that it takes one step from the lift-off to the end).
template <class S>
RodRun<S> run_rod(const std::string& preset, double t_end, const Overrides& overrides = {}, double max_step = 0) {
  RodRun<S> out{make_falling_rod<S>(rod_values(preset, overrides)), {}, {}};
  SimulationOptions options;
  options.t_end = t_end;
  options.max_step = max_step;
  out.run = testing::collect(out.model, options, /*keep_samples=*/true, &out.result);
  return out;
}

// The first impact: y_A = y0 + l sin theta0 - g t^2/2 = 0 in free fall from rest.
Real impact_time(const char* y0, const char* l) {
  return sqrt(2 * (Real(y0) + Real(l) * sin(Real("0.862"))) / Real("9.81"));
}

template <class S>
std::string describe(const Model<S>& model, const typename testing::Collected<S>::Row& row) {
  return std::to_string(row.index) + " t = " + format_scalar(row.t) + " " + model.modes[static_cast<std::size_t>(row.from)].name +
         " -[" + row.guard + "]-> " + model.modes[static_cast<std::size_t>(row.to)].name + " " + transition_class_name(row.kind);
}

template <class S>
void print_rows(const char* label, const RodRun<S>& r) {
  for (const auto& row : r.run.rows) std::cout << "[falling-rod " << label << "] " << describe(r.model, row) << "\n";
}

template <class S>
class FallingRodTest : public ::testing::Test {};
using Scalars = ::testing::Types<double, long double, float128>;
TYPED_TEST_SUITE(FallingRodTest, Scalars);

// Fig. 6: the impact at t1 = sqrt(2 (0.23 - 0.1 sin 0.862)/g) (y_A is a parabola, which
// dopri5 integrates exactly) within 1e-12 s; there a0 -> a1 is mythical (|P_x| > mu P_y for
// the stuck impulse) and a1 -> a2 interior (F_n > 0 after the sliding impulse); the rod then
// slides until it lies flat, without sticking (a1's force leaves the cone when the slip
// reverses).
TYPED_TEST(FallingRodTest, Fig6ImpactTimeAndClasses) {
  using S = TypeParam;
  const auto r = run_rod<S>("fig6", 1.0);
  print_rows(scalar_name(scalar_kind_of<S>()).data(), r);
  ASSERT_GE(r.run.rows.size(), 3u);
  const auto& rows = r.run.rows;
  const Real t1 = impact_time("0.23", "-0.1");
  const Real error = abs(Real(rows[0].t) - t1);
  std::cout << "[falling-rod fig6 " << scalar_name(scalar_kind_of<S>()) << "] impact at t = " << format_scalar(rows[0].t)
            << ", closed form " << t1.str(20) << ", |error| = " << static_cast<double>(error) << " s\n";
  EXPECT_LT(error, Real("1e-12"));

  EXPECT_EQ(rows[0].from, kRodFree);
  EXPECT_EQ(rows[0].to, kRodStuck);
  EXPECT_EQ(rows[0].guard, "contact");
  EXPECT_EQ(rows[0].kind, TransitionClass::kMythical);
  EXPECT_EQ(rows[1].from, kRodStuck);
  EXPECT_EQ(rows[1].to, kRodSliding);
  EXPECT_EQ(rows[1].guard, "slip");
  EXPECT_EQ(rows[1].kind, TransitionClass::kInterior);
  EXPECT_EQ(rows[1].t, rows[0].t);

  // After the impact: no row enters a1 again, and the last one lays the rod flat.
  for (std::size_t k = 2; k < rows.size(); ++k) EXPECT_NE(rows[k].to, kRodStuck) << describe(r.model, rows[k]);
  EXPECT_EQ(rows.back().to, kRodFlat);
  EXPECT_EQ(rows.back().kind, TransitionClass::kInterior);
  EXPECT_EQ(r.result.mode, kRodFlat);
  EXPECT_EQ(r.result.x[kRodVx], S(0));
  EXPECT_EQ(r.result.x[kRodOmega], S(0));
}

// Fig. 7 (l = -10, mu = 0.5): at the impact a1 is mythical, a2 a boundary (its normal
// impulse is positive, so it is entered, but its normal force F_n < 0 at once) and the chain
// ends in a0: the rod lifts off at the same t, with v_Ay = 0, and flies on (y_A > 0) until
// its far end B reaches the floor, at the time the closed-form flight gives.
TYPED_TEST(FallingRodTest, Fig7BoundaryLiftsOff) {
  using S = TypeParam;
  const auto r = run_rod<S>("fig7", 3.0, {}, 0.01);
  print_rows(scalar_name(scalar_kind_of<S>()).data(), r);
  ASSERT_GE(r.run.rows.size(), 3u);
  const auto& rows = r.run.rows;
  const Real t1 = impact_time("23", "-10");
  const Real error = abs(Real(rows[0].t) - t1);
  std::cout << "[falling-rod fig7 " << scalar_name(scalar_kind_of<S>()) << "] impact at t = " << format_scalar(rows[0].t)
            << ", closed form " << t1.str(20) << ", |error| = " << static_cast<double>(error) << " s\n";
  EXPECT_LT(error, Real("1e-12"));

  EXPECT_EQ(rows[0].to, kRodStuck);
  EXPECT_EQ(rows[0].kind, TransitionClass::kMythical);
  EXPECT_EQ(rows[1].to, kRodSliding);
  EXPECT_EQ(rows[1].guard, "slip");
  EXPECT_EQ(rows[1].kind, TransitionClass::kBoundary);
  EXPECT_EQ(rows[2].from, kRodSliding);
  EXPECT_EQ(rows[2].to, kRodFree);
  EXPECT_EQ(rows[2].guard, "lift");
  EXPECT_EQ(rows[2].kind, TransitionClass::kInterior);
  EXPECT_EQ(rows[2].t, rows[0].t);

  const Rod<S> rod = Rod<S>::from(rod_values("fig7"));
  EXPECT_EQ(rod.contact_velocity(rows[2].x_post.data()).y, S(0));
  EXPECT_LT(rod.sliding_force(rows[1].x_post.data()).y, S(0));
  // Every sample of the flight after the impact has A above the floor; the flight ends when
  // the far end B reaches the floor (contact at B is outside the model).
  int after = 0;
  for (const auto& sample : r.run.samples) {
    if (!(sample.t > rows[0].t) || sample.mode != kRodFree) continue;
    ++after;
    EXPECT_GT(rod.contact_point(sample.x.data()).y, S(0)) << "t = " << format_scalar(sample.t);
  }
  EXPECT_GT(after, 10);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[3].to, kRodFarEnd);
  EXPECT_EQ(r.result.mode, kRodFarEnd);

  // The flight after the lift-off in closed form from the row's x+ (y quadratic, theta linear
  // in tau): the far end reaches the floor at the root of y_B(tau) = y + vy tau - g tau^2/2
  // - l sin(theta + omega tau), found by Newton in 100 digits; the engine's time within 1e-12 s.
  const auto& lift = rows[2].x_post;
  const Real y(lift[kRodY]), vy(lift[kRodVy]), th(lift[kRodTheta]), w(lift[kRodOmega]), l("-10"), g("9.81");
  Real tau = Real(rows[3].t) - Real(rows[2].t);
  for (int i = 0; i < 50; ++i) {
    const Real f = y + vy * tau - g * tau * tau / 2 - l * sin(th + w * tau);
    const Real df = vy - g * tau - l * w * cos(th + w * tau);
    tau -= f / df;
  }
  const Real far_error = abs(Real(rows[3].t) - (Real(rows[2].t) + tau));
  std::cout << "[falling-rod fig7 " << scalar_name(scalar_kind_of<S>()) << "] far end on the floor at t = "
            << format_scalar(rows[3].t) << ", closed form from the lift-off state: |error| = " << static_cast<double>(far_error)
            << " s\n";
  EXPECT_LT(far_error, Real("1e-12"));
}

// 003's argument for invariance of state, mu = 0: the mythical a1 would give the centre
// vx = l omega+ sin theta != 0, but the rod only ever feels vertical forces, and vx stays 0
// (to 1e-14) in every sample and every committed state of the run.
TEST(FallingRod, FrictionlessKeepsVxZero) {
  const auto r = run_rod<double>("fig6", 1.0, {{"mu", "0"}});
  print_rows("mu = 0", r);
  ASSERT_GE(r.run.rows.size(), 2u);
  const auto& myth = r.run.rows[0];
  ASSERT_EQ(myth.kind, TransitionClass::kMythical);
  // The state a1 would have mandated: its reset (the contact transition) applied to x-.
  std::vector<double> stuck = myth.x_pre;
  r.model.modes[kRodFree].transitions[0].reset(myth.t, myth.x_pre.data(), stuck.data());
  const double theta = myth.x_pre[kRodTheta];
  EXPECT_NEAR(stuck[kRodVx], -0.1 * stuck[kRodOmega] * std::sin(theta), 1e-15);
  EXPECT_GT(std::fabs(stuck[kRodVx]), 0.01);

  double worst = 0;
  for (const auto& s : r.run.samples) worst = std::max(worst, std::fabs(s.x[kRodVx]));
  for (const auto& row : r.run.rows) {
    if (row.kind == TransitionClass::kMythical) continue;  // a tentative state, never committed
    worst = std::max({worst, std::fabs(row.x_pre[kRodVx]), std::fabs(row.x_post[kRodVx])});
  }
  std::cout << "[falling-rod mu = 0] " << r.run.samples.size() << " samples, max |vx| = " << worst
            << " (mythical a1 would give vx = " << stuck[kRodVx] << ")\n";
  EXPECT_LE(worst, 1e-14);
  EXPECT_EQ(r.result.mode, kRodFlat);
}

// No event increases the energy E = m |v|^2/2 + J omega^2/2 + m g y: every row (also the
// tentative state of a mythical mode) has E(x+) <= E(x-) up to rounding of E itself.
TEST(FallingRod, EnergyNeverIncreasesAtEvents) {
  struct Case {
    const char* label;
    const char* preset;
    double t_end;
    Overrides overrides;
  };
  for (const Case& c : {Case{"fig6", "fig6", 1.0, {}}, Case{"fig7", "fig7", 3.0, {}}, Case{"mu = 0", "fig6", 1.0, {{"mu", "0"}}}}) {
    const auto r = run_rod<double>(c.preset, c.t_end, c.overrides);
    const Rod<double> rod = Rod<double>::from(rod_values(c.preset, c.overrides));
    double largest_rise = -1e300, largest_drop = 0;
    for (const auto& row : r.run.rows) {
      const double before = rod.energy(row.x_pre.data());
      const double after = rod.energy(row.x_post.data());
      largest_rise = std::max(largest_rise, after - before);
      largest_drop = std::max(largest_drop, before - after);
      EXPECT_LE(after - before, 4e-16 * std::max(1.0, std::fabs(before))) << c.label << ": " << describe(r.model, row);
    }
    std::cout << "[falling-rod " << c.label << "] " << r.run.rows.size() << " rows: largest E+ - E- = " << largest_rise
              << " J, largest loss " << largest_drop << " J\n";
  }
}

// The impulses at the impact against a hand computation in 100 digits from the row's x-.
//  a1: v_A+ = 0 and angular momentum about A conserved (the impulse acts at A):
//      omega+ = (J omega + m l (sin th vx - cos th vy)) / (J + m l^2), vx+ = l sin th omega+,
//      vy+ = -l cos th omega+.
//  a2: P = P_n (mu s, 1), s = sign(m (vx+ - vx)) of a1, and vy+ + l cos th omega+ = 0 with
//      vy+ = vy + P_n/m, omega+ = omega + P_n l (cos th - mu s sin th)/J, so
//      P_n = -(vy + l cos th omega) / (1/m + l^2 cos th (cos th - mu s sin th)/J).
TEST(FallingRod, ImpulsesMatchHandComputation) {
  for (const char* preset : {"fig6", "fig7"}) {
    const auto r = run_rod<double>(preset, preset == std::string("fig6") ? 1.0 : 3.0);
    ASSERT_GE(r.run.rows.size(), 2u);
    const ParameterValues values = rod_values(preset);
    const Real m(values.text("m")), J(values.text("J")), l(values.text("l")), mu(values.text("mu"));
    const auto& myth = r.run.rows[0];
    const auto& slide = r.run.rows[1];
    ASSERT_EQ(myth.kind, TransitionClass::kMythical);
    // a1's tentative state: its reset applied to x- (a mythical row leaves no trace on the state).
    std::vector<double> stuck_post = myth.x_pre;
    r.model.modes[kRodFree].transitions[0].reset(myth.t, myth.x_pre.data(), stuck_post.data());
    const Real th(myth.x_pre[kRodTheta]), vx(myth.x_pre[kRodVx]), vy(myth.x_pre[kRodVy]), w(myth.x_pre[kRodOmega]);
    const Real s = sin(th), c = cos(th);

    const Real w1 = (J * w + m * l * (s * vx - c * vy)) / (J + m * l * l);
    const Real vx1 = l * s * w1, vy1 = -l * c * w1;
    const Real sign = m * (vx1 - vx) > 0 ? 1 : -1;
    const Real pn = -(vy + l * c * w) / (1 / m + l * l * c * (c - mu * sign * s) / J);
    const Real vx2 = vx + mu * sign * pn / m, vy2 = vy + pn / m, w2 = w + pn * l * (c - mu * sign * s) / J;

    auto rel = [](double got, const Real& want) { return static_cast<double>(abs(Real(got) - want) / std::max(Real(1), abs(want))); };
    const double e1 = std::max({rel(stuck_post[kRodVx], vx1), rel(stuck_post[kRodVy], vy1), rel(stuck_post[kRodOmega], w1)});
    const double e2 = std::max({rel(slide.x_post[kRodVx], vx2), rel(slide.x_post[kRodVy], vy2), rel(slide.x_post[kRodOmega], w2)});
    std::cout << "[falling-rod " << preset << "] a1 impulse P = (" << static_cast<double>(m * (vx1 - vx)) << ", "
              << static_cast<double>(m * (vy1 - vy)) << "), a2 impulse P = (" << static_cast<double>(mu * sign * pn) << ", "
              << static_cast<double>(pn) << "); max relative deviation of x+ from the hand computation: a1 " << e1
              << ", a2 " << e2 << "\n";
    EXPECT_LT(e1, 1e-13);
    EXPECT_LT(e2, 1e-13);
    // The positions do not jump.
    for (std::size_t i : {kRodX, kRodY, kRodTheta}) {
      EXPECT_EQ(stuck_post[i], myth.x_pre[i]);
      EXPECT_EQ(slide.x_post[i], slide.x_pre[i]);
    }
    // Invariance of state: a2's reset starts from a0's x-, not from a1's x+.
    EXPECT_EQ(slide.x_pre, myth.x_pre);
  }
}

// With mu = 0.1 the stuck impulse lies in the friction cone (|P_x| <= mu P_y), so a1 is
// entered for real (interior) and the rod pivots about A: the pinned contact does no work,
// so E is constant along a1 (to the integrator's tolerance), until the rod slides or lies flat.
TEST(FallingRod, StuckImpulseInTheConeIsInterior) {
  const auto r = run_rod<double>("fig6", 1.0, {{"mu", "0.1"}}, 0.01);
  print_rows("mu = 0.1", r);
  ASSERT_GE(r.run.rows.size(), 2u);
  const auto& rows = r.run.rows;
  EXPECT_EQ(rows[0].to, kRodStuck);
  EXPECT_EQ(rows[0].kind, TransitionClass::kInterior);
  const Rod<double> rod = Rod<double>::from(rod_values("fig6", {{"mu", "0.1"}}));
  const auto p = rod.stuck_impulse(rows[0].x_pre.data());
  EXPECT_LE(std::fabs(p.x), rod.mu * p.y);
  const double e0 = rod.energy(rows[0].x_post.data());
  double drift = 0;
  for (const auto& sample : r.run.samples) {
    if (sample.mode == kRodStuck) drift = std::max(drift, std::fabs(rod.energy(sample.x.data()) - e0));
  }
  std::cout << "[falling-rod mu = 0.1] a1 from t = " << rows[0].t << ": max |E - E(t1)| = " << drift << " J\n";
  EXPECT_LT(drift, 1e-6);
}

// Sticking and slipping again (mu = 0.045): the rod slides after the impact; the slip decays
// to v_th while a1's force lies in the cone, so a2 -> a1 (stick) is interior; a1 lasts until
// |F_x| = mu F_n, then a1 -> a2 (slip) is interior; the rod lies flat in a2. The stick row has
// |v_Ax| = v_th and the slip row |F_x| = mu F_n, each to the location's accuracy; A stays put
// in a1 up to the creep slower than v_th.
TEST(FallingRod, SticksAndSlipsAgain) {
  const auto r = run_rod<double>("fig6", 1.0, {{"mu", "0.045"}}, 0.01);
  print_rows("mu = 0.045", r);
  const auto& rows = r.run.rows;
  ASSERT_EQ(rows.size(), 5u);
  const Rod<double> rod = Rod<double>::from(rod_values("fig6", {{"mu", "0.045"}}));
  EXPECT_EQ(rows[0].kind, TransitionClass::kMythical);
  EXPECT_EQ(rows[1].to, kRodSliding);
  EXPECT_EQ(rows[1].kind, TransitionClass::kInterior);
  EXPECT_EQ(rows[2].guard, "stick");
  EXPECT_EQ(rows[2].to, kRodStuck);
  EXPECT_EQ(rows[2].kind, TransitionClass::kInterior);
  EXPECT_EQ(rows[3].guard, "slip");
  EXPECT_EQ(rows[3].to, kRodSliding);
  EXPECT_EQ(rows[3].kind, TransitionClass::kInterior);
  EXPECT_EQ(rows[4].to, kRodFlat);

  const double slip = std::fabs(rod.contact_velocity(rows[2].x_pre.data()).x);
  const auto f_stick = rod.stuck_force(rows[2].x_pre.data());
  const auto f_slip = rod.stuck_force(rows[3].x_pre.data());
  EXPECT_NEAR(slip, rod.v_th, 1e-12);
  EXPECT_LE(std::fabs(f_stick.x), rod.mu * f_stick.y);
  EXPECT_NEAR(std::fabs(f_slip.x), rod.mu * f_slip.y, 1e-9);
  double x_min = 1e300, x_max = -1e300;
  for (const auto& sample : r.run.samples) {
    if (sample.mode != kRodStuck) continue;
    x_min = std::min(x_min, rod.contact_point(sample.x.data()).x);
    x_max = std::max(x_max, rod.contact_point(sample.x.data()).x);
  }
  const double stuck_for = static_cast<double>(rows[3].t - rows[2].t);
  std::cout << "[falling-rod mu = 0.045] stuck for " << stuck_for << " s; A moved " << x_max - x_min
            << " m (creep bound v_th T = " << rod.v_th * stuck_for << " m)\n";
  EXPECT_LE(x_max - x_min, rod.v_th * stuck_for * (1 + 1e-3));
}

// An impact that almost sticks (mu = 0.046, just below the stuck impulse's ratio
// P_x/P_y = 0.0467): a1 is mythical, the sliding impulse leaves a slip below v_th with a1's
// force inside the cone, so a2 is a boundary and the chain arrives in a1 (interior), all at
// the impact time.
TEST(FallingRod, AlmostStuckImpactSticksAtOnce) {
  const auto r = run_rod<double>("fig6", 1.0, {{"mu", "0.046"}});
  print_rows("mu = 0.046", r);
  const auto& rows = r.run.rows;
  ASSERT_GE(rows.size(), 3u);
  EXPECT_EQ(rows[0].to, kRodStuck);
  EXPECT_EQ(rows[0].kind, TransitionClass::kMythical);
  EXPECT_EQ(rows[1].to, kRodSliding);
  EXPECT_EQ(rows[1].kind, TransitionClass::kBoundary);
  EXPECT_EQ(rows[2].to, kRodStuck);
  EXPECT_EQ(rows[2].guard, "stick");
  EXPECT_EQ(rows[2].kind, TransitionClass::kInterior);
  EXPECT_EQ(rows[2].t, rows[0].t);
}

// Fig. 6 after the impact: the slip v_Ax decays, passes through 0 and reverses (at t = 0.528 s)
// without a stick, since a1's force is then far outside the cone (|F_x| >> mu F_n); the
// friction force reverses with the slip, and no row is recorded there.
TEST(FallingRod, Fig6SlipReversesWithoutSticking) {
  const auto r = run_rod<double>("fig6", 1.0, {}, 0.005);
  const Rod<double> rod = Rod<double>::from(rod_values("fig6"));
  bool negative = false, positive_after = false;
  double reversal = 0;
  for (const auto& sample : r.run.samples) {
    if (sample.mode != kRodSliding) continue;
    const double v = rod.contact_velocity(sample.x.data()).x;
    if (v < -rod.v_th) negative = true;
    if (negative && !positive_after && v > rod.v_th) {
      positive_after = true;
      reversal = sample.t;
      const auto f = rod.stuck_force(sample.x.data());
      EXPECT_GT(std::fabs(f.x), 10 * rod.mu * f.y);
    }
  }
  EXPECT_TRUE(negative);
  EXPECT_TRUE(positive_after);
  std::cout << "[falling-rod fig6] the slip is reversed by t = " << reversal << " s\n";
  EXPECT_EQ(r.run.rows.size(), 3u);
}

// The constrained dynamics, checked on the field values at states on and off the presets'
// paths (theta, omega, slip both ways):
//  a1: the acceleration of A, a_A = (dvx - l s domega - l c omega^2, dvy + l c domega - l s omega^2), is 0;
//      the energy rate is F . v_A = 0 for v_A = 0.
//  a2: a_Ay = 0, F = m (dvx, dvy + g) has F_x = -mu sign(v_Ax) F_n, the torque
//      J domega = l c F_y - l s F_x, and dE/dt = -mu F_n |v_Ax| (the friction power).
TEST(FallingRod, ConstrainedDynamicsMeetTheirConstraints) {
  const ParameterValues values = rod_values("fig7", {{"l", "-0.7"}});
  const Model<double> model = make_falling_rod<double>(values);
  const Rod<double> rod = Rod<double>::from(values);
  const double m = rod.m, J = rod.J, g = rod.g, l = rod.l, mu = rod.mu;
  double worst_a1 = 0, worst_a2 = 0, worst_power = 0;
  for (double theta : {0.05, 0.4, 0.862, 1.3}) {
    for (double omega : {-2.5, -0.3, 0.0, 1.7}) {
      for (double slip : {-0.8, 0.35}) {
        const double s = std::sin(theta), c = std::cos(theta);
        // A on the floor with v_Ay = 0 and v_Ax = slip: y = -l s, vy = -l c omega, vx = slip + l s omega.
        std::vector<double> q = {0.3, -l * s, theta, slip + l * s * omega, -l * c * omega, omega};
        std::vector<double> dq(kRodStateSize);
        const double energy_rate_base = g * q[kRodVy] * m;

        // a1, with A pinned (vx = l s omega).
        std::vector<double> pinned = q;
        pinned[kRodVx] = l * s * omega;
        model.modes[kRodStuck].field(0.0, pinned.data(), dq.data());
        const double ax = dq[kRodVx] - l * s * dq[kRodOmega] - l * c * omega * omega;
        const double ay = dq[kRodVy] + l * c * dq[kRodOmega] - l * s * omega * omega;
        const double rate1 = m * (pinned[kRodVx] * dq[kRodVx] + pinned[kRodVy] * dq[kRodVy]) + J * omega * dq[kRodOmega] + energy_rate_base;
        worst_a1 = std::max({worst_a1, std::fabs(ax), std::fabs(ay), std::fabs(rate1)});

        // a2.
        model.modes[kRodSliding].field(0.0, q.data(), dq.data());
        const double a_ay = dq[kRodVy] + l * c * dq[kRodOmega] - l * s * omega * omega;
        const double fx = m * dq[kRodVx], fn = m * (dq[kRodVy] + g);
        const double torque = J * dq[kRodOmega] - (l * c * fn - l * s * fx);
        const double friction = fx + mu * (slip > 0 ? 1 : -1) * fn;
        const double rate2 = m * (q[kRodVx] * dq[kRodVx] + q[kRodVy] * dq[kRodVy]) + J * omega * dq[kRodOmega] + energy_rate_base;
        const double power = -mu * fn * std::fabs(slip);
        worst_a2 = std::max({worst_a2, std::fabs(a_ay), std::fabs(torque), std::fabs(friction)});
        worst_power = std::max(worst_power, std::fabs(rate2 - power) / std::max(1.0, std::fabs(power)));
        EXPECT_NEAR(fn, rod.sliding_force(q.data()).y, 1e-12 * std::fabs(fn));
      }
    }
  }
  std::cout << "[falling-rod dynamics] a1: max |a_A|, |dE/dt| = " << worst_a1 << "; a2: max |a_Ay|, torque and friction residuals = "
            << worst_a2 << ", max |dE/dt - friction power| (relative) = " << worst_power << "\n";
  EXPECT_LT(worst_a1, 1e-12);
  EXPECT_LT(worst_a2, 1e-12);
  EXPECT_LT(worst_power, 1e-13);
}

// The resets leave A exactly on its constraint: after the stuck impulse v_A = (0, 0), after
// the sliding impulse v_Ay = 0, bit for bit; the stick guard's slip atom carries the exact rate.
TEST(FallingRod, ResetsMeetTheConstraintExactly) {
  const ParameterValues values = rod_values("fig6");
  const Model<double> model = make_falling_rod<double>(values);
  const Rod<double> rod = Rod<double>::from(values);
  const std::vector<double> q = {0.0, 0.0759146, 0.862, 0.13, -1.7387, 0.4};
  std::vector<double> plus = q;
  model.modes[kRodFree].transitions[0].reset(0.0, q.data(), plus.data());  // contact: into a1
  EXPECT_EQ(rod.contact_velocity(plus.data()).x, 0.0);
  EXPECT_EQ(rod.contact_velocity(plus.data()).y, 0.0);
  plus = q;
  model.modes[kRodStuck].transitions[0].reset(0.0, q.data(), plus.data());  // slip: into a2
  EXPECT_EQ(rod.contact_velocity(plus.data()).y, 0.0);
  // Friction opposes the slip: the tangential impulse and the slip after it have opposite signs.
  EXPECT_LT(rod.contact_velocity(plus.data()).x * rod.sliding_impulse(q.data()).x, 0.0);
}

}  // namespace
}  // namespace hysim
