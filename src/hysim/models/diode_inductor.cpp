// Diode-inductor circuit: equations, modes, guards, resets and closed form in
// models/diode_inductor.hpp.
#include "hysim/models/diode_inductor.hpp"

#include <boost/multiprecision/cpp_bin_float.hpp>

#include <cmath>
#include <string>

#include "hysim/core/errors.hpp"

namespace hysim {

namespace {

// The parameters' constraints, for the model and its reference alike (docs/diode-inductor.md).
void check_parameters(const ParameterValues& values) {
  const auto get = [&](const char* name) { return values.get<long double>(name); };
  if (!(get("V") > 0 && get("L") > 0 && get("R") > 0 && get("Vd") > 0)) {
    throw InvalidArgument("model 'diode-inductor': the parameters V, L, R and Vd must be > 0");
  }
  if (!(get("T") > 0 && get("D") > 0 && get("D") < get("T"))) {
    throw InvalidArgument("model 'diode-inductor': need 0 < D < T (D = " + values.text("D") + ", T = " + values.text("T") + ")");
  }
  if (!(get("i0") >= 0)) throw InvalidArgument("model 'diode-inductor': the parameter i0 must be >= 0 (i0 = " + values.text("i0") + ")");
}

}  // namespace

template <class S>
Model<S> make_diode_inductor(const ParameterValues& values) {
  check_parameters(values);
  const S V = values.get<S>("V");
  const S L = values.get<S>("L");
  const S R = values.get<S>("R");
  const S Vd = values.get<S>("Vd");
  const S T = values.get<S>("T");
  const S D = values.get<S>("D");

  Model<S> model;
  model.name = "diode-inductor";
  model.source = "chopper with freewheeling diode (003, its list of test circuits)";
  model.state_names = {"i", "n"};
  model.x0 = {values.get<S>("i0"), S(0)};
  constexpr std::size_t kI = kDiodeCurrent, kN = kDiodePeriod;

  model.add_mode("on", [V, L, R](S, const S* x, S* dxdt) {
    dxdt[kI] = (V - R * x[kI]) / L;
    dxdt[kN] = S(0);
  }, "(switch on, diode off): L di/dt = V - R i");
  model.add_mode("freewheel", [Vd, L, R](S, const S* x, S* dxdt) {
    dxdt[kI] = (-Vd - R * x[kI]) / L;
    dxdt[kN] = S(0);
  }, "(switch off, diode on): L di/dt = -Vd - R i");
  model.add_mode("off", [](S, const S*, S* dxdt) {
    dxdt[kI] = S(0);
    dxdt[kN] = S(0);
  }, "(switch off, diode off): i = 0");
  model.initial_mode = kDiodeOn;

  // d/dt (t - (n T + D)) = d/dt (t - (n + 1) T) = 1 - f_n T, written as the model language
  // derives it (models/diode-inductor.hym is this model's twin); f_n = 0 in every mode, so 1.
  const EventRate<S> clock_rate = [T](S, const S*, const S* f) { return S(1) - f[kN] * T; };
  // The switch opens at n T + D and closes at (n + 1) T.
  auto opening = Guard<S>::atom("t - (n T + D)", [T, D](S t, const S* x) { return t - (x[kN] * T + D); },
                                Relation::kGreaterEqual, clock_rate);
  auto closing = [&] {
    return Guard<S>::atom("t - (n + 1) T", [T](S t, const S* x) { return t - (x[kN] + 1) * T; },
                          Relation::kGreaterEqual, clock_rate);
  };
  // The diode's forward voltage less its drop, v_D - Vd with v_D = -(L di/dt + R i); in
  // (off, off) di/dt = 0. Across a jump that cuts the current (i > i+), v_D -> +infinity: the
  // jump form returns the cut i - i+ > 0 then (a value of the right sign), else the
  // continuous value at x+.
  auto forward_voltage = [R, Vd](S, const S* x) { return -R * x[kI] - Vd; };
  auto diode_conducts = Guard<S>::atom(
      "v_D - Vd", forward_voltage, Relation::kGreater,
      [R](S, const S*, const S* f) { return -R * f[kI]; },
      [forward_voltage](S t, const S* x_prior, const S* x_plus) {
        const S cut = x_prior[kI] - x_plus[kI];
        return cut > 0 ? cut : forward_voltage(t, x_plus);
      });
  auto current_zero = [] {
    return Guard<S>::atom("i", [](S, const S* x) { return x[kI]; }, Relation::kLessEqual,
                          [](S, const S*, const S* f) { return f[kI]; });
  };

  // The switch opens: an open switch with the diode off leaves the current no path, i := 0.
  // The opening also re-reads the period number from the clock, n := floor(t / T): it happens
  // mid-period, where that is unambiguous, and it equals n whenever the event is located. It
  // matters when a strategy without location (step) sees a closing only after the next
  // opening: the chain off -close-> on -open-> off then makes `on` mythical, which discards
  // close's n := n + 1, and without this the chain would loop back into `off` with the old n.
  const ResetFunction<S> cut_current = [](S, const S*, S* x_plus) { x_plus[kI] = S(0); };
  const ResetFunction<S> open_switch = [T](S t, const S*, S* x_plus) {
    using std::floor;
    x_plus[kI] = S(0);
    x_plus[kN] = floor(t / T);
  };
  const ResetFunction<S> next_period = [](S, const S* x, S* x_plus) { x_plus[kN] = x[kN] + 1; };
  model.add_transition("on", "off", "open", std::move(opening), open_switch);
  model.add_transition("off", "freewheel", "diode_on", std::move(diode_conducts));
  model.add_transition("off", "on", "close", closing(), next_period);
  // The diode blocks once its current reaches 0: i := 0 puts the state exactly on that surface.
  model.add_transition("freewheel", "off", "diode_off", current_zero(), cut_current);
  model.add_transition("freewheel", "on", "close", closing(), next_period);
  model.finalize();
  return model;
}

namespace {

using Real = boost::multiprecision::cpp_bin_float_100;

// A guard against reference runs of absurd length.
constexpr std::size_t kMaxPeriods = 10'000'000;

// The exact events over (0, t_end]: per period n, the opening at n T + D, the diode turning
// off at t_o + tau ln(1 + i_o / I_d) if that comes before the closing, and the closing at
// (n + 1) T; the current from the closed forms of the header, in 100-digit arithmetic.
Reference diode_inductor_reference(const ParameterValues& values, double t_end) {
  const Real V(values.text("V")), L(values.text("L")), R(values.text("R")), Vd(values.text("Vd"));
  const Real T(values.text("T")), D(values.text("D")), i0(values.text("i0"));
  check_parameters(values);
  if (!std::isfinite(t_end)) throw InvalidArgument("diode-inductor reference: t_end must be finite");

  Reference result;
  result.method = "closed-form R-L responses, diode-off at t_o + tau ln(1 + i_o R/Vd), 100-digit arithmetic";
  const Real end(t_end);
  const Real tau = L / R, I_on = V / R, I_d = Vd / R;
  auto event = [&](const Real& t, const char* from, const char* to, const char* guard, const Real& i, std::size_t n) {
    result.events.push_back({static_cast<float128>(t), from, to, guard,
                             {static_cast<float128>(i), static_cast<float128>(n)}});
  };

  Real i = i0;  // current at the start of period n (the switch closes)
  for (std::size_t n = 0; n < kMaxPeriods; ++n) {
    const Real start = T * n, opening = start + D, closing = start + T;
    if (opening > end) return result;
    const Real i_open = I_on + (i - I_on) * exp(-D / tau);
    // The switch opens: (off, off) mythical, freewheel entered with i_open > 0 (i >= 0, D > 0).
    event(opening, "on", "freewheel", "open", i_open, n);
    const char* closes_from = "off";
    const Real t_zero = opening + tau * log1p(i_open / I_d);
    if (t_zero < closing) {
      if (t_zero > end) return result;
      event(t_zero, "freewheel", "off", "diode_off", Real(0), n);
      i = 0;
    } else {  // continuous conduction: the switch closes while the diode still conducts
      i = (i_open + I_d) * exp(-(T - D) / tau) - I_d;
      closes_from = "freewheel";
    }
    if (closing > end) return result;
    event(closing, closes_from, "on", "close", i, n);
  }
  throw SimulationError("diode-inductor reference: more than 10^7 periods before t_end");
}

}  // namespace

ModelEntry diode_inductor_entry() {
  ModelEntry entry;
  entry.name = "diode-inductor";
  entry.summary = "chopper onto R-L with a freewheeling diode: (off, off) mythical at each opening";
  entry.source = "003 (diode-inductor circuits among its tests); closed-form R-L responses";
  entry.parameters = {
      {"V", "10", "source voltage [V]", "5", "20"},
      {"L", "0.1", "inductance [H]", "0.05", "0.2"},
      {"R", "10", "load resistance [ohm]", "5", "20"},
      {"Vd", "0.7", "diode forward drop [V]", "0.5", "0.9"},
      {"T", "0.2", "switching period [s]: the switch is on for t in [n T, n T + D)", "0.15", "0.3"},
      {"D", "0.1", "on time per period [s], 0 < D < T", "0.05", "0.12"},
      {"i0", "0", "initial current [A], >= 0", "0", "1"},
  };
  entry.presets = {
      {"issue4", "the specified circuit (the defaults): the current reaches 0 0.0273 s after each opening", {}},
      {"continuous-conduction", "L = 1 H (tau = 0.1 s): after the first opening the current never reaches 0",
       {{"L", "1"}}},
  };
  HYSIM_MODEL_BUILDERS(entry, make_diode_inductor);
  entry.reference = diode_inductor_reference;
  return entry;
}

#define HYSIM_INSTANTIATE(S) template Model<S> make_diode_inductor<S>(const ParameterValues&);
HYSIM_FOR_EACH_SCALAR(HYSIM_INSTANTIATE)
#undef HYSIM_INSTANTIATE

}  // namespace hysim
