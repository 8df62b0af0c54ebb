// Certified detection, level 1 (the strategy "certified", docs/certified.md): a proof, for
// each accepted step, that no guard of the mode changes its truth along the step's dense
// output except inside the part where the event is then located.
//
// The step [t0, t1] is scanned left to right in parts. Over a part [a, b] every atom e of the
// mode's guards is enclosed by interval arithmetic (core/interval.hpp), composed with the
// enclosure of the dense output (solvers/dense_enclosure.hpp), in the mean-value form at the
// part's start
//   e([a, b])  in  ( e(a, x(a)) + de/dt([a, b], x([a, b]), x'([a, b])) [0, b - a] )  cap  e(box),
// de/dt = de/dt|_x + grad e . x' the atom's rate along the trajectory (at the start rather
// than the midpoint: for a rate of one sign the width is the rate's spread times b - a).
// Each guard is then read in three-valued logic (true, false, undecided) over the part; an
// atom disarmed after the last event reads false where its mask holds at both ends. The part
// is
//   proved      when every guard is decided: no truth changes inside it;
//   decided by one point  when the undecided guards depend on one function alone, whose
//               rate encloses no zero: it is strictly monotone, so it changes sign at most
//               once and every guard changes at most once, all at that instant; the guards
//               read at b then say whether an event lies in [a, b], and if so it is the
//               first (its root is unique there, which the locator then finds); also
//               when the guards change together at one monotone function's root whatever
//               the other undecided functions do (AtomReadings::first_at_root);
//   split in two otherwise, down to `max_depth` halvings or a part of min_width: such a
//               last part, read at b, brackets an event found without the proof of
//               uniqueness, or is left unproved (the run fails, or warns and goes on).
//
// What level 1 proves: that the solver's computed trajectory (its dense output, a polynomial
// enclosed up to the rounding of the points read from it) meets no guard change that the
// run misses. Not that the exact solution of the ODE does: the step's truncation error is
// outside the proof.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "hysim/core/errors.hpp"
#include "hysim/core/guard_enclosure.hpp"
#include "hysim/core/interval.hpp"
#include "hysim/core/model.hpp"
#include "hysim/events/detection.hpp"
#include "hysim/events/flow_bound.hpp"
#include "hysim/run/result.hpp"
#include "hysim/solvers/dense_enclosure.hpp"
#include "hysim/solvers/stepper.hpp"

namespace hysim {

// How a scan of a step ended: a guard fires at t_hi (transition >= 0) and none in [.., t_lo];
// or none fires before the step's end (transition -1, t_lo the last point proved).
struct CertifiedScan {
  int transition = -1;
  double t_lo = 0, t_hi = 0;
};

// A guard's truth in three-valued logic (true, false, undecided) from its atoms' truths:
// AND is false when one child is, OR true when one child is, NOT swaps true and false.
enum class Truth : char { kFalse, kTrue, kUndecided };

template <class TruthOf>
Truth three_valued(const Guard<double>& guard, int index, const TruthOf& truth_of) {
  const auto& node = guard.nodes()[static_cast<std::size_t>(index)];
  using Kind = Guard<double>::Kind;
  switch (node.kind) {
    case Kind::kAtom: return truth_of(static_cast<std::size_t>(node.atom));
    case Kind::kNot: {
      const Truth inner = three_valued(guard, node.children[0], truth_of);
      return inner == Truth::kUndecided ? inner : inner == Truth::kTrue ? Truth::kFalse : Truth::kTrue;
    }
    case Kind::kAnd:
    case Kind::kOr: {
      const Truth absorbing = node.kind == Kind::kAnd ? Truth::kFalse : Truth::kTrue;
      bool undecided = false;
      for (const int child : node.children) {
        const Truth t = three_valued(guard, child, truth_of);
        if (t == absorbing) return absorbing;
        undecided |= t == Truth::kUndecided;
      }
      return undecided ? Truth::kUndecided : absorbing == Truth::kFalse ? Truth::kTrue : Truth::kFalse;
    }
  }
  return Truth::kUndecided;
}

// The atoms of a mode over one part of a step, read in three-valued logic (the Certifier's
// header gives the rules), and the verdict on the part they add up to.
class AtomReadings {
 public:
  enum class Verdict { kProved, kOnePoint, kSplit };
  // One atom over the part: its truth, whether it is monotone there, its function.
  struct Reading {
    Truth truth = Truth::kUndecided;
    bool monotone = false;
    bool mask_ends = false;  // disarmed at a, literal at b, monotone: see Certifier::read_mask_end
    bool masked = false;     // disarmed at a or b
    int function = -1;
    Relation relation = Relation::kGreaterEqual;
  };

  void resize(std::size_t atoms) {
    readings_.resize(atoms);
    values_.resize(2 * atoms);
  }
  Reading& at(std::size_t atom) { return readings_[atom]; }
  Interval& value(std::size_t atom) { return values_[2 * atom]; }
  Interval& rate(std::size_t atom) { return values_[2 * atom + 1]; }

  // Reads atom `at` over the part from its enclosure e; true when it is undecided but monotone.
  bool read(std::size_t at, Interval e, Relation relation, bool masked_a, bool masked_b) {
    Reading& r = readings_[at];
    r.monotone = rate(at).lo > 0 || rate(at).hi < 0;
    r.relation = relation;
    r.masked = masked_a || masked_b;
    const auto decide = [](bool yes, bool no) { return yes ? Truth::kTrue : no ? Truth::kFalse : Truth::kUndecided; };
    switch (relation) {
      case Relation::kGreater: r.truth = decide(e.lo > 0, e.hi <= 0); break;
      case Relation::kGreaterEqual: r.truth = decide(e.lo >= 0, e.hi < 0); break;
      case Relation::kLess: r.truth = decide(e.hi < 0, e.lo >= 0); break;
      case Relation::kLessEqual: r.truth = decide(e.hi <= 0, e.lo > 0); break;
    }
    r.mask_ends = false;
    if (masked_a || masked_b) {  // reads false while masked: decided where it also is false unmasked
      if (!(masked_a && masked_b) && r.truth != Truth::kFalse) {
        r.mask_ends = r.monotone;  // read_mask_end may still decide it
        r.truth = Truth::kUndecided;
        r.monotone = false;
        return false;
      }
      r.truth = Truth::kFalse;
    }
    return r.truth == Truth::kUndecided && r.monotone;
  }

  // A guard's truth from its atoms' readings, its first atom at `offset`.
  Truth guard_truth(const Guard<double>& guard, std::size_t offset) const {
    if (guard.empty()) return Truth::kFalse;
    return three_valued(guard, guard.root(), [&](std::size_t atom) { return readings_[offset + atom].truth; });
  }

  // Proved: every guard decided, none true. One point: the undecided guards hang on one
  // monotone function (or a guard reads true, which the point at b confirms), or they change
  // together at one monotone function's root (first_at_root). Else split.
  Verdict verdict(const std::vector<Transition<double>>& transitions) const {
    int function = -1;
    bool one_point = false;
    std::size_t offset = 0;
    for (const auto& transition : transitions) {
      const auto& guard = transition.guard;
      const Truth truth = guard_truth(guard, offset);
      if (truth == Truth::kTrue) one_point = true;
      if (truth == Truth::kUndecided) {
        for (std::size_t i = 0; i < guard.atoms().size(); ++i) {
          const Reading& r = readings_[offset + i];
          if (r.truth != Truth::kUndecided) continue;
          if (!r.monotone || (function >= 0 && r.function != function)) {
            return first_at_root(transitions) ? Verdict::kOnePoint : Verdict::kSplit;
          }
          function = r.function;
          one_point = true;
        }
      }
      offset += guard.atoms().size();
    }
    return one_point ? Verdict::kOnePoint : Verdict::kProved;
  }

 private:
  static constexpr int kMostCases = 4;  // undecided functions besides the monotone one: 3^4 cases

  // Whether the undecided guards change only at the root of one monotone function f, whatever
  // the other undecided functions do: with f's atoms read on the side of its root where f
  // starts, every guard is false; on the other side, some guard is true for every sign (-, 0,
  // +) of each other undecided function. Then no guard holds before the root and one holds from
  // it on: the first event is at f's root, unique in the part, and the guards read at b say
  // whether it lies there (as for one function alone). This reads what per-atom logic cannot:
  // `A && x >= 0` and `A && x < 0` together fire exactly where A does, whatever x's sign (a
  // settled controller's error at rounding level, read at a clock's reset).
  bool first_at_root(const std::vector<Transition<double>>& transitions) const {
    std::array<int, kMostCases + 1> functions{};
    std::array<bool, kMostCases + 1> monotone{};
    std::array<bool, kMostCases + 1> rising{};
    std::size_t atoms = 0;  // the mode's (readings_ holds the largest mode's count)
    for (const auto& transition : transitions) atoms += transition.guard.atoms().size();
    int count = 0;
    for (std::size_t j = 0; j < atoms; ++j) {
      const Reading& r = readings_[j];
      if (r.function < 0 || r.truth != Truth::kUndecided) continue;
      if (r.masked) return false;  // a disarmed atom reads false, whatever its sign
      const auto end = functions.begin() + count;
      if (std::find(functions.begin(), end, r.function) != end) continue;
      if (count > kMostCases) return false;
      functions[static_cast<std::size_t>(count)] = r.function;
      monotone[static_cast<std::size_t>(count)] = r.monotone;
      rising[static_cast<std::size_t>(count)] = values_[2 * j + 1].lo > 0;  // its rate
      ++count;
    }
    for (int f = 0; f < count; ++f) {
      if (!monotone[static_cast<std::size_t>(f)]) continue;
      const int before = rising[static_cast<std::size_t>(f)] ? -1 : 1;
      int cases = 1;
      for (int g = 1; g < count; ++g) cases *= 3;
      // the function's sign, by its place in `functions`: f's own, or the case's digit
      const auto sign_in = [&](int the_case, int side) {
        return [&, the_case, side](int function) {
          int digits = the_case;
          for (int g = 0; g < count; ++g) {
            if (g == f) {
              if (functions[static_cast<std::size_t>(g)] == function) return side;
              continue;
            }
            if (functions[static_cast<std::size_t>(g)] == function) return digits % 3 - 1;
            digits /= 3;
          }
          return 2;  // decided: read its own truth
        };
      };
      if (!every_guard(transitions, sign_in(0, before), Truth::kFalse, true)) continue;
      bool fires_after = true;
      for (int c = 0; c < cases && fires_after; ++c) fires_after = !every_guard(transitions, sign_in(c, -before), Truth::kTrue, false);
      if (fires_after) return true;
    }
    return false;
  }

  // With the undecided atoms of the functions `sign_of` gives a sign (-1, 0, 1) read as that
  // sign makes them, the others undecided: whether every guard reads `truth` (all = true), or
  // whether none does (all = false).
  template <class SignOf>
  bool every_guard(const std::vector<Transition<double>>& transitions, const SignOf& sign_of, Truth truth,
                   bool all) const {
    std::size_t offset = 0;
    for (const auto& transition : transitions) {
      const auto& guard = transition.guard;
      const Truth t = guard.empty() ? Truth::kFalse
                                    : three_valued(guard, guard.root(), [&](std::size_t atom) {
                                        const Reading& r = readings_[offset + atom];
                                        if (r.truth != Truth::kUndecided) return r.truth;
                                        const int sign = sign_of(r.function);
                                        return sign == 2 ? r.truth : holds(r.relation, sign) ? Truth::kTrue : Truth::kFalse;
                                      });
      offset += guard.atoms().size();
      if (all && t != truth) return false;
      if (!all && t == truth) return false;
    }
    return true;
  }

  // e R 0 for e of the sign `sign`.
  static bool holds(Relation relation, int sign) {
    switch (relation) {
      case Relation::kGreater: return sign > 0;
      case Relation::kGreaterEqual: return sign >= 0;
      case Relation::kLess: return sign < 0;
      case Relation::kLessEqual: return sign <= 0;
    }
    return false;
  }

 public:

 private:
  std::vector<Reading> readings_;
  std::vector<Interval> values_;  // (value, rate) per atom
};

class Certifier {
 public:
  static constexpr int kMaxDepth = 60;
  // Parts judged in one step at most: a guard undecided over a whole step (at its surface all
  // along, as a contact held within the flow's bound) would otherwise be split into 2^depth
  // parts. Past it, each part left is read at its end, as at the depth limit.
  static constexpr int kMostParts = 4096;

  // The model, its enclosures, the detector and the counters outlive the certifier.
  // level 1: the dense output; 2: the exact flow from each step's start (flow_bound.hpp).
  // t_end: the run's end (level 2 counts an exact-flow event that may lie just before it).
  Certifier(const Model<double>& model, GuardEnclosure* guards, TransitionDetector<double>* detector,
            CertifiedStatistics* stats, int max_depth, bool strict, int level = 1, double t_end = HUGE_VAL)
      : model_(model), guards_(guards), detector_(detector), stats_(stats), max_depth_(std::min(max_depth, kMaxDepth)),
        strict_(strict), level_(level), t_end_(t_end), dense_(model.state_size()), flow_(model.state_size()),
        x_(model.state_size()), dx_(model.state_size()), x_mid_(model.state_size()), point_(model.state_size()) {
    if (level_ == 2 && !guards_->has_flow()) {
      throw InvalidArgument("strategy certified: level 2 reads the field's Jacobian on intervals, which model '" +
                            model.name + "' does not give (model files of at most 16 states do)");
    }
    std::size_t most = 0;
    for (const auto& mode : model.modes) {
      std::size_t atoms = 0;
      for (const auto& transition : mode.transitions) atoms += transition.guard.atoms().size();
      most = std::max(most, atoms);
    }
    readings_.resize(most);
  }

  // Scans the last accepted step of `stepper` in `mode`, at most to the first part where a
  // guard fires. `min_width(t)`: the narrowest part near t. Throws SimulationError for a part
  // that could not be proved when strict; otherwise counts it and `warn` says so once.
  template <class MinWidth, class Warn>
  CertifiedScan scan(int mode, const Stepper<double>& stepper, const MinWidth& min_width, const Warn& warn) {
    stats_->level = level_;
    stepper_ = &stepper;
    const double t1 = stepper.t_current();
    const DenseEnclosure::Fit fit = dense_.fit(stepper);
    if (fit == DenseEnclosure::Fit::kNoDegree) {
      throw InvalidArgument("strategy certified: the dense output of " + std::string(stepper.name()) +
                            " is not a polynomial of a known degree");
    }
    if (fit == DenseEnclosure::Fit::kTooShort) return at_resolution(mode, stepper);
    bool unproved = level_ == 2 && !bound_flow(mode, stepper, warn);
    std::array<Part, kMaxDepth + 2> stack{};
    int top = 0;
    stack[top++] = {stepper.t_previous(), t1, 0};
    double t_lo = stepper.t_previous();
    double flow_since = -1;  // level 2: where the exact flow's guards may first fire (-1: nowhere yet)
    int parts = 0;           // judged in this step: at most kMostParts, so that a step ends
    while (top > 0) {
      const Part part = stack[--top];
      const AtomReadings::Verdict verdict = judge(mode, part.a, part.b);
      const bool last = part.depth >= max_depth_ || !(part.b - part.a > min_width(part.b)) || parts >= kMostParts;
      ++parts;
      if (verdict == AtomReadings::Verdict::kSplit && !last) {
        const double middle = part.a + (part.b - part.a) / 2;
        stack[top++] = {middle, part.b, part.depth + 1};
        stack[top++] = {part.a, middle, part.depth + 1};
        ++stats_->subdivisions;
        stats_->max_depth = std::max(stats_->max_depth, part.depth + 1);
        continue;
      }
      if (verdict != AtomReadings::Verdict::kProved) {
        // the step's end is its stored point, through which the enclosed polynomial passes
        const double* x_b = part.b == t1 ? stepper.x_current() : point_.data();
        if (part.b != t1) stepper.interpolate(part.b, point_.data());
        const int k = detector_->fired(mode, part.b, x_b);
        if (k < 0 && flow_since < 0 && level_ == 2 && flow_bounded_ && !flow_quiet_at(mode, part.b)) {
          flow_since = part.a;  // the exact flow may fire here, the dense output does not
        }
        if (k >= 0) {
          ++(verdict == AtomReadings::Verdict::kSplit ? stats_->events_bracketed : stats_->events_unique);
          if (flow_since >= 0) stats_->flow_early_max = std::max(stats_->flow_early_max, part.a - flow_since);
          if (!unproved) ++stats_->steps_proved;
          return {k, part.a, part.b};
        }
        detector_->rearm_crossings(mode, part.b, x_b);
        if (verdict == AtomReadings::Verdict::kSplit) unproved |= fail(mode, part, warn);
      }
      t_lo = part.b;
    }
    if (flow_since >= 0 && t1 == t_end_) {  // within E of the run's end: said, not an error
      ++stats_->flow_open_at_end;
    } else if (flow_since >= 0) {  // the exact flow may fire where the dense output does not
      unproved |= fail(mode, {flow_since, t1, 0}, warn, "the exact flow's guards may change within it, the dense "
                                                        "output's do not");
    }
    ++(unproved ? stats_->steps_unproved : stats_->steps_proved);
    return {-1, t_lo, t1};
  }

 private:
  struct Part {
    double a = 0, b = 0;
    int depth = 0;
  };
  // A step of a few doubles of t (landing on t_end, or after an event): every double inside
  // it read as a point; between two adjacent doubles nothing can be observed, or located.
  CertifiedScan at_resolution(int mode, const Stepper<double>& stepper) {
    const double t1 = stepper.t_current();
    double t_lo = stepper.t_previous();
    for (double t = interval::up(t_lo); t < t1; t = interval::up(t)) {
      stepper.interpolate(t, point_.data());
      const int k = detector_->fired(mode, t, point_.data());
      if (k >= 0) return {k, t_lo, t};
      detector_->rearm_crossings(mode, t, point_.data());
      t_lo = t;
    }
    ++stats_->steps_at_resolution;
    return {-1, t_lo, t1};
  }

  // The guards' box at the single time t: the dense output's enclosure there (level 2: and
  // the exact flow's, within flow_error_ of it), no rates.
  void box_at(double t) {
    dense_.enclose(t, t, x_mid_.data(), nullptr);
    if (level_ == 2 && flow_bounded_) flow_.widen(x_mid_.data(), t);
    guards_->set_box(Interval::point(t), x_mid_.data(), nullptr);
  }

  // Level 2: the bound of the exact flow for this step (false, after fail(), when it has none).
  template <class Warn>
  bool bound_flow(int mode, const Stepper<double>& stepper, const Warn& warn) {
    flow_bounded_ = flow_.bound(mode, guards_, dense_, stepper.x_previous());
    if (flow_bounded_) {
      stats_->flow_error_max = std::max(stats_->flow_error_max, flow_.error_at(stepper.t_current()));
      return true;
    }  // the step is then read at level 1
    fail(mode, {stepper.t_previous(), stepper.t_current(), 0}, warn,
         "no bound of the exact flow over the step (the Picard inclusion did not close, or the field may jump)");
    return false;
  }

  // Level 2: the exact flow's box over [a, b] (the dense output's widened by E(b)) and its
  // rates, the field over that box (the whole line where the field may jump there).
  void exact_box(int mode, Interval span) {
    if (!flow_bounded_) return;
    flow_.widen(x_.data(), span.hi);
    guards_->set_box(span, x_.data(), nullptr);
    if (!guards_->field(mode, dx_.data())) std::fill(dx_.begin(), dx_.end(), Interval::entire());
  }

  // Level 2: every guard of the mode decided false for the exact flow at the point t.
  bool flow_quiet_at(int mode, double t) {
    box_at(t);
    const auto& transitions = model_.modes[static_cast<std::size_t>(mode)].transitions;
    std::size_t at = 0;
    for (std::size_t k = 0; k < transitions.size(); ++k) {
      const auto& atoms = transitions[k].guard.atoms();
      for (std::size_t i = 0; i < atoms.size(); ++i, ++at) {
        const int kk = static_cast<int>(k), ii = static_cast<int>(i);
        const bool masked = detector_->masked(mode, kk, ii, t);
        readings_.read(at, guards_->value(mode, kk, ii), atoms[i].relation, masked, masked);
      }
      if (readings_.guard_truth(transitions[k].guard, at - atoms.size()) != Truth::kFalse) return false;
    }
    return true;
  }

  // Encloses every atom of the mode over [a, b] and reads the guards (the header's rules).
  AtomReadings::Verdict judge(int mode, double a, double b) {
    using namespace interval;
    ++stats_->enclosures;
    const auto& transitions = model_.modes[static_cast<std::size_t>(mode)].transitions;
    const Interval span{a, b};
    dense_.enclose(a, b, a, x_.data(), dx_.data(), x_mid_.data());
    if (level_ == 2) exact_box(mode, span);
    guards_->set_box(span, x_.data(), dx_.data());
    std::size_t at = 0;
    for (std::size_t k = 0; k < transitions.size(); ++k) {
      for (std::size_t i = 0; i < transitions[k].guard.atoms().size(); ++i, ++at) {
        readings_.at(at).function = guards_->function_id(mode, static_cast<int>(k), static_cast<int>(i));
        readings_.value(at) = guards_->value(mode, static_cast<int>(k), static_cast<int>(i));
        readings_.rate(at) = guards_->rate(mode, static_cast<int>(k), static_cast<int>(i));
      }
    }
    if (level_ == 2 && flow_bounded_) flow_.widen(x_mid_.data(), a);  // box_at(a), its points at hand
    guards_->set_box(Interval::point(a), x_mid_.data(), nullptr);
    const Interval offset = subtract(span, Interval::point(a));
    bool leaving = false;  // an atom undecided but monotone
    at = 0;
    for (std::size_t k = 0; k < transitions.size(); ++k) {
      const auto& atoms = transitions[k].guard.atoms();
      for (std::size_t i = 0; i < atoms.size(); ++i, ++at) {
        const Interval start = guards_->value(mode, static_cast<int>(k), static_cast<int>(i));
        const Interval e = intersect(readings_.value(at), add(start, multiply(readings_.rate(at), offset)));
        leaving |= readings_.read(at, e, atoms[i].relation, detector_->masked(mode, static_cast<int>(k), static_cast<int>(i), a),
                        detector_->masked(mode, static_cast<int>(k), static_cast<int>(i), b));
      }
    }
    if (leaving) read_leaving(mode);
    for (std::size_t j = 0; j < at; ++j) {
      if (readings_.at(j).mask_ends) read_mask_end(mode, j, b);
    }
    return readings_.verdict(transitions);
  }

  // An undecided monotone atom that starts on its surface or on the side its rate moves it
  // to (e(a) >= 0 with de/dt > 0, or e(a) <= 0 with de/dt < 0) keeps that strict sign over
  // (a, b]: decided there (the loop read the point a itself). A run that starts, or an event
  // that leaves, on a switching surface. The guards' box is the point a (judge's).
  void read_leaving(int mode) {
    const auto& transitions = model_.modes[static_cast<std::size_t>(mode)].transitions;
    std::size_t at = 0;
    for (std::size_t k = 0; k < transitions.size(); ++k) {
      const auto& atoms = transitions[k].guard.atoms();
      for (std::size_t i = 0; i < atoms.size(); ++i, ++at) {
        AtomReadings::Reading& r = readings_.at(at);
        if (r.truth != Truth::kUndecided || !r.monotone) continue;
        const Interval start = guards_->value(mode, static_cast<int>(k), static_cast<int>(i));
        const bool rising = readings_.rate(at).lo > 0;
        if (rising ? start.lo < 0 : start.hi > 0) continue;
        const bool positive_true = atoms[i].relation == Relation::kGreater || atoms[i].relation == Relation::kGreaterEqual;
        r.truth = rising == positive_true ? Truth::kTrue : Truth::kFalse;
      }
    }
  }

  // An atom disarmed after the last event until t_m inside the part reads false on [a, t_m)
  // and literally from t_m. Monotone, it reads false on all of [t_m, b] too when at t_m it
  // already lies beyond its surface on the side it moves to: then false over the part.
  void read_mask_end(int mode, std::size_t at, double b) {
    const auto& transitions = model_.modes[static_cast<std::size_t>(mode)].transitions;
    std::size_t k = 0, i = at;
    while (i >= transitions[k].guard.atoms().size()) i -= transitions[k++].guard.atoms().size();
    const int kk = static_cast<int>(k), ii = static_cast<int>(i);
    const double t_m = detector_->masked_until(mode, kk, ii);
    if (!(t_m <= b)) return;
    box_at(t_m);
    const Interval start = guards_->value(mode, kk, ii);
    const bool rising = readings_.rate(at).lo > 0;
    const Relation relation = transitions[k].guard.atoms()[i].relation;
    const bool holds_when_positive = relation == Relation::kGreater || relation == Relation::kGreaterEqual;
    // false from t_m on: beyond the surface on its false side, moving further into it
    const bool false_side = rising != holds_when_positive;
    const bool beyond = rising ? (relation == Relation::kLess ? start.lo >= 0 : start.lo > 0)
                               : (relation == Relation::kGreater ? start.hi <= 0 : start.hi < 0);
    if (!false_side) return;
    // Within the rounding of the dense output of its surface, the enclosure cannot tell: the
    // engine's own reading at t_m decides (the re-arming is the engine's, at a point).
    if (!beyond) {
      stepper_->interpolate(t_m, point_.data());
      if (detector_->atom_holds(mode, kk, ii, t_m, point_.data())) return;
      ++stats_->rearm_points;
    }
    readings_.at(at).truth = Truth::kFalse;
  }

  // A last part left unproved: an error when strict; else counted, said once, and the scan
  // goes on. Returns true.
  template <class Warn>
  bool fail(int mode, const Part& part, const Warn& warn, const std::string& why = "") {
    const std::string what = "strategy certified: model '" + model_.name + "': could not prove that no guard of mode '" +
                             model_.modes[static_cast<std::size_t>(mode)].name + "' changes within [" +
                             format_scalar(part.a) + ", " + format_scalar(part.b) + "] s (" +
                             (why.empty() ? std::to_string(part.depth) + " halvings of the step; a guard that "
                                                                          "touches 0 there, or crossings closer than "
                                                                          "the part"
                                          : why) +
                             ")";
    if (strict_) throw SimulationError(what + "; --no-certified-strict goes on with a warning");
    if (!warned_) warn(what + "; the run goes on (counted in stats.json as certified.steps_unproved)");
    warned_ = true;
    return true;
  }

  const Model<double>& model_;
  GuardEnclosure* guards_;
  TransitionDetector<double>* detector_;
  CertifiedStatistics* stats_;
  int max_depth_;
  bool strict_;
  int level_;
  double t_end_;
  bool warned_ = false;
  const Stepper<double>* stepper_ = nullptr;  // the step being scanned
  DenseEnclosure dense_;
  FlowBound flow_;  // level 2: |x - p| <= E(t) over the step (flow_bound.hpp)
  bool flow_bounded_ = false;  // ... when the step has a bound
  std::vector<Interval> x_, dx_, x_mid_;
  std::vector<double> point_;
  AtomReadings readings_;  // the mode's atoms over the part being judged
};

}  // namespace hysim
