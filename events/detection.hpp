// Detection: which transition of a mode fires at a point, literally or "an instant later".
//
// This is the one place that decides whether a guard fired (STYLE.md habit 3). Two questions
// are asked of it:
//
//  * fired(t, x): the literal question, asked at the end of each step and at each bisection
//    point. A guard fires at (t, x) when its tree is true there; transitions are tried in
//    declaration order and the first that fires is taken.
//
//  * fired_after(...): asked when a mode is entered at an event (and at t0). The entry point
//    lies on a switching surface up to the width of the location bracket, so an atom that
//    sits on its surface must not be read literally (it would fire or not by rounding).
//    The chain is carried on both sides of the bracket [t_a, t_b]: an atom whose truth
//    differs between its value at (t_a, x_a) and at (t_b, x_b) has its zero inside the
//    bracket; it is given the truth it takes an instant after t_a when the arrival mode's
//    field f drives it, i.e. the sign of de/dt = grad e . f + de/dt (003's boundary test:
//    a guard at 0 that the field drives across fires at once); so is an atom exactly at 0.
//    de/dt comes from a directional difference along f, which costs guard evaluations and
//    no field evaluation. Every other atom is read literally at (t_a, x_a).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/model.hpp"

namespace hysim {

// The transition that fires, and whether its firing relied on an atom on its surface.
struct FiredTransition {
  int index = -1;            // into Mode::transitions; -1: none fires
  bool on_surface = false;   // an atom's truth changes at the entry point (driven across)
};

template <class S>
class TransitionDetector {
 public:
  TransitionDetector(const Model<S>& model, std::int64_t* guard_evals)
      : model_(model), guard_evals_(guard_evals), probe_(model.state_size()) {
    std::size_t most_atoms = 0;
    for (const auto& mode : model.modes) {
      for (const auto& tr : mode.transitions) most_atoms = std::max(most_atoms, tr.guard.atoms().size());
    }
    truth_.resize(most_atoms);
  }

  // Index of the first transition of `mode` whose guard is true at (t, x), or -1.
  int fired(int mode, S t, const S* x) {
    const auto& transitions = model_.modes[static_cast<std::size_t>(mode)].transitions;
    for (std::size_t k = 0; k < transitions.size(); ++k) {
      const Guard<S>& guard = transitions[k].guard;
      const auto& atoms = guard.atoms();
      for (std::size_t i = 0; i < atoms.size(); ++i) {
        truth_[i] = relation_holds(atoms[i].relation, value(mode, k, i, t, x));
      }
      if (guard.evaluate([this](int i) { return static_cast<bool>(truth_[static_cast<std::size_t>(i)]); })) {
        return static_cast<int>(k);
      }
    }
    return -1;
  }

  // The first transition of `mode` that fires an instant after t_a when the mode is entered
  // at (t_a, x_a) with field f = f_mode(t_a, x_a). (t_b, x_b) is the same arrival seen from
  // the far side of the location bracket; x_b == nullptr means there is no bracket.
  FiredTransition fired_after(int mode, S t_a, const S* x_a, S t_b, const S* x_b, const S* f) {
    const auto& transitions = model_.modes[static_cast<std::size_t>(mode)].transitions;
    for (std::size_t k = 0; k < transitions.size(); ++k) {
      const Guard<S>& guard = transitions[k].guard;
      const auto& atoms = guard.atoms();
      bool any_surface = false;
      for (std::size_t i = 0; i < atoms.size(); ++i) {
        const Relation relation = atoms[i].relation;
        const S e_a = value(mode, k, i, t_a, x_a);
        const bool holds_a = relation_holds(relation, e_a);
        const bool on_surface =
            e_a == S(0) || (x_b != nullptr && holds_a != relation_holds(relation, value(mode, k, i, t_b, x_b)));
        if (!on_surface) {
          truth_[i] = holds_a;
          continue;
        }
        // Its zero is inside the bracket: the truth an instant later is the sign of de/dt.
        const S rate = atom_rate(mode, k, i, t_a, x_a, f, e_a);
        truth_[i] = rate == S(0) ? holds_a : relation_holds(relation, rate);
        any_surface = true;
      }
      if (guard.evaluate([this](int i) { return static_cast<bool>(truth_[static_cast<std::size_t>(i)]); })) {
        return {static_cast<int>(k), any_surface};
      }
    }
    return {};
  }

 private:
  // e_i(t, x) of transition k of `mode`, counted; a NaN or Inf is an error that says where.
  S value(int mode, std::size_t k, std::size_t i, S t, const S* x) {
    const auto& m = model_.modes[static_cast<std::size_t>(mode)];
    const Atom<S>& atom = m.transitions[k].guard.atoms()[i];
    ++*guard_evals_;
    const S e = atom.e(t, x);
    if (!is_finite(e)) {
      throw SimulationError("model '" + model_.name + "', mode '" + m.name + "', t = " + format_scalar(t) +
                            ": guard '" + m.transitions[k].name + "' atom '" + atom.name +
                            "' evaluated to " + format_scalar(e));
    }
    return e;
  }

  // de/dt along f by a forward directional difference: (e(t + d, x + d f) - e(t, x)) / d,
  // d = sqrt(eps) max(|t|, 1). Only the sign is used.
  S atom_rate(int mode, std::size_t k, std::size_t i, S t, const S* x, const S* f, const S& e0) {
    using std::abs;
    using std::sqrt;
    const S d = sqrt(machine_epsilon<S>()) * std::max<S>(abs(t), S(1));
    for (std::size_t j = 0; j < probe_.size(); ++j) probe_[j] = x[j] + d * f[j];
    return (value(mode, k, i, t + d, probe_.data()) - e0) / d;
  }

  const Model<S>& model_;
  std::int64_t* guard_evals_;
  std::vector<S> probe_;
  std::vector<char> truth_;
};

}  // namespace hysim
