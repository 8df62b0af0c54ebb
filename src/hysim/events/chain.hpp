// The transition chain at one event time: Mosterman et al., Eq. (3), Table 2 and Algorithm 1
// ("recursion").
//
// At t_a the guard of a_k -> a_m fired with pre-event state x, the a priori state of the last
// real mode. Repeat:
//   1. x+ = g_{a_k}^{a_m}(x), always from x (invariance of state).
//   2. Mythical: a guard out of a_m fires strictly on (x, x+) (atoms with a jump form read
//      jump(t, x, x+), the others e(t, x+); events/detection.hpp, fired_strictly). a_m leaves
//      no trace: x stays, and the chain goes on from a_m with the guard that fired.
//   3. Otherwise a_m is real: commit x := x+. Pinnacle: a guard out of a_m fires strictly on
//      (x+, x+); it existed at a point and changed the state; go on from a_m.
//      An algebraic mode (no field: 003, Table 1, "no continuous evolution") skips step 2: it
//      is a pinnacle when its reset changes the state, mythical when it does not, and one of
//      its guards must fire on the state it leaves (else SimulationError).
//   4. Otherwise a_m is continuous. If a guard fires an instant later (fired_after: atoms on
//      their surface read by the sign of their rate along f_{a_m}), a_m is a boundary and the
//      chain goes on; if not, a_m is interior and the chain arrives there.
// The chain is carried on both sides of the location bracket (x at t_a and at t_b) so that
// detection knows which atoms sit on their surface. A chain that comes back to a (mode,
// state) it visited, or that visits more than chain_limit modes, throws SimulationError with
// the chain written out; the exception is a cycle of boundary links: the fields on the two
// sides of a surface point into each other, and the chain arrives in the first mode of the
// cycle, classed sliding (003, Table 2). For a cycle of two modes a -> b -> a the arrival
// names the surface (the atom on it in each guard), for the equivalent dynamics.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "hysim/core/errors.hpp"
#include "hysim/run/result.hpp"
#include "hysim/events/detection.hpp"

namespace hysim {

template <class S>
class TransitionChain {
 public:
  // Where the chain arrived: the mode, its entry state and its field there.
  struct Arrival {
    int mode = -1;
    const S* x = nullptr;
    const S* dxdt = nullptr;
    const S* x_far = nullptr;  // the same arrival from the bracket's far side (t_b); nullptr: none
    // A sliding arrival in mode a on a two-mode cycle a -> b -> a: transition `to_b` of a, whose
    // atom `atom_a` sits on the surface, and transition `to_a` of b, whose atom `atom_b` does.
    // to_b < 0: not sliding, or a longer cycle (no equivalent dynamics).
    struct Surface {
      int to_b = -1, atom_a = -1, mode_b = -1, to_a = -1, atom_b = -1;
    } surface;
    // The first transition taken with Transition::stop (the run ends at this event); empty: none.
    std::string_view stop_by;

  };

  TransitionChain(const Model<S>& model, int chain_limit, TransitionDetector<S>* detector,
                  std::int64_t* rhs_evals)
      : model_(model),
        chain_limit_(chain_limit),
        detector_(detector),
        rhs_evals_(rhs_evals),
        n_(model.state_size()),
        base_a_(n_), base_b_(n_), plus_a_(n_), plus_b_(n_), field_(n_) {}

  // Resolves the chain that starts when transition `transition` of mode `from` fires between
  // t_a (state x_a, not fired) and t_b (state x_b, fired). x_b == nullptr: no bracket (t0).
  // emit(from, to, class, guard name, x_pre, x_post) is called once per mode visited; a
  // mythical row has x_post = x_pre (it leaves no trace).
  template <class Emit>
  Arrival resolve(int from, int transition, S t_a, const S* x_a, S t_b, const S* x_b, Emit&& emit) {
    std::copy(x_a, x_a + n_, base_a_.begin());
    if (x_b != nullptr) std::copy(x_b, x_b + n_, base_b_.begin());
    std::size_t visited = 0;
    remember(visited++, from, -1, TransitionClass::kInterior, base_a_);
    int surface_in = -1;  // the atom on its surface in the guard that led into `from`
    std::string_view stop_by;  // the first transition taken with Transition::stop

    for (int depth = 0; depth < chain_limit_; ++depth) {
      const Mode<S>& source = model_.modes[static_cast<std::size_t>(from)];
      const Transition<S>& tr = source.transitions[static_cast<std::size_t>(transition)];
      const int to = tr.target;
      const Mode<S>& target = model_.modes[static_cast<std::size_t>(to)];
      detector_->crossing_taken(from, transition);
      if (tr.stop && stop_by.empty()) stop_by = tr.name;

      // 1. the tentative reset, from the a priori state
      apply_reset(tr, t_a, base_a_.data(), plus_a_.data(), source, to);
      if (x_b != nullptr) apply_reset(tr, t_b, base_b_.data(), plus_b_.data(), source, to);

      // 2.-4. classify (the chain written so far names the transition in an error)
      const Classified c = classify(tr, to, t_a, t_b, x_b != nullptr, visited);
      TransitionClass kind = c.kind;
      const FiredTransition next = c.next;

      const std::vector<S>& committed = kind == TransitionClass::kMythical ? base_a_ : plus_a_;
      typename Arrival::Surface surface;
      // A crossing comes back to its own mode, held: that is no cycle.
      const std::size_t earlier = next.index >= 0 && !tr.crossing ? visit_of(visited, to, committed) : kNotVisited;
      if (earlier != kNotVisited) {
        // Back at a (mode, state) of this chain. When every link since is a boundary, the
        // fields on either side of one surface drive the state into each other: a sliding
        // configuration (003, Table 2). The chain stops in that mode, classed sliding.
        if (kind != TransitionClass::kBoundary || !boundary_links_since(earlier, visited)) {
          remember(visited++, to, transition, kind, committed);
          throw SimulationError(where(t_a) + ": the transition chain returns to mode '" + target.name +
                                "' with the same state: " + chain_text(visited));
        }
        kind = TransitionClass::kSliding;
        if (earlier + 2 == visited && visited_modes_[earlier + 1] == from && next.index == visited_guards_[earlier + 1] &&
            next.surface_atom >= 0 && surface_in >= 0) {
          // a -> b -> a: a = to, b = from.
          surface = {next.index, next.surface_atom, from, transition, surface_in};
        }
      }
      emit(from, to, kind, std::string_view(tr.name), std::span<const S>(base_a_),
           std::span<const S>(committed));

      if (kind != TransitionClass::kMythical) {  // a real mode: its state is committed
        std::swap(base_a_, plus_a_);
        if (x_b != nullptr) std::swap(base_b_, plus_b_);
      }
      if (next.index < 0 || kind == TransitionClass::kSliding) {
        // base_a_ holds the arrival state (committed above).
        Arrival arrival{to, base_a_.data(), field_.data(), x_b != nullptr ? base_b_.data() : nullptr, surface, stop_by};
        return arrival;
      }
      remember(visited++, to, transition, kind, base_a_);
      surface_in = next.surface_atom;
      from = to;
      transition = next.index;
    }
    throw SimulationError(where(t_a) + ": the transition chain exceeds chain_limit = " +
                          std::to_string(chain_limit_) + ": " + chain_text(visited));
  }

 private:
  // 003, Eq. 3 and Table 2, steps 2-4, for the mode `to` entered through `tr` at t_a with
  // a priori state base_a_ and tentative x+ = plus_a_ (and their far-side twins when
  // bracketed): the class of `to` and the transition that fires next (-1: the chain arrives).
  struct Classified {
    TransitionClass kind = TransitionClass::kMythical;
    FiredTransition next;
  };

  Classified classify(const Transition<S>& tr, int to, S t_a, S t_b, bool bracketed, std::size_t visited) {
    const Mode<S>& target = model_.modes[static_cast<std::size_t>(to)];
    const S* far_prior = bracketed ? base_b_.data() : nullptr;  // (swapped at each commit)
    const S* far_plus = bracketed ? plus_b_.data() : nullptr;
    // An algebraic mode (no field) has no patch to test x+ against: it is a pinnacle when its
    // reset changes the state (its guards are read after the commit), mythical otherwise.
    const bool state_changed = !std::equal(base_a_.begin(), base_a_.end(), plus_a_.begin());
    const bool algebraic = !target.field;
    Classified c;
    if (algebraic && !state_changed) {
      c.next.index = detector_->fired_strictly(to, t_a, base_a_.data(), base_a_.data(), t_b, far_prior, far_prior);
    } else if (!algebraic) {  // mythical: a guard of `to` fires strictly on (x, x+)
      c.next.index = detector_->fired_strictly(to, t_a, base_a_.data(), plus_a_.data(), t_b, far_prior, far_plus);
    }
    if (c.next.index >= 0) return c;
    c.kind = TransitionClass::kPinnacle;  // pinnacle: a guard fires on (x+, x+)
    if (state_changed) {
      c.next.index = detector_->fired_strictly(to, t_a, plus_a_.data(), plus_a_.data(), t_b, far_plus, far_plus);
    }
    if (c.next.index >= 0) return c;
    if (algebraic) {
      throw SimulationError(where(t_a) + ": the chain rests in the algebraic mode '" + target.name +
                            "' (no field, and none of its guards fires on its state): " + chain_text(visited) +
                            " -[" + tr.name + "]-> " + target.name);
    }
    // boundary: a guard fires an instant later along the field; else interior
    ++*rhs_evals_;
    target.field(t_a, plus_a_.data(), field_.data());
    c.next = detector_->fired_after(to, t_a, plus_a_.data(), t_b, far_plus, field_.data());
    c.kind = c.next.index >= 0 ? TransitionClass::kBoundary : TransitionClass::kInterior;
    return c;
  }

  void apply_reset(const Transition<S>& tr, S t, const S* x, S* x_plus, const Mode<S>& source, int to) {
    std::copy(x, x + n_, x_plus);
    if (tr.reset) tr.reset(t, x, x_plus);
    for (std::size_t j = 0; j < n_; ++j) {
      if (!is_finite(x_plus[j])) {
        throw SimulationError(where(t) + ", mode '" + source.name + "': the reset of transition '" + tr.name +
                              "' to '" + model_.modes[static_cast<std::size_t>(to)].name + "' gives " +
                              model_.state_names[j] + " = " + format_scalar(x_plus[j]));
      }
    }
  }

  static constexpr std::size_t kNotVisited = static_cast<std::size_t>(-1);

  // The record grows with the longest chain seen, not with chain_limit: a limit of 1e9 does not
  // reserve gigabytes (it only bounds a chain), and a run's usual chains of a few modes keep it small.
  void remember(std::size_t slot, int mode, int transition, TransitionClass kind, const std::vector<S>& state) {
    if (slot >= visited_modes_.size()) {
      const std::size_t size = std::max<std::size_t>(2 * slot, 8);
      visited_modes_.resize(size);
      visited_guards_.resize(size);
      visited_kinds_.resize(size);
      visited_states_.resize(size * n_);
    }
    visited_modes_[slot] = mode;
    visited_guards_[slot] = transition;
    visited_kinds_[slot] = kind;
    std::copy(state.begin(), state.end(), visited_states_.begin() + static_cast<std::ptrdiff_t>(slot * n_));
  }

  // The slot at which (mode, state) was visited in this chain, or kNotVisited.
  std::size_t visit_of(std::size_t visited, int mode, const std::vector<S>& state) const {
    for (std::size_t s = 0; s < visited; ++s) {
      if (visited_modes_[s] != mode) continue;
      const auto begin = visited_states_.begin() + static_cast<std::ptrdiff_t>(s * n_);
      if (std::equal(state.begin(), state.end(), begin)) return s;
    }
    return kNotVisited;
  }

  // Every link into the slots after `earlier` was a boundary.
  bool boundary_links_since(std::size_t earlier, std::size_t visited) const {
    for (std::size_t s = earlier + 1; s < visited; ++s) {
      if (visited_kinds_[s] != TransitionClass::kBoundary) return false;
    }
    return true;
  }

  // "s1 -[p3]-> s3 -[p1]-> s1": the chain so far, for error messages.
  std::string chain_text(std::size_t visited) const {
    std::string out = model_.modes[static_cast<std::size_t>(visited_modes_[0])].name;
    for (std::size_t s = 1; s < visited; ++s) {
      const auto& prev = model_.modes[static_cast<std::size_t>(visited_modes_[s - 1])];
      out += " -[" + prev.transitions[static_cast<std::size_t>(visited_guards_[s])].name + "]-> " +
             model_.modes[static_cast<std::size_t>(visited_modes_[s])].name;
    }
    return out;
  }

  std::string where(S t) const { return "model '" + model_.name + "', t = " + format_scalar(t); }

  const Model<S>& model_;
  int chain_limit_;
  TransitionDetector<S>* detector_;
  std::int64_t* rhs_evals_;
  std::size_t n_;
  std::vector<S> base_a_, base_b_, plus_a_, plus_b_, field_;
  std::vector<int> visited_modes_, visited_guards_;
  std::vector<TransitionClass> visited_kinds_;
  std::vector<S> visited_states_;
};

}  // namespace hysim
