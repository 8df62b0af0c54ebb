// Re-arming after an event: the atoms that read false for a while in the mode just entered
// (the idea of CVODE's cvRcheck1-2: a zero at the restart point is not a new event).
//
// The mode entered at (t, x), with field value f, may have atoms that hold there only because
// the entry point lies on the pre-event side of a surface: the same arrival seen from the far
// side of the location bracket, (t_far, x_far), does not satisfy them (or, without a
// bracket, they sit exactly at 0), and the field drives them out of their truth within the
// time resolution (RateEstimator::drift, the same reading as the chain's). Such an atom, in a
// guard that fires literally at (t, x), is disarmed: it reads false until it has had time to
// leave by its linear rate,
//   t + 4 leave + 16 ulp(t),   leave = s / |ds/dt|   (s its oriented value),
// and literally from then on (re-armed), so that a later genuine crossing is found like any
// other. The mask is a function of time, the same for every probe; arm() replaces it,
// disarm() clears it, and it applies in the armed mode only.
#pragma once

#include <algorithm>
#include <limits>
#include <vector>

#include "hysim/events/atom_layout.hpp"
#include "hysim/events/event_cache.hpp"
#include "hysim/events/guard_reader.hpp"
#include "hysim/events/rates.hpp"

namespace hysim {

template <class S>
class RearmMasks {
 public:
  // All outlive the masks.
  RearmMasks(GuardReader<S>* reader, EventCache<S>* cache, RateEstimator<S>* rates, const AtomLayout* layout)
      : reader_(*reader), cache_(*cache), rates_(*rates), layout_(*layout),
        until_(layout->most_in_mode(), -std::numeric_limits<S>::infinity()) {}

  // No atom is masked (a run starts, a mode is left without an event, a sliding motion ends).
  void disarm() {
    any_masked_ = false;
    armed_mode_ = -1;
  }

  // Masks the atoms of `mode` that the header describes; x_far == nullptr: no bracket.
  void arm(int mode, S t, const S* x, const S* f, S t_far, const S* x_far) {
    std::fill(until_.begin(), until_.end(), -std::numeric_limits<S>::infinity());
    any_masked_ = false;
    armed_mode_ = mode;
    auto* here = cache_.point(t, x);
    auto* far = x_far != nullptr ? cache_.point(t_far, x_far) : nullptr;
    for (std::size_t k = 0; k < reader_.transitions(mode); ++k) {
      const auto& atoms = reader_.guard(mode, k).atoms();
      const auto literal = [&](std::size_t i, const Atom<S>& atom) {
        return relation_holds(atom.relation, cache_.value(mode, k, i, t, x, here));
      };
      if (!reader_.template fires</*kMayBeUndecided=*/false, /*kNoteTruths=*/true>(mode, k, literal)) continue;
      for (std::size_t i = 0; i < atoms.size(); ++i) {
        if (reader_.truth_of(i) != 1) continue;  // false, or not needed for the guard to fire
        const S e = cache_.value(mode, k, i, t, x, here);
        const bool on_surface = x_far != nullptr
                                    ? !relation_holds(atoms[i].relation, cache_.value(mode, k, i, t_far, x_far, far))
                                    : e == S(0);
        if (!on_surface) continue;  // holds on both sides: the guard genuinely fires
        const auto d = rates_.drift(mode, k, i, t, x, f, e, t_far, x_far != nullptr, x_far != nullptr);
        if (d.drive != RateEstimator<S>::Drive::kOut) continue;  // not driven out in time: it fires
        S& until = until_[layout_.in_mode(mode, k, i)];
        until = t + S(4) * d.leave + S(16) * ulp_of(t);
        latest_ = any_masked_ ? std::max(latest_, until) : until;
        any_masked_ = true;
      }
    }
  }

  // Whether atom i of transition k of `mode` reads false at t.
  bool masked(int mode, std::size_t k, std::size_t i, const S& t) const {
    return any_masked_ && mode == armed_mode_ && t < until_[layout_.in_mode(mode, k, i)];
  }

  // Until when atom i of transition k of `mode` reads false (-infinity: it does not).
  S masked_until(int mode, std::size_t k, std::size_t i) const {
    if (!any_masked_ || mode != armed_mode_) return -std::numeric_limits<S>::infinity();
    return until_[layout_.in_mode(mode, k, i)];
  }

  // Whether some atom of `mode` reads false at t: if not, every reading there is literal.
  bool any_masked_at(int mode, const S& t) const { return any_masked_ && mode == armed_mode_ && t < latest_; }

 private:
  GuardReader<S>& reader_;
  EventCache<S>& cache_;
  RateEstimator<S>& rates_;
  const AtomLayout& layout_;
  std::vector<S> until_;     // by AtomLayout::in_mode: atoms of armed_mode_ read false before this time
  int armed_mode_ = -1;
  S latest_ = -std::numeric_limits<S>::infinity();  // the largest finite entry of until_
  bool any_masked_ = false;  // some entry of until_ is finite: masked() has work to do
};

}  // namespace hysim
