// Crossings: transitions that fire where their guard turns true, not while it stays true
// (core/model.hpp, Transition::crossing). Each crossing of the mode being read is armed or
// held:
//
//   sync     the first reading of a mode (entered by an ordinary transition, at t0, after a
//            Zeno continuation): a crossing is held when its guard is already true at the
//            point read (the mode was entered on its far side: no crossing there), armed
//            otherwise;
//   taken    the chain takes a crossing: it is held (the guard it made true stays true); the
//            chain takes an ordinary transition: the mode is read afresh (sync) when next asked;
//   rearm    at a point of the accepted trajectory (a step's end, an interior sample, the
//            pre-event point of an event), a held crossing whose guard reads false is armed.
//
// A held crossing reads false everywhere (GuardReader::held): it neither fires nor is
// predicted to. Re-arming reads step ends, so a guard that turns false and true again within
// one step is not seen turning: a crossing wanted in both directions is written `both`, which
// locates every sign change. The flags belong to one mode at a time; nothing is allocated
// after construction.
#pragma once

#include <algorithm>
#include <vector>

#include "hysim/core/model.hpp"
#include "hysim/events/guard_reader.hpp"

namespace hysim {

template <class S>
class CrossingArms {
 public:
  // The reader outlives the arms.
  explicit CrossingArms(GuardReader<S>* reader) : reader_(*reader) {
    const Model<S>& model = reader_.model();
    std::size_t most = 0;
    for (const Mode<S>& mode : model.modes) {
      bool any = false;
      for (const Transition<S>& tr : mode.transitions) any = any || tr.crossing;
      has_.push_back(any);
      model_has_ = model_has_ || any;
      most = std::max(most, mode.transitions.size());
    }
    held_.assign(most, 0);
  }

  // Whether the model has crossings at all (else every other call does nothing).
  bool model_has() const { return model_has_; }

  // Whether `mode` has crossings: its readings depend on the flags (no answer is kept).
  bool any(int mode) const { return model_has_ && has_[static_cast<std::size_t>(mode)] != 0; }

  // Reads `mode` afresh at its next sync.
  void forget() {
    mode_ = -1;
    reader_.hold(-1, nullptr);
  }

  // The flags of `mode`, from its guards at (t, x) when they belong to another mode.
  void sync(int mode, S t, const S* x) {
    if (!model_has_ || mode_ == mode || !any(mode)) return;
    mode_ = mode;
    reader_.hold(-1, nullptr);  // read the guards themselves
    const auto& transitions = reader_.model().modes[static_cast<std::size_t>(mode)].transitions;
    for (std::size_t k = 0; k < transitions.size(); ++k) {
      held_[k] = transitions[k].crossing && guard_true(mode, k, t, x);
    }
    reader_.hold(mode, &held_);
  }

  // The chain takes transition k of `mode`.
  void taken(int mode, int k) {
    if (!model_has_) return;
    const auto kk = static_cast<std::size_t>(k);
    if (mode_ == mode && reader_.model().modes[static_cast<std::size_t>(mode)].transitions[kk].crossing) {
      held_[kk] = 1;
    } else {
      forget();
    }
  }

  // (t, x) lies on the accepted trajectory in `mode`: held crossings whose guard is false there
  // are armed.
  void rearm(int mode, S t, const S* x) {
    if (!any(mode)) return;
    sync(mode, t, x);
    release_if(mode, [&](std::size_t k) { return !guard_true(mode, k, t, x); });
  }

  // Arms the held crossings k of `mode` (synced) for which released(k), read with no hold.
  template <class Released>
  void release_if(int mode, const Released& released) {
    if (mode_ != mode) return;
    reader_.hold(-1, nullptr);
    for (std::size_t k = 0; k < reader_.transitions(mode); ++k) {
      if (held_[k] && released(k)) held_[k] = 0;
    }
    reader_.hold(mode, &held_);
  }

 private:
  bool guard_true(int mode, std::size_t k, S t, const S* x) {
    return reader_.fires(mode, k, [&](std::size_t /*i*/, const Atom<S>& atom) {
      return static_cast<char>(relation_holds(atom.relation, reader_.value(atom, mode, k, t, x)));
    });
  }

  GuardReader<S>& reader_;
  bool model_has_ = false;  // some mode has crossings
  std::vector<char> has_;   // by mode: it has crossings
  std::vector<char> held_;  // by transition of mode_: a crossing that reads false
  int mode_ = -1;           // the mode the flags belong to; -1: none
};

}  // namespace hysim
