// Sliding on the intersection of two surfaces (codimension 2): a corner where four modes
// meet and every field drives the state toward both surfaces.
//
// S1 is the surface of the sliding motion (a's atom in its guard to b, events/sliding.hpp) and
// S2 that of another guard's atom that vanishes at the entry point. The four modes are named
// by their sides: a (A1, A2), b (B1, A2), c (A1, B2), d (B1, B2), B the side where the atom
// holds, and p_m, q_m the rates of S1, S2 along f_m, oriented toward B1 and B2. Filippov's
// convex combination of four fields that keeps both surfaces is not unique (Utkin's
// equivalent control leaves a one-parameter family). The bilinear choice of L. Dieci and L. Lopez,
// "Sliding motion on discontinuity surfaces of high co-dimension. A construction for selecting
// a Filippov vector field" (Numerische Mathematik 117, 2011), fixes it:
//   f_s = (1 - alpha)(1 - beta) f_a + alpha (1 - beta) f_b + (1 - alpha) beta f_c + alpha beta f_d,
// with alpha, beta in [0, 1] such that both rates of f_s vanish. Each rate is bilinear in
// (alpha, beta): for fixed beta the S1 condition is linear in alpha,
//   alpha(beta) = P0 / (P0 - P1),  P0 = (1 - beta) p_a + beta p_c,  P1 = (1 - beta) p_b + beta p_d,
// and the S2 condition times (P0 - P1) is a quadratic in beta, solved in closed form; the
// corner holds while a root has alpha and beta in [0, 1] (Dieci and Lopez show it unique
// where the corner attracts). It starts where such a root lies inside (0, 1)^2 and no other
// guard fires, the atoms on S1 and S2 read on each mode's own sides. It ends through a guard
// that fires (its chain follows), or when the root leaves the square: alpha -> 0 leaves S1 to
// A1, alpha -> 1 to B1, beta likewise S2; one row "end_of_sliding" into that quadrant's mode.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include "hysim/core/model.hpp"
#include "hysim/core/scalar.hpp"
#include "hysim/events/detection.hpp"
#include "hysim/events/surface_sides.hpp"

namespace hysim {

// The first positive root of rho(t + h) ~ rho + rho' h + rho'' h^2 / 2 from rho at t, t + d,
// t + 2d (second-order differences); infinity when rho(t) <= 0 or there is none.
template <class S>
S predicted_root(const S* r, const S& d) {
  using std::sqrt;
  const S inf = std::numeric_limits<S>::infinity();
  if (!(r[0] > S(0))) return inf;  // at the exit point already: the step's end decides
  const S slope = (S(4) * r[1] - S(3) * r[0] - r[2]) / (S(2) * d);
  const S curvature = (r[2] - S(2) * r[1] + r[0]) / (d * d);
  if (curvature == S(0)) return slope < S(0) ? r[0] / -slope : inf;
  const S discriminant = slope * slope - S(2) * curvature * r[0];
  if (discriminant < S(0)) return inf;  // the parabola stays above 0
  const S root = sqrt(discriminant);
  S h = inf;
  for (const S& candidate : {(-slope - root) / curvature, (-slope + root) / curvature}) {
    if (candidate > S(0)) h = std::min(h, candidate);
  }
  return h;
}

template <class S>
class CornerMotion {
 public:
  using Side = typename SurfaceSides<S>::Side;
  struct Exit {
    int from = -1, to = -1, transition = -1;  // as SlidingMotion::Exit
  };

  // The model, the detector and the counter outlive the motion.
  CornerMotion(const Model<S>& model, TransitionDetector<S>* detector, std::int64_t* rhs_evals)
      : model_(model), detector_(*detector), rhs_evals_(rhs_evals), n_(model.state_size()), sides2_(model, detector),
        x_mid_(n_), grad_(n_) {
    for (auto& f : f_) f.resize(n_);
  }

  bool active() const { return active_; }
  void stop() { active_ = false; }

  // Tries the corner at t: S1 is atom `atom1` of a's transition `to_b` (sides1 reads its atoms,
  // for a and b already), S2 an atom of transition k2 of `m` (a or b) that vanishes at `entry`
  // (on S1). True, with `entry` projected onto both surfaces, when the four modes are found and
  // the bilinear weights lie inside (0, 1)^2 at `x`.
  bool start(S t, int a, int to_b, int atom1, int b, int m, int k2, SurfaceSides<S>* sides1, const S* x, S* entry) {
    sides1_ = sides1;
    s1_ = {a, to_b, atom1};
    const int i2 = vanishing_atom(m, k2, m == a ? Side::kA : Side::kB, t, entry);
    if (i2 < 0) return false;
    s2_ = {m, k2, i2};
    mode_ = {a, b, -1, -1};
    sides2_.start(m, k2, i2, t, entry);
    for (int q = 0; q < 2; ++q) sides2_.add_mode(mode_[q]);
    mode_[2] = across_s2(a, Side::kA, t, x);
    mode_[3] = across_s2(b, Side::kB, t, x);
    if (mode_[2] < 0 || mode_[3] < 0) return false;
    for (int q = 2; q < 4; ++q) {
      sides1_->add_mode(mode_[q]);
      sides2_.add_mode(mode_[q]);
    }
    if (other_guard(t, x).transition >= 0) return false;
    rates(t, x);
    *rhs_evals_ += 4;
    const Weights w = weights();
    if (!(w.inside && w.alpha > S(0) && w.alpha < S(1) && w.beta > S(0) && w.beta < S(1))) return false;
    for (int sweep = 0; sweep < 2; ++sweep) {
      project(s1_, t, entry);
      project(s2_, t, entry);
    }
    active_ = true;
    return true;
  }

  // f_s(t, x): four field evaluations (three counted here, one by the stepper).
  void equivalent_field(S t, const S* x, S* dxdt) {
    rates(t, x);
    *rhs_evals_ += 3;
    const Weights weight = weights();
    const S alpha = std::clamp<S>(weight.alpha, S(0), S(1)), beta = std::clamp<S>(weight.beta, S(0), S(1));
    const S w[4] = {(S(1) - alpha) * (S(1) - beta), alpha * (S(1) - beta), (S(1) - alpha) * beta, alpha * beta};
    for (std::size_t j = 0; j < n_; ++j) dxdt[j] = w[0] * f_[0][j] + w[1] * f_[1][j] + w[2] * f_[2][j] + w[3] * f_[3][j];
  }

  // Whether the motion at (t, x) still holds: kept for exit() when it does not.
  bool holds(S t, const S* x) {
    const Exit other = other_guard(t, x);
    if (other.transition >= 0) {
      leaving_ = other;
      return false;
    }
    rates(t, x);
    *rhs_evals_ += 4;
    const Weights w = weights();
    if (w.inside) return true;
    leaving_ = {mode_[0], quadrant(w), -1};
    return false;
  }

  // The motion ends at t_a (x moved to the sides of the mode it goes on from), as the last
  // probe that did not hold says.
  Exit exit(S t, S* x) {
    active_ = false;
    const int from = leaving_.transition >= 0 ? leaving_.from : leaving_.to;
    const int q = static_cast<int>(std::find(mode_.begin(), mode_.end(), from) - mode_.begin());
    push(s1_, t, x, q == 1 || q == 3);
    push(s2_, t, x, q == 2 || q == 3);
    return leaving_;
  }

  // The gamma rule on the corner: the first predicted time at which alpha or beta reaches 0
  // or 1, each predicted to second order from t, t + d, t + 2d along f_s (the SlidingMotion's
  // rule on its two rates).
  S exit_time(S t, const S* x, const S* fs) {
    using std::abs;
    using std::cbrt;
    const S d = cbrt(machine_epsilon<S>()) * std::max<S>(abs(t), S(1));
    std::array<std::array<S, 3>, 4> r;
    for (int j = 0; j < 3; ++j) {
      const S s = S(j) * d;
      for (std::size_t i = 0; i < n_; ++i) x_mid_[i] = x[i] + s * fs[i];
      rates(t + s, x_mid_.data());
      *rhs_evals_ += 4;
      const Weights w = weights();
      const auto at = static_cast<std::size_t>(j);
      r[0][at] = w.alpha;
      r[1][at] = S(1) - w.alpha;
      r[2][at] = w.beta;
      r[3][at] = S(1) - w.beta;
    }
    S h = std::numeric_limits<S>::infinity();
    for (const auto& rho : r) h = std::min(h, predicted_root(rho.data(), d));
    return h;
  }

 private:
  struct AtomRef {
    int mode = -1, k = -1, i = -1;
  };

  // The four modes' fields at (t, x) into f_, and the oriented rates of S1 (p_) and S2 (q_).
  void rates(S t, const S* x) {
    for (int q = 0; q < 4; ++q) {
      model_.modes[static_cast<std::size_t>(mode_[q])].field(t, x, f_[q].data());
      p_[q] = detector_.oriented_rate(s1_.mode, s1_.k, s1_.i, t, x, f_[q].data());
      q_[q] = detector_.oriented_rate(s2_.mode, s2_.k, s2_.i, t, x, f_[q].data());
    }
  }

  // Dieci and Lopez's (alpha, beta) from p_, q_ (see the header): the root of the quadratic in
  // beta inside [0, 1]^2 (inside), else the real root nearest to the square; no real root:
  // (0.5, 0.5), not inside.
  struct Weights {
    S alpha = S(0.5), beta = S(0.5);
    bool inside = false;
  };
  Weights weights() const {
    using std::abs;
    using std::sqrt;
    // P0 = u0 + u1 beta, P0 - P1 = v0 + v1 beta; the S2 rate is Qa + alpha Qd with
    // Qa = w0 + w1 beta, Qd = z0 + z1 beta; times (P0 - P1): c2 beta^2 + c1 beta + c0 = 0.
    const S u0 = p_[0], u1 = p_[2] - p_[0];
    const S v0 = p_[0] - p_[1], v1 = (p_[2] - p_[0]) - (p_[3] - p_[1]);
    const S w0 = q_[0], w1 = q_[2] - q_[0];
    const S z0 = q_[1] - q_[0], z1 = (q_[3] - q_[2]) - (q_[1] - q_[0]);
    const S c2 = w1 * v1 + u1 * z1, c1 = w0 * v1 + w1 * v0 + u0 * z1 + u1 * z0, c0 = w0 * v0 + u0 * z0;
    S roots[2];
    int count = 0;
    const S scale = std::max({abs(c0), abs(c1), abs(c2)});
    if (!(scale > S(0))) return {};
    if (abs(c2) <= S(64) * machine_epsilon<S>() * scale) {
      if (c1 != S(0)) roots[count++] = -c0 / c1;
    } else {
      const S discriminant = c1 * c1 - S(4) * c2 * c0;
      if (discriminant >= S(0)) {
        const S q = -(c1 + (c1 < S(0) ? -sqrt(discriminant) : sqrt(discriminant))) / 2;  // no cancellation
        if (q != S(0)) roots[count++] = c0 / q;
        roots[count++] = q / c2;
      }
    }
    Weights best;
    S best_distance = std::numeric_limits<S>::infinity();
    for (int r = 0; r < count; ++r) {
      const S beta = roots[r];
      const S d = v0 + v1 * beta;
      const S alpha = d != S(0) ? (u0 + u1 * beta) / d : S(0.5);
      const S distance = std::max({-alpha, alpha - S(1), -beta, beta - S(1), S(0)});
      if (distance < best_distance) {
        best_distance = distance;
        best = {alpha, beta, distance == S(0)};
      }
    }
    return best;
  }

  // The quadrant the motion leaves into, from the root outside the square: alpha < 0 leaves S1
  // to A1, alpha > 1 to B1, beta likewise S2; a surface not left keeps the A side.
  int quadrant(const Weights& w) const { return mode_[(w.alpha > S(1) ? 1 : 0) + (w.beta > S(1) ? 2 : 0)]; }

  // The first guard of a corner mode that fires, each read on its own sides of S1 and S2.
  Exit other_guard(S t, const S* x) {
    for (int q = 0; q < 4; ++q) {
      const int k = detector_.fired_on_side(mode_[q], -1, t, x, reader(q));
      if (k >= 0) return {mode_[q], -1, k};
    }
    return {};
  }

  auto reader(int q) const {
    const int mode = mode_[q];
    const auto r1 = sides1_->reader(mode, q == 1 || q == 3 ? Side::kB : Side::kA);
    const auto r2 = sides2_.reader(mode, q >= 2 ? Side::kB : Side::kA);
    return [r1, r2](std::size_t k, std::size_t i) {
      const int first = r1(k, i);
      return first >= 0 ? first : r2(k, i);
    };
  }

  // The mode across S2 from `from` (on `side1` of S1): the target of the first guard without a
  // reset that fires with S2's atoms read on the B side and not on the A side.
  int across_s2(int from, Side side1, S t, const S* x) {
    const auto r1 = sides1_->reader(from, side1);
    const auto on = [&](Side side2) {
      const auto r2 = sides2_.reader(from, side2);
      return [r1, r2](std::size_t k, std::size_t i) {
        const int first = r1(k, i);
        return first >= 0 ? first : r2(k, i);
      };
    };
    const int k = detector_.fired_on_side(from, -1, t, x, on(Side::kB));
    if (k < 0 || detector_.fires_on_side(from, k, t, x, on(Side::kA))) return -1;
    const Transition<S>& tr = model_.modes[static_cast<std::size_t>(from)].transitions[static_cast<std::size_t>(k)];
    if (tr.reset || !model_.modes[static_cast<std::size_t>(tr.target)].field) return -1;
    return tr.target;
  }

  // The atom of transition k of `mode` (on `side1` of S1) that vanishes at x (within
  // sqrt(eps) max(|x|, 1) of its zero) and does not lie on S1, or -1.
  int vanishing_atom(int mode, int k, Side side1, S t, S* x) {
    using std::abs;
    using std::sqrt;
    S scale = S(1);
    for (std::size_t j = 0; j < n_; ++j) scale = std::max<S>(scale, abs(x[j]));
    const auto& atoms = model_.modes[static_cast<std::size_t>(mode)].transitions[static_cast<std::size_t>(k)].guard.atoms();
    const auto on_s1 = sides1_->reader(mode, side1);
    for (std::size_t i = 0; i < atoms.size(); ++i) {
      const int ii = static_cast<int>(i);
      if (on_s1(static_cast<std::size_t>(k), i) >= 0) continue;
      const S e = detector_.atom_value(mode, k, ii, t, x);
      const S norm = sqrt(atom_gradient(detector_, n_, mode, k, ii, t, x, grad_.data()));
      if (norm > S(0) && abs(e) <= sqrt(machine_epsilon<S>()) * scale * norm) return ii;
    }
    return -1;
  }

  // Newton's step onto the atom's zero along its gradient, while it reduces |e|.
  void project(const AtomRef& s, S t, S* x) {
    using std::abs;
    const S e = detector_.atom_value(s.mode, s.k, s.i, t, x);
    if (e == S(0)) return;
    const S norm2 = atom_gradient(detector_, n_, s.mode, s.k, s.i, t, x, grad_.data());
    if (!(norm2 > S(0))) return;
    for (std::size_t j = 0; j < n_; ++j) x_mid_[j] = x[j] - e * grad_[j] / norm2;
    if (abs(detector_.atom_value(s.mode, s.k, s.i, t, x_mid_.data())) < abs(e)) std::copy(x_mid_.begin(), x_mid_.end(), x);
  }

  // Moves x along the atom's gradient until it reads `holds` (the B side) or not (A side).
  void push(const AtomRef& s, S t, S* x, bool holds) {
    using std::abs;
    using std::sqrt;
    if (detector_.atom_holds(s.mode, s.k, s.i, t, x) == holds) return;
    const S norm2 = atom_gradient(detector_, n_, s.mode, s.k, s.i, t, x, grad_.data());
    if (!(norm2 > S(0))) return;
    const Relation relation = model_.modes[static_cast<std::size_t>(s.mode)].transitions[static_cast<std::size_t>(s.k)]
                                  .guard.atoms()[static_cast<std::size_t>(s.i)].relation;
    const bool larger = relation == Relation::kGreater || relation == Relation::kGreaterEqual;
    const S direction = larger == holds ? S(1) : S(-1);
    S distance = std::max<S>(abs(detector_.atom_value(s.mode, s.k, s.i, t, x)) / sqrt(norm2), machine_epsilon<S>());
    for (int attempt = 0; attempt < 64; ++attempt, distance *= 2) {
      for (std::size_t j = 0; j < n_; ++j) x_mid_[j] = x[j] + direction * distance * grad_[j] / sqrt(norm2);
      if (detector_.atom_holds(s.mode, s.k, s.i, t, x_mid_.data()) == holds) {
        std::copy(x_mid_.begin(), x_mid_.end(), x);
        return;
      }
    }
  }

  const Model<S>& model_;
  TransitionDetector<S>& detector_;
  std::int64_t* rhs_evals_;
  std::size_t n_;
  SurfaceSides<S>* sides1_ = nullptr;  // S1's atoms (the SlidingMotion's)
  SurfaceSides<S> sides2_;             // S2's atoms
  AtomRef s1_, s2_;                    // the two surfaces' atoms
  std::array<int, 4> mode_{};          // a, b, c, d
  std::array<std::vector<S>, 4> f_;    // their fields at the last point read
  S p_[4]{}, q_[4]{};                  // the rates of S1 and S2 along them, toward B1 and B2
  std::vector<S> x_mid_, grad_;
  Exit leaving_;                       // how the last probe that did not hold leaves
  bool active_ = false;
};

}  // namespace hysim
