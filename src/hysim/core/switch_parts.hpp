// Switch parts: components of a model that each switch on a surface of their own, so that k
// independent switching conditions cost k discrete states, not 2^k modes.
//
// Part j has a switching function s_j(t, x) and a discrete state p_j, held in the state vector
// (one component per part, derivative 0), with three values:
//   p_j = +1   the side s_j >= 0: the field reads sigma_j = +1
//   p_j = -1   the side s_j <  0: the field reads sigma_j = -1
//   p_j =  0   sliding on s_j = 0: the field reads Utkin's equivalent value sigma_j = sigma_eq
// The global mode is the model's mode together with the vector p, which is never enumerated:
// each part changes its own p_j at its own events, located one-sidedly by the engine like any
// other (the part is a crossing of every mode, events/crossings.hpp).
//
// The model's field is written with sigma_j in place of sign(s_j): it reads sigma_j from the
// part's state x[p_j]. The part's rate r_j(t, x, sigma) = ds_j/dt along the field with this
// part's sigma_j = sigma must be affine in sigma, as a field written with sigma_j is wherever
// sign(s_j) enters it linearly: then the field at sigma in [-1, 1] is Filippov's convex
// combination of the two sides' fields (A. F. Filippov, "Differential Equations with
// Discontinuous Righthand Sides", 1988, section 2.4), and sliding keeps s_j constant with
//   r(sigma) = a + b sigma,   sigma_eq = -a / b = (r(+1) + r(-1)) / (r(-1) - r(+1)),
// attracting from both sides when r(+1) < 0 < r(-1) (V. I. Utkin, "Sliding Modes in Control
// and Optimization", 1992, the equivalent control). A part's rate must not read another part's
// sigma: the surfaces of several parts sliding at once are then solved one by one, exactly.
//
// The events of part j (one crossing transition per mode, named after the part) fire where
//   e_j = p_j s_j < 0                (p_j = +1 or -1: the state crossed to the other side)
//   e_j = 1 - |sigma_eq| < 0         (p_j = 0: the equivalent value left [-1, 1])
// turns true, and reset p_j: on arrival from side p_j, to 0 when the other side's field drives
// back into the surface (p_j r(-p_j) > 0, sliding) and to -p_j otherwise (a crossing); on
// leaving a sliding motion, to the side sigma_eq left by.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hysim/core/errors.hpp"
#include "hysim/core/guard.hpp"
#include "hysim/core/model.hpp"

namespace hysim {

// ds/dt(t, x) along the field with this part's sigma set to `sigma`.
template <class S>
using SwitchRate = std::function<S(S t, const S* x, S sigma)>;

template <class S>
struct SwitchPart {
  std::string name;          // the part's state and its events' name, e.g. "relay17"
  EventFunction<S> surface;  // s(t, x); side +1 where s >= 0
  SwitchRate<S> rate;        // ds/dt with this part's sigma given, affine in it
  // The states `surface` and `rate` read (sorted or not); empty: unknown. With it, the rate of
  // a sliding part's event (the gamma rule) moves these states alone, not the whole vector.
  std::vector<std::size_t> reads{};
  // The mode the part acts in (its field reads sigma there, its rate is that field's); empty:
  // every mode with a field. A transition from another mode into it sets p to the side of the
  // state it enters with.
  std::string mode{};
};

namespace detail {

// sigma_eq of a part at (t, x), unclamped: outside [-1, 1] where one side's field no longer
// drives into the surface; NaN where the two sides' rates do not fall with sigma (b >= 0).
template <class S>
S equivalent_sigma(const SwitchPart<S>& part, S t, const S* x) {
  const S up = part.rate(t, x, S(1)), down = part.rate(t, x, S(-1));
  const S denominator = down - up;
  if (!(denominator > S(0))) return std::numeric_limits<S>::quiet_NaN();
  return (up + down) / denominator;
}

// The sigma a sliding part's field reads: sigma_eq clamped to [-1, 1], so that past the
// motion's end (the step that overshoots it) the field is the side's it leaves into,
// continuously; where there is no sigma_eq, the side whose rate leads away.
template <class S>
S sliding_sigma(const SwitchPart<S>& part, S t, const S* x) {
  const S sigma = equivalent_sigma(part, t, x);
  if (sigma == sigma) return std::clamp(sigma, S(-1), S(1));
  return part.rate(t, x, S(1)) > S(0) ? S(1) : S(-1);
}

// The event function of the part whose discrete state is x[state] (file comment).
template <class S>
S switch_event(const SwitchPart<S>& part, std::size_t state, S t, const S* x) {
  using std::abs;
  const S p = x[state];
  if (p > S(0)) return part.surface(t, x);
  if (p < S(0)) return -part.surface(t, x);
  const S sigma = equivalent_sigma(part, t, x);
  return sigma == sigma ? S(1) - abs(sigma) : S(-1);
}

// The part's state after its event at (t, x).
template <class S>
S switch_target(const SwitchPart<S>& part, std::size_t state, S t, const S* x) {
  const S p = x[state];
  if (p != S(0)) {
    const bool back = p * part.rate(t, x, -p) > S(0), in = p * part.rate(t, x, p) <= S(0);
    return back && in ? S(0) : -p;
  }
  return sliding_sigma(part, t, x) >= S(0) ? S(1) : S(-1);
}

// Each transition from another mode into a part's mode, and a Zeno continuation into it, ends
// by setting the part's p to the side of the state entered with (called before the parts'
// own crossings exist).
template <class S>
void enter_parts(Model<S>& model, const std::shared_ptr<const std::vector<SwitchPart<S>>>& parts, std::size_t first) {
  const auto entering = [&](const std::string& target) {
    std::vector<std::size_t> entered;
    for (std::size_t j = 0; j < parts->size(); ++j) {
      if (!(*parts)[j].mode.empty() && (*parts)[j].mode == target) entered.push_back(j);
    }
    return entered;
  };
  const auto wrap = [&](ResetFunction<S>* reset, std::vector<std::size_t> entered) {
    if (entered.empty()) return;
    *reset = [user = std::move(*reset), parts, entered = std::move(entered), first](S t, const S* x_pre, S* x_post) {
      if (user) user(t, x_pre, x_post);
      for (const std::size_t j : entered) {
        x_post[first + j] = (*parts)[j].surface(t, x_post) >= S(0) ? S(1) : S(-1);
      }
    };
  };
  for (auto& mode : model.modes) {
    for (auto& tr : mode.transitions) {
      if (tr.target_name != mode.name) wrap(&tr.reset, entering(tr.target_name));
    }
  }
  if (!model.zeno.mode_name.empty()) wrap(&model.zeno.reset, entering(model.zeno.mode_name));
}

// Part j's crossing in `mode`: its event function, the event's rate along the field, its reset.
template <class S>
void add_part_crossing(Model<S>& model, const std::string& mode,
                       const std::shared_ptr<const std::vector<SwitchPart<S>>>& shared, std::size_t j,
                       std::size_t first) {
  const std::size_t n = first + shared->size();
  const std::size_t state = first + j;
  const SwitchPart<S>* part = &(*shared)[j];
  auto event = [shared, part, state](S t, const S* x) { return detail::switch_event(*part, state, t, x); };
  auto rate = [shared, part, state, n](S t, const S* x, const S* f) -> S {
    const S p = x[state];
    if (p != S(0)) return p * part->rate(t, x, p);
    // d(1 - |sigma_eq|)/dt by a forward difference along f, moving the states read.
    using std::abs;
    using std::sqrt;
    const S d = sqrt(machine_epsilon<S>()) * std::max<S>(abs(t), S(1));
    thread_local std::vector<S> ahead;
    if (part->reads.empty()) {
      ahead.assign(x, x + n);
      for (std::size_t i = 0; i < n; ++i) ahead[i] += d * f[i];
    } else {
      if (ahead.size() < n) ahead.resize(n);
      for (std::size_t i : part->reads) ahead[i] = x[i] + d * f[i];
      ahead[state] = S(0);
    }
    return (detail::switch_event(*part, state, t + d, ahead.data()) - detail::switch_event(*part, state, t, x)) / d;
  };
  auto reset = [shared, part, state](S t, const S* x_pre, S* x_post) {
    x_post[state] = detail::switch_target(*part, state, t, x_pre);
  };
  model.add_crossing(mode, part->name, Guard<S>::atom(part->name, event, Relation::kLess, rate), reset);
}

}  // namespace detail

// Makes the model's states [first, first + parts.size()) the parts' (a model file declares
// them): sets their initial values to the side of x0, wraps every mode's field so that a
// sliding part reads its sigma_eq (the other parts read x[p_j] as it is) and that state's
// derivative is 0, and gives every mode one crossing per part. Part j's sigma is x[first + j].
// Drops the model's Jacobian pattern and guard enclosures (sigma_eq reads what each rate reads).
template <class S>
void attach_switch_parts(Model<S>& model, std::vector<SwitchPart<S>> parts, std::size_t first) {
  const std::size_t count = parts.size(), n = first + count;
  if (model.state_names.size() != n || model.x0.size() != n) {
    throw ModelError("model '" + model.name + "': the switch parts' states are the last " + std::to_string(count) +
                     " of its states, each with an initial value");
  }
  for (const auto& part : parts) {
    if (part.name.empty() || !part.surface || !part.rate) {
      throw ModelError("model '" + model.name + "': a switch part needs a name, a surface and its rate");
    }
    for (std::size_t r : part.reads) {
      if (r >= first) throw ModelError("model '" + model.name + "': part '" + part.name + "' reads a state out of range");
    }
  }
  const auto shared = std::make_shared<const std::vector<SwitchPart<S>>>(std::move(parts));
  for (std::size_t j = 0; j < count; ++j) {
    model.x0[first + j] = (*shared)[j].surface(model.t0, model.x0.data()) >= S(0) ? S(1) : S(-1);
  }
  model.jacobian_pattern = nullptr;
  model.guard_enclosure = {};
  const auto acts_in = [&](std::size_t j, const Mode<S>& mode) {
    return mode.field && ((*shared)[j].mode.empty() || (*shared)[j].mode == mode.name);
  };
  for (std::size_t j = 0; j < count; ++j) {
    const std::string& name = (*shared)[j].mode;
    if (!name.empty() && model.find_mode(name) < 0) {
      throw ModelError("model '" + model.name + "': part '" + (*shared)[j].name + "' acts in an unknown mode '" + name + "'");
    }
  }
  detail::enter_parts(model, shared, first);
  for (auto& mode : model.modes) {
    if (!mode.field) continue;
    std::vector<std::size_t> here;  // the parts that act in this mode
    for (std::size_t j = 0; j < count; ++j) {
      if (acts_in(j, mode)) here.push_back(j);
    }
    mode.field = [field = std::move(mode.field), shared, here = std::move(here), first, n](S t, const S* x, S* dxdt) {
      thread_local std::vector<S> with_sigma;  // x with each sliding part's sigma_eq
      const S* read = x;
      for (const std::size_t j : here) {
        if (x[first + j] != S(0)) continue;
        if (read == x) {
          with_sigma.assign(x, x + n);  // allocates once per thread and size
          read = with_sigma.data();
        }
        with_sigma[first + j] = detail::sliding_sigma((*shared)[j], t, x);
      }
      field(t, read, dxdt);
      for (std::size_t j = first; j < n; ++j) dxdt[j] = S(0);
    };
  }
  for (std::size_t j = 0; j < count; ++j) {
    const int part = static_cast<int>(model.parts.size());
    model.parts.push_back(ModelPart<S>{(*shared)[j].name, (*shared)[j].name + ".zeno", {}});
    for (auto& mode : model.modes) {
      if (!acts_in(j, mode)) continue;
      detail::add_part_crossing(model, mode.name, shared, j, first);
      mode.transitions.back().part = part;
    }
  }
}

// Appends the parts to a model whose modes, fields, states and x0 are in place (before
// finalize()): one state per part, named after it, then attach_switch_parts. Returns the index
// of the first part's state.
template <class S>
std::size_t add_switch_parts(Model<S>& model, std::vector<SwitchPart<S>> parts) {
  const std::size_t first = model.state_names.size();
  if (model.x0.size() != first) {
    throw ModelError("model '" + model.name + "': switch parts are added after x0 is given for every state");
  }
  for (const auto& part : parts) model.state_names.push_back(part.name);
  model.x0.resize(model.state_names.size(), S(0));
  if (!model.state_atol.empty()) model.state_atol.resize(model.state_names.size(), std::numeric_limits<S>::quiet_NaN());
  attach_switch_parts(model, std::move(parts), first);
  return first;
}

}  // namespace hysim
