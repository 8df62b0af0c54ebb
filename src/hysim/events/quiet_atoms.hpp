// Atoms that cannot have changed sign yet (Atom::rate_bound). When |de/dt| <= R along every
// solution of the mode,
//   |e(t) - e(t_e)| <= R |t - t_e|,
// so e keeps the sign of e(t_e) != 0 while t - t_e < |e(t_e)| / R. Only after t_e: the bound
// is the model's promise about its motion, which the solution continued past an event it has
// not yet taken breaks (a ball falling through its floor outruns the speed its energy allows),
// and a step's end lies there until the location reads the event before it. Detection keeps the
// last value of each bounded atom with its time, and reads it instead of evaluating e again
// while the atom is quiet: at a step's end (fired) and in the gamma rule's prediction. There a
// quiet atom that does not hold keeps the prediction of its last evaluation, t_e + -s/(ds/dt)
// (never, when it was moving away from its surface), and is given no less than the time it
// surely has left, |e(t_e)| / R - (t - t_e): an atom that turns toward its surface while
// quiet is seen at its first evaluation after, as the rule itself sees an atom that turns
// within a step only at the step's end.
//
// The values belong to the trajectory of one mode: entering another mode, a sliding motion (the
// equivalent field) or a Zeno continuation forgets them all. A jump at t_a within the mode
// forgets the atoms that read a state it changed (Atom::reads; all those that do not say what
// they read) and every value kept after t_a: the others have at (t_a, x+) the value they had
// at (t_a, x-), so |e(t) - e(t_e)| <= R (t - t_e) still holds for t_e <= t_a <= t, the bound
// holding on both sides of the jump. Indexed by the atoms' value slots (events/atom_layout.hpp); allocation-free after
// construction.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "hysim/core/model.hpp"
#include "hysim/events/atom_layout.hpp"

namespace hysim {

template <class S>
class QuietAtoms {
 public:
  QuietAtoms(const Model<S>& model, const AtomLayout& layout)
      : t_(layout.slots()),
        e_(layout.slots()),
        fires_at_(layout.slots(), std::numeric_limits<S>::quiet_NaN()),
        piece_of_(layout.slots(), 0),
        readers_(model.state_size()) {
    for (std::size_t m = 0; m < model.modes.size(); ++m) {
      const auto& transitions = model.modes[m].transitions;
      for (std::size_t k = 0; k < transitions.size(); ++k) {
        const auto& atoms = transitions[k].guard.atoms();
        for (std::size_t i = 0; i < atoms.size(); ++i) {
          if (!(atoms[i].rate_bound < std::numeric_limits<S>::infinity())) continue;
          bounded_ = true;
          const std::size_t slot = layout.slot(static_cast<int>(m), k, i);
          if (atoms[i].reads.empty()) unknown_.push_back(slot);
          for (std::size_t j : atoms[i].reads) {
            if (j < readers_.size()) readers_[j].push_back(slot);
          }
        }
      }
    }
  }

  bool any() const { return bounded_; }  // some atom of the model has a rate bound

  // Nothing kept holds any longer; off() also stops keeping until on().
  void forget() { ++piece_; }
  void off() {
    forget();
    on_ = false;
  }
  void on() { on_ = true; }

  // The mode whose trajectory the kept values lie on: another one forgets them.
  void in_mode(int mode) {
    if (mode != mode_) forget();
    mode_ = mode;
  }

  // A jump x_prior -> x at t within the mode: the atoms that read a state it changed are
  // dropped, and so is every value kept after t (on the trajectory the jump cuts off; a step
  // that ended past the event, a location's trial points).
  void jumped(const S& t, const S* x_prior, const S* x) {
    bool any_change = false;
    for (std::size_t j = 0; j < readers_.size(); ++j) {
      if (x_prior[j] == x[j]) continue;
      any_change = true;
      for (std::size_t slot : readers_[j]) piece_of_[slot] = 0;
    }
    if (!any_change) return;
    for (std::size_t slot : unknown_) piece_of_[slot] = 0;
    for (std::size_t slot = 0; slot < t_.size(); ++slot) {
      if (t_[slot] > t) piece_of_[slot] = 0;
    }
  }

  // e(t) of the atom at `slot`, just evaluated in `mode`.
  void note(int mode, std::size_t slot, const S& t, const S& e) {
    if (!on_) return;
    in_mode(mode);
    t_[slot] = t;
    e_[slot] = e;
    fires_at_[slot] = std::numeric_limits<S>::quiet_NaN();
    piece_of_[slot] = piece_;
  }


  // The kept value when the atom, of bound R, cannot have changed sign at t in `mode`; nullptr
  // otherwise.
  const S* quiet(int mode, std::size_t slot, const S& bound, const S& t) const {
    using std::abs;
    if (!on_ || mode != mode_ || piece_of_[slot] != piece_ || t < t_[slot]) return nullptr;
    return (t - t_[slot]) * bound < abs(e_[slot]) ? &e_[slot] : nullptr;
  }

  // e of the atom at `slot`, of bound R (+infinity: none), at t in `mode`: the kept value while
  // the atom is quiet, else evaluate() (kept when the atom has a bound).
  template <class Evaluate>
  S value(int mode, std::size_t slot, const S& bound, const S& t, const Evaluate& evaluate) {
    if (!(bound < std::numeric_limits<S>::infinity())) return evaluate();
    if (const S* kept = quiet(mode, slot, bound, t)) return *kept;
    const S e = evaluate();
    note(mode, slot, t, e);
    return e;
  }

  // time_to_fire's view (events/rates.hpp) of the atoms of `mode` at t: kept(k, i) gives the
  // kept value of an atom read before t with its time to hold; predicted(k, i, fires_at) takes
  // the prediction of one read afresh. Layout: events/atom_layout.hpp; Reader: GuardReader.
  struct Kept {
    const S* e = nullptr;  // the atom's kept value; null: not quiet
    S time_to_hold = S(0);  // by the kept prediction, no less than quiet_for
    S quiet_for = S(0);     // the time it surely stays quiet (its only bound read negated)
  };
  template <class Reader>
  struct View {
    QuietAtoms* quiet;
    const AtomLayout* layout;
    const Reader* reader;
    int mode;
    S t;
    Kept kept(std::size_t k, std::size_t i) const {
      if (!quiet->bounded_) return {};
      const S bound = reader->atom(mode, k, i).rate_bound;
      const std::size_t slot = layout->slot(mode, k, i);
      const S* e = quiet->quiet(mode, slot, bound, t);
      if (e == nullptr || quiet->kept_at(slot, t)) return {};
      using std::abs;
      return {e, quiet->time_to_hold(slot, bound, t), abs(*e) / bound - (t - quiet->t_[slot])};
    }
    void predicted(std::size_t k, std::size_t i, S fires_at) const {
      if (!quiet->bounded_ || !(reader->atom(mode, k, i).rate_bound < std::numeric_limits<S>::infinity())) return;
      const std::size_t slot = layout->slot(mode, k, i);
      if (quiet->kept_at(slot, t)) quiet->fires_at_[slot] = fires_at;
    }
  };

  // Whether the kept value was read at t itself (its prediction is then made afresh).
  bool kept_at(std::size_t slot, const S& t) const { return t_[slot] == t; }

  // For a quiet atom at t: the time until the rule predicts it to hold, no less than the time
  // it surely stays quiet (no prediction made: that time).
  S time_to_hold(std::size_t slot, const S& bound, const S& t) const {
    using std::abs;
    const S quiet_for = abs(e_[slot]) / bound - (t - t_[slot]);
    const S predicted = fires_at_[slot] - t;
    return predicted > quiet_for ? predicted : quiet_for;  // NaN (no prediction): quiet_for
  }

 private:
  std::vector<S> t_, e_, fires_at_;
  std::vector<std::uint64_t> piece_of_;
  std::uint64_t piece_ = 1;  // piece_of_ starts at 0: nothing kept
  int mode_ = -1;
  bool on_ = true, bounded_ = false;
  std::vector<std::vector<std::size_t>> readers_;  // [state]: the bounded atoms' slots that read it
  std::vector<std::size_t> unknown_;               // bounded atoms' slots without Atom::reads
};

}  // namespace hysim
