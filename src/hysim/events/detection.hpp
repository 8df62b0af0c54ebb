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
//    a guard at 0 that the field drives across fires at once); so is an atom exactly at 0
//    on either side of the bracket.
//    de/dt comes from a directional difference along f, which costs guard evaluations and
//    no field evaluation. Every other atom is read literally at (t_a, x_a).
//
// Two more questions serve the strategies (events/strategy.hpp):
//
//  * time_to_fire(t, x, f): the gamma rule's prediction (004, Algorithms 1-3): how long until
//    a guard of the mode fires if every event function moved on linearly at its present rate.
//
//  * oriented(...) and changed_atom(...): a continuous function whose sign change marks the
//    event, for the root finders that interpolate (Illinois, ITP) rather than only bisect.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "hysim/core/errors.hpp"
#include "hysim/core/model.hpp"
#include "hysim/events/location.hpp"

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
  // rhs_evals counts the field evaluations of second-order rate probes (fired_after); may be null.
  TransitionDetector(const Model<S>& model, std::int64_t* guard_evals, std::int64_t* rhs_evals = nullptr)
      : model_(model), guard_evals_(guard_evals), rhs_evals_(rhs_evals), probe_(model.state_size()),
        slope_(model.state_size()) {
    std::size_t most_atoms = 0, most_in_mode = 0;
    offsets_.resize(model.modes.size());
    value_slots_.resize(model.modes.size());
    std::size_t slots = 0;  // model-wide: one per atom, or per shared event (Atom::shared)
    std::unordered_map<const void*, std::size_t> shared_slots;
    for (std::size_t m = 0; m < model.modes.size(); ++m) {
      std::size_t in_mode = 0;
      for (const auto& tr : model.modes[m].transitions) {
        offsets_[m].push_back(in_mode);
        in_mode += tr.guard.atoms().size();
        most_atoms = std::max(most_atoms, tr.guard.atoms().size());
        for (const auto& atom : tr.guard.atoms()) {
          if (!atom.shared) {
            value_slots_[m].push_back(slots++);
          } else {
            const auto [at, added] = shared_slots.try_emplace(atom.shared.get(), slots);
            value_slots_[m].push_back(at->second);
            slots += added ? 1 : 0;
          }
        }
      }
      most_in_mode = std::max(most_in_mode, in_mode);
    }
    truth_.resize(most_atoms);
    truth_read_.assign(most_atoms, 0);
    mask_until_.assign(most_in_mode, -std::numeric_limits<S>::infinity());
    rate_.resize(slots);
    rate_stamp_.assign(slots, 0);
    for (Point& p : points_) {
      p.x.resize(model.state_size());
      p.value.resize(slots);
      p.stamp.assign(slots, 0);
    }
  }

  // Re-arming after an event (the idea of CVODE's cvRcheck1-2: a zero at the restart point is
  // not a new event). The mode just entered at (t, x), with field value f, may have atoms that
  // hold there only because the entry point lies on the pre-event side of a surface: the same
  // arrival seen from the far side of the location bracket, (t_far, x_far), does not satisfy
  // them (or, without a bracket, they sit exactly at 0), and the field drives them out of their
  // truth within the time resolution (the chain read them so, fired_after; see drift()). Such
  // an atom, in a guard that would fire literally, is masked: it reads false until it has had
  // time to leave by its linear rate, t + 4 s/|ds/dt| + 16 ulp(t) (s its oriented value), and
  // literally from then on, so that a later genuine crossing is found like any other. The mask
  // is a function of time, the same for every probe.
  void disarm() {
    any_masked_ = false;
    armed_mode_ = -1;
  }

  void arm(int mode, S t, const S* x, const S* f, S t_far, const S* x_far) {
    std::fill(mask_until_.begin(), mask_until_.end(), -std::numeric_limits<S>::infinity());
    any_masked_ = false;
    armed_mode_ = mode;
    const auto& transitions = model_.modes[static_cast<std::size_t>(mode)].transitions;
    Point* here = point(t, x);
    Point* far = x_far != nullptr ? point(t_far, x_far) : nullptr;
    for (std::size_t k = 0; k < transitions.size(); ++k) {
      const auto& atoms = transitions[k].guard.atoms();
      const auto literal = [&](std::size_t i, const Atom<S>& atom) {
        return relation_holds(atom.relation, value(mode, k, i, t, x, here));
      };
      if (!guard_fires(mode, k, literal)) continue;
      for (std::size_t i = 0; i < atoms.size(); ++i) {
        if (truth_of(i) != 1) continue;  // false, or not needed for the guard to fire
        const Atom<S>& atom = atoms[i];
        const S e = value(mode, k, i, t, x, here);
        const bool on_surface =
            x_far != nullptr ? !relation_holds(atom.relation, value(mode, k, i, t_far, x_far, far)) : e == S(0);
        if (!on_surface) continue;  // holds on both sides: the guard genuinely fires
        const Drift d = drift(mode, k, i, t, x, f, e, t_far, x_far != nullptr);
        if (d.drive != Drive::kOut) continue;  // not driven out within the resolution: it fires
        mask_until_[offsets_[static_cast<std::size_t>(mode)][k] + i] = t + S(4) * d.leave + S(16) * ulp_of(t);
        any_masked_ = true;
      }
    }
  }

  bool any_masked() const { return any_masked_; }

 private:
  bool is_masked(int mode, std::size_t k, std::size_t i, const S& t) const {
    return any_masked_ && mode == armed_mode_ && t < mask_until_[offsets_[static_cast<std::size_t>(mode)][k] + i];
  }

 public:

  // Index of the first transition of `mode` whose guard is true at (t, x), or -1. Masked
  // atoms (arm) read false unless `literal` asks for the plain truth.
  int fired(int mode, S t, const S* x, bool literal = false) {
    Point* here = point(t, x);
    return first_firing(mode, [&](std::size_t k, std::size_t i, const Atom<S>& atom) {
      return static_cast<char>(!(!literal && is_masked(mode, k, i, t)) &&
                               relation_holds(atom.relation, value(mode, k, i, t, x, here)));
    });
  }

  // The gamma rule's prediction at (t, x) with field value f = f_mode(t, x).
  struct Approach {
    S tau = std::numeric_limits<S>::infinity();  // predicted time until a guard fires
    int transition = -1;                         // the guard predicted to fire first
  };

  // 004, Algorithm 2 for each atom, Algorithms 1 and 3 for each guard tree (Guard::time_to_true):
  // an atom that holds has time 0; one that does not, with oriented value s < 0 (s > 0 where
  // it holds), approaches when ds/dt > 0 and is then predicted to hold after -s / (ds/dt);
  // otherwise never. ds/dt is the atom's own rate when the model gives one, else a directional
  // difference along f (one more guard evaluation, no field evaluation).
  // A masked atom (arm) is being driven out of its truth: it is predicted never to hold.
  Approach time_to_fire(int mode, S t, const S* x, const S* f) {
    const auto& transitions = model_.modes[static_cast<std::size_t>(mode)].transitions;
    Point* here = point(t, x);
    ++rate_generation_;  // rates are kept for this call only: f goes with (t, x) here
    Approach best;
    for (std::size_t k = 0; k < transitions.size(); ++k) {
      const auto& atoms = transitions[k].guard.atoms();
      const S tau = transitions[k].guard.time_to_true([&](int i, bool negate) {
        const auto ai = static_cast<std::size_t>(i);
        const S never = std::numeric_limits<S>::infinity();
        if (is_masked(mode, k, ai, t)) return negate ? S(0) : never;
        const Relation relation = negate ? negated(atoms[ai].relation) : atoms[ai].relation;
        const S e = value(mode, k, ai, t, x, here);
        if (relation_holds(relation, e)) return S(0);
        const S de = atoms[ai].rate ? shared_rate(mode, k, ai, t, x, f) : atom_rate(mode, k, ai, t, x, f, e);
        const S s = orient(relation, e);
        const S ds = orient(relation, de);
        return ds > S(0) ? -s / ds : never;
      }, best.tau);  // a guard no sooner than the best so far is not refined
      if (tau < best.tau) best = {tau, static_cast<int>(k)};
    }
    return best;
  }

  // Atom i of transition k of `mode`, oriented: positive where the atom holds, negative where
  // it does not (e for > and >=, -e for < and <=).
  S oriented(int mode, int k, int i, S t, const S* x) {
    const auto& atom = atom_of(mode, static_cast<std::size_t>(k), static_cast<std::size_t>(i));
    return orient(atom.relation,
                  value(mode, static_cast<std::size_t>(k), static_cast<std::size_t>(i), t, x, point(t, x)));
  }

  // Atom i of transition k of `mode` at (t, x), from one evaluation: whether it holds
  // (literally) and its oriented value, for a locator that follows that atom alone.
  Probe<S> atom_probe(int mode, int k, int i, S t, const S* x) {
    const auto kk = static_cast<std::size_t>(k);
    const auto ii = static_cast<std::size_t>(i);
    const Relation relation = atom_of(mode, kk, ii).relation;
    const S e = value(mode, kk, ii, t, x, point(t, x));  // the final bracket's ends are read again
    return {relation_holds(relation, e), orient(relation, e)};
  }

  // An atom of transition k that does not hold at (t_lo, x_lo) and holds at (t_hi, x_hi): the
  // one whose crossing made the guard fire; -1 if there is none.
  int changed_atom(int mode, int k, S t_lo, const S* x_lo, S t_hi, const S* x_hi) {
    const auto& atoms = model_.modes[static_cast<std::size_t>(mode)].transitions[static_cast<std::size_t>(k)].guard.atoms();
    Point* lo = point(t_lo, x_lo);
    Point* hi = point(t_hi, x_hi);
    for (std::size_t i = 0; i < atoms.size(); ++i) {
      const auto ki = static_cast<std::size_t>(k);
      if (!relation_holds(atoms[i].relation, value(mode, ki, i, t_lo, x_lo, lo)) &&
          relation_holds(atoms[i].relation, value(mode, ki, i, t_hi, x_hi, hi))) {
        return static_cast<int>(i);
      }
    }
    return -1;
  }

  // --- Sliding (DESIGN.md section 3, item 4; events on the equivalent dynamics) ---

  // e_i of transition k of `mode` at (t, x), counted.
  S atom_value(int mode, int k, int i, S t, const S* x) {
    return value(mode, static_cast<std::size_t>(k), static_cast<std::size_t>(i), t, x);
  }

  // d e_i / dt along the field value f at (t, x): the atom's own rate when the model gives
  // one (exact), else a central difference (e(t + d, x + d f) - e(t - d, x - d f)) / (2 d),
  // d = eps^(1/3) max(|t|, 1), whose relative error is of order eps^(2/3).
  S rate_along(int mode, int k, int i, S t, const S* x, const S* f) {
    using std::abs;
    using std::cbrt;
    const auto kk = static_cast<std::size_t>(k);
    const auto ii = static_cast<std::size_t>(i);
    if (atom_of(mode, kk, ii).rate) return counted_rate(mode, kk, ii, t, x, f);
    const S d = cbrt(machine_epsilon<S>()) * std::max<S>(abs(t), S(1));
    for (std::size_t j = 0; j < probe_.size(); ++j) probe_[j] = x[j] + d * f[j];
    const S forward = value(mode, kk, ii, t + d, probe_.data());
    for (std::size_t j = 0; j < probe_.size(); ++j) probe_[j] = x[j] - d * f[j];
    const S backward = value(mode, kk, ii, t - d, probe_.data());
    return (forward - backward) / (S(2) * d);
  }

  // The same rate oriented: positive when f drives the atom toward holding.
  S oriented_rate(int mode, int k, int i, S t, const S* x, const S* f) {
    return orient(atom_of(mode, static_cast<std::size_t>(k), static_cast<std::size_t>(i)).relation,
                  rate_along(mode, k, i, t, x, f));
  }

  // Whether atom i of transition k holds at (t, x), read literally.
  bool atom_holds(int mode, int k, int i, S t, const S* x) {
    const auto kk = static_cast<std::size_t>(k);
    const auto ii = static_cast<std::size_t>(i);
    return literal_truth(atom_of(mode, kk, ii), mode, kk, t, x);
  }

  // The guard of transition k at (t, x) with atom i read as `truth` (the surface atom of a
  // sliding motion, whose literal value is rounding) and the others literally.
  bool fires_with_atom(int mode, int k, int i, bool truth, S t, const S* x) {
    const auto kk = static_cast<std::size_t>(k);
    return guard_fires(mode, kk, [&](std::size_t a, const Atom<S>& atom) {
      return static_cast<char>(static_cast<int>(a) == i ? truth : literal_truth(atom, mode, kk, t, x));
    });
  }

  // The first transition of `mode` other than `skip` whose guard is true at (t, x), or -1.
  int fired_except(int mode, int skip, S t, const S* x) {
    return first_firing(
        mode,
        [&](std::size_t k, std::size_t, const Atom<S>& atom) {
          return static_cast<char>(literal_truth(atom, mode, k, t, x));
        },
        skip);
  }

  // The first transition of `mode` whose guard fires strictly on a jump (003, Eq. 3 and
  // Table 2): at t_a with a priori state x_prior and state x (x = x_prior: no jump). Atoms with
  // a jump form read jump(t, x_prior, x), the others e(t, x). An atom on its surface (value 0,
  // or of another truth on the far side (t_b, x_b_prior, x_b) of the location bracket) is
  // undecided there: the guard fires strictly when it is true whichever way the undecided
  // atoms are read (all false, all true). x_b == nullptr: no bracket. A value exactly 0 on
  // either side puts the atom on its surface.
  int fired_strictly(int mode, S t_a, const S* x_prior, const S* x, S t_b, const S* x_b_prior, const S* x_b) {
    // An atom without a jump form reads e(t, x) at the tentative state: kept with the point's
    // other values, which fired_after reads next.
    // So does a jump form that reads e(t, x) when nothing jumps (Atom::continuous_jump).
    Point* at_a = point(t_a, x);
    Point* at_b = x_b != nullptr ? point(t_b, x_b) : nullptr;
    const std::size_t n = model_.state_size();
    const bool jumps_a = !std::equal(x_prior, x_prior + n, x);
    const bool jumps_b = x_b != nullptr && !std::equal(x_b_prior, x_b_prior + n, x_b);
    const auto reads_jump = [](const Atom<S>& atom, bool jumps) { return atom.jump && (jumps || !atom.continuous_jump); };
    return first_firing</*kMayBeUndecided=*/true>(mode, [&](std::size_t k, std::size_t i, const Atom<S>& atom) {
      const Relation relation = atom.relation;
      const S v = reads_jump(atom, jumps_a) ? jump_value(mode, k, i, t_a, x_prior, x) : value(mode, k, i, t_a, x, at_a);
      const bool holds = relation_holds(relation, v);
      bool undecided = v == S(0);
      if (!undecided && x_b != nullptr) {
        const S v_far = reads_jump(atom, jumps_b) ? jump_value(mode, k, i, t_b, x_b_prior, x_b)
                                                  : value(mode, k, i, t_b, x_b, at_b);
        undecided = v_far == S(0) || holds != relation_holds(relation, v_far);
      }
      return undecided ? kUndecided : static_cast<char>(holds);
    });
  }

  // The first transition of `mode` that fires an instant after t_a when the mode is entered
  // at (t_a, x_a) with field f = f_mode(t_a, x_a). (t_b, x_b) is the same arrival seen from
  // the far side of the location bracket; x_b == nullptr means there is no bracket.
  FiredTransition fired_after(int mode, S t_a, const S* x_a, S t_b, const S* x_b, const S* f) {
    int surface_atom = -1;  // of the transition being read
    std::size_t reading = static_cast<std::size_t>(-1);
    Point* at_a = point(t_a, x_a);
    Point* at_b = x_b != nullptr ? point(t_b, x_b) : nullptr;
    const int k = first_firing(mode, [&](std::size_t kk, std::size_t i, const Atom<S>& atom) {
      if (kk != reading) {
        reading = kk;
        surface_atom = -1;
      }
      const Relation relation = atom.relation;
      const S e_a = value(mode, kk, i, t_a, x_a, at_a);
      const bool holds_a = relation_holds(relation, e_a);
      bool on_surface = e_a == S(0);
      if (!on_surface && x_b != nullptr) {
        const S e_b = value(mode, kk, i, t_b, x_b, at_b);
        on_surface = e_b == S(0) || holds_a != relation_holds(relation, e_b);
      }
      if (!on_surface) return static_cast<char>(holds_a);
      // Its zero is inside the bracket: the truth an instant later follows de/dt (drift).
      if (surface_atom < 0 || static_cast<int>(i) < surface_atom) surface_atom = static_cast<int>(i);
      const Drive drive = drift(mode, kk, i, t_a, x_a, f, e_a, t_b, x_b != nullptr).drive;
      return static_cast<char>(drive == Drive::kUndecided ? holds_a : drive == Drive::kIn);
    });
    if (k < 0) return {};
    return {k, surface_atom >= 0, surface_atom};
  }

 private:
  static constexpr char kUndecided = 2;
  static constexpr char kUnread = 3;  // truth_: an atom the tree did not need

  // The one reading of a guard: atom i of transition k of `mode` reads read(i, atom), true (1) or
  // false (0), and the guard's tree decides. Atoms are read on demand, each at most once, in the
  // tree's short-circuit order (Guard::evaluate): an atom the tree does not need costs no
  // evaluation. truth_of(i) tells what was read (kUnread for the others). With kMayBeUndecided, an
  // atom may also read kUndecided (on its surface): the guard then fires when it is true
  // whichever way the undecided atoms are read (all false, all true).
  template <bool kMayBeUndecided = false, class Read>
  bool guard_fires(int mode, std::size_t k, Read&& read) {
    const Guard<S>& guard = model_.modes[static_cast<std::size_t>(mode)].transitions[k].guard;
    const auto& atom_list = guard.atoms();
    ++reading_;  // voids what earlier readings left in truth_
    const auto truth = [&](int i) {
      const auto ii = static_cast<std::size_t>(i);
      if (truth_read_[ii] != reading_) {
        truth_[ii] = read(ii, atom_list[ii]);
        truth_read_[ii] = reading_;
      }
      return truth_[ii];
    };
    if constexpr (!kMayBeUndecided) {
      return guard.evaluate([&](int i) { return truth(i) != 0; });
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
      if (!guard.evaluate(reading(0))) return false;
      return !any_undecided || guard.evaluate(reading(1));
    }
  }

  // What the last guard_fires read of atom i: 0, 1, kUndecided, or kUnread.
  char truth_of(std::size_t i) const { return truth_read_[i] == reading_ ? truth_[i] : kUnread; }

  // Which guard fires first: the first transition of `mode` (in declaration order, `skip`
  // excepted) whose guard fires with its atoms read by read(k, i, atom); -1 when none does.
  template <bool kMayBeUndecided = false, class Read>
  int first_firing(int mode, Read&& read, int skip = -1) {
    const auto& transitions = model_.modes[static_cast<std::size_t>(mode)].transitions;
    for (std::size_t k = 0; k < transitions.size(); ++k) {
      if (static_cast<int>(k) == skip) continue;
      const auto read_k = [&](std::size_t i, const Atom<S>& atom) { return read(k, i, atom); };
      if (guard_fires<kMayBeUndecided>(mode, k, read_k)) return static_cast<int>(k);
    }
    return -1;
  }

  // Atom i (`atom`) of transition k of `mode` at (t, x), read literally.
  bool literal_truth(const Atom<S>& atom, int mode, std::size_t k, S t, const S* x) {
    return relation_holds(atom.relation, value(atom, mode, k, t, x));
  }

  // e_i(t, x) of transition k of `mode`, counted; a NaN or Inf is an error that says where.
  S value(int mode, std::size_t k, std::size_t i, S t, const S* x) { return jump_value(mode, k, i, t, nullptr, x); }

  // The two most recently read points (t, x) with the atom values computed there, by value
  // slot: one per atom of the model, or per event shared by several atoms (Atom::shared), in
  // any modes: an event function reads (t, x) alone. A point is found by comparing (t, x)
  // once per reading, not per atom; a new point takes the entry used least recently, and a
  // new generation voids its values.
  struct Point {
    S t = std::numeric_limits<S>::quiet_NaN();  // none yet: equal to no time
    std::vector<S> x, value;
    std::vector<std::uint64_t> stamp;  // value[slot] holds when stamp[slot] == generation
    std::uint64_t generation = 0, used = 0;
  };

  // The same, through the values already computed at `at`, the point (t, x) (nullptr: not
  // kept). Event functions are functions of (t, x): an atom read again at a point where it
  // was evaluated is not evaluated again (the end of a step, read by detection, is the start
  // of the next, read by the gamma rule; an event's entry point is read by the chain and by
  // the re-arming; where nothing jumps, the entered mode's shared atoms at the bracket's ends
  // were read in the mode left).
  S value(int mode, std::size_t k, std::size_t i, S t, const S* x, Point* at) {
    if (at == nullptr) return value(mode, k, i, t, x);
    const std::size_t slot = value_slot(mode, k, i);
    if (at->stamp[slot] != at->generation) {
      at->value[slot] = value(mode, k, i, t, x);
      at->stamp[slot] = at->generation;
    }
    return at->value[slot];
  }

  // Where atom i of transition k of `mode` keeps its value at a point: one slot for all the
  // atoms that share their event (Atom::shared).
  std::size_t value_slot(int mode, std::size_t k, std::size_t i) const {
    const auto m = static_cast<std::size_t>(mode);
    return value_slots_[m][offsets_[m][k] + i];
  }

  Point* point(S t, const S* x) {
    ++clock_;
    for (Point& p : points_) {
      if (p.t == t && std::equal(p.x.begin(), p.x.end(), x)) {
        p.used = clock_;
        return &p;
      }
    }
    Point& p = points_[0].used <= points_[1].used ? points_[0] : points_[1];
    p.t = t;
    std::copy(x, x + p.x.size(), p.x.begin());
    p.generation = ++generations_;
    p.used = clock_;
    return &p;
  }

  // The same for an atom already at hand (the guard readers' hot path).
  S value(const Atom<S>& atom, int mode, std::size_t k, S t, const S* x) {
    ++*guard_evals_;
    const S e = atom.e(t, x);
    if (!is_finite(e)) not_finite(atom, mode, k, t, e);
    return e;
  }

  // The atom across a jump x_prior -> x: its jump form when it has one and x_prior is given,
  // else e(t, x). Counted; a NaN or Inf is an error that says where.
  S jump_value(int mode, std::size_t k, std::size_t i, S t, const S* x_prior, const S* x) {
    const Atom<S>& atom = atom_of(mode, k, i);
    ++*guard_evals_;
    const S e = x_prior != nullptr && atom.jump ? atom.jump(t, x_prior, x) : atom.e(t, x);
    if (!is_finite(e)) not_finite(atom, mode, k, t, e);
    return e;
  }

  [[noreturn]] void not_finite(const Atom<S>& atom, int mode, std::size_t k, S t, const S& e) const {
    const auto& m = model_.modes[static_cast<std::size_t>(mode)];
    throw SimulationError("model '" + model_.name + "', mode '" + m.name + "', t = " + format_scalar(t) + ": guard '" +
                          m.transitions[k].name + "' atom '" + atom.name + "' evaluated to " + format_scalar(e));
  }

  const Atom<S>& atom_of(int mode, std::size_t k, std::size_t i) const {
    return model_.modes[static_cast<std::size_t>(mode)].transitions[k].guard.atoms()[i];
  }

  static S orient(Relation relation, const S& v) {
    return relation == Relation::kGreater || relation == Relation::kGreaterEqual ? v : -v;
  }

  // How the field moves an atom that sits on its surface at an entry point (t, x), e its value
  // there: the oriented rate ds/dt (the model's own rate when it gives one, else a directional
  // difference along f; at a tangent entry, ds/dt = 0 to first order, the mean rate of a Heun
  // step). Driven in (ds/dt > 0): it holds an instant later. Driven out (ds/dt < 0): it does
  // not, provided the linear prediction has it leave its truth, s / |ds/dt|, within a quarter of
  // the time resolution: 2^20 ulps of t, or the location bracket's width |t_far - t| when that
  // is wider (the gamma strategy's h_min). A slower departure is not resolved (a rate at the
  // rounding level, from a state converged onto a surface, can predict any leaving time; a
  // mask that long would hide genuine events, a shorter one would expire with the atom still
  // holding): the atom is then undecided and read literally, as when ds/dt = 0.
  enum class Drive { kIn, kOut, kUndecided };
  struct Drift {
    Drive drive = Drive::kUndecided;
    S leave = S(0);  // predicted time to leave its truth (kOut)
  };
  static constexpr double kResolutionUlps = 1048576.0;  // 2^20

  Drift drift(int mode, std::size_t k, std::size_t i, S t, const S* x, const S* f, const S& e, S t_far, bool bracketed) {
    using std::abs;
    const Atom<S>& atom = atom_of(mode, k, i);
    S rate = atom.rate ? counted_rate(mode, k, i, t, x, f) : atom_rate(mode, k, i, t, x, f, e);
    if (rate == S(0)) rate = second_order_rate(mode, k, i, t, x, f, e);
    const S ds = orient(atom.relation, rate);
    if (ds > S(0)) return {Drive::kIn, S(0)};
    if (!(ds < S(0))) return {};
    const S leave = std::max<S>(orient(atom.relation, e), S(0)) / -ds;
    const S resolution = std::max<S>(S(kResolutionUlps) * ulp_of(t), bracketed ? S(64) * abs(t_far - t) : S(0));
    if (!(S(4) * leave <= resolution)) return {};
    return {Drive::kOut, leave};
  }

  static S ulp_of(const S& t) {
    using std::abs;
    return machine_epsilon<S>() * std::max<S>(abs(t), S(1));
  }

  // The same within one time_to_fire: an atom that shares its event (Atom::shared) with one
  // whose rate was computed reads that rate.
  S shared_rate(int mode, std::size_t k, std::size_t i, S t, const S* x, const S* f) {
    const std::size_t slot = value_slot(mode, k, i);
    if (rate_stamp_[slot] != rate_generation_) {
      rate_[slot] = counted_rate(mode, k, i, t, x, f);
      rate_stamp_[slot] = rate_generation_;
    }
    return rate_[slot];
  }

  // The model's own de/dt, counted as a guard evaluation.
  S counted_rate(int mode, std::size_t k, std::size_t i, S t, const S* x, const S* f) {
    ++*guard_evals_;
    return atom_of(mode, k, i).rate(t, x, f);
  }

  // The mean rate of e over [t, t + d] along a Heun step of the mode's field (second order
  // in d): x(t + d) ~ x + d (f + f(t + d, x + d f)) / 2. One field evaluation.
  S second_order_rate(int mode, std::size_t k, std::size_t i, S t, const S* x, const S* f, const S& e0) {
    using std::abs;
    using std::sqrt;
    const S d = sqrt(machine_epsilon<S>()) * std::max<S>(abs(t), S(1));
    for (std::size_t j = 0; j < probe_.size(); ++j) probe_[j] = x[j] + d * f[j];
    if (rhs_evals_ != nullptr) ++*rhs_evals_;
    model_.modes[static_cast<std::size_t>(mode)].field(t + d, probe_.data(), slope_.data());
    for (std::size_t j = 0; j < probe_.size(); ++j) probe_[j] = x[j] + d * (f[j] + slope_[j]) / 2;
    return (value(mode, k, i, t + d, probe_.data()) - e0) / d;
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
  std::int64_t* rhs_evals_;
  std::vector<S> probe_, slope_;
  std::vector<char> truth_;
  std::vector<std::uint64_t> truth_read_;  // the reading_ at which truth_[i] was read
  std::uint64_t reading_ = 0;
  std::vector<std::vector<std::size_t>> offsets_;  // [mode][transition]: first atom's index in mask_until_
  std::vector<std::vector<std::size_t>> value_slots_;  // [mode][offsets_ + atom]: its slot in Point::value
  std::vector<S> rate_;                                // by value slot, in the current time_to_fire
  std::vector<std::uint64_t> rate_stamp_;
  std::uint64_t rate_generation_ = 0;
  std::vector<S> mask_until_;                      // atoms of armed_mode_ read false before this time
  Point points_[2];
  std::uint64_t clock_ = 0, generations_ = 0;
  int armed_mode_ = -1;
  bool any_masked_ = false;
};

}  // namespace hysim
