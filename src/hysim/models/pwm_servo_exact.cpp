// Exact reference solution of the PWM servo drive (004, Eqs. 4-9); see the header.
#include "hysim/models/pwm_servo_exact.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
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

// Where a mode starts: at time t in state (omega, phi, saw), entered by an event on the
// surface zero_surface (exactly zero at tau = 0; -1 for none).
struct ModeStart {
  Real t, omega, phi, saw;
  int mode = kS1;
  int zero_surface = -1;
  bool initial = false;  // the run's first mode at t = 0
};

// The first guard of the mode (tie-break order) that holds on the values.
std::optional<Edge> first_guard(int mode, const Values& v) {
  for (const Edge& e : guard_edges(mode)) {
    if (guard_holds(e.guard, v)) return e;
  }
  return std::nullopt;
}

// A guard holds on the first interval of a mode: the mode has zero length. Allowed for the
// run's initial mode only (x = 0 at t = 0 with a moving setpoint: s1 is left at t = 0);
// elsewhere it is chattering or sliding, which the event sequence cannot represent.
NextEvent enter_at_zero_length(const ModeStart& s, const Edge& e) {
  if (!s.initial) {
    throw SimulationError(std::string("pwm_servo_exact_events: guard ") + guard_name(e.guard) +
                          " holds on entering mode " + pwm_servo_mode_name(s.mode) + " at t = " +
                          s.t.str(30) + " (zero-length mode: chattering or sliding)");
  }
  return NextEvent{Real(0), e.guard, e.to, -1};
}

// The next guard event of a mode with a constant setpoint (u_amp = 0), or nullopt when the
// saw reset at tau_reset comes first: roots of quadratics.
std::optional<NextEvent> next_event_quadratic(const PwmServoParameters& p, const ModeStart& m,
                                              const Real& tau_reset) {
  const int f = mode_f(m.mode);
  const Real x0 = p.u - p.k * m.omega - m.phi;
  // x(tau) = x0 - (k k_w f + omega0) tau - (k_w f / 2) tau^2.
  const Quadratic qx{Real(-p.k_w * f / 2), Real(-(p.k * p.k_w * f + m.omega)), x0};
  Surfaces s{qx,
             Quadratic{Real(-p.kp * qx.a), Real(1 - p.kp * qx.b), Real(m.saw - p.kp * x0)},
             Quadratic{Real(p.kp * qx.a), Real(1 + p.kp * qx.b), Real(m.saw + p.kp * x0)}};
  // The event that entered this mode happened on this surface: its value at tau = 0 is zero
  // up to rounding; make it exactly zero so that the root at tau = 0 is not seen again.
  if (m.zero_surface >= 0) s[static_cast<std::size_t>(m.zero_surface)].c = 0;

  std::vector<Root> roots;
  for (int i = 0; i < 3; ++i) append_roots(s[static_cast<std::size_t>(i)], i, tau_reset, roots);
  std::sort(roots.begin(), roots.end(),
            [](const Root& l, const Root& r) { return l.tau < r.tau; });

  // Walk the root-to-root intervals (0, r1), (r1, r2), ..., (rn, tau_reset); every guard is
  // constant on each. The first interval on which a guard holds starts the event.
  for (std::size_t i = 0; i <= roots.size(); ++i) {
    const Real lo = i == 0 ? Real(0) : roots[i - 1].tau;
    const Real hi = i == roots.size() ? tau_reset : roots[i].tau;
    if (!(lo < hi)) continue;  // coincident roots
    const Real mid = (lo + hi) / 2;
    const Values v{s[kX](mid), s[kSawMinusKpX](mid), s[kSawPlusKpX](mid)};
    if (const auto e = first_guard(m.mode, v)) {
      if (i == 0) return enter_at_zero_length(m, *e);
      return NextEvent{lo, e->guard, e->to, roots[i - 1].surface};
    }
  }
  return std::nullopt;
}

// ---- The moving setpoint (u_amp != 0): rigorous root exclusion -----------------------------
//
// In a mode started at t0, with S(tau) = u_amp sin(u_freq (t0 + tau)), each surface function is
//   g_i(tau) = g_i(0) + b_i tau + a_i tau^2 + c_i (S(tau) - S(0)),   c = (1, -kp, +kp),
// a quadratic plus a multiple of the sine. S(tau) - S(0) = A (c0 sin(w tau) - 2 s0 sin^2(w tau/2))
// and S'(tau) = A w (c0 cos(w tau) - s0 sin(w tau)), with A = u_amp, w = u_freq,
// s0 = sin(w t0), c0 = cos(w t0): no cancellation for small tau.
struct SineMode {
  Real amp, freq, s0, c0;
  std::array<Real, 3> g0, b, a, c;
  std::array<Real, 3> m;  // |c_i| |A| w^2 / 2 >= |c_i S''| / 2
};

// The three functions and their derivatives at tau.
struct Point {
  Real tau;
  std::array<Real, 3> g, dg;
};

Point evaluate(const SineMode& sm, const Real& tau) {
  const Real wt = sm.freq * tau;
  const Real sin_wt = sin(wt);
  const Real half = sin(wt / 2);
  const Real versine = 2 * half * half;  // 1 - cos(w tau)
  const Real ds = sm.amp * (sm.c0 * sin_wt - sm.s0 * versine);
  const Real ds_dtau = sm.amp * sm.freq * (sm.c0 * (1 - versine) - sm.s0 * sin_wt);
  Point pt;
  pt.tau = tau;
  for (std::size_t i = 0; i < 3; ++i) {
    pt.g[i] = sm.g0[i] + (sm.b[i] + sm.a[i] * tau) * tau + sm.c[i] * ds;
    pt.dg[i] = sm.b[i] + 2 * sm.a[i] * tau + sm.c[i] * ds_dtau;
  }
  return pt;
}

int sign_of(const Real& v) { return v > 0 ? 1 : (v < 0 ? -1 : 0); }

// Root exclusion. With v = |g(tau)| > 0, d = sign(g) g'(tau) and C = sign(g) a - m, Taylor's
// theorem gives sign(g) g(tau + h) >= v + d h + C h^2 (the quadratic part exactly, the sine
// part's remainder bounded by m h^2), so g has no root in [tau, tau + h*) where h* is the first
// positive root of that quadratic (infinity if it has none). Near a simple root the step is a
// one-sided Newton step with a curvature term and converges quadratically from the pre-root
// side; the forms below avoid cancellation.
Real exclusion_step(const Real& v, const Real& d, const Real& curvature) {
  if (d < 0) {
    const Real disc = d * d - 4 * curvature * v;
    if (disc < 0) return std::numeric_limits<Real>::infinity();  // curvature > 0: stays above
    return 2 * v / (sqrt(disc) - d);
  }
  if (curvature >= 0) return std::numeric_limits<Real>::infinity();
  return (d + sqrt(d * d - 4 * curvature * v)) / (-2 * curvature);
}

// A root closer than this to the point is taken as reached; the sign change is then confirmed
// kPast beyond it (relative to max(1, t)).
const Real& stop_step() {
  static const Real value{"1e-95"};
  return value;
}
const Real& past_step() {
  static const Real value{"1e-92"};
  return value;
}

// Beyond this many exclusion steps in one mode the run is refused (a pathological tangency).
constexpr long kMaxSteps = 1'000'000;

struct Crossing {
  Real tau;     // the root, approached from before (within stop_step of it)
  int surface;  // the function changing sign there
  Point past;   // the point past_step beyond it, where the signs are the new interval's
};

// The first sign change of any of the three functions in (start, limit), walking from the
// point `start` (where sign(g_i) = sign[i] != 0) by exclusion steps of all three at once: each
// step is the smallest of the three exclusion radii, so every point evaluates the sine once
// for the three functions. A root reached without a sign change past it is a tangential
// touch, not an event: the walk goes on past it. nullopt if no sign changes before limit.
std::optional<Crossing> next_crossing(const SineMode& sm, Point pt, std::array<int, 3> sign,
                                      const Real& limit, const Real& stop, const Real& past) {
  for (long steps = 0; steps < kMaxSteps; ++steps) {
    Real h = std::numeric_limits<Real>::infinity();
    int nearest = -1;
    for (std::size_t i = 0; i < 3; ++i) {
      Real hi = 0;  // a sign flipped by rounding within an excluded step: the root is here
      if (sign_of(pt.g[i]) == sign[i]) {
        hi = exclusion_step(abs(pt.g[i]), sign[i] * pt.dg[i], sign[i] * sm.a[i] - sm.m[i]);
      }
      if (hi < h) {
        h = hi;
        nearest = static_cast<int>(i);
      }
    }
    if (!(h < stop)) {
      if (!(pt.tau + h < limit)) return std::nullopt;
      pt = evaluate(sm, Real(pt.tau + h));
      continue;
    }
    // At a root of `nearest` (within `stop`): compare the signs just past it.
    const Real root = pt.tau + h;
    Point beyond = evaluate(sm, Real(root + past));
    int changed = -1;
    for (int i = 0; i < 3; ++i) {
      if (sign_of(beyond.g[static_cast<std::size_t>(i)]) != sign[static_cast<std::size_t>(i)] &&
          (changed < 0 || i == nearest)) {
        changed = i;
      }
    }
    if (changed >= 0) return Crossing{root, changed, std::move(beyond)};
    pt = std::move(beyond);  // a tangential touch
  }
  throw SimulationError("pwm_servo_exact_events: more than " + std::to_string(kMaxSteps) +
                        " root-exclusion steps in one mode (a degenerate tangency?)");
}

std::array<int, 3> signs_of(const Point& pt) {
  return {sign_of(pt.g[0]), sign_of(pt.g[1]), sign_of(pt.g[2])};
}

Values values_of(const Point& pt) { return {pt.g[kX], pt.g[kSawMinusKpX], pt.g[kSawPlusKpX]}; }

// The point itself, or the first point `past` apart beyond it where no function is zero (a
// function exactly zero sits on a root, and its sign on the interval after it is read there).
Point step_off_zeros(const SineMode& sm, Point pt, const Real& past, const Real& t0) {
  for (int nudge = 0; nudge < 10; ++nudge) {
    const std::array<int, 3> sg = signs_of(pt);
    if (sg[0] != 0 && sg[1] != 0 && sg[2] != 0) return pt;
    pt = evaluate(sm, Real(pt.tau + past));
  }
  throw SimulationError("pwm_servo_exact_events: a surface function stays zero after t = " +
                        Real(t0 + pt.tau).str(30));
}

// The next guard event of a mode with the setpoint u + u_amp sin(u_freq t), or nullopt when
// the saw reset at tau_reset comes first. The same walk over root-to-root intervals as
// next_event_quadratic, with the roots found in order by next_crossing and each interval's
// guards read at the point just past its left root (or at the walk's start in the first).
std::optional<NextEvent> next_event_sine(const PwmServoParameters& p, const ModeStart& m,
                                         const Real& tau_reset) {
  const int f = mode_f(m.mode);
  SineMode sm;
  sm.amp = p.u_amp;
  sm.freq = p.u_freq;
  sm.s0 = sin(p.u_freq * m.t);
  sm.c0 = cos(p.u_freq * m.t);
  const Real x0 = p.u + p.u_amp * sm.s0 - p.k * m.omega - m.phi;
  // x(tau) = x0 - (k k_w f + omega0) tau - (k_w f / 2) tau^2 + (S(tau) - S(0)).
  const Real bx = -(p.k * p.k_w * f + m.omega);
  const Real ax = -p.k_w * f / 2;
  sm.g0 = {x0, Real(m.saw - p.kp * x0), Real(m.saw + p.kp * x0)};
  sm.b = {bx, Real(1 - p.kp * bx), Real(1 + p.kp * bx)};
  sm.a = {ax, Real(-p.kp * ax), Real(p.kp * ax)};
  sm.c = {Real(1), Real(-p.kp), p.kp};
  const Real m_x = abs(p.u_amp) * p.u_freq * p.u_freq / 2;
  sm.m = {m_x, Real(abs(p.kp) * m_x), Real(abs(p.kp) * m_x)};
  // The event that entered this mode happened on this surface: exactly zero at tau = 0.
  if (m.zero_surface >= 0) sm.g0[static_cast<std::size_t>(m.zero_surface)] = 0;

  const Real scale = std::max(Real(1), Real(abs(m.t)));
  const Real stop = stop_step() * scale;
  const Real past = past_step() * scale;
  // A function zero at tau = 0 sits on a root: the walk starts just past it.
  Point pt = step_off_zeros(sm, evaluate(sm, Real(0)), past, m.t);
  if (const auto e = first_guard(m.mode, values_of(pt))) return enter_at_zero_length(m, *e);
  while (true) {
    std::optional<Crossing> c = next_crossing(sm, pt, signs_of(pt), tau_reset, stop, past);
    if (!c) return std::nullopt;
    pt = step_off_zeros(sm, std::move(c->past), past, m.t);
    if (const auto e = first_guard(m.mode, values_of(pt))) {
      return NextEvent{c->tau, e->guard, e->to, c->surface};
    }
  }
}

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
  if (p.u_amp != 0) {
    throw InvalidArgument("pwm_servo_x: the setpoint moves (u_amp != 0): give the time");
  }
  return p.u - p.k * omega - phi;
}

Real pwm_servo_x(const PwmServoParameters& p, const Real& t, const Real& omega, const Real& phi) {
  if (p.u_amp == 0) return pwm_servo_x(p, omega, phi);
  return p.u + p.u_amp * sin(p.u_freq * t) - p.k * omega - phi;
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
  if (!isfinite(p.u_amp) || !isfinite(p.u_freq)) {
    throw InvalidArgument("pwm_servo_exact_events: u_amp and u_freq must be finite");
  }
  std::vector<PwmServoExactEvent> events;
  const Real t_limit = t_end + time_slack() * std::max(Real(1), Real(abs(t_end)));
  ModeStart m;
  m.t = 0;
  m.omega = 0;
  m.phi = 0;
  m.saw = 0;
  // Saw = 0 at t = 0, so the initial mode follows the reset rule: s1 if x >= 0, s2 if x < 0.
  m.mode = pwm_servo_x(p, m.t, m.omega, m.phi) >= 0 ? kS1 : kS2;
  m.initial = true;

  while (m.t < t_limit) {
    if (events.size() >= kMaxEvents) {
      throw SimulationError("pwm_servo_exact_events: more than " + std::to_string(kMaxEvents) +
                            " events before t = " + m.t.str(20) + " (Zeno?)");
    }
    const int f = mode_f(m.mode);
    const Real tau_reset = p.saw_max - m.saw;
    std::optional<NextEvent> next = p.u_amp == 0 ? next_event_quadratic(p, m, tau_reset)
                                                 : next_event_sine(p, m, tau_reset);
    const bool reset = !next;
    if (reset) next = NextEvent{tau_reset, GuardId::kSawReset, -1, -1};

    const Real& tau = next->tau;
    PwmServoExactEvent ev;
    ev.t = m.t + tau;
    if (ev.t > t_limit) break;
    ev.omega = m.omega + p.k_w * f * tau;
    ev.phi = m.phi + m.omega * tau + p.k_w * f * tau * tau / 2;
    ev.from = m.mode;
    ev.guard = guard_name(next->guard);
    if (reset) {
      ev.saw = p.saw_max;  // on the surface saw = saw_max by definition of tau_reset
      ev.saw_after = 0;
      ev.to = pwm_servo_x(p, ev.t, ev.omega, ev.phi) >= 0 ? kS1 : kS2;
    } else {
      ev.saw = m.saw + tau;
      ev.saw_after = ev.saw;
      ev.to = next->to;
    }

    m.t = ev.t;
    m.omega = ev.omega;
    m.phi = ev.phi;
    m.saw = ev.saw_after;
    m.mode = ev.to;
    m.zero_surface = next->surface;
    m.initial = false;
    events.push_back(std::move(ev));
  }
  return events;
}

}  // namespace hysim::reference
