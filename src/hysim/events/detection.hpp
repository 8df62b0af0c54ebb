// Detection: which transition of a mode fires at a point, literally or "an instant later".
//
// This is the one place that decides whether a guard fired: nothing else calls an event
// function or reads a guard's tree. The questions asked of it:
//
//  * fired(t, x): the literal question, asked at the end of each step and at each trial
//    point of a location. A guard fires at (t, x) when its tree is true there; transitions are
//    tried in declaration order and the first that fires is taken. Atoms disarmed after the
//    last event (arm) read false.
//
//  * fired_after(...): asked when a mode is entered at an event (and at t0). The entry point
//    lies on a switching surface up to the width of the location bracket, so an atom that
//    sits on its surface must not be read literally (it would fire or not by rounding).
//    The chain is carried on both sides of the bracket [t_a, t_b]: an atom whose truth
//    differs between its value at (t_a, x_a) and at (t_b, x_b) has its zero inside the
//    bracket; it is given the truth it takes an instant after t_a when the arrival mode's
//    field f drives it, i.e. the sign of de/dt = grad e . f + de/dt (003's boundary test: a
//    guard at 0 that the field drives across fires at once); so is an atom exactly at 0 on
//    either side of the bracket. Every other atom is read literally at (t_a, x_a).
//
//  * fired_strictly(...): the chain's question on a jump (x, x+), 003's Eq. 3.
//
//  * time_to_fire(t, x, f): the gamma rule's prediction (004, Algorithms 1-3): how long until
//    a guard of the mode fires if every event function moved on linearly at its present rate.
//
//  * oriented(...), atom_probe(...) and changed_atom(...): a continuous function whose sign
//    change marks the event, for the root finders that interpolate (Illinois, ITP, secant).
//
//  * atom_value, rate_along, oriented_rate, atom_holds, fired_on_side, fires_on_side: one
//    atom or guard read for a sliding motion's equivalent dynamics (events/sliding.hpp).
//
// Built from small pieces, each in its own header:
//   AtomLayout      where each atom sits in the tables (events/atom_layout.hpp)
//   GuardReader     calls event functions, counts guard evaluations, reads a guard's tree
//   EventCache      values kept at the two points read last, rates within one prediction
//   RateEstimator   de/dt along f; time_to_fire and drift (the boundary test) from it
//   RearmMasks      which atoms read false after an event, and until when (arm, disarm)
//   CrossingArms    which crossings are armed (events/crossings.hpp: crossing_taken, rearm_crossings)
//   QuietAtoms      the atoms with a rate bound that cannot have changed sign since their last
//                   value (events/quiet_atoms.hpp): fired and time_to_fire read that value
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

#include "hysim/core/model.hpp"
#include "hysim/events/atom_layout.hpp"
#include "hysim/events/crossings.hpp"
#include "hysim/events/event_cache.hpp"
#include "hysim/events/guard_reader.hpp"
#include "hysim/events/location.hpp"
#include "hysim/events/quiet_atoms.hpp"
#include "hysim/events/rates.hpp"
#include "hysim/events/rearm.hpp"

namespace hysim {

// The transition that fires, and whether its firing relied on an atom on its surface.
struct FiredTransition {
  int index = -1;            // into Mode::transitions; -1: none fires
  bool on_surface = false;   // an atom's truth changes at the entry point (driven across)
  int surface_atom = -1;     // the first such atom of the guard (the switching surface), or -1
};

template <class S>
class TransitionDetector {
 public:
  using Approach = typename RateEstimator<S>::Approach;

  // The model and the counters outlive the detector. rhs_evals counts the field evaluations
  // of second-order rate probes at a tangent entry (fired_after, arm); may be null.
  TransitionDetector(const Model<S>& model, std::int64_t* guard_evals, std::int64_t* rhs_evals = nullptr)
      : layout_(model), reader_(model, guard_evals), cache_(&reader_, &layout_), rates_(&reader_, &cache_, rhs_evals),
        masks_(&reader_, &cache_, &rates_, &layout_), crossings_(&reader_), crossings_on_(crossings_.model_has()),
        quiet_(model, layout_), bounded_(quiet_.any()) {}
  TransitionDetector(const TransitionDetector&) = delete;  // the pieces refer to each other
  TransitionDetector& operator=(const TransitionDetector&) = delete;

  // Re-arming after an event (events/rearm.hpp): x_far == nullptr: no bracket. disarm() also
  // has the crossings read afresh, and starts a new piece of trajectory (a run's start, a Zeno
  // continuation, a sliding motion): the quiet atoms' values are forgotten. arm() enters `mode`.
  void disarm() {
    masks_.disarm();
    if (crossings_on_) crossings_.forget();
    quiet_.forget();
  }
  void arm(int mode, S t, const S* x, const S* f, S t_far, const S* x_far) {
    quiet_.on();
    quiet_.in_mode(mode);
    masks_.arm(mode, t, x, f, t_far, x_far);
  }
  // A sliding motion follows another field than its modes': no quiet values until arm().
  void quiet_off() { quiet_.off(); }

  // Index of the first transition of `mode` whose guard is true at (t, x), or -1. Masked
  // atoms (arm) read false unless `literal` asks for the plain truth.
  // Where no atom is masked at t, the answer is kept with the point: the one-sided test at an
  // event asks again what the location asked at the bracket's end.
  int fired(int mode, S t, const S* x, bool literal = false) {
    if (crossings_on_) crossings_.sync(mode, t, x);
    auto* here = cache_.point(t, x);
    const bool plain = (literal || !masks_.any_masked_at(mode, t)) && !(crossings_on_ && crossings_.any(mode));
    if (plain && here->fired_generation == here->generation && here->fired_mode == mode) return here->fired;
    const int fires = reader_.first_firing(mode, [&](std::size_t k, std::size_t i, const Atom<S>& atom) {
      if (!literal && masks_.masked(mode, k, i, t)) return char(0);
      const auto evaluate = [&] { return cache_.value(mode, k, i, t, x, here); };
      const S e = bounded_ ? quiet_.value(mode, layout_.slot(mode, k, i), atom.rate_bound, t, evaluate) : evaluate();
      return static_cast<char>(relation_holds(atom.relation, e));
    });
    if (plain) {
      here->fired_generation = here->generation;
      here->fired_mode = mode;
      here->fired = fires;
    }
    return fires;
  }

  // Whether atom i of transition k of `mode` reads false at t for having been disarmed at the
  // last event (events/rearm.hpp).
  bool masked(int mode, int k, int i, const S& t) const {
    return masks_.masked(mode, static_cast<std::size_t>(k), static_cast<std::size_t>(i), t);
  }
  // Until when it does (-infinity: it is not disarmed).
  S masked_until(int mode, int k, int i) const {
    return masks_.masked_until(mode, static_cast<std::size_t>(k), static_cast<std::size_t>(i));
  }

  // The gamma rule's prediction at (t, x) with field value f = f_mode(t, x) (events/rates.hpp).
  Approach time_to_fire(int mode, S t, const S* x, const S* f) {
    if (crossings_on_) crossings_.sync(mode, t, x);
    const auto masked = [&](std::size_t k, std::size_t i) { return masks_.masked(mode, k, i, t); };
    return rates_.time_to_fire(mode, t, x, f, masked,
                               typename QuietAtoms<S>::template View<GuardReader<S>>{&quiet_, &layout_, &reader_, mode, t});
  }

  // Atom i of transition k of `mode` at (t, x), oriented: positive where it holds, negative
  // where it does not (e for > and >=, -e for < and <=).
  S oriented(int mode, int k, int i, S t, const S* x) {
    const auto [kk, ii] = at(k, i);
    return detail::orient(reader_.atom(mode, kk, ii).relation, cache_.value(mode, kk, ii, t, x, cache_.point(t, x)));
  }

  // The same with whether it holds (literally), from one evaluation, for a locator that
  // follows that atom alone.
  Probe<S> atom_probe(int mode, int k, int i, S t, const S* x) {
    const auto [kk, ii] = at(k, i);
    const Relation relation = reader_.atom(mode, kk, ii).relation;
    const S e = cache_.value(mode, kk, ii, t, x, cache_.point(t, x));
    return {relation_holds(relation, e), detail::orient(relation, e)};
  }

  // An atom of transition k that does not hold at (t_lo, x_lo) and holds at (t_hi, x_hi): the
  // one whose crossing made the guard fire; -1 if there is none.
  int changed_atom(int mode, int k, S t_lo, const S* x_lo, S t_hi, const S* x_hi) {
    const auto kk = static_cast<std::size_t>(k);
    const auto& atoms = reader_.guard(mode, kk).atoms();
    auto* lo = cache_.point(t_lo, x_lo);
    auto* hi = cache_.point(t_hi, x_hi);
    for (std::size_t i = 0; i < atoms.size(); ++i) {
      if (!relation_holds(atoms[i].relation, cache_.value(mode, kk, i, t_lo, x_lo, lo)) &&
          relation_holds(atoms[i].relation, cache_.value(mode, kk, i, t_hi, x_hi, hi))) {
        return static_cast<int>(i);
      }
    }
    return -1;
  }

  // --- a sliding motion: events on the equivalent dynamics (events/sliding.hpp) ---

  // e_i of transition k of `mode` at (t, x), counted, not kept.
  S atom_value(int mode, int k, int i, S t, const S* x) {
    const auto [kk, ii] = at(k, i);
    return reader_.value(mode, kk, ii, t, x);
  }

  // d e_i / dt along the field value f at (t, x): the atom's own rate when the model gives
  // one (exact), else a central difference (events/rates.hpp, kCentral).
  S rate_along(int mode, int k, int i, S t, const S* x, const S* f) {
    const auto [kk, ii] = at(k, i);
    return rates_.rate(Difference::kCentral, mode, kk, ii, t, x, f, S(0));
  }

  // The same rate oriented: positive when f drives the atom toward holding.
  S oriented_rate(int mode, int k, int i, S t, const S* x, const S* f) {
    const auto [kk, ii] = at(k, i);
    return detail::orient(reader_.atom(mode, kk, ii).relation, rate_along(mode, k, i, t, x, f));
  }

  // Whether atom i of transition k holds at (t, x), read literally.
  bool atom_holds(int mode, int k, int i, S t, const S* x) {
    const auto [kk, ii] = at(k, i);
    return literal_truth(reader_.atom(mode, kk, ii), mode, kk, t, x);
  }

  // The first transition of `mode` other than `skip` whose guard is true at (t, x), with the
  // atoms that side(k, i) names read as it says (0 or 1; -1: literally): the atoms on a
  // sliding motion's surface, read on one side of it (events/surface_sides.hpp).
  template <class Side>
  int fired_on_side(int mode, int skip, S t, const S* x, const Side& side) {
    const auto read = [&](std::size_t k, std::size_t i, const Atom<S>& atom) {
      const int forced = side(k, i);
      return static_cast<char>(forced >= 0 ? forced == 1 : literal_truth(atom, mode, k, t, x));
    };
    return reader_.first_firing(mode, read, skip, /*crossings=*/false);  // a crossing is no exit
  }

  // Whether the guard of transition k of `mode` is true at (t, x), read as fired_on_side does.
  template <class Side>
  bool fires_on_side(int mode, int k, S t, const S* x, const Side& side) {
    const auto kk = static_cast<std::size_t>(k);
    if (reader_.model().modes[static_cast<std::size_t>(mode)].transitions[kk].crossing) return false;
    return reader_.fires(mode, kk, [&](std::size_t i, const Atom<S>& atom) {
      const int forced = side(kk, i);
      return static_cast<char>(forced >= 0 ? forced == 1 : literal_truth(atom, mode, kk, t, x));
    });
  }

  // --- the chain at an event (events/chain.hpp) ---

  // The chain takes transition k of `mode` (a crossing is held from then on).
  void crossing_taken(int mode, int k) {
    if (crossings_on_) crossings_.taken(mode, k);
  }

  // (t, x) lies on the accepted trajectory in `mode` (a step's end, an interior sample, the
  // point an event leaves from): held crossings whose guard is false there are armed.
  void rearm_crossings(int mode, S t, const S* x) {
    if (crossings_on_) crossings_.rearm(mode, t, x);
  }

  // The first transition of `mode` whose guard fires strictly on a jump (003, Eq. 3 and
  // Table 2): at t_a with a priori state x_prior and state x (x = x_prior: no jump). Atoms with a jump form read
  // jump(t, x_prior, x), the others e(t, x). An atom on its surface (value 0, or of another
  // truth on the far side (t_b, x_b_prior, x_b) of the location bracket) is undecided there:
  // the guard fires strictly when it is true whichever way the undecided atoms are read (all
  // false, all true). x_b == nullptr: no bracket.
  int fired_strictly(int mode, S t_a, const S* x_prior, const S* x, S t_b, const S* x_b_prior, const S* x_b) {
    if (crossings_on_) crossings_.sync(mode, t_a, x);
    if (bounded_) {  // the chain's jump: what it changed is read afresh from now on
      quiet_.in_mode(mode);
      quiet_.jumped(t_a, x_prior, x);
    }
    // e(t, x) at the tentative state is kept with the point's other values, which fired_after
    // reads next; so is a jump form that reads e(t, x) when nothing jumps (Atom::continuous_jump).
    auto* at_a = cache_.point(t_a, x);
    auto* at_b = x_b != nullptr ? cache_.point(t_b, x_b) : nullptr;
    const std::size_t n = reader_.model().state_size();
    const bool jumps_a = !std::equal(x_prior, x_prior + n, x);
    const bool jumps_b = x_b != nullptr && !std::equal(x_b_prior, x_b_prior + n, x_b);
    const auto reads_jump = [](const Atom<S>& atom, bool jumps) {
      return atom.jump && (jumps || !atom.continuous_jump);
    };
    const auto read = [&](std::size_t k, std::size_t i, const Atom<S>& atom) {
      const S v = reads_jump(atom, jumps_a) ? reader_.jump_value(mode, k, i, t_a, x_prior, x)
                                            : cache_.value(mode, k, i, t_a, x, at_a);
      const bool holds = relation_holds(atom.relation, v);
      bool undecided = v == S(0);
      if (!undecided && x_b != nullptr) {
        const S v_far = reads_jump(atom, jumps_b) ? reader_.jump_value(mode, k, i, t_b, x_b_prior, x_b)
                                                  : cache_.value(mode, k, i, t_b, x_b, at_b);
        undecided = v_far == S(0) || holds != relation_holds(atom.relation, v_far);
      }
      return undecided ? GuardReader<S>::kUndecided : static_cast<char>(holds);
    };
    return reader_.template first_firing</*kMayBeUndecided=*/true>(mode, read);
  }

  // The first transition of `mode` that fires an instant after t_a when the mode is entered
  // at (t_a, x_a) with field f = f_mode(t_a, x_a). (t_b, x_b) is the same arrival seen from
  // the far side of the location bracket; x_b == nullptr means there is no bracket.
  FiredTransition fired_after(int mode, S t_a, const S* x_a, S t_b, const S* x_b, const S* f) {
    if (crossings_on_) crossings_.sync(mode, t_a, x_a);
    if (bounded_) quiet_.in_mode(mode);
    int surface_atom = -1;  // of the transition being read
    std::size_t reading = static_cast<std::size_t>(-1);
    auto* at_a = cache_.point(t_a, x_a);
    auto* at_b = x_b != nullptr ? cache_.point(t_b, x_b) : nullptr;
    const int k = reader_.first_firing(mode, [&](std::size_t kk, std::size_t i, const Atom<S>& atom) {
      if (kk != reading) {
        reading = kk;
        surface_atom = -1;
      }
      bool on_surface = false;
      const char truth = instant_after(mode, kk, i, atom, t_a, x_a, at_a, t_b, x_b, at_b, f, &on_surface);
      if (on_surface && (surface_atom < 0 || static_cast<int>(i) < surface_atom)) surface_atom = static_cast<int>(i);
      return truth;
    });
    if (k < 0) return {};
    return {k, surface_atom >= 0, surface_atom};
  }

  // After an event into `mode`, read as fired_after reads: held crossings whose guard is false
  // an instant later are armed (a bounce's reset sends the state back from the surface it
  // crossed: the next crossing of that surface is a new event).
  void rearm_crossings_after(int mode, S t_a, const S* x_a, S t_b, const S* x_b, const S* f) {
    if (!crossings_on_ || !crossings_.any(mode)) return;
    auto* at_a = cache_.point(t_a, x_a);
    auto* at_b = x_b != nullptr ? cache_.point(t_b, x_b) : nullptr;
    if (crossings_on_) crossings_.sync(mode, t_a, x_a);
    crossings_.release_if(mode, [&](std::size_t k) {
      return !reader_.fires(mode, k, [&](std::size_t i, const Atom<S>& atom) {
        bool on_surface = false;
        return instant_after(mode, k, i, atom, t_a, x_a, at_a, t_b, x_b, at_b, f, &on_surface);
      });
    });
  }

 private:
  using Drive = typename RateEstimator<S>::Drive;

  static std::pair<std::size_t, std::size_t> at(int k, int i) {
    return {static_cast<std::size_t>(k), static_cast<std::size_t>(i)};
  }

  // fired_after's reading of atom i of transition k: literally at (t_a, x_a), unless its zero
  // lies inside the bracket [t_a, t_b] (or it is 0 at either end): then by the drift of its
  // value along f (*on_surface set).
  template <class Point>
  [[gnu::always_inline]] char instant_after(int mode, std::size_t k, std::size_t i, const Atom<S>& atom, S t_a, const S* x_a, Point* at_a,
                     S t_b, const S* x_b, Point* at_b, const S* f, bool* on_surface) {
    const S e_a = cache_.value(mode, k, i, t_a, x_a, at_a);
    const bool holds_a = relation_holds(atom.relation, e_a);
    bool flipped = false;
    *on_surface = e_a == S(0);
    if (!*on_surface && x_b != nullptr) {
      const S e_b = cache_.value(mode, k, i, t_b, x_b, at_b);
      flipped = holds_a != relation_holds(atom.relation, e_b);
      *on_surface = e_b == S(0) || flipped;
    }
    if (!*on_surface) return static_cast<char>(holds_a);
    const auto drive = rates_.drift(mode, k, i, t_a, x_a, f, e_a, t_b, x_b != nullptr, flipped).drive;
    return static_cast<char>(drive == Drive::kUndecided ? holds_a : drive == Drive::kIn);
  }

  // Atom `atom` of transition k of `mode` at (t, x), read literally, not kept.
  bool literal_truth(const Atom<S>& atom, int mode, std::size_t k, S t, const S* x) {
    return relation_holds(atom.relation, reader_.value(atom, mode, k, t, x));
  }

  AtomLayout layout_;
  GuardReader<S> reader_;
  EventCache<S> cache_;
  RateEstimator<S> rates_;
  RearmMasks<S> masks_;
  CrossingArms<S> crossings_;
  bool crossings_on_;  // the model has crossings (CrossingArms::model_has)
  QuietAtoms<S> quiet_;
  bool bounded_;  // some atom has a rate bound
};

}  // namespace hysim
