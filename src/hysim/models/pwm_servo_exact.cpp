// Exact reference solution of the PWM servo drive (004, Eqs. 4-9); see the header.
#include "hysim/models/pwm_servo_exact.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "hysim/core/errors.hpp"

namespace hysim::reference {
namespace {

constexpr int kS1 = 0;
constexpr int kS2 = 1;
constexpr int kS3 = 2;

// Beyond this many events the run is treated as Zeno rather than as a long simulation.
constexpr std::size_t kMaxEvents = 10'000'000;

// Event times carry ~1e-98 of accumulated rounding, so an event computed within 1e-90 (relative
// to max(1, |t_end|)) past t_end is taken to be at t_end: t_end = 5 includes the reset at 5.
const Real& time_slack() {
  static const Real slack{"1e-90"};
  return slack;
}

enum class GuardId { kP1, kP2, kP3, kSawReset };

const char* guard_name(GuardId g) {
  switch (g) {
    case GuardId::kP1: return "p1";
    case GuardId::kP2: return "p2";
    case GuardId::kP3: return "p3";
    case GuardId::kSawReset: return "saw_reset";
  }
  return "?";
}

// f of a mode: +1 in s1, -1 in s2, 0 in s3.
int mode_f(int mode) { return mode == kS1 ? 1 : (mode == kS2 ? -1 : 0); }

// a tau^2 + b tau + c.
struct Quadratic {
  Real a, b, c;
  Real operator()(const Real& tau) const { return (a * tau + b) * tau + c; }
};

// The three functions whose signs decide every guard (indices into a Surfaces array).
constexpr int kX = 0;            // x
constexpr int kSawMinusKpX = 1;  // saw - kp*x
constexpr int kSawPlusKpX = 2;   // saw + kp*x
using Surfaces = std::array<Quadratic, 3>;

struct Values {
  Real x, saw_minus_kp_x, saw_plus_kp_x;
};

// The paper's predicates (004, Eq. 9) written on the surface values.
bool guard_holds(GuardId g, const Values& v) {
  switch (g) {
    case GuardId::kP1: return v.x >= 0 && v.saw_minus_kp_x <= 0;
    case GuardId::kP2: return v.x < 0 && v.saw_plus_kp_x <= 0;
    // kp*|x| - saw < 0  <=>  saw - kp*|x| > 0.
    case GuardId::kP3: return v.x >= 0 ? v.saw_minus_kp_x > 0 : v.saw_plus_kp_x > 0;
    case GuardId::kSawReset: return false;  // timed, not a sign condition
  }
  return false;
}

struct Edge {
  GuardId guard;
  int to;
};

// The continuous guards of a mode in tie-break order. (s3 lists saw_reset first; the reset can
// only fire when no guard held on any interval before it, so its rank never matters.)
std::vector<Edge> guard_edges(int mode) {
  switch (mode) {
    case kS1: return {{GuardId::kP3, kS3}, {GuardId::kP2, kS2}};
    case kS2: return {{GuardId::kP3, kS3}, {GuardId::kP1, kS1}};
    default: return {{GuardId::kP1, kS1}, {GuardId::kP2, kS2}};
  }
}

struct Root {
  Real tau;
  int surface;
};

// Appends the real roots of q lying in (0, limit), tagged with `surface`.
void append_roots(const Quadratic& q, int surface, const Real& limit, std::vector<Root>& out) {
  auto keep = [&](const Real& r) {
    if (r > 0 && r < limit) out.push_back({r, surface});
  };
  if (q.a == 0) {
    if (q.b != 0) keep(-q.c / q.b);
    return;
  }
  const Real disc = q.b * q.b - 4 * q.a * q.c;
  if (disc < 0) return;
  const Real sq = sqrt(disc);
  const Real qq = q.b >= 0 ? Real(-(q.b + sq) / 2) : Real(-(q.b - sq) / 2);
  if (qq == 0) {  // b = 0 and disc = 0, so c = 0: a double root at 0
    keep(Real(0));
    return;
  }
  keep(qq / q.a);
  keep(q.c / qq);
}

struct NextEvent {
  Real tau;
  GuardId guard;
  int to;
  int surface;  // the function that is zero at the event (-1 for saw_reset)
};

}  // namespace

const char* pwm_servo_mode_name(int mode) {
  switch (mode) {
    case kS1: return "s1";
    case kS2: return "s2";
    case kS3: return "s3";
    default: break;
  }
  throw InvalidArgument("pwm_servo_mode_name: mode index " + std::to_string(mode) +
                        " is not 0 (s1), 1 (s2) or 2 (s3)");
}

Real pwm_servo_x(const PwmServoParameters& p, const Real& omega, const Real& phi) {
  return p.u - p.k * omega - phi;
}

std::vector<PwmServoExactEvent> pwm_servo_exact_events(const PwmServoParameters& p,
                                                       const Real& t_end) {
  if (!(p.saw_max > 0)) {
    throw InvalidArgument("pwm_servo_exact_events: saw_max must be > 0, got " +
                          p.saw_max.str(20));
  }
  if (!isfinite(t_end)) {
    throw InvalidArgument("pwm_servo_exact_events: t_end must be finite, got " + t_end.str(20));
  }
  std::vector<PwmServoExactEvent> events;
  const Real t_limit = t_end + time_slack() * std::max(Real(1), Real(abs(t_end)));
  Real t = 0, omega = 0, phi = 0, saw = 0;
  // Saw = 0 at t = 0, so the initial mode follows the reset rule: s1 if x >= 0, s2 if x < 0.
  int mode = pwm_servo_x(p, omega, phi) >= 0 ? kS1 : kS2;
  int zero_surface = -1;  // the surface the last event lies on: exactly zero at tau = 0

  while (t < t_limit) {
    if (events.size() >= kMaxEvents) {
      throw SimulationError("pwm_servo_exact_events: more than " + std::to_string(kMaxEvents) +
                            " events before t = " + t.str(20) + " (Zeno?)");
    }
    const int f = mode_f(mode);
    const Real x0 = pwm_servo_x(p, omega, phi);
    // x(tau) = x0 - (k k_w f + omega0) tau - (k_w f / 2) tau^2.
    const Quadratic qx{Real(-p.k_w * f / 2), Real(-(p.k * p.k_w * f + omega)), x0};
    Surfaces s{qx,
               Quadratic{Real(-p.kp * qx.a), Real(1 - p.kp * qx.b), Real(saw - p.kp * x0)},
               Quadratic{Real(p.kp * qx.a), Real(1 + p.kp * qx.b), Real(saw + p.kp * x0)}};
    // The event that entered this mode happened on this surface: its value at tau = 0 is zero
    // up to rounding; make it exactly zero so that the root at tau = 0 is not seen again.
    if (zero_surface >= 0) s[static_cast<std::size_t>(zero_surface)].c = 0;

    const Real tau_reset = p.saw_max - saw;
    std::vector<Root> roots;
    for (int i = 0; i < 3; ++i) append_roots(s[static_cast<std::size_t>(i)], i, tau_reset, roots);
    std::sort(roots.begin(), roots.end(),
              [](const Root& l, const Root& r) { return l.tau < r.tau; });

    // Walk the root-to-root intervals (0, r1), (r1, r2), ..., (rn, tau_reset); every guard is
    // constant on each. The first interval on which a guard holds starts the event.
    std::optional<NextEvent> next;
    const std::vector<Edge> edges = guard_edges(mode);
    for (std::size_t i = 0; i <= roots.size() && !next; ++i) {
      const Real lo = i == 0 ? Real(0) : roots[i - 1].tau;
      const Real hi = i == roots.size() ? tau_reset : roots[i].tau;
      if (!(lo < hi)) continue;  // coincident roots
      const Real mid = (lo + hi) / 2;
      const Values v{s[kX](mid), s[kSawMinusKpX](mid), s[kSawPlusKpX](mid)};
      for (const Edge& e : edges) {
        if (!guard_holds(e.guard, v)) continue;
        if (i == 0) {
          throw SimulationError(std::string("pwm_servo_exact_events: guard ") +
                                guard_name(e.guard) + " holds on entering mode " +
                                pwm_servo_mode_name(mode) + " at t = " + t.str(30) +
                                " (zero-length mode: chattering or sliding)");
        }
        next = NextEvent{lo, e.guard, e.to, roots[i - 1].surface};
        break;
      }
    }
    const bool reset = !next;
    if (reset) next = NextEvent{tau_reset, GuardId::kSawReset, -1, -1};

    const Real& tau = next->tau;
    PwmServoExactEvent ev;
    ev.t = t + tau;
    if (ev.t > t_limit) break;
    ev.omega = omega + p.k_w * f * tau;
    ev.phi = phi + omega * tau + p.k_w * f * tau * tau / 2;
    ev.from = mode;
    ev.guard = guard_name(next->guard);
    if (reset) {
      ev.saw = p.saw_max;  // on the surface saw = saw_max by definition of tau_reset
      ev.saw_after = 0;
      ev.to = pwm_servo_x(p, ev.omega, ev.phi) >= 0 ? kS1 : kS2;
    } else {
      ev.saw = saw + tau;
      ev.saw_after = ev.saw;
      ev.to = next->to;
    }

    t = ev.t;
    omega = ev.omega;
    phi = ev.phi;
    saw = ev.saw_after;
    mode = ev.to;
    zero_surface = next->surface;
    events.push_back(std::move(ev));
  }
  return events;
}

}  // namespace hysim::reference
