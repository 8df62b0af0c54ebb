#include "hysim/models/pwm_servo.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include "hysim/core/errors.hpp"
#include "hysim/core/time_memo.hpp"
#include "hysim/models/catalog.hpp"
#include "hysim/models/pwm_servo_exact.hpp"

namespace hysim {

template <class S>
Model<S> make_pwm_servo(const ParameterValues& values) {
  using std::abs;
  const S k_w = values.get<S>("k_w");
  const S k = values.get<S>("k");
  const S kp = values.get<S>("kp");
  const S u = values.get<S>("u");
  const S u_amp = values.get<S>("u_amp");
  const S u_freq = values.get<S>("u_freq");
  const S saw_max = values.get<S>("saw_max");

  Model<S> model;
  model.name = "pwm-servo";
  model.source = "004, Eqs. (4)-(9)";
  model.state_names = {"omega", "phi", "saw"};
  model.x0 = {values.get<S>("omega0"), values.get<S>("phi0"), S(0)};
  enum : std::size_t { kOmega, kPhi, kSaw };

  // The field of mode s_i with PWM output f (Eq. 4).
  auto field = [k_w](S f) {
    return [k_w, f](S, const S* x, S* dxdt) {
      dxdt[kOmega] = k_w * f;
      dxdt[kPhi] = x[kOmega];
      dxdt[kSaw] = S(1);
    };
  };
  model.add_mode("s1", field(S(1)), "f = +1: kp |x| >= saw, x >= 0");
  model.add_mode("s2", field(S(-1)), "f = -1: kp |x| >= saw, x < 0");
  model.add_mode("s3", field(S(0)), "f = 0: kp |x| < saw");
  model.initial_mode = model.find_mode("s1");

  // The comparisons of the saw with kp |x| read the saw after a reset has been committed
  // (003, Eq. 3): across the jump itself (x_prior != x) they do not hold, so a mode entered
  // by a saw reset is real, and a comparison that holds on the reset saw then makes it a
  // pinnacle. (Read on x+ directly, it would make the mode mythical and discard the reset;
  // a strategy that places the event past saw_max, step or cvode, meets that case.)
  auto comparison = [](const char* name, EventFunction<S> e, Relation r, EventRate<S> rate) {
    JumpEventFunction<S> across = [e, r](S t, const S* x_prior, const S* x) {
      if (x_prior[kSaw] == x[kSaw]) return e(t, x);
      return r == Relation::kLess || r == Relation::kLessEqual ? S(1) : S(-1);  // does not hold
    };
    return Guard<S>::atom(name, e, r, std::move(rate), std::move(across)).with_continuous_jump();
  };
  // saw >= saw_max and x REL 0 appear in several guards of each mode: shared events, read once
  // per point (core/guard.hpp, Atom::shared).
  const auto saw_full_event = std::make_shared<const Event<S>>(
      Event<S>{"saw - saw_max", [saw_max](S, const S* x) { return x[kSaw] - saw_max; },
               [](S, const S*, const S* f) { return f[kSaw]; }});
  auto saw_full = [&] { return Guard<S>::atom(saw_full_event, Relation::kGreaterEqual); };
  // saw := saw - saw_max, by whole periods (at least one: the one-sided event state has saw
  // just below saw_max): a step-granular strategy may detect the reset late, and a saw still
  // >= saw_max would fire its own guard again on x+ (a mythical mode, 003 Eq. 3).
  ResetFunction<S> saw_reset = [saw_max](S, const S* x, S* x_plus) {
    using std::floor;
    x_plus[kSaw] = x[kSaw] - saw_max * std::max<S>(S(1), floor(x[kSaw] / saw_max));
  };

  // The transitions, given x(t, state) and its rate along the field, x_rate(t, f).
  auto add_transitions = [&](auto x_of, auto x_rate) {
    const auto x_event = std::make_shared<const Event<S>>(Event<S>{
        "x", [x_of](S t, const S* x) { return x_of(t, x); }, [x_rate](S t, const S*, const S* f) { return x_rate(t, f); }});
    auto x_atom = [&](Relation r) { return Guard<S>::atom(x_event, r); };
    auto x_nonnegative = [&] { return x_atom(Relation::kGreaterEqual); };
    auto x_negative = [&] { return x_atom(Relation::kLess); };
    // Eq. (9): p1, p2, p3.
    auto p1 = [&] {
      return x_nonnegative() &&
             comparison("saw - kp*x", [x_of, kp](S t, const S* x) { return x[kSaw] - kp * x_of(t, x); },
                        Relation::kLessEqual,
                        [x_rate, kp](S t, const S*, const S* f) { return f[kSaw] - kp * x_rate(t, f); });
    };
    auto p2 = [&] {
      return x_negative() &&
             comparison("saw + kp*x", [x_of, kp](S t, const S* x) { return x[kSaw] + kp * x_of(t, x); },
                        Relation::kLessEqual,
                        [x_rate, kp](S t, const S*, const S* f) { return f[kSaw] + kp * x_rate(t, f); });
    };
    auto p3 = [&] {
      auto sign = [](S v) { return v > 0 ? S(1) : (v < 0 ? S(-1) : S(0)); };
      return comparison(
          "kp*|x| - saw", [x_of, kp](S t, const S* x) { return kp * abs(x_of(t, x)) - x[kSaw]; }, Relation::kLess,
          [x_of, x_rate, kp, sign](S t, const S* x, const S* f) {
            return kp * (sign(x_of(t, x)) * x_rate(t, f)) - f[kSaw];
          });
    };
    for (const char* mode : {"s1", "s2", "s3"}) {
      model.add_transition(mode, "s1", "saw_reset", saw_full() && x_nonnegative(), saw_reset);
      model.add_transition(mode, "s2", "saw_reset", saw_full() && x_negative(), saw_reset);
    }
    model.add_transition("s1", "s2", "p2", p2());
    model.add_transition("s1", "s3", "p3", p3());
    model.add_transition("s2", "s1", "p1", p1());
    model.add_transition("s2", "s3", "p3", p3());
    model.add_transition("s3", "s1", "p1", p1());
    model.add_transition("s3", "s2", "p2", p2());
  };

  // x = u(t) - k omega - phi (Eq. 5) with the setpoint u(t) = u + u_amp sin(u_freq t), and its
  // rate along the field f, dx/dt = u'(t) - k f_omega - f_phi with u' = u_amp u_freq
  // cos(u_freq t). Every atom carries its exact rate, written as the model language derives
  // it (src/hysim/lang/expr.cpp, forward mode: u_amp*(cos(u_freq*t)*u_freq) - k*f_omega -
  // f_phi), so that models/pwm-servo.hym is this model's twin to the last bit. A constant
  // setpoint (u_amp = 0) skips the sine: the file's u + 0*sin(u_freq*t) is u exactly.
  if (u_amp == 0) {
    add_transitions([u, k](S, const S* x) { return u - k * x[kOmega] - x[kPhi]; },
                    [k](S, const S* f) { return -(k * f[kOmega]) - f[kPhi]; });
  } else {
    // u(t) and u'(t) enter four atoms each: computed once per point (core/time_memo.hpp).
    auto setpoint = [u, u_amp, u_freq](S t) {
      using std::sin;
      return u + u_amp * sin(u_freq * t);
    };
    auto setpoint_rate = [u_amp, u_freq](S t) {
      using std::cos;
      return u_amp * (cos(u_freq * t) * u_freq);
    };
    const auto u_of = std::make_shared<const TimeMemo<S, decltype(setpoint)>>(setpoint);
    const auto u_rate = std::make_shared<const TimeMemo<S, decltype(setpoint_rate)>>(setpoint_rate);
    add_transitions([u_of, k](S t, const S* x) { return (*u_of)(t) - k * x[kOmega] - x[kPhi]; },
                    [u_rate, k](S t, const S* f) { return (*u_rate)(t) - k * f[kOmega] - f[kPhi]; });
  }
  model.finalize();
  return model;
}

namespace {

// The exact events of models/pwm_servo_exact.hpp (100-digit arithmetic), rounded to float128.
// The closed form starts from rest: omega0 = phi0 = 0.
Reference pwm_servo_reference(const ParameterValues& values, double t_end) {
  if (values.get<double>("omega0") != 0.0 || values.get<double>("phi0") != 0.0) {
    throw InvalidArgument("the exact PWM servo reference starts from rest: omega0 = phi0 = 0");
  }
  reference::PwmServoParameters p;
  p.k_w = reference::Real(values.text("k_w"));
  p.k = reference::Real(values.text("k"));
  p.kp = reference::Real(values.text("kp"));
  p.u = reference::Real(values.text("u"));
  p.u_amp = reference::Real(values.text("u_amp"));
  p.u_freq = reference::Real(values.text("u_freq"));
  p.saw_max = reference::Real(values.text("saw_max"));
  Reference result;
  result.method = p.u_amp == 0
                      ? "closed form per mode (quadratic flow), roots in 100-digit arithmetic"
                      : "closed form per mode (quadratic flow plus the setpoint's sine), roots by rigorous exclusion "
                        "steps in 100-digit arithmetic";
  for (const auto& e : reference::pwm_servo_exact_events(p, reference::Real(t_end))) {
    ReferenceEvent event;
    event.t = static_cast<float128>(e.t);
    event.from = reference::pwm_servo_mode_name(e.from);
    event.to = reference::pwm_servo_mode_name(e.to);
    event.guard = e.guard;
    event.x = {static_cast<float128>(e.omega), static_cast<float128>(e.phi), static_cast<float128>(e.saw)};
    result.events.push_back(std::move(event));
  }
  return result;
}

}  // namespace

ModelEntry pwm_servo_entry() {
  ModelEntry entry;
  entry.name = "pwm-servo";
  entry.summary = "servo drive with a symmetric PWM controller, three modes, saw reset every 0.1 s";
  entry.source = "004 (Modeling and Simulation of Event Systems, 2024), Eqs. (4)-(9), Table 1";
  entry.parameters = {
      {"k_w", "100", "speed gain [rad/s^2]", "50", "200"},
      {"k", "0.1", "damping (velocity feedback) coefficient [s]", "0.05", "0.2"},
      {"kp", "0.1", "PWM coefficient (1/T_p)", "0.05", "0.2"},
      {"u", "1", "setpoint [rad]", "0.5", "2"},
      {"u_amp", "0", "setpoint amplitude [rad]", "0", "1"},
      {"u_freq", "1", "setpoint angular frequency [rad/s]", "0.5", "2"},
      {"saw_max", "0.1", "sawtooth amplitude and period [s]", "0.05", "0.2"},
      {"omega0", "0", "initial angular velocity [rad/s]", "-1", "1"},
      {"phi0", "0", "initial angle [rad]", "-0.5", "0.5"},
  };
  entry.presets = {
      {"tracking",
       "tracks u(t) = sin t: one pulse per period, far above the rounding level; 20 events/s (20000 over [0, 1000] s)",
       {{"u", "0"}, {"u_amp", "1"}, {"u_freq", "1"}}, 20.0},
  };
  HYSIM_MODEL_BUILDERS(entry, make_pwm_servo);
  entry.reference = pwm_servo_reference;
  return entry;
}

#define HYSIM_INSTANTIATE(S) template Model<S> make_pwm_servo<S>(const ParameterValues&);
HYSIM_FOR_EACH_SCALAR(HYSIM_INSTANTIATE)
#undef HYSIM_INSTANTIATE

}  // namespace hysim
