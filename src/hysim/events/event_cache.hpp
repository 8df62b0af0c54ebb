// Detection's cache: event-function values that are not computed twice.
//
//   what          e of each value slot (AtomLayout::slot) at a point (t, x), and the model's
//                 own de/dt (Atom::rate) of each slot within one prediction (time_to_fire)
//   keyed on      a value: the point, compared exactly (t and every component of x, once per
//                 reading, not per atom), and the slot; a rate: the slot, within the
//                 prediction whose (t, x, f) it was asked at
//   kept          values at the two points read most recently; a third point takes the entry
//                 used least recently. Rates until the next prediction
//   invalidated   a point's values when its entry is taken by another point (a new generation
//                 voids all its slots at once); the rates when a prediction begins (begin_rates)
// Keeping them is exact because an event function reads (t, x) alone and atoms that share
// an event have the same e and rate. What it saves: the end of a step, read by detection, is
// the start of the next, read by the gamma rule; an event's entry point is read by the chain
// and by the re-arming; where nothing jumps, the entered mode's shared atoms at the location
// bracket's ends were read in the mode left. Nothing is allocated after construction.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "hysim/events/atom_layout.hpp"
#include "hysim/events/guard_reader.hpp"

namespace hysim {

template <class S>
class EventCache {
 public:
  // One point (t, x) with the values computed there, by slot.
  struct Point {
    S t = std::numeric_limits<S>::quiet_NaN();  // none yet: equal to no time
    std::vector<S> x, value;
    std::vector<std::uint64_t> stamp;  // value[slot] holds when stamp[slot] == generation
    std::uint64_t generation = 0;
    // TransitionDetector::fired's answer here for fired_mode, when no atom was masked, valid
    // while fired_generation == generation.
    std::uint64_t fired_generation = 0;
    int fired_mode = -1, fired = -1;
  };

  // The reader and the layout outlive the cache.
  EventCache(GuardReader<S>* reader, const AtomLayout* layout)
      : reader_(*reader), layout_(*layout), n_(reader->model().state_size()), rate_(layout->slots()),
        rate_stamp_(layout->slots(), 0) {
    for (Point& p : points_) {
      p.x.resize(reader->model().state_size());
      p.value.resize(layout->slots());
      p.stamp.assign(layout->slots(), 0);
    }
  }

  // The entry of (t, x): the one that holds it, else the one used least recently, emptied.
  // The one asked for last is tried first: the readings at an event ask for one point in turn.
  [[gnu::always_inline]] Point* point(S t, const S* x) {
    Point& last = points_[last_];
    if (last.t == t && holds(last, x)) return &last;
    Point& other = points_[1 - last_];
    last_ = 1 - last_;
    if (other.t == t && holds(other, x)) return &other;
    other.t = t;  // `last` was used more recently: `other` is emptied
    for (std::size_t j = 0; j < n_; ++j) other.x[j] = x[j];
    other.generation = ++generations_;
    return &other;
  }

  // e(t, x) of atom i of transition k of `mode`, through the entry `at` of (t, x) (nullptr:
  // not kept, evaluated).
  // The kept value is read inline; computing one is out of line (it calls the model).
  S value(int mode, std::size_t k, std::size_t i, S t, const S* x, Point* at) {
    if (at == nullptr) return reader_.value(mode, k, i, t, x);
    const std::size_t slot = layout_.slot(mode, k, i);
    if (at->stamp[slot] == at->generation) return at->value[slot];
    return keep(mode, k, i, t, x, at, slot);
  }

  // A prediction begins: the rates kept so far were for another (t, x, f).
  void begin_rates() { ++rate_generation_; }

  // The model's own de/dt of atom i of transition k of `mode` along f, within the prediction.
  S model_rate(int mode, std::size_t k, std::size_t i, S t, const S* x, const S* f) {
    const std::size_t slot = layout_.slot(mode, k, i);
    if (rate_stamp_[slot] != rate_generation_) {
      rate_[slot] = reader_.model_rate(mode, k, i, t, x, f);
      rate_stamp_[slot] = rate_generation_;
    }
    return rate_[slot];
  }

 private:
  // Whether p's state is x (p.t is known to be t).
  bool holds(const Point& p, const S* x) const {
    for (std::size_t j = 0; j < n_; ++j) {
      if (!(p.x[j] == x[j])) return false;
    }
    return true;
  }

  [[gnu::noinline]] S keep(int mode, std::size_t k, std::size_t i, S t, const S* x, Point* at, std::size_t slot) {
    at->value[slot] = reader_.value(mode, k, i, t, x);
    at->stamp[slot] = at->generation;
    return at->value[slot];
  }

  GuardReader<S>& reader_;
  const AtomLayout& layout_;
  std::size_t n_;  // the model's state size
  Point points_[2];
  int last_ = 0;  // points_[last_] was asked for last
  std::uint64_t generations_ = 0;
  std::vector<S> rate_;  // by slot, in the current prediction
  std::vector<std::uint64_t> rate_stamp_;
  std::uint64_t rate_generation_ = 0;
};

}  // namespace hysim
