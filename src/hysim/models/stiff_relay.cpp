// Relay feedback with hysteresis around a slow first-order plant read through a fast
// first-order sensor: a stiff hybrid system whose events have a closed form.
//
//   dy/dt = (u - y) / tau                      plant output y, time constant tau (slow)
//   ds/dt = (y - s) / eps                      sensor reading s, time constant eps << tau (fast)
//   mode "high": u = u_high                    the relay's output
//   mode "low":  u = u_low
//   high -> low  switch_down: s >= y_high      (no reset: y and s are continuous)
//   low -> high  switch_up:   s <= y_low
//
// Physically, a thermostat: a room (thermal time constant tau) heated or cooled by an on/off
// relay that reads a thermometer with a lag eps. The Jacobian of each mode is
// [[-1/tau, 0], [1/eps, -1/eps]], with eigenvalues -1/tau and -1/eps: for the defaults
// (tau = 1 s, eps = 1e-4 s) a stiffness ratio of 10^4. The sensor stays within O(eps) of the
// plant (s = y - eps dy/dt + O(eps^2)); at each switch dy/dt jumps by (u_low - u_high)/tau, so
// the sensor's quasi-steady offset jumps by O(eps) and relaxes within a few eps: a small fast
// transient at each event, then the slow approach of y to u. An explicit method must keep
// h/eps within its stability region for the whole run; an L-stable one can take steps of the
// slow scale once the transient has decayed. The relay with hysteresis is the classical relay
// feedback loop (K. J. Astrom, T. Hagglund, "Automatic tuning of simple regulators with
// specifications on phase and amplitude margins", Automatica 20(5), 1984); the fast sensor,
// the parameters and the test problem are this project's.
//
// Parameters (docs/stiff-relay.md): tau = 1 s, eps = 1e-4 s (0 < eps < tau), u_high = 1,
// u_low = -1, y_high = 0.2, y_low = -0.2 (u_low < y_low < y_high < u_high, so that each mode
// drives the reading across its threshold), y0 = s0 = 0 (inside the band); the relay starts
// high.
//
// Closed form of a mode with input u from (y_s, s_s), sigma the time since the mode was entered:
//   y(sigma) = u + C e^(-sigma/tau),                          C = y_s - u
//   s(sigma) = u + P e^(-sigma/tau) + D e^(-sigma/eps),      P = C tau / (tau - eps),
//                                                             D = s_s - u - P
// (substituting: ds/dt = -P/tau e^(-sigma/tau) - D/eps e^(-sigma/eps) equals (y - s)/eps when
// P (tau - eps) = C tau). ds/dt is a sum of two exponentials, so it has at most one zero,
//   sigma_ext = ln(-D tau / (P eps)) / (1/eps - 1/tau)   when -D tau / (P eps) > 1,
// and s is monotone on [0, sigma_ext] and on [sigma_ext, inf). With the oriented distance
// d(sigma) = +-(s(sigma) - threshold) (positive where the guard holds), d(0) < 0 (the mode was
// entered on the other threshold, or at s0 inside the band) and d(inf) = +-(u - threshold) > 0,
// so the first root lies in [0, sigma_ext] if d(sigma_ext) >= 0, otherwise in
// (sigma_ext, inf), and on either piece it is the only one.
//
// Reference (below): those roots by Newton's method kept inside the sign bracket (bisection
// when a step leaves it), in 100-digit arithmetic (cpp_bin_float_100) to a relative 1e-90 of
// t; each mode starts from the previous event's exact state, so the errors do not accumulate
// beyond the working precision; times and states are rounded to float128 once. The limit
// eps -> 0 (s = y) gives half-periods tau ln((u - y_other) / (u - y_threshold)), against which
// tests/stiff_relay_test.cpp checks the reference, as well as a scan of the closed form for an
// earlier crossing.
#include <boost/multiprecision/cpp_bin_float.hpp>

#include <cmath>
#include <string>

#include "hysim/core/errors.hpp"
#include "hysim/core/model.hpp"
#include "hysim/core/scalar.hpp"
#include "hysim/models/catalog.hpp"

namespace hysim {

namespace {

// The parameters' constraints, for the model and its reference alike.
void check_stiff_relay_parameters(const ParameterValues& values) {
  const auto get = [&](const char* name) { return values.get<long double>(name); };
  const auto shown = [&](const char* name) { return std::string(name) + " = " + values.text(name); };
  if (!(get("tau") > 0 && std::isfinite(get("tau")))) {
    throw InvalidArgument("model 'stiff-relay': the plant's time constant must be finite and > 0 (" + shown("tau") + ")");
  }
  if (!(get("eps") > 0 && get("eps") < get("tau"))) {
    throw InvalidArgument("model 'stiff-relay': the sensor's time constant must satisfy 0 < eps < tau (" +
                          shown("eps") + ", " + shown("tau") + ")");
  }
  if (!(get("u_low") < get("y_low") && get("y_low") < get("y_high") && get("y_high") < get("u_high"))) {
    throw InvalidArgument("model 'stiff-relay': need u_low < y_low < y_high < u_high, so that each relay output "
                          "drives the reading across its threshold (" + shown("u_low") + ", " + shown("y_low") + ", " +
                          shown("y_high") + ", " + shown("u_high") + ")");
  }
  for (const char* name : {"y0", "s0"}) {
    if (!(get("y_low") < get(name) && get(name) < get("y_high"))) {
      throw InvalidArgument(std::string("model 'stiff-relay': ") + name +
                            " must lie strictly inside the hysteresis band (y_low < " + name + " < y_high; " +
                            shown(name) + ")");
    }
  }
}

}  // namespace

template <class S>
Model<S> make_stiff_relay(const ParameterValues& values) {
  check_stiff_relay_parameters(values);
  const S tau = values.get<S>("tau");
  const S eps = values.get<S>("eps");
  const S u_high = values.get<S>("u_high");
  const S u_low = values.get<S>("u_low");
  const S y_high = values.get<S>("y_high");
  const S y_low = values.get<S>("y_low");

  Model<S> model;
  model.name = "stiff-relay";
  model.source = "relay feedback with hysteresis (Astrom & Hagglund 1984), slow plant, fast sensor; this project's test problem";
  model.state_names = {"y", "s"};
  model.x0 = {values.get<S>("y0"), values.get<S>("s0")};
  model.add_mode("high", [tau, eps, u_high](S, const S* x, S* dxdt) {
    dxdt[0] = (u_high - x[0]) / tau;
    dxdt[1] = (x[0] - x[1]) / eps;
  }, "relay output u_high: dy/dt = (u_high - y)/tau, ds/dt = (y - s)/eps");
  model.add_mode("low", [tau, eps, u_low](S, const S* x, S* dxdt) {
    dxdt[0] = (u_low - x[0]) / tau;
    dxdt[1] = (x[0] - x[1]) / eps;
  }, "relay output u_low: dy/dt = (u_low - y)/tau, ds/dt = (y - s)/eps");
  model.initial_mode = 0;
  const EventRate<S> s_rate = [](S, const S*, const S* f) { return f[1]; };
  model.add_transition("high", "low", "switch_down",
                       Guard<S>::atom("s - y_high", [y_high](S, const S* x) { return x[1] - y_high; },
                                      Relation::kGreaterEqual, s_rate));
  model.add_transition("low", "high", "switch_up",
                       Guard<S>::atom("s - y_low", [y_low](S, const S* x) { return x[1] - y_low; },
                                      Relation::kLessEqual, s_rate));
  model.finalize();
  return model;
}

namespace {

using Real = boost::multiprecision::cpp_bin_float_100;

// Roots are converged to this relative accuracy of t (the working precision is ~1e-100).
constexpr const char* kRootTolerance = "1e-90";
constexpr int kMaxRootIterations = 2000;
// A guard against reference runs of absurd length.
constexpr std::size_t kMaxEvents = 10'000'000;

// One mode with input u, entered at (y_s, s_s): the closed form of the header in sigma.
struct RelayMode {
  Real tau, eps, u, threshold;
  int sign;  // +1: the guard is s >= threshold; -1: s <= threshold
  Real C, P, D;

  RelayMode(const Real& tau_, const Real& eps_, const Real& u_, const Real& threshold_, int sign_, const Real& y_s,
            const Real& s_s)
      : tau(tau_), eps(eps_), u(u_), threshold(threshold_), sign(sign_) {
    C = y_s - u;
    P = C * tau / (tau - eps);
    D = s_s - u - P;
  }

  Real y(const Real& sigma) const { return u + C * exp(-sigma / tau); }
  Real s(const Real& sigma) const { return u + P * exp(-sigma / tau) + D * exp(-sigma / eps); }
  Real dsdt(const Real& sigma) const { return -P / tau * exp(-sigma / tau) - D / eps * exp(-sigma / eps); }
  // Oriented distance to the guard's surface: >= 0 exactly where the guard holds.
  Real d(const Real& sigma) const { return sign * (s(sigma) - threshold); }

  // The zero of ds/dt in sigma > 0, or 0 when s is monotone for sigma > 0.
  Real extremum() const {
    if (P == 0 || D == 0) return Real(0);
    const Real ratio = -D * tau / (P * eps);
    if (!(ratio > 1)) return Real(0);
    return log(ratio) / (1 / eps - 1 / tau);
  }

  // The first sigma > 0 where d reaches 0 (d(0) < 0, d(inf) > 0; see the header), for a mode
  // entered at t_start.
  Real first_root(const Real& t_start) const {
    Real lo = 0;
    Real hi = extremum();
    if (!(hi > 0 && d(hi) >= 0)) {  // not before the extremum: on the monotone tail
      lo = hi;
      Real width = tau;
      hi = lo + width;
      while (d(hi) < 0) {
        lo = hi;
        width *= 2;
        hi = lo + width;
      }
    }
    const Real tolerance(kRootTolerance);
    Real sigma = (lo + hi) / 2;
    for (int i = 0; i < kMaxRootIterations; ++i) {
      const Real d_sigma = d(sigma);
      if (d_sigma < 0) lo = sigma; else hi = sigma;
      Real next = sigma - d_sigma / (sign * dsdt(sigma));
      if (!(next > lo && next < hi)) next = (lo + hi) / 2;
      const Real step = abs(next - sigma);
      sigma = next;
      const Real scale = t_start + sigma;
      if (step <= tolerance * scale || hi - lo <= tolerance * scale) return sigma;
    }
    throw SimulationError("stiff-relay reference: a switching time did not converge");
  }
};

Reference stiff_relay_reference(const ParameterValues& values, double t_end) {
  check_stiff_relay_parameters(values);
  if (!std::isfinite(t_end)) throw InvalidArgument("stiff-relay reference: t_end must be finite");
  const Real tau(values.text("tau")), eps(values.text("eps"));
  const Real u_high(values.text("u_high")), u_low(values.text("u_low"));
  const Real y_high(values.text("y_high")), y_low(values.text("y_low"));

  Reference result;
  result.method = "closed form per mode (two exponentials), switching times by bracketed Newton in 100-digit arithmetic";
  const Real end(t_end);
  Real t = 0;
  Real y(values.text("y0")), s(values.text("s0"));
  bool high = true;
  for (std::size_t k = 0; k < kMaxEvents; ++k) {
    const RelayMode mode = high ? RelayMode(tau, eps, u_high, y_high, +1, y, s)
                                : RelayMode(tau, eps, u_low, y_low, -1, y, s);
    const Real sigma = mode.first_root(t);
    if (t + sigma > end) return result;
    t += sigma;
    y = mode.y(sigma);
    s = mode.s(sigma);
    result.events.push_back({static_cast<float128>(t), high ? "high" : "low", high ? "low" : "high",
                             high ? "switch_down" : "switch_up",
                             {static_cast<float128>(y), static_cast<float128>(s)}});
    high = !high;
  }
  throw SimulationError("stiff-relay reference: more than 10^7 events before t_end");
}

}  // namespace

ModelEntry stiff_relay_entry() {
  ModelEntry entry;
  entry.name = "stiff-relay";
  entry.summary = "relay with hysteresis, slow plant (tau) read by a fast sensor (eps): stiff, exact switching times";
  entry.source = "relay feedback loop (Astrom & Hagglund, Automatica 20(5), 1984) with a fast sensor; "
                 "closed form per mode, this project's test problem";
  entry.stiff = true;
  entry.parameters = {
      {"tau", "1", "plant time constant [s]: dy/dt = (u - y)/tau", "0.5", "2"},
      {"eps", "1e-4", "sensor time constant [s], 0 < eps < tau: ds/dt = (y - s)/eps; stiffness ratio tau/eps", "1e-5", "1e-3"},
      {"u_high", "1", "relay output in mode high", "0.5", "2"},
      {"u_low", "-1", "relay output in mode low; u_low < y_low < y_high < u_high", "-2", "-0.5"},
      {"y_high", "0.2", "upper threshold on the reading: high -> low when s >= y_high", "0.1", "0.3"},
      {"y_low", "-0.2", "lower threshold on the reading: low -> high when s <= y_low", "-0.3", "-0.1"},
      {"y0", "0", "initial plant output, y_low < y0 < y_high (the relay starts high)", "-0.05", "0.05"},
      {"s0", "0", "initial sensor reading, y_low < s0 < y_high", "-0.05", "0.05"},
  };
  entry.presets = {
      {"nonstiff", "eps = 0.1 s: the same loop with a slow sensor (stiffness ratio 10)", {{"eps", "0.1"}}},
  };
  HYSIM_MODEL_BUILDERS(entry, make_stiff_relay);
  entry.reference = stiff_relay_reference;
  return entry;
}

#define HYSIM_INSTANTIATE(S) template Model<S> make_stiff_relay<S>(const ParameterValues&);
HYSIM_FOR_EACH_SCALAR(HYSIM_INSTANTIATE)
#undef HYSIM_INSTANTIATE

}  // namespace hysim
