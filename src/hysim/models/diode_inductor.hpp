// Diode-inductor circuit: a chopper that switches a source onto an R-L load with a
// freewheeling diode (003 names diode-inductor circuits among the simulator's tests;
// hysim's specification fixes the circuit and its numbers).
//
//     V ---- switch ----+---- L ---- R ----+
//                       |                  |
//                     diode (anode at      |
//                     ground, drop Vd)     |
//                       |                  |
//     ground -----------+------------------+
//
// State (i, n): i the inductor current [A], n the number of the switching period in which
// the run is (a counter: dn/dt = 0, n := n + 1 when the switch closes). The switch is on for
// t in [n T, n T + D) and off for t in [n T + D, (n + 1) T).
//
// Modes (switch, diode) and their fields, tau = L / R:
//   on        (on, off)    L di/dt = V - R i
//   freewheel (off, on)    L di/dt = -Vd - R i      (the diode carries i, dropping Vd)
//   off       (off, off)   di/dt = 0, i = 0         (no path for a current)
//
// Transitions (in the order tried):
//   on -> off            "open":      t - (n T + D) >= 0,     reset i := 0, n := floor(t / T)
//   off -> freewheel     "diode_on":  v_D - Vd > 0,           identity reset
//   off -> on            "close":     t - (n + 1) T >= 0,     reset n := n + 1
//   freewheel -> off     "diode_off": i <= 0,                 reset i := 0
//   freewheel -> on      "close":     t - (n + 1) T >= 0,     reset n := n + 1
// v_D is the diode's forward voltage, -(L di/dt + R i) (the load's voltage, reversed). In
// (off, off) it reads -R i = 0 while nothing jumps, below Vd: the atom never fires there
// during continuous evolution. Across a jump that cuts the current (i > i+), L di/dt tends
// to -infinity and v_D to +infinity: the atom's jump form (003, Eq. 3, gamma(x, x+)) is
// i - i+ > 0 then, and the continuous value at x+ otherwise.
//
// The chain at an opening with current i > 0 (003, Eq. 3): the tentative state of (off, off)
// has i+ = 0, which cuts the current; diode_on fires on (x, x+), so (off, off) is MYTHICAL
// and leaves no trace; diode_on's identity reset is applied to the original x, so the
// freewheel mode starts with the current unchanged (continuous), interior.
//
// Closed form (first-order R-L responses), I_on = V / R, I_d = Vd / R:
//   on,        from (t_s, i_s):  i(t) = I_on + (i_s - I_on) exp(-(t - t_s) / tau)
//   freewheel, from (t_o, i_o):  i(t) = (i_o + I_d) exp(-(t - t_o) / tau) - I_d,
//                                zero at t_o + tau ln(1 + i_o / I_d) (the diode turns off)
//   off:                         i(t) = 0
// With the defaults (V = 10, L = 0.1, R = 10, Vd = 0.7, T = 0.2, D = 0.1; tau = 0.01 s) every
// period starts at i = 0, the current at the opening is I_on (1 - e^-10) = 0.9999546 A, and
// the diode turns off 0.01 ln(1 + 14.28506) = 0.027269 s after it, long before the switch
// closes (0.1 s after the opening): the sequence per period is close (from off), open
// (on -> off mythical -> freewheel), diode_off (freewheel -> off). With L = 1 (preset
// "continuous-conduction", tau = 0.1 s) the current never reaches 0 after the first period
// and the switch closes from the freewheel mode.
#pragma once

#include "hysim/core/model.hpp"
#include "hysim/core/parameters.hpp"
#include "hysim/models/catalog.hpp"

namespace hysim {

template <class S>
Model<S> make_diode_inductor(const ParameterValues& values);

// The catalog entry of "diode-inductor", with its exact reference (100-digit closed form).
ModelEntry diode_inductor_entry();

// Mode indices of the model built above, and the state components.
inline constexpr int kDiodeOn = 0;         // (on, off)
inline constexpr int kDiodeFreewheel = 1;  // (off, on)
inline constexpr int kDiodeOff = 2;        // (off, off)
inline constexpr std::size_t kDiodeCurrent = 0;
inline constexpr std::size_t kDiodePeriod = 1;

}  // namespace hysim
