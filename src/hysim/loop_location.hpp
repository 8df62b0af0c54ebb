// locate (simulator.hpp): the crossing of a guard inside a step, shrunk on the step's dense
// output to a bracket [t_a, t_b] with no guard fired at t_a and one fired at t_b, by the
// strategy's root finder (events/location.hpp), or computed for a time event.
#pragma once

#include <algorithm>
#include <optional>
#include <utility>

#include "hysim/events/location.hpp"
#include "hysim/loop_context.hpp"

namespace hysim {

// detect: the first point of the step where a guard of the mode fires, as a transition and a
// sub-interval [t_lo, t_hi] of the step with no guard fired at t_lo and it fired at t_hi.
template <class S>
struct Crossing {
  int transition = -1;
  S t_lo = S(0), t_hi = S(0);
};

template <class S>
class CrossingLocation {
 public:
  using Decision = CrossingDecision<S>;
  explicit CrossingLocation(LoopContext<S>& run) : run_(run) {}

  // locate: the strategy's root finder on [t_lo, t_hi] of the dense output. Interpolating
  // locators follow the atom whose crossing made the guard fire (events/detection.hpp,
  // changed_atom): that atom alone decides each trial point, one guard evaluation per
  // iteration, and the bracket found is then read on every guard of the mode (none fired at
  // t_a, one at t_b). When a guard already fires at t_a (another one fired first inside the
  // step), the event lies in [t_lo, t_a]; when none fires at t_b (another atom of the guard
  // changes its truth later), in [t_b, t_hi]: the atom that crossed there is followed in turn,
  // up to kAtomLocations times. Without such an atom the guards decide every trial point.
  // On return the run's x_a and x_b hold the states at the bracket's ends: each trial point's
  // state is kept as the end it becomes (kept()), not interpolated again.
  static constexpr int kAtomLocations = 4;

  Bracket<S> bracket(const Crossing<S>& c, const Decision& decision, int* fired_at_b) {
    if (const auto computed = time_event(c, fired_at_b)) {
      run_.stepper->interpolate(computed->t_a, run_.x_a.data());
      run_.stepper->interpolate(computed->t_b, run_.x_b.data());
      return *computed;
    }
    Crossing<S> at = c;
    const S width = run_.bracket_width(decision);  // of the final bracket
    for (int n = 0; decision.locator != Locator::kBisection && n < kAtomLocations; ++n) {
      const CrossingAtom crossing = crossing_atom(at);
      if (crossing.atom < 0) break;
      const Bracket<S> bracket = locate<S>(
          decision.locator, at.t_lo, at.t_hi, crossing.phi_lo, crossing.phi_hi, width,
          [this, &at, &crossing](S tm) {
            run_.stepper->interpolate(tm, run_.x_mid.data());
            return kept(run_.detector.atom_probe(run_.mode, at.transition, crossing.atom, tm, run_.x_mid.data()));
          },
          &run_.ledger.stats().root_iterations);
      if (const int k_a = run_.detector.fired(run_.mode, bracket.t_a, run_.x_a.data()); k_a >= 0) {
        at = {k_a, at.t_lo, bracket.t_a};
        continue;
      }
      if (const int k_b = run_.detector.fired(run_.mode, bracket.t_b, run_.x_b.data()); k_b >= 0) {
        *fired_at_b = k_b;
        return bracket;
      }
      at.t_lo = bracket.t_b;
    }
    *fired_at_b = at.transition;
    CrossingAtom crossing;
    if (decision.locator != Locator::kBisection) {
      crossing = crossing_atom(at);
    } else {
      run_.stepper->interpolate(at.t_lo, run_.x_a.data());
      run_.stepper->interpolate(at.t_hi, run_.x_b.data());
    }
    return locate<S>(
        crossing.atom >= 0 ? decision.locator : Locator::kBisection, at.t_lo, at.t_hi, crossing.phi_lo,
        crossing.phi_hi, width,
        [this, &at, &crossing, fired_at_b](S tm) {
          run_.stepper->interpolate(tm, run_.x_mid.data());
          const int k = run_.detector.fired(run_.mode, tm, run_.x_mid.data());
          if (k >= 0) *fired_at_b = k;
          Probe<S> p;
          p.fired = k >= 0;
          if (crossing.atom >= 0) p.phi = run_.detector.oriented(run_.mode, at.transition, crossing.atom, tm, run_.x_mid.data());
          return kept(p);
        },
        &run_.ledger.stats().root_iterations);
  }

 private:
  // The trial point's state, in x_mid, becomes the end of the bracket that the locator moves
  // to it (events/location.hpp: t_b when it fired, else t_a).
  Probe<S> kept(const Probe<S>& p) {
    std::swap(run_.x_mid, p.fired ? run_.x_b : run_.x_a);
    return p;
  }

  // The atom of the crossing's guard that does not hold at t_lo and holds at t_hi, with its
  // oriented values there; atom -1 when there is none. Leaves x(t_lo) in run_.x_a, x(t_hi) in run_.x_b.
  struct CrossingAtom {
    int atom = -1;
    S phi_lo = S(-1), phi_hi = S(1);
  };

  CrossingAtom crossing_atom(const Crossing<S>& c) {
    run_.stepper->interpolate(c.t_lo, run_.x_a.data());
    run_.stepper->interpolate(c.t_hi, run_.x_b.data());
    CrossingAtom a;
    a.atom = run_.detector.changed_atom(run_.mode, c.transition, c.t_lo, run_.x_a.data(), c.t_hi, run_.x_b.data());
    if (a.atom >= 0) {
      a.phi_lo = run_.detector.oriented(run_.mode, c.transition, a.atom, c.t_lo, run_.x_a.data());
      a.phi_hi = run_.detector.oriented(run_.mode, c.transition, a.atom, c.t_hi, run_.x_b.data());
    }
    return a;
  }

  // A time event (core/guard.hpp, Atom::time): when the atom whose crossing fired the guard
  // depends on t alone with the closed-form root K, the bracket is computed, not searched:
  // [prev(t_b), t_b] for the first of prev(K), K, next(K) where the whole guard fires and
  // did not one ulp before (checked on the guard itself). Otherwise nothing: the locator runs.
  std::optional<Bracket<S>> time_event(const Crossing<S>& c, int* fired_at_b) {
    const auto& atoms = run_.model.modes[static_cast<std::size_t>(run_.mode)].transitions[static_cast<std::size_t>(c.transition)]
                            .guard.atoms();
    if (std::none_of(atoms.begin(), atoms.end(), [](const Atom<S>& a) { return is_finite(a.time); })) return std::nullopt;
    run_.stepper->interpolate(c.t_lo, run_.x_a.data());
    run_.stepper->interpolate(c.t_hi, run_.x_b.data());
    const int atom = run_.detector.changed_atom(run_.mode, c.transition, c.t_lo, run_.x_a.data(), c.t_hi, run_.x_b.data());
    if (atom < 0 || !is_finite(atoms[static_cast<std::size_t>(atom)].time)) return std::nullopt;
    const S root = atoms[static_cast<std::size_t>(atom)].time;
    const auto fired_at = [this](S t) {
      run_.stepper->interpolate(t, run_.x_mid.data());
      return run_.detector.fired(run_.mode, t, run_.x_mid.data());
    };
    for (const S& t_b : {-next_up(-root), root, next_up(root)}) {
      const S t_a = -next_up(-t_b);
      if (t_a < c.t_lo || t_b > c.t_hi) continue;
      const int k = fired_at(t_b);
      if (k < 0 || fired_at(t_a) >= 0) continue;
      *fired_at_b = k;
      return Bracket<S>{t_a, t_b};
    }
    return std::nullopt;
  }

  LoopContext<S>& run_;
};

}  // namespace hysim
