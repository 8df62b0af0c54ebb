// Interval enclosures of a model's guard atoms over boxes of time, state and rate: what
// certified event detection (events/certifier.hpp) reads to prove that no guard changes sign
// between two points. A model offers them through Model::guard_enclosure; model files do
// (lang/interval.hpp), from the expression graph their guards and rates are compiled from.
#pragma once

#include <functional>
#include <memory>

#include "hysim/core/interval.hpp"

namespace hysim {

// One run's enclosures (it keeps values per box, so it is not shared between threads).
class GuardEnclosure {
 public:
  virtual ~GuardEnclosure() = default;

  // The box: t in `t`, x_i in x[i], and the rates of the states along the trajectory being
  // enclosed in dxdt[i] (null: unknown, the atoms' rates are then unbounded).
  virtual void set_box(Interval t, const Interval* x, const Interval* dxdt) = 0;
  // Over the box: an enclosure of e(t, x) of atom i of transition k of `mode` (in the order
  // of Guard::atoms()), and of its rate de/dt = de/dt|_x + grad e . dx/dt (the whole line
  // where the model gives none).
  virtual Interval value(int mode, int k, int i) = 0;
  virtual Interval rate(int mode, int k, int i) = 0;
  // A number naming the atom's function: atoms with the same number are one function read
  // with different relations (Atom::shared).
  virtual int function_id(int mode, int k, int i) const = 0;

  // The exact flow (certified detection, level 2): enclosures of the mode's field over the box
  // set by set_box (its t and x), and of its derivatives: the Jacobian df_i/dx_j (n x n, row
  // by row) and df_i/dt. False when the model offers none, or when the field may jump inside
  // the box (a discontinuity of its own, such as sign or if, undecided there): the field is
  // then not Lipschitz over the box, and nothing follows.
  virtual bool has_flow() const { return false; }
  virtual bool field(int /*mode*/, Interval* /*f*/) { return false; }
  virtual bool field_derivatives(int /*mode*/, Interval* /*jacobian*/, Interval* /*dfdt*/) { return false; }
};

// Makes one run's enclosures; empty: the model offers none.
using GuardEnclosureMaker = std::function<std::unique_ptr<GuardEnclosure>()>;

}  // namespace hysim
