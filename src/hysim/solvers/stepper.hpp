// The integrator interface: a stepper that takes a step, reports whether it was accepted,
// and interpolates inside the last accepted step (dense output).
//
// The simulator talks only to this interface; Boost.Odeint's template machinery stays in
// solvers/odeint_steppers.cpp. Layering follows odeint: a Runge-Kutta stepper, an error
// checker and step adjuster (odeint's controlled stepper), and a dense output kept per step.
// A rejected step is a return value, not an exception.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hysim/core/jacobian_pattern.hpp"
#include "hysim/core/scalar.hpp"

namespace hysim {

// The right-hand side the stepper integrates: the field of the active mode, counted.
template <class S>
struct Rhs {
  const std::function<void(S, const S*, S*)>* field = nullptr;
  std::int64_t* evaluations = nullptr;

  void operator()(S t, const S* x, S* dxdt) const {
    ++*evaluations;
    (*field)(t, x, dxdt);
  }
};

enum class StepStatus { kAccepted, kRejected };

template <class S>
struct StepOutcome {
  StepStatus status = StepStatus::kAccepted;
  S h_next = S(0);  // the stepper's proposal for the next step (smaller after a rejection)
};

// Tolerances of the error control, per component i:
//   err_i / (atol_i + rtol * (|x_i| + h |dx_i/dt|)) <= 1   (odeint's default error checker),
// with atol_i = atols[i] when the run gives absolute tolerances per state, else atol.
template <class S>
struct StepperTolerances {
  S rtol = S(1e-6);
  S atol = S(1e-9);
  std::vector<S> atols{};  // one per state, or empty: atol for every state

  S atol_at(std::size_t i) const { return atols.empty() ? atol : atols[i]; }
};

// How the implicit steppers factor their iteration matrix (solvers/iteration_matrix.hpp):
// kAuto: sparse LU on a model's Jacobian pattern when the model is large and sparse enough,
// dense LU otherwise; kDense, kSparse: that one.
enum class LinearSolver { kAuto, kDense, kSparse };
// "auto", "dense", "sparse"; throws InvalidArgument otherwise.
LinearSolver linear_solver_from_name(std::string_view name);

template <class S>
class Stepper {
 public:
  virtual ~Stepper() = default;

  virtual std::string_view name() const = 0;
  // Adaptive steppers control their error; fixed-step ones accept every step.
  virtual bool is_adaptive() const = 0;
  // Order of the solution (the propagated one for embedded pairs).
  virtual int order() const = 0;

  // (Re)starts at (t0, x0) with the field rhs. dxdt0 is f(t0, x0) when the caller already
  // has it (it is then copied, saving one evaluation); nullptr makes the stepper evaluate it.
  virtual void restart(Rhs<S> rhs, S t0, const S* x0, const S* dxdt0) = 0;

  // Attempts one step of size h from the current point. When accepted, the current point
  // moves to t + h and the step's dense output becomes available on [t_previous, t_current];
  // a rejected attempt leaves both unchanged. Every field evaluation goes through the Rhs;
  // nothing is allocated after the first step.
  virtual StepOutcome<S> try_step(S h) = 0;

  // The structure of the field's Jacobian (null: unknown) and the factorisation the implicit
  // steppers use with it; the explicit ones ignore both. Call before restart().
  virtual void use_jacobian_pattern(std::shared_ptr<const JacobianPattern> pattern, LinearSolver choice) {
    (void)pattern;
    (void)choice;
  }

  // The step the stepper would rather attempt than h (at most h): a multistep method restarted
  // at order 1 asks for a step that order can take. Evaluates nothing. Default: h.
  virtual S preferred_step(S h) const { return h; }

  // Hairer's stiffness test on the last accepted step (solvers/stiffness.hpp): h |lambda| over
  // the method's stability bound on the negative real axis, with h |lambda| estimated from two
  // evaluations of the field at the step's end. Above 1 the step sits at the bound: stability,
  // not accuracy, limits it. NaN for a stepper without the test (the implicit ones, and the
  // explicit ones without two evaluations at the step's end), or before its first step. Call it
  // right after an accepted step; evaluates nothing, allocates nothing.
  virtual S stiffness_ratio() const { return std::numeric_limits<S>::quiet_NaN(); }

  // x(t) for t in [t_previous(), t_current()] from the last accepted step's dense output.
  // Evaluates no field and allocates nothing; at t_previous() and t_current() it returns the
  // stored points exactly.
  virtual void interpolate(S t, S* x) const = 0;

  // The degree of the last accepted step's dense output, a polynomial in t on
  // [t_previous(), t_current()]: the certified strategy reads it through degree + 1 of its
  // points (solvers/dense_enclosure.hpp). -1: not a polynomial of a known degree.
  virtual int dense_degree() const { return -1; }

  virtual S t_current() const = 0;
  virtual const S* x_current() const = 0;
  virtual const S* dxdt_current() const = 0;
  virtual S t_previous() const = 0;
  virtual const S* x_previous() const = 0;
};

// Makes a stepper for states of size n.
template <class S>
using StepperMaker = std::unique_ptr<Stepper<S>> (*)(std::size_t n, const StepperTolerances<S>& tolerances);

struct SolverInfo {
  std::string name;
  std::string description;
  bool adaptive = true;
  // The stepper in each scalar type.
  StepperMaker<double> make_double = nullptr;
  StepperMaker<long double> make_long_double = nullptr;
  StepperMaker<float128> make_float128 = nullptr;
};

// The solvers hysim offers, by --solver name: the one list of their names.
const std::vector<SolverInfo>& solver_catalog();

// Makes the named stepper of solver_catalog() for states of size n. Throws InvalidArgument
// for unknown names.
template <class S>
std::unique_ptr<Stepper<S>> make_stepper(std::string_view name, std::size_t n,
                                         const StepperTolerances<S>& tolerances);

}  // namespace hysim
