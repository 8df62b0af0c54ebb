// Sliding motion: the equivalent (Filippov) dynamics on a surface S between two modes a and
// b (003, "Sliding modes"): where the fields of a and b both drive the state into S, the pair
// would chatter across it, so the run moves along it instead. S is the atom of a's guard a -> b
// that the chain found on its surface (events/chain.hpp, a sliding arrival on a two-mode
// cycle); r_a, r_b are its rates along f_a and f_b:
//   f_s = (1 - lambda) f_a + lambda f_b,  lambda = r_a / (r_a - r_b),
// so that dS/dt = 0 along f_s. For S linear in x, a Runge-Kutta step keeps S constant to
// rounding (RK methods preserve linear invariants). The motion lasts while both fields
// drive into the surface (lambda in [0, 1]) and both guards still fire with S read as
// crossed; it ends, at an event the loop locates (status() is its probe), into a or b, or
// through another guard of a or b: exit() says which, and moves the state by rounding-level
// amounts to the side of the mode the run goes on from.
//
// The simulator's own loop starts the motion (LoopEvents::start_sliding, loop_events.hpp) and
// integrates field() while it lasts (SlidingPhase, loop_sliding.hpp); the strategy caps its
// steps with exit_time() (the gamma rule on the two rates) and decides how its exit is found.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string_view>
#include <vector>

#include "hysim/core/model.hpp"
#include "hysim/core/scalar.hpp"
#include "hysim/events/chain.hpp"
#include "hysim/events/corner.hpp"
#include "hysim/events/detection.hpp"
#include "hysim/events/surface_sides.hpp"

namespace hysim {

template <class S>
class SlidingMotion {
 public:
  // The surface as the chain names it (events/chain.hpp, a sliding arrival).
  using Surface = typename TransitionChain<S>::Arrival::Surface;
  enum class SlideStatus { kSliding, kIntoA, kIntoB, kOtherOfA, kOtherOfB };
  struct SlideProbe {
    SlideStatus status = SlideStatus::kSliding;
    int transition = -1;  // kOtherOfA, kOtherOfB: the guard that fired
  };

  // How the motion ends at t_a, from the status at the far end of the exit's bracket.
  struct Exit {
    int from = -1;        // the mode the run leaves from (a, or b for kOtherOfB)
    int to = -1;          // kIntoA, kIntoB: the mode entered (one row, decided here)
    int transition = -1;  // kOtherOfA, kOtherOfB: the guard of `from` whose chain follows
    std::string_view guard;  // kIntoA, kIntoB: the row's name
  };

  static constexpr std::string_view kSlidingEnd = "end_of_sliding";

  // The model, the detector and the counter outlive the motion.
  SlidingMotion(const Model<S>& model, TransitionDetector<S>* detector, std::int64_t* rhs_evals)
      : model_(model), detector_(*detector), sides_(model, detector), corner_(model, detector, rhs_evals),
        rhs_evals_(rhs_evals), n_(model.state_size()), x_mid_(n_), fa_(n_), fb_(n_), entry_(n_) {
    field_ = [this](S t, const S* x, S* dxdt) {
      if (corner_.active()) {
        corner_.equivalent_field(t, x, dxdt);
      } else {
        equivalent_field(t, x, dxdt);
      }
    };
  }

  bool active() const { return active_; }
  int mode_a() const { return a_; }
  int mode_b() const { return b_; }
  // The time the current (or last) motion started.
  S started_at() const { return t_start_; }
  void stop() {
    active_ = false;
    corner_.stop();
  }

  // f_s of the current motion, for the stepper (equivalent_field).
  const FieldFunction<S>& field() const { return field_; }

  // Starts the motion at a sliding arrival at t: true, with x projected onto S = 0 (the entry
  // point lies within the location bracket of it; under gamma within h_min); false when the
  // arrival names no two-mode surface or does not slide there (the caller then chatters).
  bool start(S t, const typename TransitionChain<S>::Arrival& arrival, S* x) {
    if (arrival.surface.to_b < 0) return false;
    a_ = arrival.mode;
    surface_ = arrival.surface;
    b_ = surface_.mode_b;
    std::copy(arrival.x, arrival.x + n_, entry_.begin());
    project_onto_surface(t, entry_.data());
    sides_.start(a_, surface_.to_b, surface_.atom_a, t, entry_.data());
    sides_.add_mode(a_);
    sides_.add_mode(b_);
    using Side = typename SurfaceSides<S>::Side;
    if (detector_.fired_on_side(a_, surface_.to_b, t, arrival.x, sides_.reader(a_, Side::kA)) >= 0) {
      sides_.read_literally(a_, surface_.to_b);
    }
    settle_b(t, arrival.x);
    if (detector_.fired_on_side(b_, skip_of_b(), t, arrival.x, sides_.reader(b_, Side::kB)) >= 0) {
      sides_.read_literally(b_, skip_of_b());
    }
    corner_.stop();
    if (!start_corner(t, arrival.x) && status(t, arrival.x).status != SlideStatus::kSliding) return false;
    active_ = true;
    t_start_ = t;
    std::copy(entry_.begin(), entry_.end(), x);
    return true;
  }

  // The motion leaves at t_a (x, moved here to the side of the mode it goes on from), having
  // been found not sliding, with `probe`, at the far end of the bracket. Ends the motion.
  Exit exit(const SlideProbe& probe, S t_a, S* x) {
    const Surface& sl = surface_;
    active_ = false;
    if (corner_.active()) {
      const auto e = corner_.exit(t_a, x);
      return e.transition >= 0 ? Exit{e.from, -1, e.transition, {}} : Exit{a_, e.to, -1, kSlidingEnd};
    }
    switch (probe.status) {
      case SlideStatus::kOtherOfA:
        push_to_side(a_, sl.to_b, sl.atom_a, t_a, x, false);
        return {a_, -1, probe.transition, {}};
      case SlideStatus::kOtherOfB:
        push_to_b(t_a, x);
        return {b_, -1, probe.transition, {}};
      case SlideStatus::kIntoB: {
        // b's field no longer drives S back toward a: one row a -> b under a's guard to b.
        push_to_b(t_a, x);
        const auto& guard = model_.modes[static_cast<std::size_t>(a_)].transitions[static_cast<std::size_t>(sl.to_b)];
        return {a_, b_, -1, guard.name};
      }
      case SlideStatus::kIntoA:
      case SlideStatus::kSliding:
        // a's field no longer drives S toward b: one row a -> a, "end_of_sliding".
        push_to_side(a_, sl.to_b, sl.atom_a, t_a, x, false);
        return {a_, a_, -1, kSlidingEnd};
    }
    return {};
  }

  // f_s(t, x): two field evaluations, both counted (one here, one by the stepper that calls it).
  // The two rates are those of a's atom on S, along f_a and along f_b.
  void equivalent_field(S t, const S* x, S* dxdt) {
    const Surface& sl = surface_;
    model_.modes[static_cast<std::size_t>(a_)].field(t, x, fa_.data());
    model_.modes[static_cast<std::size_t>(b_)].field(t, x, fb_.data());
    ++*rhs_evals_;
    const S ra = detector_.rate_along(a_, sl.to_b, sl.atom_a, t, x, fa_.data());
    const S rb = detector_.rate_along(a_, sl.to_b, sl.atom_a, t, x, fb_.data());
    const S lambda = ra != rb ? ra / (ra - rb) : S(0.5);
    for (std::size_t j = 0; j < n_; ++j) dxdt[j] = fa_[j] + lambda * (fb_[j] - fa_[j]);
  }

  // Whether the motion at (t, x) still slides, and if not, how it leaves.
  SlideProbe status(S t, const S* x) {
    if (corner_.active()) return corner_.holds(t, x) ? SlideProbe{} : SlideProbe{SlideStatus::kIntoA, -1};
    const Surface& sl = surface_;
    using Side = typename SurfaceSides<S>::Side;
    int k = detector_.fired_on_side(a_, sl.to_b, t, x, sides_.reader(a_, Side::kA));
    if (k >= 0) return {SlideStatus::kOtherOfA, k};
    k = detector_.fired_on_side(b_, skip_of_b(), t, x, sides_.reader(b_, Side::kB));
    if (k >= 0) return {SlideStatus::kOtherOfB, k};
    *rhs_evals_ += 2;
    model_.modes[static_cast<std::size_t>(a_)].field(t, x, fa_.data());
    model_.modes[static_cast<std::size_t>(b_)].field(t, x, fb_.data());
    // a's field must drive S toward b (toward its atom holding), b's back toward a. A rate
    // exactly 0 is the exit point itself (lambda = 0 or 1): still sliding. The motion leaves
    // when a rate is strictly of the wrong sign, or when crossing S would no longer leave a
    // (b); when both leave, into the mode whose field leaves faster.
    const S ra = detector_.oriented_rate(a_, sl.to_b, sl.atom_a, t, x, fa_.data());
    const S rb = rate_of_b(t, x, fb_.data());
    const bool a_out = ra < S(0) || !detector_.fires_on_side(a_, sl.to_b, t, x, sides_.reader(a_, Side::kB));
    const bool b_out = rb < S(0) || !b_leaves_across(t, x);
    if (a_out && !(b_out && rb < ra)) return {SlideStatus::kIntoA, -1};
    if (b_out) return {SlideStatus::kIntoB, -1};
    return {};
  }

  // The gamma rule on a sliding motion: the predicted time until one of the two oriented rates
  // reaches 0 (lambda leaves [0, 1]). The rates move with the state along f_s and with t
  // itself (a moving surface, a time-dependent field: the cam follower's reaction): a sliding
  // motion is often integrated exactly (f_s constant), so the integrator's error control does
  // not limit its steps, and a rate that moves away at the step's start may turn and cross
  // within one long step. So each rate rho is predicted to second order,
  //   rho(t + h) ~ rho + rho' h + rho'' h^2 / 2,
  // with rho', rho'' from rho at t, t + d, t + 2d along x + s f_s (d = eps^(1/3) max(|t|, 1),
  // four more field evaluations), and the time is the first positive root of that quadratic;
  // infinity when there is none.
  S exit_time(S t, const S* x, const S* fs) {
    using std::abs;
    using std::cbrt;
    if (corner_.active()) return corner_.exit_time(t, x, fs);
    const Surface& sl = surface_;
    const S d = cbrt(machine_epsilon<S>()) * std::max<S>(abs(t), S(1));
    S ra[3], rb[3];
    for (int j = 0; j < 3; ++j) {
      const S s = S(j) * d;
      for (std::size_t i = 0; i < n_; ++i) x_mid_[i] = x[i] + s * fs[i];
      model_.modes[static_cast<std::size_t>(a_)].field(t + s, x_mid_.data(), fa_.data());
      model_.modes[static_cast<std::size_t>(b_)].field(t + s, x_mid_.data(), fb_.data());
      *rhs_evals_ += 2;
      ra[j] = detector_.oriented_rate(a_, sl.to_b, sl.atom_a, t + s, x_mid_.data(), fa_.data());
      rb[j] = rate_of_b(t + s, x_mid_.data(), fb_.data());
    }
    return std::min(predicted_root(ra, d), predicted_root(rb, d));
  }

 private:
  // grad e of atom i of transition k of `mode` at (t, x), into fb_; returns |grad e|^2.
  S atom_gradient(int mode, int k, int i, S t, S* x) {
    return hysim::atom_gradient(detector_, n_, mode, k, i, t, x, fb_.data());
  }

  // A second surface S2 through the entry point, an atom of another guard of a or b: the
  // corner of S and S2, when its bilinear weights lie inside (events/corner.hpp).
  bool start_corner(S t, const S* x) {
    for (const int m : {a_, b_}) {
      const int skip = m == a_ ? surface_.to_b : skip_of_b();
      const int count = static_cast<int>(model_.modes[static_cast<std::size_t>(m)].transitions.size());
      for (int k = 0; k < count; ++k) {
        if (k != skip && corner_.start(t, a_, surface_.to_b, surface_.atom_a, b_, m, k, &sides_, x, entry_.data())) {
          return true;
        }
      }
    }
    return false;
  }

  // b's side of S may belong to another mode than the chain's b: the split of a model with
  // conditions in its fields gives a cycle a -> b -> a where b is a combination of
  // conditions that cannot hold off S (the hoop's "braking and pushed back"), left at once on
  // b's side through a guard whose atoms lie on S. That guard's target is the mode on b's
  // side (the same field where the split gives the later condition priority); b becomes it,
  // through guards without a reset that fire on b's side of S and not on a's.
  void settle_b(S t, const S* x) {
    using Side = typename SurfaceSides<S>::Side;
    for (std::size_t hop = 0; hop < model_.modes.size(); ++hop) {
      const int k = detector_.fired_on_side(b_, skip_of_b(), t, x, sides_.reader(b_, Side::kB));
      if (k < 0 || detector_.fires_on_side(b_, k, t, x, sides_.reader(b_, Side::kA))) return;
      const Transition<S>& tr = model_.modes[static_cast<std::size_t>(b_)].transitions[static_cast<std::size_t>(k)];
      if (tr.reset || tr.target == a_ || !model_.modes[static_cast<std::size_t>(tr.target)].field) return;
      b_ = tr.target;
      sides_.add_mode(b_);
    }
  }

  // The chain's b skips its guard back to a (it holds S's atom); a mode settled on b's side
  // has no such guard.
  int skip_of_b() const { return b_ == surface_.mode_b ? surface_.to_a : -1; }

  // The rate of S along b's field f_b, positive when it drives toward a's side.
  S rate_of_b(S t, const S* x, const S* f_b) {
    const Surface& sl = surface_;
    if (b_ == sl.mode_b) return detector_.oriented_rate(b_, sl.to_a, sl.atom_b, t, x, f_b);
    return -detector_.oriented_rate(a_, sl.to_b, sl.atom_a, t, x, f_b);
  }

  // Whether crossing S from b's side into a's makes a guard of b fire (read on a's side).
  bool b_leaves_across(S t, const S* x) {
    using Side = typename SurfaceSides<S>::Side;
    const Surface& sl = surface_;
    if (b_ == sl.mode_b) return detector_.fires_on_side(b_, sl.to_a, t, x, sides_.reader(b_, Side::kA));
    return detector_.fired_on_side(b_, -1, t, x, sides_.reader(b_, Side::kA)) >= 0;
  }

  // Moves x to b's side of S (S's atom read as b's guard to a reads it there).
  void push_to_b(S t, S* x) {
    const Surface& sl = surface_;
    if (b_ == sl.mode_b) {
      push_to_side(b_, sl.to_a, sl.atom_b, t, x, false);
    } else {
      push_to_side(a_, sl.to_b, sl.atom_a, t, x, true);
    }
  }

  // Projects x onto the sliding surface S = 0 of the current motion: Newton steps along grad S
  // (x := x - S grad S / |grad S|^2), two at most, while they reduce |S|.
  void project_onto_surface(S t, S* x) {
    using std::abs;
    const Surface& sl = surface_;
    for (int iteration = 0; iteration < 2; ++iteration) {
      const S e = detector_.atom_value(a_, sl.to_b, sl.atom_a, t, x);
      if (e == S(0)) return;
      const S norm2 = atom_gradient(a_, sl.to_b, sl.atom_a, t, x);
      if (!(norm2 > S(0))) return;
      for (std::size_t j = 0; j < n_; ++j) x_mid_[j] = x[j] - e * fb_[j] / norm2;
      if (!(abs(detector_.atom_value(a_, sl.to_b, sl.atom_a, t, x_mid_.data())) < abs(e))) return;
      std::copy(x_mid_.begin(), x_mid_.end(), x);
    }
  }

  // Moves x along grad e (central differences) until atom i of transition k of `mode` reads
  // `want` literally: first onto e = 0, then by doubling distances; in practice a few ulps.
  void push_to_side(int mode, int k, int i, S t, S* x, bool want) {
    using std::abs;
    using std::sqrt;
    if (detector_.atom_holds(mode, k, i, t, x) == want) return;
    const Relation relation = model_.modes[static_cast<std::size_t>(mode)].transitions[static_cast<std::size_t>(k)]
                                  .guard.atoms()[static_cast<std::size_t>(i)].relation;
    const bool holds_when_larger = relation == Relation::kGreater || relation == Relation::kGreaterEqual;
    const S direction = holds_when_larger == want ? S(1) : S(-1);  // increase e or decrease it
    const S norm2 = atom_gradient(mode, k, i, t, x);
    if (!(norm2 > S(0))) return;
    S distance = abs(detector_.atom_value(mode, k, i, t, x)) / sqrt(norm2);
    const S smallest = machine_epsilon<S>() * std::max<S>(distance, S(1));
    distance = std::max(distance, smallest);
    for (int attempt = 0; attempt < 64; ++attempt) {
      for (std::size_t j = 0; j < n_; ++j) x_mid_[j] = x[j] + direction * distance * fb_[j] / sqrt(norm2);
      if (detector_.atom_holds(mode, k, i, t, x_mid_.data()) == want) {
        std::copy(x_mid_.begin(), x_mid_.end(), x);
        return;
      }
      distance *= 2;
    }
  }

  const Model<S>& model_;
  TransitionDetector<S>& detector_;
  SurfaceSides<S> sides_;  // the atoms on S and how they read on either side
  CornerMotion<S> corner_;  // on S and a second surface at once (codimension 2)
  std::int64_t* rhs_evals_;
  std::size_t n_;
  std::vector<S> x_mid_, fa_, fb_, entry_;
  FieldFunction<S> field_;
  int a_ = -1;       // the mode the motion is in: the sliding arrival's
  int b_ = -1;       // the mode on the other side: the chain's b, or the mode settle_b found
  Surface surface_;  // the chain's b, the guards a -> b and b -> a and the atom of each on the surface
  bool active_ = false;
  S t_start_ = S(0);
};

}  // namespace hysim
