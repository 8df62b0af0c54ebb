// The atoms that sit on a sliding surface, and how each reads on either side of it.
//
// A sliding motion moves along the surface S = {e_S = 0} of one atom (a's guard to b,
// events/sliding.hpp). Other atoms may vanish on S too: a model whose fields hold conditions
// (`if`, `sign`) is split into one mode per combination of conditions, and one surface then
// carries an atom per condition. The hoop of Shpakov's rule tables brakes while h < R and
// Vy < 0 and is pushed back while h < R and Vy > 0: on Vy = 0 neither condition holds, and a
// third mode (no elastic force) lives on the surface itself. Read literally on S, such atoms
// take whichever truth rounding gives them, and the motion would leave into that third mode
// at once. Filippov's solutions ignore what the field does on a set of measure zero (the
// convex hull of f over a neighbourhood less any null set: A. F. Filippov, "Differential
// Equations with Discontinuous Righthand Sides", 1988, Chapter 2, section 4), so on S each
// such atom is read as it reads on the side of the mode whose guard holds it: on a's side
// (A, where a's atom on S does not hold) or on b's side (B).
//
// An atom counts as on S at a point of S when it vanishes there (|e| / |grad e| within
// sqrt(eps) max(|x|, 1)) and its gradient is parallel to grad e_S (cosine within 1e-6 of
// +-1). Its sign on side A is then sign(grad e . grad e_S) times the sign of e_S there.
// Gradients are central differences (step eps^(1/3) max(|x_j|, 1)).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iterator>
#include <vector>

#include "hysim/core/model.hpp"
#include "hysim/core/scalar.hpp"
#include "hysim/events/detection.hpp"

namespace hysim {

// grad e of atom i of transition k of `mode` at (t, x) by central differences into `grad`
// (x is restored); returns |grad e|^2.
template <class S>
S atom_gradient(TransitionDetector<S>& detector, std::size_t n, int mode, int k, int i, S t, S* x, S* grad) {
  using std::abs;
  using std::cbrt;
  S norm2 = S(0);
  for (std::size_t j = 0; j < n; ++j) {
    const S d = cbrt(machine_epsilon<S>()) * std::max<S>(abs(x[j]), S(1));
    const S keep = x[j];
    x[j] = keep + d;
    const S up = detector.atom_value(mode, k, i, t, x);
    x[j] = keep - d;
    const S down = detector.atom_value(mode, k, i, t, x);
    x[j] = keep;
    grad[j] = (up - down) / (S(2) * d);
    norm2 += grad[j] * grad[j];
  }
  return norm2;
}

template <class S>
class SurfaceSides {
 public:
  enum class Side { kA, kB };

  // The model and the detector outlive this.
  SurfaceSides(const Model<S>& model, TransitionDetector<S>* detector)
      : model_(model), detector_(*detector), n_(model.state_size()), point_(n_), grad_(n_), grad_surface_(n_) {
    std::size_t atoms = 0;
    for (const Mode<S>& mode : model.modes) {
      for (const Transition<S>& tr : mode.transitions) atoms += tr.guard.atoms().size();
    }
    on_surface_.reserve(atoms + 1);  // each mode's atoms at most once: no allocation while running
    modes_.reserve(model.modes.size());
  }

  // A new surface: atom i of transition k of `mode` (a's atom, e_S), at the point (t, x) on it.
  void start(int mode, int k, int i, S t, const S* x) {
    using std::abs;
    using std::sqrt;
    on_surface_.clear();
    modes_.clear();
    std::copy(x, x + n_, point_.begin());
    t_ = t;
    surface_ = {mode, k, i, false, true};  // e_S's own atom: false on a's side, true on b's
    on_surface_.push_back(surface_);
    norm_surface_ = sqrt(atom_gradient(detector_, n_, mode, k, i, t, point_.data(), grad_surface_.data()));
    const Relation relation = atom_of(mode, k, i).relation;
    sign_on_a_ = relation == Relation::kGreater || relation == Relation::kGreaterEqual ? S(-1) : S(1);
    S scale = S(1);
    for (const S& v : point_) scale = std::max<S>(scale, abs(v));
    reach_ = sqrt(machine_epsilon<S>()) * scale;
  }

  // Adds the atoms of `mode`'s guards that lie on the surface (once per mode and surface).
  void add_mode(int mode) {
    using std::abs;
    using std::sqrt;
    if (std::find(modes_.begin(), modes_.end(), mode) != modes_.end()) return;
    modes_.push_back(mode);
    const auto& transitions = model_.modes[static_cast<std::size_t>(mode)].transitions;
    for (std::size_t k = 0; k < transitions.size(); ++k) {
      const auto& atoms = transitions[k].guard.atoms();
      for (std::size_t i = 0; i < atoms.size(); ++i) {
        const int kk = static_cast<int>(k), ii = static_cast<int>(i);
        if (mode == surface_.mode && kk == surface_.k && ii == surface_.i) continue;
        const S e = detector_.atom_value(mode, kk, ii, t_, point_.data());
        const S norm = sqrt(atom_gradient(detector_, n_, mode, kk, ii, t_, point_.data(), grad_.data()));
        if (!(norm > S(0)) || !(abs(e) <= reach_ * norm)) continue;
        S dot = S(0);
        for (std::size_t j = 0; j < n_; ++j) dot += grad_[j] * grad_surface_[j];
        if (!(abs(dot) >= (S(1) - S(1e-6)) * norm * norm_surface_)) continue;
        const S sign_a = dot > S(0) ? sign_on_a_ : -sign_on_a_;
        on_surface_.push_back({mode, kk, ii, relation_holds(atoms[i].relation, sign_a),
                               relation_holds(atoms[i].relation, -sign_a)});
      }
    }
  }

  // `mode` lives on the surface itself (its guards fire on either side, as the cam follower's
  // contact, left for impact below u = 0 and for flight above): its atoms are read literally,
  // but those of its transition `keep` (the guard across the surface).
  void read_literally(int mode, int keep) {
    std::erase_if(on_surface_, [&](const OnSurface& atom) { return atom.mode == mode && atom.k != keep; });
  }

  // How atom i of transition k of `mode` reads on `side`: 0 or 1, or -1 (not on the surface:
  // read it literally). A reader for TransitionDetector::fired_on_side.
  auto reader(int mode, Side side) const {
    return [this, mode, side](std::size_t k, std::size_t i) {
      for (const OnSurface& atom : on_surface_) {
        if (atom.mode == mode && atom.k == static_cast<int>(k) && atom.i == static_cast<int>(i)) {
          return static_cast<int>(side == Side::kA ? atom.on_a : atom.on_b);
        }
      }
      return -1;
    };
  }

 private:
  struct OnSurface {
    int mode, k, i;
    bool on_a, on_b;  // the atom's truth on a's side and on b's side of the surface
  };

  const Atom<S>& atom_of(int mode, int k, int i) const {
    return model_.modes[static_cast<std::size_t>(mode)].transitions[static_cast<std::size_t>(k)]
        .guard.atoms()[static_cast<std::size_t>(i)];
  }

  const Model<S>& model_;
  TransitionDetector<S>& detector_;
  std::size_t n_;
  std::vector<S> point_, grad_, grad_surface_;
  std::vector<OnSurface> on_surface_;
  std::vector<int> modes_;  // the modes whose atoms were examined
  OnSurface surface_{};
  S t_ = S(0), norm_surface_ = S(0), sign_on_a_ = S(1), reach_ = S(0);
};

}  // namespace hysim
