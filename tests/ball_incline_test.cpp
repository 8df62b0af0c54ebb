// The ball on an inclined plane (001, Figs. 1-3; models/ball_incline.hpp) against its closed
// form, computed here in 100-digit arithmetic: the end of slipping, then rolling as the
// engine's Filippov sliding mode with the acceleration F/(m (1 + J0/(m R^2))) and the friction
// F/3.5, and the energy balance (kinetic + potential + work against friction).
#include <gtest/gtest.h>

#include <boost/math/constants/constants.hpp>
#include <boost/multiprecision/cpp_bin_float.hpp>

#include <cmath>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "hysim/models/ball_incline.hpp"
#include "test_support.hpp"

namespace hysim {
namespace {

using Real = boost::multiprecision::cpp_bin_float_100;
using Params = std::vector<std::pair<std::string, std::string>>;

template <class S>
Model<S> ball_model(const Params& params = {}) {
  const ModelEntry entry = ball_incline_entry();
  ParameterValues values = entry.default_values();
  for (const auto& [key, value] : params) values.set(key, value);
  return entry.make<S>(values);
}

// 001's experiment in 100 digits: phi = -20 deg, k = 0.3, m = 1, R = 1.5, J0 = 0.4 m R^2,
// g = 9.81, V0 = 0, omega0 = 20 (the model's defaults), in the header's sign conventions.
struct ClosedForm {
  Real m = 1, R = Real("1.5"), J0, g = Real("9.81"), k = Real("0.3"), omega0 = 20;
  Real F, kN;            // rolling force -m g sin phi, sliding friction k m g cos phi
  Real t_star;           // end of slipping
  Real V_star, omega_star;
  Real a_roll, f_roll;   // rolling acceleration and friction force

  explicit ClosedForm(const Real& k_value = Real("0.3"), const Real& omega0_value = 20) : k(k_value), omega0(omega0_value) {
    const Real phi = Real(-20) * boost::math::constants::pi<Real>() / 180;
    J0 = Real("0.4") * m * R * R;
    F = -m * g * sin(phi);
    kN = k * m * g * cos(phi);
    const Real vs0 = omega0 * R;  // V0 = 0
    const Real sigma = vs0 > 0 ? 1 : -1;
    const Real aV = (F - sigma * kN) / m, aOmega = -sigma * kN * R / J0;
    t_star = -vs0 / (aV + R * aOmega);
    V_star = aV * t_star;
    omega_star = omega0 + aOmega * t_star;
    a_roll = F / (m * (1 + J0 / (m * R * R)));  // 001, Eq. (9): m a = F - F*_f
    f_roll = -F / (1 + m * R * R / J0);          // F_f = -F*_f, up the slope
  }
};

template <class S>
long double rel(const S& value, const Real& exact) {
  return static_cast<long double>(abs((Real(value) - exact) / exact));
}

template <class S>
class BallInclineTest : public ::testing::Test {};
using Scalars = ::testing::Types<double, long double, float128>;
TYPED_TEST_SUITE(BallInclineTest, Scalars);

// 001's experiment: one event, at the end of slipping, within 1e-12 s of t* = -v_s0/(dv_s/dt)
// (= 4.7438 s); the chain is slip_pos -> slip_neg (boundary) -> slip_pos (sliding): both
// fields point into v_s = 0 and the ball rolls. Before it, V and omega are 001's Fig. 3:
// omega R positive and falling, friction negative, V rising slowly.
TYPED_TEST(BallInclineTest, SlipEndsAtTheClosedFormThenRolls) {
  using S = TypeParam;
  const ClosedForm exact;
  SimulationOptions options;
  options.t_end = 10;
  const Model<S> model = ball_model<S>();
  const auto run = testing::collect(model, options);
  ASSERT_GE(run.rows.size(), 2u);
  for (const auto& row : run.rows) EXPECT_EQ(row.index, 1) << "a second event at t = " << static_cast<double>(row.t);
  const auto& first = run.rows[0];
  EXPECT_EQ(first.from, kBallSlipPos);
  EXPECT_EQ(first.to, kBallSlipNeg);
  EXPECT_EQ(first.kind, TransitionClass::kBoundary);
  EXPECT_EQ(run.rows.back().kind, TransitionClass::kSliding);
  const long double dt = static_cast<long double>(abs(Real(first.t) - exact.t_star));
  EXPECT_LT(dt, 1e-12L);
  EXPECT_LT(rel(first.x_pre[kBallV], exact.V_star), 1e-12L);
  EXPECT_LT(rel(first.x_pre[kBallOmega], exact.omega_star), 1e-12L);
  std::cout << "[ball-incline " << scalar_name(scalar_kind_of<S>()) << "] end of slipping t = "
            << format_scalar(first.t) << ", |t - t*| = " << static_cast<double>(dt) << " s; chain:";
  for (const auto& row : run.rows) {
    std::cout << " " << model.modes[static_cast<std::size_t>(row.from)].name << " -> "
              << model.modes[static_cast<std::size_t>(row.to)].name << " (" << transition_class_name(row.kind) << ")";
  }
  std::cout << "\n";
}

// Rolling: the equivalent dynamics give V and omega linear in t, so the slope between the
// state entered at t* and the last step end is exact up to rounding (no fit needed; steps are
// capped at 0.5 s so that the surface is checked at several step ends). It matches
// a = F/(m (1 + J0/(m R^2))) = 2.3966 m/s^2 to 1e-12, and the friction read from the angular
// acceleration, F_f = J0 (d omega/dt)/R, matches -F/3.5 (001, Eq. 9) to 1e-12. The ball stays
// on the surface: |v_s| <= 1e-12 |V| at every step end.
TYPED_TEST(BallInclineTest, RollingAccelerationAndFrictionAreExact) {
  using S = TypeParam;
  const ClosedForm exact;
  SimulationOptions options;
  options.t_end = 10;
  options.max_step = 0.5;
  const Model<S> model = ball_model<S>();
  const auto run = testing::collect(model, options, /*keep_samples=*/true);
  ASSERT_FALSE(run.rows.empty());
  const S t_event = run.rows[0].t;
  std::vector<const typename testing::Collected<S>::Sample*> rolling;  // the last sample at t* is x+
  for (const auto& sample : run.samples) {
    if (sample.t > t_event && rolling.empty() && &sample != &run.samples.front()) rolling.push_back(&sample - 1);
    if (sample.t > t_event) rolling.push_back(&sample);
  }
  ASSERT_GE(rolling.size(), 3u);
  EXPECT_EQ(rolling.front()->t, t_event);
  const auto& a = *rolling.front();
  const auto& b = *rolling.back();
  const Real span = Real(b.t) - Real(a.t);
  ASSERT_GT(span, 1);
  const Real accel = (Real(b.x[kBallV]) - Real(a.x[kBallV])) / span;
  const Real friction = exact.J0 * (Real(b.x[kBallOmega]) - Real(a.x[kBallOmega])) / span / exact.R;
  const Real friction_from_v = exact.m * accel - exact.F;  // m a = F + F_f
  EXPECT_LT(static_cast<long double>(abs(accel / exact.a_roll - 1)), 1e-12L);
  EXPECT_LT(static_cast<long double>(abs(friction / exact.f_roll - 1)), 1e-12L);
  EXPECT_LT(static_cast<long double>(abs(friction_from_v / exact.f_roll - 1)), 1e-12L);
  EXPECT_LT(static_cast<long double>(abs(exact.f_roll * Real("3.5") + exact.F)), 1e-90L);  // F_f = -F/3.5
  long double worst_slip = 0;
  for (const auto* sample : rolling) {
    const S vs = sample->x[kBallV] + sample->x[kBallOmega] * S(1.5);
    worst_slip = std::max(worst_slip, static_cast<long double>(abs(vs / sample->x[kBallV])));
  }
  EXPECT_LT(worst_slip, 1e-12L);
  std::cout << "[ball-incline " << scalar_name(scalar_kind_of<S>()) << "] rolling over [" << static_cast<double>(a.t)
            << ", " << static_cast<double>(b.t) << "] s: a = " << static_cast<double>(accel) << " (rel. error "
            << static_cast<double>(abs(accel / exact.a_roll - 1)) << "), F_f = " << static_cast<double>(friction)
            << " (rel. error " << static_cast<double>(abs(friction / exact.f_roll - 1)) << "), max |v_s/V| "
            << static_cast<double>(worst_slip) << "\n";
}

// The energy balance m V^2/2 + J0 omega^2/2 + m g s sin phi + w = E0 (= 180 J) holds to 1e-9
// relative at every step end and both sides of the event (001 reports 0.001 % at dt = 2 us).
TYPED_TEST(BallInclineTest, EnergyBalanceHolds) {
  using S = TypeParam;
  const ClosedForm exact;
  SimulationOptions options;
  options.t_end = 10;
  const Model<S> model = ball_model<S>();
  const auto run = testing::collect(model, options, /*keep_samples=*/true);
  const Real sin_phi = sin(Real(-20) * boost::math::constants::pi<Real>() / 180);
  const Real E0 = exact.J0 * exact.omega0 * exact.omega0 / 2;
  long double worst = 0;
  for (const auto& sample : run.samples) {
    const Real V(sample.x[kBallV]), omega(sample.x[kBallOmega]), s(sample.x[kBallS]), w(sample.x[kBallW]);
    const Real E = exact.m * V * V / 2 + exact.J0 * omega * omega / 2 + exact.m * exact.g * s * sin_phi + w;
    worst = std::max(worst, static_cast<long double>(abs(E / E0 - 1)));
  }
  EXPECT_LT(worst, 1e-9L);
  const Real w_end(run.samples.back().x[kBallW]);
  EXPECT_LT(static_cast<long double>(abs(w_end / (exact.kN * exact.omega0 * exact.R * exact.t_star / 2) - 1)), 1e-12L);
  std::cout << "[ball-incline " << scalar_name(scalar_kind_of<S>()) << "] energy balance over " << run.samples.size()
            << " samples: max relative error " << static_cast<double>(worst) << "; work against friction "
            << static_cast<double>(w_end) << " J\n";
}

// 001's first case, from rest (omega0 = 0): k N = 2.77 > F/3.5 = 0.96 (predicate (10) false),
// so the chain at t0 finds the sliding cycle and the ball rolls from t = 0 with a = 2.3966.
TEST(BallIncline, FromRestRollsAtOnce) {
  const ClosedForm exact;
  SimulationOptions options;
  options.t_end = 5;
  const Model<double> model = ball_model<double>({{"omega0", "0"}});
  const auto run = testing::collect(model, options, /*keep_samples=*/true);
  ASSERT_FALSE(run.rows.empty());
  EXPECT_EQ(run.rows[0].t, 0.0);
  EXPECT_EQ(run.rows.back().kind, TransitionClass::kSliding);
  const auto& end = run.samples.back();
  EXPECT_LT(rel(end.x[kBallV] / end.t, exact.a_roll), 1e-12L);
  EXPECT_LT(std::fabs(end.x[kBallW]), 1e-12);
  std::cout << "[ball-incline from rest] " << run.rows.size() << " rows at t = 0, V(" << end.t << ") / t = "
            << end.x[kBallV] / end.t << "\n";
}

// Too little friction to roll (k = 0.05: k N (1 + m R^2/J0) = 1.61 < F = 3.36), starting
// with v_s0 = -30: slip_neg ends at t = 30/(dv_s/dt) = 6.0388 s within 1e-12 s, and the
// ball passes into slip_pos as an interior transition; v_s then grows for ever.
TEST(BallIncline, TooLittleFrictionSlipsTheOtherWay) {
  const ClosedForm exact(Real("0.05"), Real(-20));
  SimulationOptions options;
  options.t_end = 10;
  const Model<double> model = ball_model<double>({{"k", "0.05"}, {"omega0", "-20"}});
  EXPECT_EQ(model.initial_mode, kBallSlipNeg);
  const auto run = testing::collect(model, options);
  ASSERT_EQ(run.rows.size(), 1u);
  EXPECT_EQ(run.rows[0].from, kBallSlipNeg);
  EXPECT_EQ(run.rows[0].to, kBallSlipPos);
  EXPECT_EQ(run.rows[0].kind, TransitionClass::kInterior);
  const long double dt = static_cast<long double>(abs(Real(run.rows[0].t) - exact.t_star));
  EXPECT_LT(dt, 1e-12L);
  std::cout << "[ball-incline k = 0.05] slip reverses at t = " << run.rows[0].t << " (closed form "
            << static_cast<double>(exact.t_star) << ", |dt| = " << static_cast<double>(dt) << ")\n";
}

// The catalog's reference (models/ball_incline.cpp) against the closed form of this test.
TEST(BallIncline, ReferenceMatchesTheClosedForm) {
  const ModelEntry entry = ball_incline_entry();
  const ClosedForm exact;
  const Reference reference = entry.reference(entry.default_values(), 10);
  ASSERT_EQ(reference.events.size(), 1u);
  const ReferenceEvent& event = reference.events[0];
  EXPECT_EQ(event.from, "slip_pos");
  EXPECT_EQ(event.guard, "vs_zero");
  EXPECT_LT(static_cast<long double>(abs(Real(event.t) - exact.t_star)), 1e-30L);
  EXPECT_LT(static_cast<long double>(abs(Real(event.x[kBallV]) + Real(event.x[kBallOmega]) * exact.R)), 1e-30L);
  EXPECT_TRUE(entry.reference(entry.default_values(), 4).events.empty());  // t* = 4.74 > 4
}

}  // namespace
}  // namespace hysim
