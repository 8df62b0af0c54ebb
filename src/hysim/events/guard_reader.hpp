// The guard reader: the one place that calls a model's event functions, and the one reading
// of a guard's tree.
//
//   value(...)       e(t, x) of atom i of transition k of a mode; jump_value(...) its jump
//                    form e(t, x_prior, x) (a guard on (x, x+), 003, Eq. 3); model_rate(...) the
//                    model's own de/dt along a field value. Each call counts one guard
//                    evaluation; a NaN or Inf is a SimulationError naming the model, the mode,
//                    the guard, the atom and t.
//   fires(...)       whether transition k's guard fires with its atoms read by read(i, atom):
//                    1 (true), 0 (false) or, where allowed, kUndecided (on its surface). The
//                    tree is read short-circuit (Guard::evaluate), each atom at most once, so
//                    an atom the tree does not need costs no evaluation; truth_of(i) then says
//                    what each atom read.
//   first_firing(...) the first transition of a mode, in declaration order, whose guard fires.
//   hold(...)        crossings that read false whatever their atoms (events/crossings.hpp).
// Nothing here is cached across readings (events/event_cache.hpp is the cache).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "hysim/core/errors.hpp"
#include "hysim/core/model.hpp"

namespace hysim {
namespace detail {

// An atom's value oriented: positive where the atom holds, negative where it does not (v for
// > and >=, -v for < and <=). The same for its rate: positive when it moves toward holding.
template <class S>
S orient(Relation relation, const S& v) {
  return relation == Relation::kGreater || relation == Relation::kGreaterEqual ? v : -v;
}

}  // namespace detail

template <class S>
class GuardReader {
 public:
  static constexpr char kUndecided = 2;  // an atom on its surface (fires<true>)
  static constexpr char kUnread = 3;     // truth_of: an atom the tree did not need

  // The model and the counter outlive the reader.
  GuardReader(const Model<S>& model, std::int64_t* guard_evals)
      : model_(model), guard_evals_(guard_evals), truth_(largest_guard(model)), truth_read_(truth_.size(), 0) {}

  const Model<S>& model() const { return model_; }
  const Atom<S>& atom(int mode, std::size_t k, std::size_t i) const { return guard(mode, k).atoms()[i]; }
  const Guard<S>& guard(int mode, std::size_t k) const {
    return model_.modes[static_cast<std::size_t>(mode)].transitions[k].guard;
  }
  std::size_t transitions(int mode) const { return model_.modes[static_cast<std::size_t>(mode)].transitions.size(); }

  // e(t, x) of `atom`, atom of transition k of `mode`; counted.
  S value(const Atom<S>& atom, int mode, std::size_t k, S t, const S* x) {
    ++*guard_evals_;
    const S e = atom.e(t, x);
    if (!is_finite(e)) not_finite(atom, mode, k, t, e);
    return e;
  }
  S value(int mode, std::size_t k, std::size_t i, S t, const S* x) { return value(atom(mode, k, i), mode, k, t, x); }

  // The atom across a jump x_prior -> x: its jump form when it has one, else e(t, x). Counted.
  S jump_value(int mode, std::size_t k, std::size_t i, S t, const S* x_prior, const S* x) {
    const Atom<S>& a = atom(mode, k, i);
    ++*guard_evals_;
    const S e = a.jump ? a.jump(t, x_prior, x) : a.e(t, x);
    if (!is_finite(e)) not_finite(a, mode, k, t, e);
    return e;
  }

  // The model's own de/dt = grad e . f + de/dt along the field value f (Atom::rate); counted.
  S model_rate(int mode, std::size_t k, std::size_t i, S t, const S* x, const S* f) {
    ++*guard_evals_;
    return atom(mode, k, i).rate(t, x, f);
  }

  // Whether transition k's guard fires, its atoms read by read(i, atom). With kMayBeUndecided
  // an atom may read kUndecided: the guard then fires when it is true whichever way the
  // undecided atoms are read (all false, all true).
  //
  // With kNoteTruths, what each atom read is kept for truth_of; a reading with undecided atoms
  // keeps it anyway (it reads the tree twice). A plain reading keeps nothing: the tree asks for
  // each atom at most once.
  template <bool kMayBeUndecided = false, bool kNoteTruths = false, class Read>
  bool fires(int mode, std::size_t k, Read&& read) {
    if (held(mode, k)) return false;
    const Guard<S>& g = guard(mode, k);
    const auto& atoms = g.atoms();
    if constexpr (!kMayBeUndecided && !kNoteTruths) {
      return g.evaluate([&](int i) { return read(static_cast<std::size_t>(i), atoms[static_cast<std::size_t>(i)]) != 0; });
    }
    ++reading_;  // voids what earlier readings left in truth_
    const auto truth = [&](int i) {
      const auto ii = static_cast<std::size_t>(i);
      if (truth_read_[ii] != reading_) {
        truth_[ii] = read(ii, atoms[ii]);
        truth_read_[ii] = reading_;
      }
      return truth_[ii];
    };
    if constexpr (!kMayBeUndecided) {
      return g.evaluate([&](int i) { return truth(i) != 0; });
    } else {
      bool any_undecided = false;
      const auto reading = [&](char undecided_as) {
        return [&, undecided_as](int i) {
          const char v = truth(i);
          if (v != kUndecided) return v != 0;
          any_undecided = true;
          return undecided_as != 0;
        };
      };
      if (!g.evaluate(reading(0))) return false;
      return !any_undecided || g.evaluate(reading(1));
    }
  }

  // What the last fires<..., kNoteTruths>(...) read of atom i: 0, 1, kUndecided, or kUnread.
  char truth_of(std::size_t i) const { return truth_read_[i] == reading_ ? truth_[i] : kUnread; }

  // Transitions of `mode` that read false: those with (*flags)[k] != 0 (null: none).
  void hold(int mode, const std::vector<char>* flags) {
    held_mode_ = flags != nullptr ? mode : -1;
    held_ = flags;
  }
  bool held(int mode, std::size_t k) const { return mode == held_mode_ && (*held_)[k] != 0; }

  // The first transition of `mode` (in declaration order, `skip` excepted, and crossings too
  // unless `crossings`) whose guard fires with its atoms read by read(k, i, atom); -1 when none
  // does.
  template <bool kMayBeUndecided = false, class Read>
  int first_firing(int mode, Read&& read, int skip = -1, bool crossings = true) {
    const auto& list = model_.modes[static_cast<std::size_t>(mode)].transitions;
    const std::size_t count = list.size();
    for (std::size_t k = 0; k < count; ++k) {
      if (static_cast<int>(k) == skip || (!crossings && list[k].crossing)) continue;
      const auto read_k = [&](std::size_t i, const Atom<S>& atom) { return read(k, i, atom); };
      if (fires<kMayBeUndecided>(mode, k, read_k)) return static_cast<int>(k);
    }
    return -1;
  }

 private:
  static std::size_t largest_guard(const Model<S>& model) {
    std::size_t most = 0;
    for (const auto& m : model.modes) {
      for (const auto& tr : m.transitions) most = std::max(most, tr.guard.atoms().size());
    }
    return most;
  }

  [[noreturn]] void not_finite(const Atom<S>& atom, int mode, std::size_t k, S t, const S& e) const {
    const auto& m = model_.modes[static_cast<std::size_t>(mode)];
    throw SimulationError("model '" + model_.name + "', mode '" + m.name + "', t = " + format_scalar(t) + ": guard '" +
                          m.transitions[k].name + "' atom '" + atom.name + "' evaluated to " + format_scalar(e));
  }

  const Model<S>& model_;
  std::int64_t* guard_evals_;
  const std::vector<char>* held_ = nullptr;  // hold()
  int held_mode_ = -1;
  std::vector<char> truth_;                // by atom of the guard being read
  std::vector<std::uint64_t> truth_read_;  // the reading_ at which truth_[i] was read
  std::uint64_t reading_ = 0;
};

}  // namespace hysim
