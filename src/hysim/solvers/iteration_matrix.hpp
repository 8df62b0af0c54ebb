// The Jacobian J = df/dx of the implicit steppers (rosenbrock4, ndf) and their iteration matrix
// M = d I - s J (rosenbrock4: d = 1 / (gamma h), s = 1; ndf: d = 1, s = c), factored by Eigen:
//   - dense: J and M as n x n matrices, M = P L U by partial pivoting (Eigen::PartialPivLU;
//     Golub & Van Loan, Matrix Computations, Algorithm 3.4.1, blocked);
//   - sparse: J and M in compressed columns on the model's Jacobian pattern
//     (core/jacobian_pattern.hpp), M = P L U Q by Eigen::SparseLU (supernodal, after
//     SuperLU: J. W. Demmel et al., SIAM J. Matrix Anal. Appl. 20(3), 1999) with the columns
//     ordered once by COLAMD; the numeric factorisation is repeated whenever d or s changes.
// J is a forward difference quotient with CVODE's increments (below), one evaluation of the
// field per group of structurally orthogonal columns (Curtis, Powell & Reid): n evaluations for
// a dense pattern (or none known), 3 for a three-point stencil. An entry outside the pattern is
// never computed: it is exactly 0.
//
// Which of the two: LinearSolver::kAuto takes the sparse one when the model gives a pattern,
// n >= kSparseMinStates and at most kSparseMaxDensity of the entries may be nonzero (below
// that size, or above that density, dense LU is as fast and its rounding that of every earlier
// release); kDense and kSparse force the choice (kSparse on a model without a pattern: every
// entry is in it).
//
// Eigen stays inside iteration_matrix.cpp: this header is what the steppers see.
#pragma once

#include <cstddef>
#include <memory>

#include "hysim/core/jacobian_pattern.hpp"
#include "hysim/solvers/stepper.hpp"

namespace hysim::solvers {

inline constexpr std::size_t kSparseMinStates = 64;
inline constexpr double kSparseMaxDensity = 0.1;

template <class S>
class IterationMatrix {
 public:
  // Dense until use_pattern() says otherwise.
  explicit IterationMatrix(std::size_t n);
  ~IterationMatrix();
  IterationMatrix(const IterationMatrix&) = delete;
  IterationMatrix& operator=(const IterationMatrix&) = delete;

  // The structure of J from now on (null: unknown) and the choice of factorisation; drops J.
  void use_pattern(std::shared_ptr<const JacobianPattern> pattern, LinearSolver choice);
  bool is_sparse() const;
  // The number of field evaluations a Jacobian costs: the number of column groups.
  std::size_t evaluations_per_jacobian() const;

  // J = df/dx at (t, x), where f(t, x) = f0, for steps of size h (0: none known yet), by forward
  // differences through the counted field, with the increments of CVODE's difference-quotient
  // Jacobian (A. C. Hindmarsh, R. Serban et al., "User Documentation for CVODE", section
  // "Mathematical Considerations"), scaled by the error control's tolerances and the step:
  //   w_j      = atol_j + rtol |x_j|                 (the tolerance of component j)
  //   ||f||    = sqrt(sum_i (f0_i / w_i)^2 / n)      (f0 in units of the tolerances, RMS)
  //   min_inc  = 1000 |h| u n ||f||, or 1 when |h| ||f|| = 0 (at rest, or no step known yet)
  //   delta_j  = max(sqrt(u) |x_j|, min_inc w_j),    u = machine_epsilon (CVODE's unit roundoff)
  // taken as the representable difference (x_j + delta_j) - x_j. sqrt(u) |x_j| balances
  // truncation and rounding for a component of size |x_j|; the second term keeps a component
  // near 0 from a zero or tiny increment, in its own units (Robertson's y2 falls to 1e-14 while
  // y1 and y3 are of order 1). The step enters because the iteration matrices use h J: the
  // rounding error of column j, about u |f| / delta_j, times h and a change of one tolerance,
  // stays near 1 / (1000 n) of the tolerances. x_scratch and f_scratch hold n values each;
  // x_scratch holds x afterwards. False when an entry is not finite.
  bool differentiate(const Rhs<S>& rhs, S t, const S* x, const S* f0, const StepperTolerances<S>& tolerances, S h,
                     S* x_scratch, S* f_scratch);

  // out = J v.
  void multiply(const S* v, S* out) const;
  // M = diagonal I - scale J, factored; false when M is singular to working precision or not
  // finite.
  bool factor(S diagonal, S scale);
  // b := M^-1 b with the factors of the last factor(); NaN when that one failed.
  void solve(S* b) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

extern template class IterationMatrix<double>;
extern template class IterationMatrix<long double>;
extern template class IterationMatrix<float128>;

}  // namespace hysim::solvers
