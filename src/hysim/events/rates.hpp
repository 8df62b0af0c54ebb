// The rate estimator: de/dt of an atom along a field value f, and the two predictions made
// from it, time_to_fire (how long until a guard fires) and drift (how an atom on its surface
// moves an instant later).
//
// de/dt = grad e . f + de/dt is the model's own rate (Atom::rate: exact, one guard
// evaluation) when it gives one; else a difference of e along f. The three differences are
// not one computation written three ways: each serves a caller that needs something else,
// and each costs what it must.
//   kForward  (e(t + d, x + d f) - e(t, x)) / d, d = sqrt(eps) max(|t|, 1): first order; one
//             guard evaluation with e(t, x) at hand. The gamma rule and the boundary test
//             use its sign and its order of magnitude only.
//   kCentral  (e(t + d, x + d f) - e(t - d, x - d f)) / (2 d), d = eps^(1/3) max(|t|, 1):
//             relative error of order eps^(2/3), two guard evaluations. The equivalent
//             dynamics of a sliding motion use its value: lambda = r_a / (r_a - r_b).
//   kHeun     the mean rate of e over [t, t + d] along a Heun step of the mode's field,
//             x(t + d) ~ x + d (f + f(t + d, x + d f)) / 2, d = sqrt(eps) max(|t|, 1): second
//             order in d; one field and one guard evaluation. For an atom that enters its
//             surface tangentially, where the first-order rate (even the model's) is 0. With
//             the model's own rate it is the mean of that rate at t and at (t + d, x + d f)
//             (two guard evaluations), which a change of e below its rounding cannot hide.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "hysim/core/model.hpp"
#include "hysim/core/scalar.hpp"
#include "hysim/events/event_cache.hpp"
#include "hysim/events/guard_reader.hpp"

namespace hysim {

enum class Difference { kForward, kCentral, kHeun };

// One ulp of t, or of 1 near t = 0.
template <class S>
S ulp_of(const S& t) {
  using std::abs;
  return machine_epsilon<S>() * std::max<S>(abs(t), S(1));
}

template <class S>
class RateEstimator {
 public:
  // rhs_evals counts the field evaluations of kHeun; may be null. All outlive the estimator.
  RateEstimator(GuardReader<S>* reader, EventCache<S>* cache, std::int64_t* rhs_evals)
      : reader_(*reader), cache_(*cache), rhs_evals_(rhs_evals), probe_(reader->model().state_size()),
        slope_(probe_.size()), ahead_(probe_.size()) {}

  // de/dt of atom i of transition k of `mode` at (t, x) along f; e0 = e(t, x) (kForward, kHeun).
  S rate(Difference difference, int mode, std::size_t k, std::size_t i, S t, const S* x, const S* f, const S& e0) {
    if (difference != Difference::kHeun && reader_.atom(mode, k, i).rate) {
      return reader_.model_rate(mode, k, i, t, x, f);
    }
    switch (difference) {
      case Difference::kForward: return forward(mode, k, i, t, x, f, e0);
      case Difference::kCentral: return central(mode, k, i, t, x, f);
      case Difference::kHeun: return heun(mode, k, i, t, x, f, e0);
    }
    return S(0);
  }

  // The gamma rule's prediction at (t, x) with field value f = f_mode(t, x).
  struct Approach {
    S tau = std::numeric_limits<S>::infinity();  // predicted time until a guard fires
    int transition = -1;                         // the guard predicted to fire first
  };

  // 004, Algorithm 2 for each atom, Algorithms 1 and 3 for each guard tree
  // (Guard::time_to_true): an atom that holds has time 0; one that does not, with oriented
  // value s < 0, approaches when ds/dt > 0 and is then predicted to hold after -s / (ds/dt);
  // otherwise never. ds/dt: the model's own rate, read once per value slot within the call
  // (EventCache::model_rate), else kForward. An atom with masked(k, i) is being driven out of
  // its truth (events/rearm.hpp): it is predicted never to hold. A held crossing
  // (events/crossings.hpp) never fires; while its guard is true, the time until it turns false
  // (where it re-arms) counts as a prediction too, so that one step does not hold both its
  // re-arming and its next crossing. An atom that quiet.kept(k, i) says cannot have changed
  // sign (events/quiet_atoms.hpp: {its kept value, its time to hold}) is not evaluated: it has
  // time 0 when it holds, else that time; the prediction of an atom read afresh is handed to
  // quiet.predicted(k, i, t + time).
  template <class Masked, class Quiet>
  Approach time_to_fire(int mode, S t, const S* x, const S* f, const Masked& masked, const Quiet& quiet) {
    auto* here = cache_.point(t, x);
    cache_.begin_rates();  // rates are kept for this call only: f goes with (t, x) here
    Approach best;
    for (std::size_t k = 0; k < reader_.transitions(mode); ++k) {
      const bool held = reader_.held(mode, k);
      const auto& atoms = reader_.guard(mode, k).atoms();
      const auto atom_time = [&](int i, bool negate) {
        const auto ai = static_cast<std::size_t>(i);
        const S never = std::numeric_limits<S>::infinity();
        if (masked(k, ai)) return negate ? S(0) : never;
        const Relation relation = negate ? negated(atoms[ai].relation) : atoms[ai].relation;
        if (const auto kept = quiet.kept(k, ai); kept.e != nullptr) {  // predictions are of the atom as written
          return relation_holds(relation, *kept.e) ? S(0) : negate ? kept.quiet_for : kept.time_to_hold;
        }
        const S e = cache_.value(mode, k, ai, t, x, here);
        if (relation_holds(relation, e)) return S(0);
        const S de = atoms[ai].rate ? cache_.model_rate(mode, k, ai, t, x, f) : forward(mode, k, ai, t, x, f, e);
        const S s = detail::orient(relation, e);
        const S ds = detail::orient(relation, de);
        const S time = ds > S(0) ? -s / ds : never;
        if (!negate) quiet.predicted(k, ai, t + time);
        return time;
      };
      const Guard<S>& guard = reader_.guard(mode, k);
      // A guard no sooner than the best so far is not refined.
      const S tau = held ? guard.time_to_false(atom_time, best.tau) : guard.time_to_true(atom_time, best.tau);
      if (held && tau == S(0)) continue;  // false already: it re-arms at the next step's end
      if (tau < best.tau) best = {tau, static_cast<int>(k)};
    }
    return best;
  }

  // How the field moves an atom that sits on its surface at an entry point (t, x), e its value
  // there: the oriented rate ds/dt (kForward, or kHeun where that is 0: a tangent entry).
  // Driven in (ds/dt > 0): it holds an instant later. Driven out (ds/dt < 0): it does not,
  // provided the linear prediction has it leave its truth, s / |ds/dt|, within a quarter of
  // the time resolution: 2^20 ulps of t, or 64 times the location bracket's width
  // |t_far - t| when that is wider. A slower departure is not resolved (a rate at the
  // rounding level, from a state converged onto a surface, can predict any leaving time; a
  // mask that long would hide genuine events, a shorter one would expire with the atom still
  // holding): the atom is then undecided and read literally, as when ds/dt = 0. Except when
  // the far side of the bracket already reads it left (`flipped`): its value there crossed by
  // more than the motion over the bracket explains, so it sits at the rounding level of its
  // own operands (a state held at a limiter, released at rest: 002's cart at X = X_limit + 1
  // ulp). Such a slow departure is taken when it is certain: when the rate at the predicted
  // leaving time (the state moved on linearly along f, the field read there) still drives
  // out. A rate at the rounding level that the field soon turns (the PWM servo's omega of
  // 1e-14 at the start of a pulse) is not, and is read literally as before.
  enum class Drive { kIn, kOut, kUndecided };
  struct Drift {
    Drive drive = Drive::kUndecided;
    S leave = S(0);  // predicted time to leave its truth (kOut)
  };
  static constexpr double kResolutionUlps = 1048576.0;  // 2^20

  Drift drift(int mode, std::size_t k, std::size_t i, S t, const S* x, const S* f, const S& e, S t_far,
              bool bracketed, bool flipped = false) {
    using std::abs;
    S de = rate(Difference::kForward, mode, k, i, t, x, f, e);
    if (de == S(0)) de = rate(Difference::kHeun, mode, k, i, t, x, f, e);
    const Relation relation = reader_.atom(mode, k, i).relation;
    const S ds = detail::orient(relation, de);
    if (ds > S(0)) return {Drive::kIn, S(0)};
    if (!(ds < S(0))) return {};
    const S leave = std::max<S>(detail::orient(relation, e), S(0)) / -ds;
    const S resolution = std::max<S>(S(kResolutionUlps) * ulp_of(t), bracketed ? S(64) * abs(t_far - t) : S(0));
    if (S(4) * leave <= resolution) return {Drive::kOut, leave};
    if (flipped && still_leaving(mode, k, i, t, x, f, leave)) return {Drive::kOut, leave};
    return {};
  }

 private:
  // Whether the atom, `leave` after (t, x), still moves out of its truth: its oriented rate at
  // (t + leave, x + leave f) along the field there is negative. One field evaluation.
  bool still_leaving(int mode, std::size_t k, std::size_t i, S t, const S* x, const S* f, const S& leave) {
    for (std::size_t j = 0; j < ahead_.size(); ++j) ahead_[j] = x[j] + leave * f[j];
    if (rhs_evals_ != nullptr) ++*rhs_evals_;
    reader_.model().modes[static_cast<std::size_t>(mode)].field(t + leave, ahead_.data(), slope_.data());
    const S e = reader_.value(mode, k, i, t + leave, ahead_.data());
    const S de = rate(Difference::kForward, mode, k, i, t + leave, ahead_.data(), slope_.data(), e);
    return detail::orient(reader_.atom(mode, k, i).relation, de) < S(0);
  }

  S forward(int mode, std::size_t k, std::size_t i, S t, const S* x, const S* f, const S& e0) {
    using std::abs;
    using std::sqrt;
    const S d = sqrt(machine_epsilon<S>()) * std::max<S>(abs(t), S(1));
    for (std::size_t j = 0; j < probe_.size(); ++j) probe_[j] = x[j] + d * f[j];
    return (reader_.value(mode, k, i, t + d, probe_.data()) - e0) / d;
  }

  S central(int mode, std::size_t k, std::size_t i, S t, const S* x, const S* f) {
    using std::abs;
    using std::cbrt;
    const S d = cbrt(machine_epsilon<S>()) * std::max<S>(abs(t), S(1));
    for (std::size_t j = 0; j < probe_.size(); ++j) probe_[j] = x[j] + d * f[j];
    const S ahead = reader_.value(mode, k, i, t + d, probe_.data());
    for (std::size_t j = 0; j < probe_.size(); ++j) probe_[j] = x[j] - d * f[j];
    const S behind = reader_.value(mode, k, i, t - d, probe_.data());
    return (ahead - behind) / (S(2) * d);
  }

  S heun(int mode, std::size_t k, std::size_t i, S t, const S* x, const S* f, const S& e0) {
    using std::abs;
    using std::sqrt;
    const S d = sqrt(machine_epsilon<S>()) * std::max<S>(abs(t), S(1));
    for (std::size_t j = 0; j < probe_.size(); ++j) probe_[j] = x[j] + d * f[j];
    if (rhs_evals_ != nullptr) ++*rhs_evals_;
    reader_.model().modes[static_cast<std::size_t>(mode)].field(t + d, probe_.data(), slope_.data());
    if (reader_.atom(mode, k, i).rate) {
      // The model's rate at both ends, averaged (the trapezoid rule for the mean rate): no
      // difference of e, whose change over d may lie below its own rounding (a cart released
      // from rest at a limiter moves by a d^2/2, far below an ulp of its position).
      const S r1 = reader_.model_rate(mode, k, i, t + d, probe_.data(), slope_.data());
      return (reader_.model_rate(mode, k, i, t, x, f) + r1) / 2;
    }
    for (std::size_t j = 0; j < probe_.size(); ++j) probe_[j] = x[j] + d * (f[j] + slope_[j]) / 2;
    return (reader_.value(mode, k, i, t + d, probe_.data()) - e0) / d;
  }

  GuardReader<S>& reader_;
  EventCache<S>& cache_;
  std::int64_t* rhs_evals_;
  std::vector<S> probe_, slope_;  // a state along f; the field there (kHeun, still_leaving)
  std::vector<S> ahead_;          // the state at the predicted leaving time (still_leaving)
};

}  // namespace hysim
