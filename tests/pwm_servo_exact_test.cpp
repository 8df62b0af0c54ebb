// Tests of the exact PWM servo reference (models/pwm_servo_exact.hpp; 004, Eqs. 4-9).
//
// Every check is against something the reference does not compute itself: closed forms of the
// first events, the sawtooth period, the guard equalities, the exact flow of each mode, the
// paper's predicates evaluated directly, and an independent scan-and-bisect simulation.
#include "hysim/models/pwm_servo_exact.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <iostream>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "hysim/core/errors.hpp"

namespace {

using hysim::reference::PwmServoExactEvent;
using hysim::reference::PwmServoParameters;
using hysim::reference::pwm_servo_exact_events;
using hysim::reference::pwm_servo_mode_name;
using hysim::reference::pwm_servo_x;
using hysim::reference::Real;

constexpr int kS1 = 0;
constexpr int kS2 = 1;
constexpr int kS3 = 2;

Real tol(const char* text) { return Real(text); }

// The events over [0, 20] s, computed once for the whole suite.
const std::vector<PwmServoExactEvent>& events_to_20() {
  static const std::vector<PwmServoExactEvent> events =
      pwm_servo_exact_events(PwmServoParameters{}, Real(20));
  return events;
}

int mode_f(int mode) { return mode == kS1 ? 1 : (mode == kS2 ? -1 : 0); }

// Exact flow of mode `mode` for a time tau from (omega0, phi0, saw0): written out here from the
// ODE (d omega/dt = k_w f, d phi/dt = omega, d saw/dt = 1), not taken from the reference.
struct State {
  Real omega, phi, saw;
};
State flow(const PwmServoParameters& p, int mode, const State& s0, const Real& tau) {
  const int f = mode_f(mode);
  return {s0.omega + p.k_w * f * tau, s0.phi + s0.omega * tau + p.k_w * f * tau * tau / 2,
          s0.saw + tau};
}

// x = u(t) - k omega - phi with the setpoint u(t) = u + u_amp sin(u_freq t) (Eq. 5), written
// here directly (the sine skipped for a constant setpoint: it would only add 0).
Real x_of(const PwmServoParameters& p, const Real& t, const State& s) {
  if (p.u_amp == 0) return p.u - p.k * s.omega - s.phi;
  return p.u + p.u_amp * sin(p.u_freq * t) - p.k * s.omega - s.phi;
}

// The paper's predicates (004, Eq. 9), written directly on the state at time t.
bool p1(const PwmServoParameters& p, const Real& t, const State& s) {
  const Real x = x_of(p, t, s);
  return x >= 0 && s.saw - p.kp * x <= 0;
}
bool p2(const PwmServoParameters& p, const Real& t, const State& s) {
  const Real x = x_of(p, t, s);
  return x < 0 && s.saw + p.kp * x <= 0;
}
bool p3(const PwmServoParameters& p, const Real& t, const State& s) {
  const Real x = x_of(p, t, s);
  return p.kp * abs(x) - s.saw < 0;
}

// The guard of mode `mode` that holds at (t, s), in the transition order of the model
// (saw_reset is timed and handled by the caller); nullopt if none does.
std::optional<std::pair<std::string, int>> fired_guard(const PwmServoParameters& p, int mode,
                                                       const Real& t, const State& s) {
  switch (mode) {
    case kS1:
      if (p3(p, t, s)) return std::make_pair(std::string("p3"), kS3);
      if (p2(p, t, s)) return std::make_pair(std::string("p2"), kS2);
      return std::nullopt;
    case kS2:
      if (p3(p, t, s)) return std::make_pair(std::string("p3"), kS3);
      if (p1(p, t, s)) return std::make_pair(std::string("p1"), kS1);
      return std::nullopt;
    default:
      if (p1(p, t, s)) return std::make_pair(std::string("p1"), kS1);
      if (p2(p, t, s)) return std::make_pair(std::string("p2"), kS2);
      return std::nullopt;
  }
}

// The state the engine is in just after event i (the start of the next mode).
State post_state(const PwmServoExactEvent& e) { return {e.omega, e.phi, e.saw_after}; }

// The mode and state before event i: the initial condition for i = 0.
int mode_before(const std::vector<PwmServoExactEvent>& ev, std::size_t i) {
  return i == 0 ? kS1 : ev[i - 1].to;
}
State state_before(const std::vector<PwmServoExactEvent>& ev, std::size_t i) {
  return i == 0 ? State{0, 0, 0} : post_state(ev[i - 1]);
}
Real time_before(const std::vector<PwmServoExactEvent>& ev, std::size_t i) {
  return i == 0 ? Real(0) : ev[i - 1].t;
}

// Shows that the first event is s1 -> s3 by p3 at the closed form t1 = (sqrt(6) - 2) / 10 (the
// root of kp*(1 - 10 t - 50 t^2) = t), with omega = 100 t1 and phi = 50 t1^2, to 90 digits.
TEST(PwmServoExact, FirstEventMatchesClosedForm) {
  const auto& ev = events_to_20();
  ASSERT_FALSE(ev.empty());
  const Real t1 = (sqrt(Real(6)) - 2) / 10;
  EXPECT_LT(abs(ev[0].t - t1), tol("1e-90")) << ev[0].t.str(100);
  EXPECT_EQ(ev[0].from, kS1);
  EXPECT_EQ(ev[0].to, kS3);
  EXPECT_EQ(ev[0].guard, "p3");
  EXPECT_LT(abs(ev[0].omega - 100 * t1), tol("1e-90"));
  EXPECT_LT(abs(ev[0].phi - 50 * t1 * t1), tol("1e-90"));
  EXPECT_LT(abs(ev[0].saw - t1), tol("1e-90"));
  EXPECT_LT(abs(ev[0].saw_after - t1), tol("1e-90"));
  // 20-digit spot check of the decimal value quoted in the brief.
  EXPECT_LT(abs(ev[0].t - Real("0.044948974278317809819728407470589139196")), tol("1e-38"));
}

// Shows that the second event is the saw reset s3 -> s1 at t2 = 0.1, with omega frozen at
// 100 t1 during s3, phi = 50 t1^2 + 100 t1 (0.1 - t1), saw = 0.1 before and 0 after, x > 0.
TEST(PwmServoExact, SecondEventIsSawResetAtOneTenth) {
  const auto& ev = events_to_20();
  ASSERT_GE(ev.size(), 2u);
  const PwmServoParameters p;
  const Real t1 = (sqrt(Real(6)) - 2) / 10;
  const Real tenth("0.1");
  EXPECT_LT(abs(ev[1].t - tenth), tol("1e-95")) << ev[1].t.str(100);
  EXPECT_EQ(ev[1].from, kS3);
  EXPECT_EQ(ev[1].to, kS1);
  EXPECT_EQ(ev[1].guard, "saw_reset");
  EXPECT_LT(abs(ev[1].omega - 100 * t1), tol("1e-90"));
  const Real phi2 = 50 * t1 * t1 + 100 * t1 * (tenth - t1);
  EXPECT_LT(abs(ev[1].phi - phi2), tol("1e-90"));
  EXPECT_LT(abs(ev[1].saw - tenth), tol("1e-95"));
  EXPECT_EQ(ev[1].saw_after, 0);
  EXPECT_GT(pwm_servo_x(p, ev[1].omega, ev[1].phi), 0);
}

// Shows that the saw resets are exactly the multiples of the period: the n-th reset falls at
// t = 0.1 n to 90 digits, for every n = 1..200 in (0, 20], and no other event is a reset.
TEST(PwmServoExact, SawResetsFallOnMultiplesOfTheTenth) {
  const auto& ev = events_to_20();
  int n = 0;
  Real worst = 0;
  for (const auto& e : ev) {
    if (e.guard != "saw_reset") continue;
    ++n;
    const Real expected = Real(n) / 10;
    const Real err = abs(e.t - expected);
    worst = std::max(worst, err);
    EXPECT_LT(err, tol("1e-90")) << "reset " << n << " at " << e.t.str(100);
  }
  EXPECT_EQ(n, 200);
  std::cout << "max |t_reset(n) - n/10| over 200 resets: " << worst.str(3) << "\n";
}

// The event's guard function at its pre-jump state, x = x(t, omega, phi) given: 0 on the
// surface. Checks the side conditions of each guard (the sign of x for p1 and p2; the reset's
// saw and target; no jump otherwise) as it goes.
Real guard_residual(const PwmServoParameters& p, const PwmServoExactEvent& e, const Real& x, std::size_t i) {
  Real residual = 0;
  if (e.guard == "p1") {
    EXPECT_GE(x, 0) << "event " << i;
    residual = e.saw - p.kp * x;
  } else if (e.guard == "p2") {
    EXPECT_LT(x, 0) << "event " << i;
    residual = e.saw + p.kp * x;
  } else if (e.guard == "p3") {
    residual = p.kp * abs(x) - e.saw;
  } else if (e.guard == "saw_reset") {
    residual = e.saw - p.saw_max;
    EXPECT_EQ(e.saw_after, 0) << "event " << i;
    EXPECT_EQ(e.to, x >= 0 ? kS1 : kS2) << "event " << i;
  } else {
    ADD_FAILURE() << "event " << i << " has unknown guard " << e.guard;
  }
  if (e.guard != "saw_reset") {
    EXPECT_EQ(e.saw_after, e.saw) << "event " << i;
  }
  return residual;
}

// Shows that each event's pre-jump state lies on its guard's surface to 80 digits (absolute,
// on O(1) quantities; and to 60 digits relative to saw, which is ~1e-32 near t = 20): p1: saw = kp*x with x >= 0; p2: saw = -kp*x with x < 0; p3:
// kp*|x| = saw; saw_reset: saw = saw_max, saw_after = 0 and the target follows sign(x).
TEST(PwmServoExact, EventStatesSatisfyGuardEqualities) {
  const auto& ev = events_to_20();
  const PwmServoParameters p;
  Real worst = 0, worst_relative = 0;
  for (std::size_t i = 0; i < ev.size(); ++i) {
    const auto& e = ev[i];
    const Real x = pwm_servo_x(p, e.omega, e.phi);
    const Real residual = guard_residual(p, e, x, i);
    if (e.guard == "p3") {
      EXPECT_GT(e.saw, 0) << "event " << i;
    }
    worst = std::max(worst, Real(abs(residual)));
    EXPECT_LT(abs(residual), tol("1e-80")) << "event " << i << " (" << e.guard << ") at t = "
                                           << e.t.str(30);
    const Real relative = abs(residual) / e.saw;
    worst_relative = std::max(worst_relative, relative);
    EXPECT_LT(relative, tol("1e-60")) << "event " << i << " (" << e.guard << ")";
  }
  std::cout << "max guard-equality residual over " << ev.size() << " events: " << worst.str(3)
            << " absolute, " << worst_relative.str(3) << " relative to saw\n";
}

// Shows that between consecutive events the state follows the exact solution of the active
// mode's ODE (omega += k_w f dt, phi += omega dt + k_w f dt^2 / 2, saw += dt), starting from
// the zero initial state and from each event's post-jump state.
TEST(PwmServoExact, StateBetweenEventsIsTheExactFlow) {
  const auto& ev = events_to_20();
  const PwmServoParameters p;
  for (std::size_t i = 0; i < ev.size(); ++i) {
    const Real dt = ev[i].t - time_before(ev, i);
    const State s = flow(p, mode_before(ev, i), state_before(ev, i), dt);
    EXPECT_LT(abs(ev[i].omega - s.omega), tol("1e-85")) << "event " << i;
    EXPECT_LT(abs(ev[i].phi - s.phi), tol("1e-85")) << "event " << i;
    EXPECT_LT(abs(ev[i].saw - s.saw), tol("1e-85")) << "event " << i;
  }
}

// Shows that each event is the earliest: no guard of the active mode holds and the saw stays
// below saw_max at 31 interior points of every inter-event interval, while the event's own
// guard holds just after the event (the guard function moves into the firing side).
TEST(PwmServoExact, NoGuardFiresBetweenEventsAndTheEventGuardFiresAfter) {
  const auto& ev = events_to_20();
  const PwmServoParameters p;
  for (std::size_t i = 0; i < ev.size(); ++i) {
    const int mode = mode_before(ev, i);
    const State s0 = state_before(ev, i);
    const Real dt = ev[i].t - time_before(ev, i);
    for (int j = 1; j <= 31; ++j) {
      const State s = flow(p, mode, s0, dt * j / 32);
      const auto g = fired_guard(p, mode, time_before(ev, i) + dt * j / 32, s);
      EXPECT_FALSE(g.has_value()) << "event " << i << ": " << (g ? g->first : "")
                                  << " holds at fraction " << j << "/32 before it";
      EXPECT_LT(s.saw, p.saw_max) << "event " << i;
    }
    if (ev[i].guard == "saw_reset") continue;
    // 1e-40 past the event, in the old mode: the guard functions move at O(1e-2..1) rates, so
    // their values (~1e-42 or more) dominate the ~1e-100 rounding of the state.
    const State after = flow(p, mode, s0, dt + tol("1e-40"));
    const auto g = fired_guard(p, mode, ev[i].t + tol("1e-40"), after);
    ASSERT_TRUE(g.has_value()) << "event " << i << ": no guard holds just after it";
    EXPECT_EQ(g->first, ev[i].guard) << "event " << i;
    EXPECT_EQ(g->second, ev[i].to) << "event " << i;
  }
}

// Shows that the sequence is a consistent path of the statechart: it starts in s1, each event
// leaves the mode the previous one entered, only listed transitions occur, times strictly
// increase (no two consecutive events at the same time), and only a saw reset may keep the
// mode.
TEST(PwmServoExact, EventsAlternateSensibly) {
  const auto& ev = events_to_20();
  const std::set<std::tuple<int, int, std::string>> allowed = {
      {kS1, kS3, "p3"},        {kS1, kS2, "p2"},        {kS1, kS1, "saw_reset"},
      {kS2, kS3, "p3"},        {kS2, kS1, "p1"},        {kS2, kS2, "saw_reset"},
      {kS3, kS1, "saw_reset"}, {kS3, kS2, "saw_reset"}, {kS3, kS1, "p1"},
      {kS3, kS2, "p2"}};
  ASSERT_FALSE(ev.empty());
  EXPECT_EQ(ev.front().from, kS1);
  Real min_gap = 1;
  for (std::size_t i = 0; i < ev.size(); ++i) {
    EXPECT_TRUE(allowed.count({ev[i].from, ev[i].to, ev[i].guard}))
        << "event " << i << ": " << pwm_servo_mode_name(ev[i].from) << " -> "
        << pwm_servo_mode_name(ev[i].to) << " by " << ev[i].guard;
    EXPECT_GT(ev[i].t, 0);
    if (i == 0) continue;
    EXPECT_EQ(ev[i].from, ev[i - 1].to) << "event " << i;
    EXPECT_GT(ev[i].t, ev[i - 1].t) << "event " << i;
    min_gap = std::min(min_gap, Real(ev[i].t - ev[i - 1].t));
  }
  // The shortest s1/s2 pulse is ~kp*|x|/2 ~ 1e-32 s near t = 20: far above the 1e-98 noise.
  EXPECT_GT(min_gap, tol("1e-40"));
  std::cout << "shortest time between consecutive events: " << min_gap.str(5) << " s\n";
}

// Shows that the servo converges: |x| at the last event at or before t = 20 s is below 1e-25,
// and |x| at the resets of the last second is below 1e-25 as well (x -> 0 at ~1.5 decades/s).
TEST(PwmServoExact, ConvergesBelow1e25ByTwentySeconds) {
  const auto& ev = events_to_20();
  const PwmServoParameters p;
  ASSERT_FALSE(ev.empty());
  const auto& last = ev.back();
  const Real x_last = abs(pwm_servo_x(p, last.omega, last.phi));
  EXPECT_LT(x_last, tol("1e-25"));
  for (const auto& e : ev) {
    if (e.t > 19 && e.guard == "saw_reset") {
      EXPECT_LT(abs(pwm_servo_x(p, e.omega, e.phi)), tol("1e-25")) << "t = " << e.t.str(20);
    }
  }
  // The last event strictly before 20 s, too.
  auto before = std::find_if(ev.rbegin(), ev.rend(), [](const PwmServoExactEvent& e) {
    return e.t < Real("19.999");
  });
  ASSERT_NE(before, ev.rend());
  const Real x_before = abs(pwm_servo_x(p, before->omega, before->phi));
  EXPECT_LT(x_before, tol("1e-25"));
  std::cout << "|x| at the last event (t = " << last.t.str(20) << ", " << last.guard
            << "): " << x_last.str(6) << "\n"
            << "|x| at the last event before 20 s (t = " << before->t.str(40) << ", "
            << before->guard << "): " << x_before.str(6) << "\n";
}

// Shows the overall shape (roughly two events per 0.1 s period, over [0, 5] and [0, 20]) and
// prints the count and the first 10 events with 20 digits for a human reader.
TEST(PwmServoExact, EventCountAndFirstEventsForTheRecord) {
  const auto& ev = events_to_20();
  const auto ev5 = pwm_servo_exact_events(PwmServoParameters{}, Real(5));
  const std::size_t periods20 = 200, periods5 = 50;
  EXPECT_GE(ev.size(), periods20 * 3 / 2);
  EXPECT_LE(ev.size(), periods20 * 5 / 2);
  EXPECT_GE(ev5.size(), periods5 * 3 / 2);
  EXPECT_LE(ev5.size(), periods5 * 5 / 2);
  // [0, 5] is a prefix of [0, 20] and ends with the reset at t = 5.
  ASSERT_LE(ev5.size(), ev.size());
  for (std::size_t i = 0; i < ev5.size(); ++i) {
    EXPECT_EQ(ev5[i].t, ev[i].t) << "event " << i;
  }
  ASSERT_FALSE(ev5.empty());
  EXPECT_EQ(ev5.back().guard, "saw_reset");
  EXPECT_LT(abs(ev5.back().t - 5), tol("1e-90"));

  std::cout << "events over [0, 5]: " << ev5.size() << ", over [0, 20]: " << ev.size() << "\n";
  std::cout << "first 10 events:\n";
  for (std::size_t i = 0; i < std::min<std::size_t>(10, ev.size()); ++i) {
    std::cout << "  " << i + 1 << ": t = " << ev[i].t.str(20) << "  "
              << pwm_servo_mode_name(ev[i].from) << " -> " << pwm_servo_mode_name(ev[i].to)
              << "  " << ev[i].guard << "\n";
  }
}

// An independent reference: step through each mode on a 1 ms grid with the exact flow,
// evaluate the paper's predicates directly, and bisect the first grid cell where one holds
// (300 halvings: 1e-3 * 2^-300 ~ 5e-94 s). No root formula is involved.
struct BruteEvent {
  Real t;
  int from, to;
  std::string guard;
};
std::vector<BruteEvent> scan_and_bisect(const PwmServoParameters& p, const Real& t_end) {
  std::vector<BruteEvent> out;
  const Real dt("0.001");
  Real t = 0;
  State s{0, 0, 0};
  int mode = kS1;
  while (true) {
    const Real tau_reset = p.saw_max - s.saw;
    Real lo = 0, hi = 0;
    std::optional<std::pair<std::string, int>> g;
    for (int k = 1; !g; ++k) {
      hi = std::min(Real(dt * k), tau_reset);
      g = fired_guard(p, mode, t + hi, flow(p, mode, s, hi));
      if (g || hi == tau_reset) break;
      lo = hi;
    }
    BruteEvent e;
    if (g) {
      for (int it = 0; it < 300; ++it) {
        const Real mid = (lo + hi) / 2;
        if (fired_guard(p, mode, t + mid, flow(p, mode, s, mid))) {
          hi = mid;
        } else {
          lo = mid;
        }
      }
      g = fired_guard(p, mode, t + hi, flow(p, mode, s, hi));
      e = {t + hi, mode, g->second, g->first};
      s = flow(p, mode, s, hi);
    } else {
      s = flow(p, mode, s, tau_reset);
      s.saw = 0;
      const Real x = x_of(p, t + tau_reset, s);
      e = {t + tau_reset, mode, x >= 0 ? kS1 : kS2, "saw_reset"};
    }
    if (e.t > t_end + tol("1e-80")) break;
    t = e.t;
    mode = e.to;
    out.push_back(e);
  }
  return out;
}

// The scan-and-bisect events agree with the reference event by event: guard, modes, and time
// to 80 digits. Returns the largest time difference.
Real expect_same_events(const std::vector<BruteEvent>& brute, const std::vector<PwmServoExactEvent>& ev) {
  Real worst = 0;
  for (std::size_t i = 0; i < ev.size() && i < brute.size(); ++i) {
    EXPECT_EQ(brute[i].guard, ev[i].guard) << "event " << i;
    EXPECT_EQ(brute[i].from, ev[i].from) << "event " << i;
    EXPECT_EQ(brute[i].to, ev[i].to) << "event " << i;
    const Real err = abs(brute[i].t - ev[i].t);
    worst = std::max(worst, err);
    EXPECT_LT(err, tol("1e-80")) << "event " << i << " at " << ev[i].t.str(30);
  }
  return worst;
}

// Shows that the reference agrees event by event (guard, modes, and time to 80 digits) with
// the scan-and-bisect simulation above over the whole of [0, 20].
TEST(PwmServoExact, AgreesWithIndependentScanAndBisect) {
  const auto& ev = events_to_20();
  const auto brute = scan_and_bisect(PwmServoParameters{}, Real(20));
  ASSERT_EQ(brute.size(), ev.size());
  const Real worst = expect_same_events(brute, ev);
  std::cout << "max |t_exact - t_scan_bisect| over " << ev.size() << " events: " << worst.str(3)
            << "\n";
}

// ---- The moving setpoint u(t) = u + u_amp sin(u_freq t) (the sine path of the reference) ----

// The preset `tracking`: u(t) = sin t.
PwmServoParameters tracking() {
  PwmServoParameters p;
  p.u = 0;
  p.u_amp = 1;
  p.u_freq = 1;
  return p;
}

// A setpoint faster than the servo, u(t) = 1 + sin 30t: x changes sign inside pulses, so the
// events include p1 and p2 (s1 <-> s2) besides p3 and the resets.
PwmServoParameters fast_setpoint() {
  PwmServoParameters p;
  p.u_amp = 1;
  p.u_freq = 30;
  return p;
}

const std::vector<PwmServoExactEvent>& tracking_events_to_20() {
  static const std::vector<PwmServoExactEvent> events = pwm_servo_exact_events(tracking(), Real(20));
  return events;
}

// The checks of the constant-setpoint tests above, on the time-dependent x: each event state
// lies on its guard's surface (to 1e-80), the state between events is the exact flow (1e-85),
// no guard of the active mode holds at 31 interior points of an inter-event interval and the
// saw stays below saw_max, the event's guard holds 1e-40 after it, only the chart's
// transitions occur, times increase. Returns the largest guard residual.
Real expect_consistent_events(const PwmServoParameters& p, const std::vector<PwmServoExactEvent>& ev) {
  const std::set<std::tuple<int, int, std::string>> allowed = {
      {kS1, kS3, "p3"},        {kS1, kS2, "p2"},        {kS1, kS1, "saw_reset"},
      {kS2, kS3, "p3"},        {kS2, kS1, "p1"},        {kS2, kS2, "saw_reset"},
      {kS3, kS1, "saw_reset"}, {kS3, kS2, "saw_reset"}, {kS3, kS1, "p1"},
      {kS3, kS2, "p2"}};
  Real worst = 0;
  for (std::size_t i = 0; i < ev.size(); ++i) {
    const auto& e = ev[i];
    EXPECT_TRUE(allowed.count({e.from, e.to, e.guard})) << "event " << i;
    if (i > 0) {
      EXPECT_EQ(e.from, ev[i - 1].to) << "event " << i;
      EXPECT_GT(e.t, ev[i - 1].t) << "event " << i;
    }
    // On the surface.
    const Real x = x_of(p, e.t, State{e.omega, e.phi, e.saw});
    const Real residual = guard_residual(p, e, x, i);
    worst = std::max(worst, Real(abs(residual)));
    EXPECT_LT(abs(residual), tol("1e-80")) << "event " << i << " (" << e.guard << ") at t = " << e.t.str(30);
    // The exact flow from the previous event.
    const int mode = mode_before(ev, i);
    const State s0 = state_before(ev, i);
    const Real t0 = time_before(ev, i);
    const Real dt = e.t - t0;
    const State s = flow(p, mode, s0, dt);
    EXPECT_LT(abs(e.omega - s.omega), tol("1e-85")) << "event " << i;
    EXPECT_LT(abs(e.phi - s.phi), tol("1e-85")) << "event " << i;
    EXPECT_LT(abs(e.saw - s.saw), tol("1e-85")) << "event " << i;
    // The earliest.
    for (int j = 1; j <= 31; ++j) {
      const Real tau = dt * j / 32;
      const State inner = flow(p, mode, s0, tau);
      const auto g = fired_guard(p, mode, t0 + tau, inner);
      EXPECT_FALSE(g.has_value()) << "event " << i << ": " << (g ? g->first : "") << " holds at fraction " << j
                                  << "/32 before it";
      EXPECT_LT(inner.saw, p.saw_max) << "event " << i;
    }
    if (e.guard == "saw_reset") continue;
    const State after = flow(p, mode, s0, dt + tol("1e-40"));
    const auto g = fired_guard(p, mode, e.t + tol("1e-40"), after);
    EXPECT_TRUE(g.has_value() && g->first == e.guard && g->second == e.to)
        << "event " << i << ": its guard does not hold just after it";
  }
  return worst;
}

// Shows the start of the tracking run: x = 0 at t = 0 and in s1 x' = cos 0 - k k_w = -9, so
// kp |x| = 0.9 t < saw = t at once: s1 is left at t = 0 by p3 (the one zero-length mode the
// reference allows); s3 keeps the rest state until the reset at t = 0.1, where
// x = sin 0.1 > 0 selects s1; every later period has one pulse (a reset and a p3).
TEST(PwmServoExactTracking, LeavesS1AtZeroThenOnePulsePerPeriod) {
  const auto& ev = tracking_events_to_20();
  ASSERT_GE(ev.size(), 3u);
  EXPECT_EQ(ev[0].t, 0);
  EXPECT_EQ(ev[0].from, kS1);
  EXPECT_EQ(ev[0].to, kS3);
  EXPECT_EQ(ev[0].guard, "p3");
  EXPECT_EQ(ev[0].omega, 0);
  EXPECT_EQ(ev[0].phi, 0);
  EXPECT_EQ(ev[0].saw, 0);
  EXPECT_LT(abs(ev[1].t - Real("0.1")), tol("1e-95"));
  EXPECT_EQ(ev[1].guard, "saw_reset");
  EXPECT_EQ(ev[1].from, kS3);
  EXPECT_EQ(ev[1].to, kS1);
  EXPECT_EQ(ev[1].omega, 0);
  EXPECT_EQ(ev[1].phi, 0);
  // Then a pulse ended by p3 and a reset in each of the 199 further periods, 400 in all.
  ASSERT_EQ(ev.size(), 400u);
  for (std::size_t i = 2; i < ev.size(); ++i) {
    EXPECT_EQ(ev[i].guard, i % 2 == 0 ? "p3" : "saw_reset") << "event " << i;
    if (i % 2 == 1) {
      EXPECT_LT(abs(ev[i].t - Real(static_cast<int>(i + 1) / 2) / 10), tol("1e-90")) << "event " << i;
    }
  }
  // The pulses stay far above the rounding level: |x| at the resets in [1e-4, 0.1].
  Real smallest = 1;
  for (const auto& e : ev) {
    if (e.guard != "saw_reset") continue;
    smallest = std::min(smallest, Real(abs(x_of(tracking(), e.t, State{e.omega, e.phi, e.saw}))));
  }
  EXPECT_GT(smallest, tol("1e-4"));
  std::cout << "tracking: " << ev.size() << " events over [0, 20]; smallest |x| at a reset " << smallest.str(3) << "\n";
}

// Shows that the tracking events over [0, 20] and the fast-setpoint events over [0, 5] (with
// p1 and p2) are a consistent, earliest-event path of the chart on the exact flow.
TEST(PwmServoExactTracking, EventsAreOnTheirSurfacesAndTheEarliest) {
  const Real worst_tracking = expect_consistent_events(tracking(), tracking_events_to_20());
  const auto fast = pwm_servo_exact_events(fast_setpoint(), Real(5));
  std::set<std::string> guards;
  for (const auto& e : fast) guards.insert(e.guard);
  EXPECT_EQ(guards, (std::set<std::string>{"p1", "p2", "p3", "saw_reset"}));
  const Real worst_fast = expect_consistent_events(fast_setpoint(), fast);
  std::cout << "max guard residual: tracking " << worst_tracking.str(3) << " (" << tracking_events_to_20().size()
            << " events), u = 1 + sin 30t " << worst_fast.str(3) << " (" << fast.size() << " events)\n";
}

// Shows that the sine path agrees with the independent scan-and-bisect (1 ms grid, then 300
// halvings; predicates evaluated directly) event by event over [0, 2] s: guards, modes and
// times to 1e-80, for the tracking setpoint and the fast one.
TEST(PwmServoExactTracking, AgreesWithIndependentScanAndBisect) {
  for (const auto& p : {tracking(), fast_setpoint()}) {
    const auto ev = pwm_servo_exact_events(p, Real(2));
    const auto brute = scan_and_bisect(p, Real(2));
    ASSERT_EQ(brute.size(), ev.size()) << "u_freq = " << p.u_freq.str(3);
    const Real worst = expect_same_events(brute, ev);
    std::cout << "u_freq = " << p.u_freq.str(3) << ": max |t_exact - t_scan_bisect| over " << ev.size()
              << " events in [0, 2]: " << worst.str(3) << "\n";
  }
}

// Shows that the sine path meets the quadratic one: with u_amp = 1e-70 the events over [0, 5]
// are those of the constant setpoint (same guards and modes, times within 1e-60), and with
// u_amp = 0 the setpoint frequency is never read (the same events, bit for bit).
TEST(PwmServoExactTracking, SinePathMeetsTheQuadraticPath) {
  const auto constant = pwm_servo_exact_events(PwmServoParameters{}, Real(5));
  PwmServoParameters tiny;
  tiny.u_amp = Real("1e-70");
  const auto sine = pwm_servo_exact_events(tiny, Real(5));
  ASSERT_EQ(sine.size(), constant.size());
  Real worst = 0;
  for (std::size_t i = 0; i < constant.size(); ++i) {
    EXPECT_EQ(sine[i].guard, constant[i].guard) << "event " << i;
    EXPECT_EQ(sine[i].to, constant[i].to) << "event " << i;
    worst = std::max(worst, Real(abs(sine[i].t - constant[i].t)));
  }
  EXPECT_LT(worst, tol("1e-60"));
  std::cout << "u_amp = 1e-70 against u_amp = 0 over [0, 5]: max |dt| = " << worst.str(3) << "\n";

  PwmServoParameters other_freq;
  other_freq.u_freq = 7;
  const auto same = pwm_servo_exact_events(other_freq, Real(5));
  ASSERT_EQ(same.size(), constant.size());
  for (std::size_t i = 0; i < constant.size(); ++i) {
    EXPECT_EQ(same[i].t, constant[i].t) << "event " << i;
    EXPECT_EQ(same[i].phi, constant[i].phi) << "event " << i;
  }
}

// Shows that a zero-length mode after t = 0 still throws with a moving setpoint: u(t) =
// 0.5 + 3 sin 5t falls faster than the servo follows, and at the end of a pulse (s2 -> s3)
// p2 holds at once (the saw would slide along kp |x|).
TEST(PwmServoExactTracking, ZeroLengthModeAfterTheStartThrows) {
  PwmServoParameters p;
  p.u = Real("0.5");
  p.u_amp = 3;
  p.u_freq = 5;
  EXPECT_THROW(pwm_servo_exact_events(p, Real(5)), hysim::SimulationError);
}

// Shows the small helpers: mode names, the definition x = u - k*omega - phi, parameters parsed
// from decimal strings (kp is the 100-digit 1/10, not the double 0.1), and bad input.
TEST(PwmServoExact, HelpersAndArguments) {
  EXPECT_STREQ(pwm_servo_mode_name(0), "s1");
  EXPECT_STREQ(pwm_servo_mode_name(1), "s2");
  EXPECT_STREQ(pwm_servo_mode_name(2), "s3");
  EXPECT_THROW(pwm_servo_mode_name(3), hysim::InvalidArgument);
  EXPECT_THROW(pwm_servo_mode_name(-1), hysim::InvalidArgument);

  const PwmServoParameters p;
  EXPECT_LT(abs(pwm_servo_x(p, Real(2), Real("0.25")) - Real("0.55")), tol("1e-99"));
  EXPECT_LT(abs(p.kp * 10 - 1), tol("1e-99"));
  EXPECT_GT(abs(Real(0.1) - Real(1) / 10), tol("1e-18"));  // what a double literal would give

  EXPECT_TRUE(pwm_servo_exact_events(p, Real(0)).empty());
  EXPECT_TRUE(pwm_servo_exact_events(p, Real("-1")).empty());
  EXPECT_EQ(pwm_servo_exact_events(p, Real("0.1")).size(), 2u);
  EXPECT_EQ(pwm_servo_exact_events(p, Real("0.04")).size(), 0u);
  PwmServoParameters bad;
  bad.saw_max = 0;
  EXPECT_THROW(pwm_servo_exact_events(bad, Real(1)), hysim::InvalidArgument);
  PwmServoParameters bad_amp;
  bad_amp.u_amp = std::numeric_limits<Real>::infinity();
  EXPECT_THROW(pwm_servo_exact_events(bad_amp, Real(1)), hysim::InvalidArgument);

  // x at time t: u + u_amp sin(u_freq t) - k omega - phi; the form without t refuses a moving
  // setpoint.
  EXPECT_EQ(pwm_servo_x(p, Real(3), Real(2), Real("0.25")), pwm_servo_x(p, Real(2), Real("0.25")));
  const PwmServoParameters moving = tracking();
  EXPECT_LT(abs(pwm_servo_x(moving, Real("0.5"), Real(2), Real("0.25")) - (sin(Real("0.5")) - Real("0.45"))),
            tol("1e-99"));
  EXPECT_THROW(pwm_servo_x(moving, Real(2), Real("0.25")), hysim::InvalidArgument);
  EXPECT_THROW(pwm_servo_exact_events(p, std::numeric_limits<Real>::infinity()),
               hysim::InvalidArgument);
}

}  // namespace
