// Grazing threshold: a sinusoid whose crest just pokes above a threshold, so that the guard
// fires and clears again within what would otherwise be one integrator step. A detector that
// only compares signs at step ends sees "below" at both ends of such a step and misses the
// pair of crossings; this model measures how often each strategy does.
//
//   dx/dt = v,  dv/dt = -x          (both modes; x(0) = 0, v(0) = A, so x = A sin t)
//   modes "below" (initial) and "above"
//   cross_up:   below -> above  when  x - c >= 0     (no reset)
//   cross_down: above -> below  when  x - c <  0     (no reset)
//   threshold   c = A cos(delta),  0 < delta < pi/2
//
// Parameters: A = 1 (amplitude), delta = 0.02 rad (half-angle of the excursion). x stays
// above c for 2 delta = 0.04 s of every period 2 pi, while Dormand-Prince at rtol = 1e-6 takes
// steps of a few tenths of a second on a sinusoid. Presets: "narrow" (delta = 0.002, a
// 0.004 s excursion) and "wide" (delta = 0.2, 0.4 s, which step-end checks usually catch).
//
// Exact events (the reference below): sin t = cos delta, i.e., for k = 0, 1, 2, ...
//   cross_up   at t = pi/2 - delta + 2 pi k,  state (x, v) = (c, +A sin delta)
//   cross_down at t = pi/2 + delta + 2 pi k,  state (x, v) = (c, -A sin delta)
// computed in 100-digit arithmetic from the decimal text of A and delta, rounded to float128.
//
// Rounding caveat: the model computes c = A cos(delta) in the run's scalar type S from A and
// delta parsed in S, so its threshold is the exact one rounded at the level of S's epsilon
// (about A eps_S). The reference uses the exact c. Since the crossing is shallow,
// |dx/dt| = A sin delta, that shifts the model's true crossings by about
// eps_S / (2 sin delta) relative to the reference: 5.6e-15 s in double, 2.7e-18 s in long
// double, 4.8e-33 s in float128 at delta = 0.02 (ten times more for "narrow"). That is the
// conditioning of the event itself (the guard x - c cannot be evaluated more accurately in
// S), not an error of the reference.
//
// Source: this project's construction. The difficulty it isolates is the documented blind
// spot of sign-change root finding: the SUNDIALS rootfinding description (CVODE/ARKODE user
// guide, "Mathematical considerations: Rootfinding") checks for sign changes of g over each
// step and says roots without a sign change will probably be missed; DifferentialEquations.jl
// (ContinuousCallback, option interp_points) warns that checking only t and t + dt "is not
// robust when the solution is oscillatory" and samples interior points of each step.
#include <boost/math/constants/constants.hpp>
#include <boost/multiprecision/cpp_bin_float.hpp>

#include <cmath>
#include <string>

#include "hysim/core/errors.hpp"
#include "hysim/core/model.hpp"
#include "hysim/models/catalog.hpp"

namespace hysim {
namespace {

using Real = boost::multiprecision::cpp_bin_float_100;

// A > 0 and 0 < delta < pi/2, so that 0 < c < A: the run starts below the threshold and the
// crest crosses it. The same check for the model and the reference.
template <class T>
void check_grazing_parameters(const T& amplitude, const T& delta) {
  const T half_pi = boost::math::constants::half_pi<T>();
  if (!(amplitude > 0)) throw InvalidArgument("grazing: A must be > 0");
  if (!(delta > 0 && delta < half_pi)) throw InvalidArgument("grazing: delta must lie in (0, pi/2)");
}

}  // namespace

template <class S>
Model<S> make_grazing(const ParameterValues& values) {
  using std::cos;
  const S amplitude = values.get<S>("A");
  const S delta = values.get<S>("delta");
  check_grazing_parameters(amplitude, delta);
  const S c = amplitude * cos(delta);  // the threshold, rounded to S (see the header)

  Model<S> model;
  model.name = "grazing";
  model.source = "harmonic oscillator against a threshold just below its crest (this project)";
  model.state_names = {"x", "v"};
  model.x0 = {S(0), amplitude};
  auto oscillator = [](S, const S* x, S* dxdt) {
    dxdt[0] = x[1];
    dxdt[1] = -x[0];
  };
  model.add_mode("below", oscillator, "x < c: dx/dt = v, dv/dt = -x");
  model.add_mode("above", oscillator, "x >= c: dx/dt = v, dv/dt = -x");
  auto x_minus_c = [c](S, const S* x) { return x[0] - c; };
  auto x_rate = [](S, const S*, const S* f) { return f[0]; };  // d(x - c)/dt = f_x
  model.add_transition("below", "above", "cross_up",
                       Guard<S>::atom("x - c", x_minus_c, Relation::kGreaterEqual, x_rate));
  model.add_transition("above", "below", "cross_down", Guard<S>::atom("x - c", x_minus_c, Relation::kLess, x_rate));
  model.finalize();
  return model;
}

namespace {

// Every crossing with t in (0, t_end], from the closed form in 100-digit arithmetic.
Reference grazing_reference(const ParameterValues& values, double t_end) {
  using boost::multiprecision::cos;
  using boost::multiprecision::sin;
  const Real amplitude(values.text("A"));
  const Real delta(values.text("delta"));
  check_grazing_parameters(amplitude, delta);
  if (!std::isfinite(t_end)) throw InvalidArgument("grazing reference: t_end must be finite");

  const Real c = amplitude * cos(delta);
  const Real v_cross = amplitude * sin(delta);  // |dx/dt| at a crossing
  const Real half_pi = boost::math::constants::half_pi<Real>();
  const Real two_pi = boost::math::constants::two_pi<Real>();
  const Real end(t_end);

  Reference result;
  result.method = "closed form t = pi/2 -+ delta + 2 pi k (x = A sin t = A cos delta), 100-digit arithmetic";
  for (long k = 0;; ++k) {
    const Real crest = half_pi + two_pi * k;
    const Real t_up = crest - delta;
    if (t_up > end) break;
    result.events.push_back({static_cast<float128>(t_up), "below", "above", "cross_up",
                             {static_cast<float128>(c), static_cast<float128>(v_cross)}});
    const Real t_down = crest + delta;
    if (t_down > end) break;
    result.events.push_back({static_cast<float128>(t_down), "above", "below", "cross_down",
                             {static_cast<float128>(c), static_cast<float128>(-v_cross)}});
  }
  return result;
}

}  // namespace

ModelEntry grazing_entry() {
  ModelEntry entry;
  entry.name = "grazing";
  entry.summary = "sinusoid grazing a threshold: each crest is above it for only 2 delta seconds";
  entry.source = "this project's construction; cf. SUNDIALS rootfinding and DifferentialEquations.jl interp_points";
  entry.parameters = {
      {"A", "1", "amplitude of x = A sin t", "0.5", "2"},
      {"delta", "0.02", "half-angle of the excursion [rad]: threshold c = A cos(delta), x >= c for 2 delta s", "0.002", "0.2"},
  };
  entry.presets = {
      {"narrow", "delta = 0.002: a 0.004 s excursion per period", {{"delta", "0.002"}}},
      {"wide", "delta = 0.2: a 0.4 s excursion, within reach of step-end checks", {{"delta", "0.2"}}},
  };
  HYSIM_MODEL_BUILDERS(entry, make_grazing);
  entry.reference = grazing_reference;
  return entry;
}

#define HYSIM_INSTANTIATE(S) template Model<S> make_grazing<S>(const ParameterValues&);
HYSIM_FOR_EACH_SCALAR(HYSIM_INSTANTIATE)
#undef HYSIM_INSTANTIATE

}  // namespace hysim
